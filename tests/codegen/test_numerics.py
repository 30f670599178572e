"""Numerics of the CPU backend: no FMA contraction where a recomputed product is subtracted
(the NaN softmax of issue 11), and a correctness check that counts NaN and inf apart."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import one_group_plan

from workbench.codegen import compile_plan
from workbench.codegen.check import check_outputs, compare, reference_outputs
from workbench.codegen.products import needs_strict_products, recomputed_values
from workbench.ir import GraphBuilder, expand_composites, verify

#: the input of issue 11: softmax(x * (1/3)) was NaN in the fused CPU kernel
C2 = np.array([9.7e9, 1e9, -3e9, 0.0], dtype=np.float32)


def scaled_softmax(shape=(4,), axis=0):
    """``softmax(x * (1/3))`` written out (max, subtract, exp, sum, divide) along ``axis``."""
    b = GraphBuilder("scaled_softmax")
    x = b.parameter("x", shape)
    xs = b.op("multiply", [x, b.splat(1 / 3, shape)], node_id="xs")
    keep = [d for d in range(len(shape)) if d != axis]
    mx = b.broadcast_to(b.reduce(xs, [axis], "maximum", float("-inf")), shape, keep)
    e = b.op("exponential", [b.op("subtract", [xs, mx], node_id="shifted")])
    s = b.broadcast_to(b.reduce(e, [axis], "add", 0.0), shape, keep)
    return verify(b.build([b.op("divide", [e, s], node_id="probs")]))


def duplicating_plan(graph):
    """The plan that gave the NaN: the max, the sum and the division each a kernel, the scaled
    input ``xs`` (and what follows it) recomputed in each."""
    from workbench.planner.plan import make_plan

    ops = [n.id for n in graph.topo_nodes() if n.op not in ("parameter", "constant")]
    r1, r2 = (n for n in ops if graph.node(n).op == "reduce")
    head = ops[:ops.index(r1)]
    mid = ops[ops.index(r1) + 1:ops.index(r2)]
    return make_plan(graph, [head + [r1], head + mid + [r2],
                             head + mid + ops[ops.index(r2) + 1:]], policy="test")


def _run(graph, plan, inputs, kernel_cache, exact_math=False):
    compiled = compile_plan(graph, plan, "cpu", exact_math=exact_math, cache_dir=kernel_cache)
    got = compiled.run(inputs)
    ref, exact = reference_outputs(graph, inputs)
    return compiled, check_outputs(graph, got, ref, exact)


def _plans(graph):
    from workbench.planner import plan_graph

    return {"one kernel": one_group_plan(graph), "duplicating": duplicating_plan(graph),
            "priority": plan_graph(graph, "priority"),
            "xla-cpu": plan_graph(graph, "xla-cpu")}


@pytest.mark.parametrize("exact_math", [False, True])
def test_the_nan_softmax_of_issue_11_matches_the_reference(kernel_cache, exact_math):
    g = scaled_softmax()
    for name, plan in _plans(g).items():
        compiled, (check,) = _run(g, plan, [C2], kernel_cache, exact_math)
        assert check.ok, (name, check)
        assert check.nan_count == check.inf_count == 0
        got = compiled.run([C2])[0]
        assert np.all(np.isfinite(got)) and got[0] == pytest.approx(1.0), (name, got)


def test_axis_0_of_a_3x1x1_softmax_is_right(kernel_cache):
    g = scaled_softmax((3, 1, 1), axis=0)
    x = np.array([9.7e9, 1e9, -3e9], dtype=np.float32).reshape(3, 1, 1)
    for name, plan in _plans(g).items():
        _, (check,) = _run(g, plan, [x], kernel_cache)
        assert check.ok, (name, check)


def test_only_kernels_that_subtract_a_recomputed_product_drop_contract(kernel_cache):
    g = scaled_softmax()
    plan = one_group_plan(g)
    compiled = compile_plan(g, plan, "cpu", cache_dir=kernel_cache)
    (k,) = compiled.kernels
    assert "fastmath={'reassoc'}" in k.source and "'contract'" not in k.source
    b = GraphBuilder("axpy")
    x, y = b.parameter("x", (64,)), b.parameter("y", (64,))
    axpy = verify(b.build([b.op("add", [b.op("multiply", [x, x]), y])]))
    (k2,) = compile_plan(axpy, one_group_plan(axpy), "cpu", cache_dir=kernel_cache).kernels
    assert "'contract'" in k2.source        # nothing recomputed: the FMA is allowed


def test_the_kernel_with_contract_gives_the_nan_the_check_reports(kernel_cache, monkeypatch):
    """The fix is what makes the test above pass: with contract back, the kernel is NaN, and
    the check says NaN (not "max abs error 0")."""
    import workbench.codegen.cpu as cpu

    monkeypatch.setattr(cpu, "STRICT_FLAGS", cpu.FASTMATH_FLAGS)
    g = scaled_softmax()
    _, (check,) = _run(g, duplicating_plan(g), [C2], kernel_cache)
    assert not check.ok
    assert check.nan_count >= 1 and check.first_nonfinite is not None
    assert "NaN in" in check.summary() and "where the reference is finite" in check.summary()


def test_recomputed_products_are_found_three_ways():
    g = scaled_softmax()
    x = expand_composites(g)
    assert "xs" in recomputed_values(x, duplicating_plan(g))           # duplicated by a plan
    assert "xs" not in recomputed_values(x, one_group_plan(g))
    # the same value computed by two nodes (XLA's clones)
    b = GraphBuilder("clones")
    p = b.parameter("p", (8,))
    k1, k2 = b.splat(0.5, (8,)), b.splat(0.5, (8,))
    m1 = b.op("multiply", [p, k1], node_id="m1")
    m2 = b.op("multiply", [p, k2], node_id="m2")
    clones = verify(b.build([b.op("subtract", [m1, m2])]))
    assert {"m1", "m2"} <= recomputed_values(expand_composites(clones),
                                             one_group_plan(clones))


def test_needs_strict_products_on_the_kernel_ir():
    from workbench.codegen.backend import capabilities
    from workbench.codegen.lower import group_members, lower_group

    g = scaled_softmax()
    x = expand_composites(g)
    grp = one_group_plan(g).groups[0]
    kir = lower_group(x, group_members(x, grp.nodes), grp.outputs, capabilities("cpu"))
    assert needs_strict_products(kir)                       # xs lowered twice in the kernel
    assert not needs_strict_products(_lowered_chain())
    assert needs_strict_products(_lowered_chain(), recomputed={"m"})


def _lowered_chain():
    from workbench.codegen.backend import capabilities
    from workbench.codegen.lower import group_members, lower_group

    b = GraphBuilder("chain")
    x, y = b.parameter("x", (16,)), b.parameter("y", (16,))
    g = verify(b.build([b.op("subtract", [b.op("multiply", [x, y], node_id="m"), y])]))
    xg = expand_composites(g)
    grp = one_group_plan(g).groups[0]
    return lower_group(xg, group_members(xg, grp.nodes), grp.outputs, capabilities("cpu"))


def test_check_counts_nan_and_inf_apart_and_names_the_first():
    ref = np.array([[1.0, 2.0, np.inf], [np.nan, 5.0, 6.0]], dtype=np.float32)
    got = np.array([[1.0, np.nan, np.inf], [np.nan, -np.inf, np.inf]], dtype=np.float32)
    c = compare(got, ref, "f32")
    assert (c.nan_count, c.inf_count, c.finite_count) == (1, 2, 0)
    assert c.first_nonfinite == (0, 1)
    assert c.mismatches == 3 and not c.ok
    assert c.max_abs_error == 0.0            # over the elements finite in both
    text = c.summary()
    assert text.startswith("NaN in 1 element and inf in 2 elements, first at [0, 1]")
    lost = compare(np.array([1.0, 2.0], np.float32), np.array([np.nan, 2.0], np.float32), "f32")
    assert (lost.nan_count, lost.finite_count, lost.first_nonfinite) == (0, 1, (0,))
    assert "a finite value in 1 element" in lost.nonfinite_text()
    assert compare(ref.copy(), ref, "f32").nonfinite_text() == ""
    j = c.to_json()
    assert j["first_nonfinite"] == [0, 1] and j["nan_count"] == 1

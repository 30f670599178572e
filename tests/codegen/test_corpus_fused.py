"""Every corpus model, fused by the planner, compiled for the CPU and run on its own inputs,
equals the reference interpreter (with the float64 allowance of workbench.codegen.check) and
JAX's outputs (elementwise, with no allowance).

The optimised ("after_noynn") module of every model runs; the pre-optimisation module too for
the models of up to 120 instructions (the large ones compile dozens of kernels, and the suite
must stay short on two cores: their before modules are imported and evaluated in
tests/importers/test_corpus.py). A group that runs through the numpy reference (a fallback)
must hold an op the code generator does not compile (control flow, a bf16/f16 sort, top-k or
select-and-scatter, scatter, random bits, a variadic reduction), and says which: gather, dynamic
slices, dilated window reductions, top-k and select-and-scatter of f32, bf16 and f16 loops run
natively.
"""

from __future__ import annotations

import pytest

from tests.corpus_models import ENTRIES, NAMES, args_of, io, outs_of, path
from workbench.codegen import compile_plan
from workbench.codegen.cpu_sort import SORT_DTYPES
from workbench.codegen.check import check_outputs, compare, reference_outputs
from workbench.importers import load_graph
from workbench.ir.interpreter import coerce_input
from workbench.ir.ops import Category, get_op
from workbench.ir.tolerance import tolerance_dtype
from workbench.planner import plan_graph

#: the reasons a group may run through the reference (see the module notes)
_REFERENCE_ONLY = (Category.CONTROL, Category.SORT, Category.SCATTER, Category.RANDOM)

CASES = [(n, "after_noynn") for n in NAMES] + [
    (n, "before") for n in NAMES if ENTRIES[n]["instructions_before"] <= 120]


def _needs_reference(graph, nodes) -> list[str]:
    out = []
    for n in nodes:
        node = graph.node(n)
        if node.op in ("topk", "select-and-scatter") and graph.node(
                node.operands[0]).type.dtype in SORT_DTYPES:
            continue                               # compiled natively (cpu_select)
        if get_op(node.op).category in _REFERENCE_ONLY:
            out.append(node.op)
        elif node.op in ("reduce", "reduce-window") and "computation" in node.attrs:
            out.append(node.op)
        elif node.op == "bitcast-convert" and graph.node(node.operands[0]).type.shape != \
                node.type.shape:
            out.append(node.op)
    return out


@pytest.mark.parametrize("name, stage", CASES)
def test_fused_cpu_plan_matches_the_reference_and_jax(name, stage, kernel_cache):
    graph = load_graph(path(name, stage))
    arrays = io(name)
    args = args_of(arrays)
    plan = plan_graph(graph, "priority")
    compiled = compile_plan(graph, plan, backend="cpu", cache_dir=kernel_cache)
    outs = compiled.run(args)
    ref, exact = reference_outputs(graph, args)
    for c in check_outputs(graph, outs, ref, exact):
        assert c.ok, f"{name}.{stage}: {c}"
    for i, (got, want) in enumerate(zip(outs, outs_of(arrays))):
        node = graph.node(graph.outputs[i])
        want = coerce_input(want, node.type, f"out{i}")
        # against JAX's values themselves: our float64 evaluation shares our semantics, so it
        # gives no allowance here (tests/importers/test_corpus.py)
        c = compare(got, want, tolerance_dtype(graph, node.id), i, node.id)
        assert c.ok, f"{name}.{stage} vs JAX out{i}: {c}"
    groups = {g.id: g for g in plan.groups}
    for k in compiled.kernels:
        if k.fallback:
            why = _needs_reference(graph, groups[k.group_id].nodes)
            assert why, f"{name}.{stage} {k.group_id} fell back: {k.fallback_reason}"
            assert k.error is None and any(op in k.fallback_reason for op in why), \
                k.fallback_reason
    assert len(compiled.kernels) == sum(g.role == "call" for g in plan.groups)

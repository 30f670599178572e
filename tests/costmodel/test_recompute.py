"""A fused loop kernel's work counts each member as often as the generated code evaluates it
(issue 11: recomputation through a broadcast). The counts are checked against the CPU code
generator's own kernel IR (how many loop iterations enclose each member's statement), and the
planner's decision on the small graph against its numbers."""

from __future__ import annotations

import math

import pytest

from tests.costmodel.test_calibration import DEV
from workbench.codegen.backend import capabilities
from workbench.codegen.kernel_ir import Let, Reduce
from workbench.codegen.lower import group_members, lower_group
from workbench.costmodel import group_cost, plan_cost
from workbench.costmodel.recompute import evaluations, recompute_factors
from workbench.ir import GraphBuilder, expand_composites
from workbench.ir.index import graph_index
from workbench.planner import plan_graph


def rotary_like(n=64, reps=8, inner=True, op="sine"):
    """m = broadcast(sin(x)) * y: x f32[n], y f32[reps, n] (``inner``: the broadcast maps x
    to the inner loop dimension) or f32[n, reps] (outer)."""
    b = GraphBuilder("recompute")
    x = b.parameter("x", (n,))
    shape, dims = ((reps, n), (1,)) if inner else ((n, reps), (0,))
    y = b.parameter("y", shape)
    s = b.op(op, [x], node_id="s")
    bc = b.broadcast_to(s, shape, dims)
    m = b.op("multiply", [bc, y], node_id="m")
    return b.build([m]), ["s", bc, "m"]


def transposed(n=16, reps=4):
    """t = transpose(broadcast(exp(x))) + y, with a reshape: the index map through three ops."""
    b = GraphBuilder("recompute_t")
    x = b.parameter("x", (n,))
    e = b.op("exponential", [x], node_id="e")
    bc = b.broadcast_to(e, (n, reps), (0,))                    # e along the outer dim
    t = b.op("transpose", [bc], node_id="t", dimensions=(1, 0))   # now inner
    r = b.op("reshape", [t], node_id="r", shape=(2, reps // 2, n))
    y = b.parameter("y", (2, reps // 2, n))
    out = b.op("add", [r, y], node_id="out")
    return b.build([out]), ["e", bc, "t", "r", "out"]


def ir_evaluations(graph, members, outputs, backend="cpu") -> dict[str, int]:
    """Node -> how many times the kernel evaluates it: on the CPU each Let statement once per
    iteration of the loops that enclose it; in the CUDA backend's flat loop (one element of the
    nest per thread) a statement inside the loops once per element of the nest."""
    xg = expand_composites(graph)
    kir = lower_group(xg, group_members(xg, members), list(outputs), capabilities(backend))
    out: dict[str, int] = {}

    def walk(stmts, times):
        for s in stmts:
            if isinstance(s, Let) and s.node:
                out[s.node] = out.get(s.node, 0) + times
            if isinstance(s, Reduce):
                raise AssertionError("no reductions in these kernels")

    for nest in kir.nests:
        for depth, stmts in enumerate(nest.levels):
            walk(stmts, math.prod(nest.shape[:depth] if backend == "cpu" or depth == 0
                                  else nest.shape))
    return out


def _model_evaluations(graph, members, outputs, hoist=True) -> dict[str, int]:
    ix = graph_index(graph)
    mem = {ix.pos[m] for m in members}
    ev = evaluations(ix, mem, [ix.pos[o] for o in outputs], hoist)
    return {ix.ids[m]: n for m, n in ev.items()}


@pytest.mark.parametrize("graph_members", [rotary_like(inner=True), rotary_like(inner=False),
                                           rotary_like(48, 3, True, "cosine"), transposed()],
                         ids=["inner", "outer", "cosine-48x3", "transpose-reshape"])
def test_the_model_counts_each_statement_as_often_as_the_kernel_evaluates_it(graph_members):
    g, members = graph_members
    outs = list(g.outputs)
    code = ir_evaluations(g, members, outs)
    model = _model_evaluations(g, members, outs)
    assert code, "the kernel evaluates something"
    for node, times in code.items():
        assert model[node] == times, (node, model[node], times)


@pytest.mark.parametrize("graph_members", [rotary_like(inner=True), rotary_like(inner=False),
                                           transposed()], ids=["inner", "outer", "transpose"])
def test_on_a_gpu_nothing_is_hoisted(graph_members):
    g, members = graph_members
    outs = list(g.outputs)
    code = ir_evaluations(g, members, outs, backend="cuda")
    model = _model_evaluations(g, members, outs, hoist=False)
    for node, times in code.items():
        assert model[node] == times, (node, model[node], times)
    # the producer runs once per element of the output, whichever dimension it is broadcast on
    name = "s" if "s" in code else "e"
    assert code[name] == math.prod(g.node(outs[0]).type.shape)
    assert group_cost(g, members, "h100").transcendentals == code[name]


def test_a_broadcast_on_the_inner_dimension_recomputes_its_producer_for_every_element():
    g, members = rotary_like(64, 8, inner=True)
    c = group_cost(g, members, DEV)
    # sin runs 8 x 64 times, not 64; the multiply once per element of [8, 64]
    assert (c.flops, c.transcendentals) == (512, 512)
    ix = graph_index(g)
    assert recompute_factors(ix, {ix.pos[m] for m in members}, [ix.pos["m"]]) == \
        {ix.pos["s"]: 8.0}
    # calibrated: sin at 5 ns an element (the test calibration), 512 of them
    assert c.terms["sine"] == pytest.approx(512 * 5e-9)


def test_a_broadcast_on_the_outer_dimension_is_hoisted():
    g, members = rotary_like(64, 8, inner=False)
    c = group_cost(g, members, DEV)
    assert (c.flops, c.transcendentals) == (512, 64)
    assert c.terms["sine"] == pytest.approx(64 * 5e-9)


def test_the_planner_keeps_the_recomputed_producer_apart_and_says_why_with_its_numbers():
    g, _ = rotary_like(64, 8, inner=True)
    plan = plan_graph(g, "priority", DEV)
    pc = plan_cost(g, plan, DEV)
    home = {n: grp.id for grp in plan.groups for n in grp.nodes}
    assert home["s"] != home["m"]               # sin is not fused through the broadcast
    (d,) = [d for d in plan.decisions if not d.fused and "s" in d.nodes]
    # its numbers: fusing costs more than it saves, and the fused time is group_cost's
    assert d.numbers["benefit_s"] < 0
    assert d.reason == "not-profitable"
    assert "would evaluate s 512 times (8 per element)" in d.message
    (consumer,) = [grp for grp in plan.groups if grp.id == home["m"]]
    fused = group_cost(g, ["s", *consumer.nodes], DEV)
    # (the decision keeps its numbers to 6 significant digits)
    assert d.numbers["time_fused_s"] == pytest.approx(fused.predicted_s, rel=1e-5)
    assert fused.transcendentals == 512
    assert pc.saving_s > 0
    # hoisted (outer dimension): sin is fused
    g2, _ = rotary_like(64, 8, inner=False)
    plan2 = plan_graph(g2, "priority", DEV)
    assert len(plan2.groups) == 1


def test_groups_without_an_expanding_broadcast_count_once_per_element():
    b = GraphBuilder("plain")
    x = b.parameter("x", (64,))
    s = b.op("sine", [x], node_id="s")
    r = b.op("slice", [s], node_id="r", start_indices=(0,), limit_indices=(8,), strides=(1,))
    g = b.build([r])
    ix = graph_index(g)
    assert recompute_factors(ix, {ix.pos["s"], ix.pos["r"]}, [ix.pos["r"]]) == {}
    assert group_cost(g, ["s", "r"], DEV).transcendentals == 64


@pytest.mark.parametrize("inner", [True, False], ids=["inner", "outer"])
def test_xla_cpus_expensive_reuse_states_the_models_count(inner):
    g, members = rotary_like(64, 8, inner, "exponential")
    plan = plan_graph(g, "xla-cpu", DEV)
    (d,) = [d for d in plan.decisions if d.reason == "expensive-reuse"]
    fused = group_cost(g, members, DEV)
    assert d.numbers["evaluations"] == fused.transcendentals == (512 if inner else 64)
    assert d.numbers["elements"] == 64
    if inner:
        assert "would indeed evaluate it 512 times, 8 per element" in d.message
    else:
        assert "hoists it out of the inner loops and evaluates it once per element" in d.message


def two_branches():
    """Two broadcasts of one sin (inner and outer dimension of [16, 16]), a transpose of one,
    both added into one output and a second output: masks merge from two paths, and a
    base member (``s``) is read by members added later."""
    b = GraphBuilder("recompute_two")
    x = b.parameter("x", (16,))
    s = b.op("sine", [x], node_id="s")
    c = b.op("cosine", [s], node_id="c")
    b1 = b.broadcast_to(s, (16, 16), (1,))
    b2 = b.broadcast_to(c, (16, 16), (0,))
    t = b.op("transpose", [b2], node_id="t", dimensions=(1, 0))
    e = b.op("exponential", [t], node_id="e")
    m = b.op("multiply", [b1, e], node_id="m")
    return b.build([m, c]), ["s", "c", b1, b2, "t", "e", "m"]


def _fresh_counts(ix, mem, outs, hoist):
    ix.__dict__.pop("_recompute_states", None)
    return evaluations(ix, mem, outs, hoist)


@pytest.mark.parametrize("graph_members", [rotary_like(inner=True), rotary_like(inner=False),
                                           transposed(), two_branches()],
                         ids=["inner", "outer", "transpose-reshape", "two-branches"])
@pytest.mark.parametrize("hoist", [True, False], ids=["cpu", "gpu"])
def test_a_walk_extended_from_a_base_kernel_counts_what_a_whole_walk_counts(graph_members,
                                                                           hoist):
    """Every split of the group into a base kernel (with any outputs) and added members: the
    counts and factors from the base's kept masks equal those of walking the whole kernel,
    and the extension is taken (not a fallback) for the splits a planner makes (base: the
    consumers, with the group's outputs among them)."""
    import itertools

    from workbench.costmodel import recompute as rc

    g, names = graph_members
    ix = graph_index(g)
    mem = frozenset(ix.pos[n] for n in names)
    outs = [ix.pos[o] for o in g.outputs]
    whole = _fresh_counts(ix, mem, outs, hoist)
    assert whole is not None
    extended = 0
    for k in range(1, len(mem)):
        for base in itertools.combinations(sorted(mem), k):
            bset = frozenset(base)
            for bouts in ({o for o in outs if o in bset}, set(base[-1:])):
                ix.__dict__.pop("_recompute_states", None)
                got = evaluations(ix, mem, outs, hoist, base=(bset, bouts))
                assert got == whole, (base, bouts, got, whole)
                ix.__dict__.pop("_recompute_states", None)
                f = recompute_factors(ix, mem, outs, hoist, base=(bset, bouts, mem - bset))
                ix.__dict__.pop("_recompute_factors", None)
                ix.__dict__.pop("_recompute_states", None)
                assert f == recompute_factors(ix, mem, outs, hoist), (base, bouts)
                ix.__dict__.pop("_recompute_factors", None)
                b = rc._walk(ix, bset, tuple(sorted(o for o in bouts if o in bset)), hoist)
                if b is not None:
                    r = rc._extend(ix, b, bset, mem - bset, tuple(sorted(outs)), hoist)
                    if r:
                        extended += 1
                        assert r.full()[2] == whole
    assert extended > 0

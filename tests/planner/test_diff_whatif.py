"""Plan diffs, flipped decisions, what-if and knob sweeps (workbench/planner/diff.py,
whatif.py)."""

import pytest

from tests.planner.planner_helpers import HLO, SAMPLES
from workbench.costmodel import plan_cost
from workbench.errors import InputError, PlanError
from workbench.importers import load_graph
from workbench.planner import plan_graph, unfused_plan
from workbench.planner.diff import diff_plans, flipped_decisions
from workbench.planner.whatif import knob_sweep, what_if


def test_priority_vs_xla_cpu_on_the_transformer_block():
    g = load_graph(HLO / "transformer_block.after_noynn.hlo")
    a, b = plan_graph(g, "priority"), plan_graph(g, "xla-cpu")
    d = diff_plans(g, a, b)
    sets_a = {frozenset(x.nodes): x.id for x in a.groups}
    sets_b = {frozenset(x.nodes): x.id for x in b.groups}
    assert {p[0] for p in d.both} == {sets_a[s] for s in sets_a.keys() & sets_b.keys()}
    assert len(d.only_a) == len(a.groups) - len(d.both) > 0
    assert len(d.only_b) == len(b.groups) - len(d.both) > 0
    # every unmatched group is in exactly one difference, which covers the same nodes
    assert sorted(x for diff in d.differences for x in diff.a_groups) == sorted(d.only_a)
    assert sorted(x for diff in d.differences for x in diff.b_groups) == sorted(d.only_b)
    cost_a, cost_b = plan_cost(g, a), plan_cost(g, b)
    for diff in d.differences:
        na = {n for x in diff.a_groups for n in a.group(x).nodes}
        nb = {n for x in diff.b_groups for n in b.group(x).nodes}
        assert na == nb == set(diff.nodes)
        assert diff.predicted_a_s == pytest.approx(
            sum(cost_a.groups[x].predicted_s for x in diff.a_groups))
        assert diff.predicted_b_s == pytest.approx(
            sum(cost_b.groups[x].predicted_s for x in diff.b_groups))
    # the totals differ by the differences alone (the matched groups cost the same)
    assert d.predicted_b_s - d.predicted_a_s == pytest.approx(
        sum(x.predicted_delta_s for x in d.differences), rel=1e-9)
    assert {m.node for m in d.moved} == {n for x in d.differences for n in x.nodes}
    assert d.kernels_a == len(a.groups) and not d.same


def test_a_plan_against_itself_and_measured_costs():
    g = load_graph(SAMPLES / "chain10.json")
    p = plan_graph(g)
    d = diff_plans(g, p, p, measured_a={"g0": 1e-5}, measured_b={"g0": 1e-5})
    assert d.same and d.differences == () and d.measured_a_s == 1e-5
    u = unfused_plan(g)
    d = diff_plans(g, p, u, measured_a={"g0": 2e-5},
                   measured_b={x.id: 1e-6 for x in u.groups})
    (only,) = d.differences
    assert only.measured_a_s == 2e-5 and only.measured_b_s == pytest.approx(len(u.groups) * 1e-6)
    assert only.measured_delta_s == pytest.approx(len(u.groups) * 1e-6 - 2e-5)


def test_a_plan_of_another_graph_is_refused():
    g, other = load_graph(SAMPLES / "chain10.json"), load_graph(SAMPLES / "softmax.json")
    with pytest.raises(PlanError, match="plan B .* is for graph 'softmax'"):
        diff_plans(g, plan_graph(g), plan_graph(other))


def test_slow_compute_flips_the_duplication_of_multi_consumer():
    # On the h100, duplicating `producer` (an add) into its three consumers saves a round trip
    # of 256 KiB for a few FLOPs; at 1 GFLOP/s those FLOPs cost more than the memory they
    # save, so the planner must refuse it: the decision flips.
    g = load_graph(SAMPLES / "multi_consumer.json")
    w = what_if(g, {"peak_flops": 1e9}, device="h100")
    fuse = [f for f in w.flips if f.action == "fuse"]
    assert [f.nodes[0] for f in fuse] == ["producer"]
    assert fuse[0].fused_a and not fuse[0].fused_b and "more than it saves" in fuse[0].message_b
    assert w.diff.kernels_a == 1 and w.diff.kernels_b == 2 and set(w.changed_groups) == {"g0",
                                                                                          "g1"}
    assert w.device == "h100+peak_flops=1000000000.0" and w.plan.device == w.device
    # the old plan costed on the new profile is reported beside the new plan: here the greedy
    # re-plan is 1 µs slower than the old plan (the planner weighs one producer at a time)
    assert w.old_plan_after_s == pytest.approx(
        plan_cost(g, w.base_plan, w.device).total.predicted_s)
    assert w.after_s == pytest.approx(plan_cost(g, w.plan, w.device).total.predicted_s)


def test_no_launch_overhead_flips_the_qkv_sibling_fusion():
    g = load_graph(SAMPLES / "transformer_block.json")
    w = what_if(g, {"launch_overhead_s": 0.0}, device="h100")
    assert ("sibling", True, False) in {(f.action, f.fused_a, f.fused_b) for f in w.flips}
    assert w.diff.kernels_b == w.diff.kernels_a + 1


def test_knob_sweep_marks_where_the_plan_changes():
    g = load_graph(SAMPLES / "multi_consumer.json")
    pts = knob_sweep(g, "peak_flops", [67e12, 1e12, 1e9], device="h100")
    assert [p.kernels for p in pts] == [1, 1, 2]
    assert [p.changed for p in pts] == [False, False, True]
    assert pts[2].flips and pts[0].flips == ()
    assert pts[2].predicted_s > pts[0].predicted_s
    with pytest.raises(InputError, match="unknown knob"):
        knob_sweep(g, "peak", [1], device="h100")


def test_flipped_decisions_of_one_plan_are_none():
    g = load_graph(SAMPLES / "transformer_block.json")
    p = plan_graph(g, device="h100")
    assert flipped_decisions(p, p) == ()


def test_the_texts_flag_a_re_plan_predicted_slower_than_the_old_plan():
    from workbench.app.whatif import whatif_summary
    from workbench.cli.whatif_text import whatif_text
    from workbench.costmodel import get_device

    g = load_graph(SAMPLES / "multi_consumer.json")
    w = what_if(g, {"peak_flops": 1e9}, device="h100")
    assert w.old_plan_after_s < w.after_s
    assert "predicted slower than keeping the old one" in whatif_summary(w)
    assert "predicted slower than keeping the old one" in whatif_text(w, get_device("h100"))


def test_the_texts_name_changed_groups_by_their_ops_not_by_ids_both_plans_use():
    """On the transformer block, a launch overhead of 1 ns regroups g4 and g5 of the h100
    plan into a new g4 and g5: the texts said "groups now g4, g5 (were g4, g5)"."""
    from workbench.app.whatif import whatif_summary
    from workbench.cli.whatif_text import whatif_text
    from workbench.costmodel import get_device

    g = load_graph(SAMPLES / "transformer_block.json")
    w = what_if(g, {"launch_overhead_s": 1e-9}, device="h100")
    assert not w.diff.same and w.diff.only_a == w.diff.only_b  # the same ids, other groups
    for text in (whatif_summary(w), whatif_text(w, get_device("h100"))):
        assert "(were g4, g5)" not in text and "old groups g4, g5" not in text
        assert "the new plan's g4 (scores, broadcast.2, scores_scaled) and g5 (row," in text
        assert "replace the old plan's g4 (scores, broadcast.2, scores_scaled and 6 more) " \
               "and g5 (attn_softmax)" in text

"""Plan edits: legality through the one checker, constraints that survive re-planning, history."""

from collections import Counter

import pytest

from tests.planner.planner_helpers import sample
from workbench.editing import (Forbid, History, Merge, Move, Pin, Reject, Replan, Reset, Split,
                               apply_edit, apply_edits, edit_from_json, edit_to_json)
from workbench.errors import LegalityError, PlanError
from workbench.ir import GraphBuilder
from workbench.planner import plan_graph, replay, unfused_plan


def diamond():
    """a -> c, b -> d (p feeds a and b): two convex pairs can still wait on each other."""
    b = GraphBuilder("diamond")
    p = b.parameter("p", (4,))
    a = b.op("negate", [p], node_id="a")
    bb = b.op("abs", [p], node_id="b")
    c = b.op("exponential", [a], node_id="c")
    d = b.op("floor", [bb], node_id="d")
    m = b.op("add", [c, d], node_id="m")
    return b.build([m])


def test_merge_and_split():
    g = sample("chain10")
    plan = unfused_plan(g)
    merged = apply_edit(g, plan, Merge(("mul1", "add1", "mul2")))
    assert merged.group_of("mul1").nodes == ("mul1", "add1", "mul2")
    assert merged.num_kernels == plan.num_kernels - 2
    last = merged.decisions[-1]
    assert last.action == "edit" and last.reason == "merge" and last.members
    back = apply_edit(g, merged, Split("add1"))
    assert Counter(back.member_sets()) == Counter(plan.member_sets())
    assert Counter(replay(back, g)) == Counter(back.member_sets())


def test_merge_by_group_id():
    g = sample("mlp")
    plan = plan_graph(g, "priority", "h100")
    ids = [grp.id for grp in plan.groups]
    with pytest.raises(LegalityError) as exc:
        apply_edit(g, plan, Merge((ids[0], ids[1])))
    assert exc.value.reason == "two-contractions"


def test_a_merge_that_creates_a_cycle_is_refused_and_the_plan_stays():
    g = sample("chain10")
    plan = unfused_plan(g)
    before = plan.dumps()
    with pytest.raises(LegalityError) as exc:
        apply_edit(g, plan, Merge(("mul1", "mul2")))      # mul1 -> add1 -> mul2 goes out and back
    assert exc.value.reason == "cycle" and "add1" in str(exc.value)
    assert plan.dumps() == before
    d = diamond()
    step = apply_edit(d, unfused_plan(d), Merge(("a", "d")))
    with pytest.raises(LegalityError) as exc:
        apply_edit(d, step, Merge(("b", "c")))            # {a,d} and {b,c} wait on each other
    assert exc.value.reason == "cycle"


def test_illegal_merge_reason_from_the_checker():
    g = sample("transformer_block")
    plan = plan_graph(g, "priority", "h100")
    with pytest.raises(LegalityError) as exc:
        apply_edit(g, plan, Merge(("ln1", "qkv_matmul")))
    assert exc.value.reason == "contraction-prologue"
    assert "reads its operands from memory" in str(exc.value)


def test_move():
    g = sample("chain10")
    plan = apply_edit(g, unfused_plan(g), Merge(("mul1", "add1")))
    moved = apply_edit(g, plan, Move("mul2", "add1"))
    assert moved.group_of("mul2").nodes[:3] == ("mul1", "add1", "mul2")
    three = apply_edit(g, unfused_plan(g), Merge(("mul1", "add1", "mul2")))
    with pytest.raises(LegalityError) as exc:          # {mul1, mul2} is left with a hole
        apply_edit(g, three, Move("add1", "max1"))
    assert exc.value.reason == "cycle"


def test_forbid_splits_and_survives_replanning():
    g = sample("multi_consumer")
    plan = plan_graph(g, "priority", "h100")
    assert plan.num_kernels == 1
    edited = apply_edit(g, plan, Forbid("producer", "consumer_sub"))
    assert ("consumer_sub", "producer") in edited.constraints.forbidden
    assert not any({"producer", "consumer_sub"} <= set(grp.nodes) for grp in edited.groups)
    again = apply_edit(g, edited, Replan())
    assert ("consumer_sub", "producer") in again.constraints.forbidden
    assert not any({"producer", "consumer_sub"} <= set(grp.nodes) for grp in again.groups)
    assert any(d.reason == "forbidden" for d in again.decisions)


def test_pin_survives_replanning():
    g = sample("chain10")
    plan = apply_edits(g, unfused_plan(g), [Merge(("mul1", "add1")), Pin("mul1")])
    assert plan.group_of("mul1").pinned
    replanned = apply_edit(g, plan.replace(policy="priority"), Replan())
    pinned = replanned.group_of("mul1")
    assert pinned.nodes == ("mul1", "add1") and pinned.pinned
    # everything after the pinned pair is still fused, as one kernel
    assert replanned.num_kernels == 2


def test_reject_keeps_the_ops_apart_when_replanning():
    g = sample("matmul_bias_gelu")
    plan = plan_graph(g, "priority", "h100")
    rejected = apply_edit(g, plan, Reject("bias_add"))
    assert rejected.num_kernels == 3
    replanned = apply_edit(g, rejected, Replan())
    assert replanned.num_kernels == 3
    reset = apply_edit(g, replanned, Reset())
    assert reset.num_kernels == 1 and not reset.constraints.forbidden


def test_edits_of_pinned_groups_and_bad_names():
    g = sample("chain10")
    plan = apply_edit(g, plan_graph(g, "priority", "h100"), Pin("mul1"))
    with pytest.raises(LegalityError) as exc:
        apply_edit(g, plan, Split("mul1"))
    assert exc.value.reason == "pinned"
    with pytest.raises(PlanError, match="no node or group 'nope'"):
        apply_edit(g, plan, Merge(("nope", "mul1")))
    with pytest.raises(PlanError, match="parameter"):
        apply_edit(g, plan, Split("x"))
    with pytest.raises(PlanError, match="not a plan edit"):
        apply_edit(g, plan, "merge everything")


def test_history_undo_redo():
    g = sample("chain10")
    start = unfused_plan(g)
    h = History(g, start)
    assert not h.can_undo
    one = h.push(Merge(("mul1", "add1")))
    two = h.push(Merge(("add1", "mul2")))
    assert h.current is two and h.edits == [Merge(("mul1", "add1")), Merge(("add1", "mul2"))]
    assert h.undo() is one and h.undo() is start
    with pytest.raises(PlanError):
        h.undo()
    assert h.redo() is one
    with pytest.raises(LegalityError):
        h.push(Merge(("sub1", "sub2")))                  # a cycle: refused, history unchanged
    assert h.current is one and h.can_redo
    h.push(Split("mul1"))                                # a new edit drops the redo tail
    assert not h.can_redo and len(h.edits) == 2


def test_edit_json_round_trip():
    for e in (Merge(("a", "b")), Split("a"), Move("a", "g3"), Forbid("a", "b"), Pin("a"),
              Reject("a"), Reset(), Replan()):
        assert edit_from_json(edit_to_json(e)) == e
    with pytest.raises(PlanError):
        edit_from_json({"edit": "explode"})


def test_merging_a_dead_op_with_a_live_one_is_refused_and_replan_keeps_it_alone():
    b = GraphBuilder("dead")
    x = b.parameter("x", (1024,))
    b.op("exponential", [x], node_id="dead")
    y = b.op("negate", [x], node_id="y")
    g = b.build([y])
    plan = plan_graph(g, "priority", "h100")
    with pytest.raises(LegalityError) as exc:
        apply_edit(g, plan, Merge(("dead", "y")))
    assert exc.value.reason == "dead-code" and "XLA's DCE would remove it" in str(exc.value)
    again = apply_edit(g, apply_edit(g, plan, Pin("dead")), Replan())
    assert again.group_of("dead").nodes == ("dead",) and again.group_of("dead").role == "dead"


def test_merging_a_weight_folding_op_into_a_per_call_kernel_is_refused():
    from workbench.transforms.folding import fold_batch_norms

    g, _ = fold_batch_norms(sample("resnet_block"))
    plan = plan_graph(g, "priority", "h100")
    with pytest.raises(LegalityError) as exc:
        apply_edit(g, plan, Merge(("bn1.fold_bias", "bn1")))
    assert exc.value.reason == "offline"

"""Dead ops (no graph output depends on them) are never fused, and are reported as dead."""

import pytest

from workbench.ir import GraphBuilder
from workbench.planner import POLICIES, check_group, plan_cost, plan_graph
from workbench.cli.plan_text import plan_report


def dead_beside_output():
    """x -> exponential (unused) and x -> negate (the output): the newcomer's example."""
    b = GraphBuilder("dead")
    x = b.parameter("x", (1024,))
    b.op("exponential", [x], node_id="dead")
    y = b.op("negate", [x], node_id="y")
    return b.build([y])


def dead_consumer_of_a_live_producer():
    """p = x + x feeds the output r = relu(p) and a dead chain d1 = exp(p), d2 = d1 * d1."""
    b = GraphBuilder("dead2")
    x = b.parameter("x", (1 << 16,))
    p = b.op("add", [x, x], node_id="p")
    d1 = b.op("exponential", [p], node_id="d1")
    b.op("multiply", [d1, d1], node_id="d2")
    r = b.op("relu", [p], node_id="r")
    return b.build([r])


@pytest.mark.parametrize("policy", POLICIES)
def test_dead_node_is_not_fused_with_the_live_one(policy):
    g = dead_beside_output()
    plan = plan_graph(g, policy, "h100")
    assert plan.group_of("dead").nodes == ("dead",) and plan.group_of("dead").role == "dead"
    assert plan.group_of("y").nodes == ("y",) and plan.group_of("y").role == "call"
    d = [d for d in plan.decisions if d.reason == "dead-code"]
    assert len(d) == 1 and d[0].nodes == ("dead",) and "XLA's DCE would remove it" in \
        d[0].message
    assert not any(d.action == "sibling" and d.fused for d in plan.decisions)


@pytest.mark.parametrize("policy", POLICIES)
def test_dead_consumers_do_not_block_live_fusion(policy):
    g = dead_consumer_of_a_live_producer()
    plan = plan_graph(g, policy, "h100")
    # p fuses into r as if the dead chain were not there (planned as DCE would leave it)
    assert set(plan.group_of("r").nodes) == {"p", "r"}
    # and p is not written for the dead reader: the live kernel writes only r
    assert plan.group_of("r").outputs == ("r",) and plan.group_of("r").kind == "loop"
    assert plan.group_of("d1").nodes == ("d1",) and plan.group_of("d2").nodes == ("d2",)
    assert {gr.role for gr in plan.groups_of("d1") + plan.groups_of("d2")} == {"dead"}


def test_dead_kernels_are_costed_apart_and_marked_in_the_text():
    g = dead_beside_output()
    plan = plan_graph(g, "priority", "h100")
    cost = plan_cost(g, plan)
    assert cost.total.kernels == 1 and cost.dead_total.kernels == 1
    assert cost.unfused_total.kernels == 1                # the live negate only
    text = plan_report(g, plan, cost, explain=True)
    assert "(dead: no graph output depends on it; XLA's DCE would remove it)" in text
    assert "1 kernel per call (unfused: 1), 1 dead kernel" in text
    assert "Dead code (left out of planning):" in text


def test_checker_refuses_a_group_with_a_dead_op():
    g = dead_beside_output()
    r = check_group(g, ["dead", "y"], "h100")
    assert r.code == "dead-code"
    assert r.message == ("exponential dead is dead: no graph output depends on it; XLA's DCE "
                         "would remove it, so it is not fused with negate y")
    assert check_group(g, ["dead"], "h100") is None

"""The benchmark's synthetic layered graphs are valid, deterministic and plan consistently."""

from collections import Counter

from workbench.ir import verify
from workbench.planner import POLICIES, plan_graph, replay
from workbench.ir.synthetic import layered_graph


def test_layered_graph_is_valid_and_deterministic():
    g = layered_graph(400, seed=1)
    assert len(g.nodes) >= 400
    verify(g)
    assert layered_graph(400, seed=1).fingerprint == g.fingerprint
    assert layered_graph(400, seed=2).fingerprint != g.fingerprint


def test_layered_graph_plans_under_every_policy():
    g = layered_graph(600, seed=0)
    for policy in POLICIES:
        plan = plan_graph(g, policy, "h100")
        assert Counter(replay(plan, g)) == Counter(plan.member_sets())
        # dots (every other block) are never fused with each other: at least one kernel each
        dots = sum(1 for n in g.nodes if n.op == "dot")
        assert plan.num_kernels > dots

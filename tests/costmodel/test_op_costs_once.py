"""A plan's cost computes each op's own cost once (issue 15: it was computed twice, for the
groups' unfused sums and for the baseline, a quarter of ``workbench plan`` on a long chain)."""

from workbench.costmodel import model, plan_cost
from workbench.ir import GraphBuilder
from workbench.planner import plan_graph, unfused_plan


def chain(n: int):
    b = GraphBuilder("chain")
    prev = b.parameter("x", (64,), "f32")
    for k in range(n):
        prev = b.op(("negate", "exponential")[k % 2], [prev], f"v{k}")
    return b.build(outputs=[prev])


def test_each_op_is_costed_once_per_plan_cost(monkeypatch):
    g = chain(50)
    calls = []
    real = model.op_cost

    def counting(graph, node_id, device="cpu"):
        calls.append(node_id)
        return real(graph, node_id, device)

    monkeypatch.setattr(model, "op_cost", counting)
    for plan in (plan_graph(g, "priority", "h100"), unfused_plan(g)):
        calls.clear()
        cost = plan_cost(g, plan, "h100")
        assert sorted(calls) == sorted(f"v{k}" for k in range(50))  # once each, no parameter
        # the baseline is the sum of the same op costs the groups' unfused sums hold
        assert abs(sum(c.predicted_s for c in cost.unfused.values())
                   - cost.unfused_total.predicted_s) <= 1e-12 * cost.unfused_total.predicted_s

"""The planner's work grows linearly where inputs can make it grow faster (issue 15).

Counts of operations, not seconds: a quadratic loop shows in the counts at any machine load.
"""

from workbench.ir import GraphBuilder
from workbench.planner import plan_graph
from workbench.planner.legality import MAX_OPERANDS_AND_OUTPUTS
from workbench.planner.sibling import SiblingFusion


def wide_graph(n: int):
    """``n`` negates of one f32[16] parameter, every one a graph output."""
    b = GraphBuilder("wide")
    p = b.parameter("p", (16,), "f32")
    outs = [b.op("negate", [p], f"o{k}") for k in range(n)]
    return b.build(outputs=outs)


def test_sibling_fusion_of_many_outputs_tries_each_reader_about_once(monkeypatch):
    n = 1000
    tries = []
    real = SiblingFusion.try_merge

    def counting(self, a, b, v):
        tries.append(b.gid)
        return real(self, a, b, v)

    monkeypatch.setattr(SiblingFusion, "try_merge", counting)
    plan = plan_graph(wide_graph(n), "priority", "cpu")
    # every kernel holds as many siblings as the operand budget allows: one input, 95 outputs
    per_kernel = MAX_OPERANDS_AND_OUTPUTS - 1
    sizes = sorted((len(g.nodes) for g in plan.groups), reverse=True)
    assert sizes == [per_kernel] * (n // per_kernel) + [n % per_kernel]
    # a full kernel is tried no more: one try per reader but those that start a kernel, and
    # one refusal per full kernel. Trying every full kernel again made this
    # n + n**2 / (2 * 95), 6,260 tries at n = 1000 (and 2 million at the 20,000)
    assert len(tries) == n - len(sizes)
    assert len(plan.decisions) == (n - len(sizes)) + n // per_kernel
    refused = [d for d in plan.decisions if not d.fused]
    assert len(refused) == n // per_kernel
    assert all(d.reason == "operand-budget" for d in refused)

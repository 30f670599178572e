"""Agreement with XLA's fusions (the importer's tags are the answer key)."""

import pytest

from tests.planner.planner_helpers import HLO, hlo, sample
from workbench.errors import PlanError
from workbench.ir import GraphBuilder
from workbench.planner import compare_with_xla, make_plan, plan_graph

MODELS = ["chain10", "chain10_transc", "layernorm_gelu", "mlp", "resnet_block", "softmax",
          "transformer_block"]


def tagged_graph():
    """a -> b -> c -> d, where XLA fused a, b and c; d stayed alone."""
    b = GraphBuilder("t")
    x = b.parameter("x", (8,))
    tag = {"xla_fusion": "fusion.1", "xla_fusion_kind": "kLoop"}
    a = b.op("negate", [x], node_id="a", meta=tag)
    bb = b.op("abs", [a], node_id="b", meta=tag)
    c = b.op("floor", [bb], node_id="c", meta=tag)
    d = b.op("ceil", [c], node_id="d")
    return b.build([d])


def test_precision_recall_f1_by_hand():
    g = tagged_graph()
    plan = make_plan(g, [["a", "b"], ["c", "d"]], policy="test")
    ag = compare_with_xla(g, plan)
    # ours: {a,b}, {c,d}; XLA's: {a,b}, {a,c}, {b,c}: one pair in common.
    assert ag.plan_pairs == 2 and ag.xla_pairs == 3
    assert ag.precision == pytest.approx(1 / 2) and ag.recall == pytest.approx(1 / 3)
    assert ag.f1 == pytest.approx(2 * (1 / 2) * (1 / 3) / (1 / 2 + 1 / 3))
    assert ag.extra_pairs == (("c", "d"),)
    assert ag.missing_pairs == (("a", "c"), ("b", "c"))


@pytest.mark.parametrize("model", MODELS)
def test_xla_cpu_policy_agrees_with_xla(model):
    g = hlo(f"{model}.after_noynn.hlo")
    ag = compare_with_xla(g, plan_graph(g, "xla-cpu", "cpu"))
    # The flattened module keeps the nodes XLA duplicated as separate copies, so XLA:CPU's
    # rules (loop-fusible producers, no expensive producer duplicated or read through a
    # broadcast, dots and reduce-windows never fused) cut exactly where XLA cut.
    assert (ag.precision, ag.recall, ag.f1) == (1.0, 1.0, 1.0), (ag.extra_pairs[:5],
                                                                 ag.missing_pairs[:5])


def test_priority_fuses_dot_epilogues_that_xla_cpu_leaves_out():
    g = hlo("mlp.after_noynn.hlo")
    ag = compare_with_xla(g, plan_graph(g, "priority", "h100"))
    # XLA: three 4-op epilogue fusions (6 pairs each). Priority: each dot joins its epilogue
    # (5 ops, 10 pairs each): all of XLA's 18 pairs plus 12 more with the dots.
    assert (ag.xla_pairs, ag.plan_pairs) == (18, 30)
    assert ag.recall == 1.0 and ag.precision == pytest.approx(0.6)
    assert all("dot_general" in a or "dot_general" in b for a, b in ag.extra_pairs)


def test_errors():
    g = sample("chain10")
    with pytest.raises(PlanError, match="no XLA fusion tags"):
        compare_with_xla(g, plan_graph(g, "priority", "h100"))
    other = hlo("mlp.after_noynn.hlo")
    with pytest.raises(PlanError, match="is for graph"):
        compare_with_xla(other, plan_graph(g, "priority", "h100"))


def test_hlo_dir_is_beside_the_repository():
    assert HLO.name == "hlo" and HLO.parent.name == "shared"

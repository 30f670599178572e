"""A group's fusion kind: what make_plan records is what group_kind says, and a kernel that is
no fusion (a while loop, a sort, top-k, a scatter) is opaque, not a loop fusion."""

from pathlib import Path

import pytest

from workbench.importers import load_graph
from workbench.planner import group_kind, plan_graph
from workbench.planner.plan import FusionKind, GroupRole

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


@pytest.mark.parametrize("name, op", [("newton_while", "while"), ("sort_argsort", "sort"),
                                      ("scatter_combiners", "scatter"), ("topk_softmax", "topk"),
                                      ("switch_branch", "conditional")])
def test_a_kernel_that_is_no_fusion_is_opaque(name, op):
    g = load_graph(CORPUS / f"{name}.before.hlo")
    plan = plan_graph(g, "priority", "cpu")
    holding = [grp for grp in plan.groups if any(g.node(n).op == op for n in grp.nodes)]
    assert holding, f"no group holds a {op}"
    assert all(grp.kind == FusionKind.OPAQUE for grp in holding)


@pytest.mark.parametrize("name", ["lm_train_step", "gpt_decoder_loss", "scatter_combiners",
                                  "batchnorm_train_grad", "moe_router"])
def test_the_recorded_kind_is_group_kinds(name):
    g = load_graph(CORPUS / f"{name}.before.hlo")
    plan = plan_graph(g, "priority", "cpu")
    kinds = set()
    for grp in plan.groups:
        if grp.role != GroupRole.CALL:
            continue
        assert grp.kind == group_kind(g, grp.nodes, len(grp.outputs)), grp.id
        kinds.add(grp.kind)
    assert len(kinds) >= 2

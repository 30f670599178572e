"""HLO export with fusions: re-importing it gives back the graph and the plan exactly, on every
../shared/hlo module and every sample, for every plan we make (duplication included)."""

import pytest

from tests.conftest import SAMPLES_DIR, shared_hlo_dir
from workbench.errors import PlanError
from workbench.exporters.hlo import export_hlo, round_trip
from workbench.importers import load_graph, parse_hlo
from workbench.planner import named_plan, plan_graph, unfused_plan
from workbench.planner.compare import fused_pairs


def _modules():
    return sorted(p.name for p in shared_hlo_dir().glob("*.hlo"))


@pytest.mark.parametrize("name", _modules())
def test_round_trip_of_every_shared_module(name):
    g = load_graph(shared_hlo_dir() / name)
    plans = [named_plan(g, p) for p in ("priority", "xla-cpu", "greedy", "unfused")]
    plans.append(plan_graph(g, "priority", "h100"))       # duplicates producers in 3 modules
    if "after" in name:
        plans.append(named_plan(g, "xla"))
    for plan in plans:
        rt = round_trip(g, plan)
        assert rt.ok, (plan.policy, rt.problems)
        a = rt.agreement
        assert (a.precision, a.recall, a.f1) == (1.0, 1.0, 1.0)
        assert a.plan_pairs == a.xla_pairs == len(fused_pairs(g, plan.member_sets()))


def test_the_export_reads_as_an_optimised_module_compare_xla_scores_1():
    g = load_graph(shared_hlo_dir() / "transformer_block.before.hlo")
    plan = plan_graph(g)
    exp = export_hlo(g, plan)
    assert exp.text.count(" fusion(") == sum(1 for x in plan.groups if x.size > 1)
    assert "calls=%fused_g" in exp.text and "kind=kOutput" in exp.text
    back = parse_hlo(exp.text, "export.hlo")
    assert back.meta.get("has_xla_fusions")
    # XLA's grouping of the re-import (its fusion tags) is the plan's, group for group
    from workbench.planner import xla_plan

    got = {frozenset(exp.names.get(n, n) for n in x.nodes) for x in xla_plan(back).groups}
    assert got == {frozenset(x.nodes) for x in plan.groups}


def test_duplicated_producers_are_cloned():
    g = load_graph(shared_hlo_dir() / "softmax.after_noynn.hlo")
    plan = plan_graph(g, "priority", "h100")
    dups = {n for x in plan.groups for n in x.duplicated}
    assert dups
    exp = export_hlo(g, plan)
    clones = [k for k, v in exp.names.items() if v in dups and k != v]
    assert clones and all(".clone" in k for k in clones)
    assert round_trip(g, plan, exp).ok


@pytest.mark.parametrize("path", sorted(SAMPLES_DIR.glob("*.json")), ids=lambda p: p.stem)
def test_samples_with_composites_export_expanded(path):
    g = load_graph(path)
    for plan in (plan_graph(g), unfused_plan(g)):
        rt = round_trip(g, plan)
        assert rt.ok, rt.problems


def test_a_wrong_plan_is_caught_and_a_plan_of_another_graph_refused():
    g = load_graph(SAMPLES_DIR / "chain10.json")
    exp = export_hlo(g, plan_graph(g))
    rt = round_trip(g, unfused_plan(g), exp)           # the export is of another plan
    assert not rt.ok and not rt.same_groups and rt.agreement.f1 == 0.0
    with pytest.raises(PlanError, match="the plan is for graph"):
        export_hlo(g, plan_graph(load_graph(SAMPLES_DIR / "softmax.json")))

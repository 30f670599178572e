"""Free ops outside XLA's fusions (a bitcast keeping the row-major order, a get-tuple-element):
no kernel, no fusion pair, no cost; compare-xla names the ops it drops."""

from __future__ import annotations

import numpy as np

from tests.corpus_models import args_of, io, path
from workbench.cli import main
from workbench.codegen import compile_plan
from workbench.costmodel.model import plan_cost
from workbench.importers import load_graph
from workbench.planner.compare import compare_with_xla, free_outside_fusions
from workbench.planner.plan import make_plan, xla_plan


def test_bitcasts_outside_fusions_are_aliases_not_kernels(tmp_path, capsys):
    g = load_graph(path("mobilenet_block", "after_noynn"))
    free = free_outside_fusions(g)
    assert len(free) == 6 and {g.node(n).op for n in free} == {"bitcast"}
    plan = xla_plan(g)
    assert [gr.nodes for gr in plan.groups if gr.role == "free"] == [(n,) for n in free]
    compiled = compile_plan(g, plan, backend="cpu", cache_dir=tmp_path)
    assert len(compiled.kernels) == len(plan.groups) - 6 == 7
    assert sorted(a.value for a in compiled.aliases) == sorted(free)
    (out,) = compiled.run(args_of(io("mobilenet_block")))
    np.testing.assert_allclose(out, io("mobilenet_block")["out0"], rtol=1e-4, atol=1e-5)
    cost = plan_cost(g, plan, "cpu")
    assert all(cost.roles.get(n) == "free" for n in
               [gr.id for gr in plan.groups if gr.role == "free"])
    per_call = [gr.id for gr in plan.groups if gr.role == "call"]
    assert abs(cost.total.predicted_s - sum(cost.groups[k].predicted_s for k in per_call)) < 1e-12


def test_a_plan_that_fuses_a_free_bitcast_still_agrees_with_xla():
    g = load_graph(path("mobilenet_block", "after_noynn"))
    xla = xla_plan(g)
    free = set(free_outside_fusions(g))
    sets = [set(gr.nodes) for gr in xla.groups if not set(gr.nodes) <= free]
    b = sorted(free)[0]
    user = g.users(b)[0]
    for s in sets:
        if user in s:
            s.add(b)                      # the bitcast joins its consumer's kernel
    for n in free - {b}:
        sets.append({n})
    plan = make_plan(g, [sorted(s, key=g.topo_order.index) for s in sets], policy="test")
    a = compare_with_xla(g, plan)
    assert a.f1 == 1.0 and a.extra_pairs == () and set(a.dropped) == free


def test_compare_xla_says_which_free_ops_it_drops(capsys):
    assert main(["compare-xla", str(path("mobilenet_block", "after_noynn"))]) == 0
    out = capsys.readouterr().out
    assert "not compared: 6 free op(s) (bitcast) outside XLA's fusions" in out


def test_an_optimised_module_whose_fusions_are_all_in_a_loop_body_has_an_xla_plan():
    g = load_graph(path("power_iteration", "after_noynn"))
    assert g.meta["has_xla_fusions"]
    plan = xla_plan(g)
    assert [g.node(n).op for gr in plan.groups for n in gr.nodes].count("while") == 1

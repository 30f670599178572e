"""Every sample graph and every shared HLO model, fused and unfused, on the cpu backend.

Fused plans: every op in one group (the most fusion a plan can ask for, which exercises scratch
phases and block-wise dots), XLA's own grouping of the optimised module (``after_noynn``), and
the planner's plan once the planner is installed. Each result must equal the reference
interpreter, and for the HLO models also the outputs JAX computed (``NAME.io.npz``).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_matches, one_group_plan, planner_plan
from small_graphs import HLO, HLO_NAMES, SAMPLE_NAMES, load_hlo, load_sample

from workbench.codegen import compile_plan
from workbench.codegen.check import compare, reference_outputs
from workbench.ir import make_inputs
from workbench.planner.plan import unfused_plan, xla_plan


def _run(graph, plan, inputs, cache):
    compiled = compile_plan(graph, plan, backend="cpu", cache_dir=cache)
    assert len(compiled.kernels) == len(plan.groups)
    return compiled, compiled.run(inputs)


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_sample_graph_fused_and_unfused(name, kernel_cache):
    graph = load_sample(name)
    inputs = make_inputs(graph, seed=1)
    plans = [one_group_plan(graph), unfused_plan(graph), planner_plan(graph)]
    for plan in [p for p in plans if p is not None]:
        compiled, outs = _run(graph, plan, inputs, kernel_cache)
        assert not any(k.fallback for k in compiled.kernels), plan.policy
        assert_matches(graph, outs, inputs, plan.policy)


def _jax_io(name):
    with np.load(HLO / f"{name}.io.npz") as data:
        args = {k: data[k] for k in data.files if k.startswith("arg")}
        outs = [data[f"out{i}"] for i in range(sum(k.startswith("out") for k in data.files))]
    return args, outs


@pytest.mark.parametrize("name", HLO_NAMES)
def test_hlo_model_matches_reference_and_jax(name, kernel_cache):
    graph = load_hlo(name)
    args, jax_outs = _jax_io(name)
    ref, exact = reference_outputs(graph, args)
    plans = [one_group_plan(graph), unfused_plan(graph), planner_plan(graph)]
    for plan in [p for p in plans if p is not None]:
        compiled, outs = _run(graph, plan, args, kernel_cache)
        assert not any(k.fallback for k in compiled.kernels), plan.policy
        assert_matches(graph, outs, args, plan.policy)
        for i, (got, want) in enumerate(zip(outs, jax_outs)):
            c = compare(got, want, "f32", i, exact=None if exact is None else exact[i])
            assert c.ok, f"{name} {plan.policy} vs JAX: {c}"


@pytest.mark.parametrize("name", HLO_NAMES)
def test_xla_grouping_of_optimised_module(name, kernel_cache):
    graph = load_hlo(name, "after_noynn")
    args, jax_outs = _jax_io(name)
    plan = xla_plan(graph)
    compiled, outs = _run(graph, plan, args, kernel_cache)
    assert not any(k.fallback for k in compiled.kernels)
    assert_matches(graph, outs, args, "xla")
    _, exact = reference_outputs(graph, args)
    for i, (got, want) in enumerate(zip(outs, jax_outs)):
        assert compare(got, want, "f32", i, exact=exact[i]).ok

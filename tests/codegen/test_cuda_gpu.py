"""The cuda backend on a real GPU, full-size models (skipped without one; see
bench/device_check.sh, which runs this file on a GPU machine)."""

from __future__ import annotations

import pytest
from conftest import assert_matches, one_group_plan
from small_graphs import HLO_NAMES, SAMPLE_NAMES, load_hlo, load_sample

from workbench.codegen.backend import gpu_available
from workbench.ir import make_inputs
from workbench.planner.plan import unfused_plan

pytestmark = pytest.mark.skipif(not gpu_available(), reason="needs a CUDA GPU")


def _check(graph, cache):
    from workbench.codegen import compile_plan

    inputs = make_inputs(graph, seed=4)
    for plan in (one_group_plan(graph), unfused_plan(graph)):
        compiled = compile_plan(graph, plan, backend="cuda", cache_dir=cache)
        native = [k for k in compiled.kernels if not k.fallback]
        assert len(native) == len(compiled.kernels), [k.fallback_reason for k in
                                                       compiled.kernels if k.fallback]
        assert all(k.registers and k.registers > 0 for k in native)
        assert all(k.spill_bytes is not None for k in native)
        assert_matches(graph, compiled.run(inputs), inputs, plan.policy)


@pytest.mark.parametrize("name", HLO_NAMES)
def test_hlo_model_on_gpu(name, kernel_cache):
    _check(load_hlo(name), kernel_cache)


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_sample_graph_on_gpu(name, kernel_cache):
    _check(load_sample(name), kernel_cache)


def test_profile_on_gpu_uses_events_and_reads_registers(kernel_cache):
    from workbench.profiler import profile

    g = load_hlo("softmax")
    rep = profile(g, one_group_plan(g), backend="cuda", repeat=5, cache_dir=kernel_cache)
    assert rep.ok and rep.backend == "cuda"
    k = rep.kernels[0]
    assert k.timing.median_s > 0 and k.registers > 0 and k.gbps > 0

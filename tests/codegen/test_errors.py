"""Bad input never stops the process: numba failures name the group, op and generated line and
fall back to numpy; plans over the memory cap are refused before allocating; unsupported
groups fall back with a reason; unusable backends are refused with a clear message."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_matches, one_group_plan

from workbench.codegen import compile_plan, emitters
from workbench.errors import CompileError, ResourceLimitError
from workbench.ir import GraphBuilder, make_inputs, verify
from workbench.planner.plan import unfused_plan


def _graph():
    b = GraphBuilder("small")
    x = b.parameter("x", (32,))
    y = b.parameter("y", (32,))
    t = b.op("tanh", [b.op("add", [x, y])], node_id="the_tanh")
    return verify(b.build([b.op("multiply", [t, y])]))


def test_numba_failure_names_group_op_and_line_and_falls_back(monkeypatch, kernel_cache):
    monkeypatch.setitem(emitters.CPU_TABLE, "tanh", lambda a, d, at, cx: f"({a[0]} + 'oops')")
    g = _graph()
    compiled = compile_plan(g, one_group_plan(g), backend="cpu", cache_dir=kernel_cache)
    (k,) = compiled.kernels
    assert k.fallback and k.error is not None
    assert k.error["code"] == "compile"
    msg = k.error["message"]
    assert "group g0" in msg and "op tanh" in msg and "generated line" in msg and "oops" in msg
    assert k.error["node"] == "the_tanh"
    assert any("numba failed to compile g0" in n for n in compiled.notes)
    inputs = make_inputs(g)
    assert_matches(g, compiled.run(inputs), inputs)      # the group ran through numpy


def test_plan_over_the_memory_cap_is_refused_before_allocating(kernel_cache):
    b = GraphBuilder("big")
    x = b.parameter("x", (1 << 20,))
    g = verify(b.build([b.op("exponential", [b.op("negate", [x])])]))
    compiled = compile_plan(g, unfused_plan(g), backend="cpu", cache_dir=kernel_cache)
    assert compiled.peak_bytes == 3 * 4 << 20          # x, negate, exponential
    with pytest.raises(ResourceLimitError, match="more than the cap"):
        compiled.run([np.zeros(1 << 20, np.float32)], max_bytes=8 << 20)
    fused = compile_plan(g, one_group_plan(g), backend="cpu", cache_dir=kernel_cache)
    assert fused.peak_bytes == 2 * 4 << 20
    fused.run([np.zeros(1 << 20, np.float32)], max_bytes=8 << 20)


def test_unsupported_dtype_group_falls_back_with_reason(kernel_cache):
    import ml_dtypes

    b = GraphBuilder("f8")
    x = b.parameter("x", (8,), "f8e5m2")
    g = verify(b.build([b.op("exponential", [x])]))
    compiled = compile_plan(g, one_group_plan(g), backend="cpu", cache_dir=kernel_cache)
    (k,) = compiled.kernels
    assert k.fallback and "f8e5m2" in k.fallback_reason and k.error is None
    x = np.linspace(-1, 1, 8).astype(ml_dtypes.float8_e5m2)
    want = np.exp(x.astype(np.float32)).astype(ml_dtypes.float8_e5m2)
    assert compiled.run([x])[0].tolist() == want.tolist()


def test_unusable_backends_are_refused():
    g = _graph()
    with pytest.raises(CompileError, match="unknown backend"):
        compile_plan(g, one_group_plan(g), backend="tpu")
    with pytest.raises(CompileError, match="NUMBA_ENABLE_CUDASIM"):
        compile_plan(g, one_group_plan(g), backend="cuda-sim")
    with pytest.raises(CompileError, match="no CUDA GPU"):
        compile_plan(g, one_group_plan(g), backend="cuda")


def test_auto_backend_without_gpu_is_cpu_with_a_note(kernel_cache):
    g = _graph()
    compiled = compile_plan(g, one_group_plan(g), cache_dir=kernel_cache)
    assert compiled.backend == "cpu" and "no GPU: ran on cpu" in compiled.notes


def test_dead_groups_are_skipped_and_offline_groups_run_once(kernel_cache):
    from workbench.planner import plan_graph
    from workbench.transforms.folding import fold_batch_norms
    from small_graphs import load_hlo

    b = GraphBuilder("dead")
    x = b.parameter("x", (16,))
    b.op("exponential", [x], node_id="unused")                 # dead code
    g = verify(b.build([b.op("negate", [x])]))
    compiled = compile_plan(g, unfused_plan(g), backend="cpu", cache_dir=kernel_cache)
    assert compiled.skipped == ["g0"] and [k.group_id for k in compiled.kernels] == ["g1"]
    assert compiled.run([np.ones(16, np.float32)])[0].tolist() == [-1.0] * 16

    folded, _ = fold_batch_norms(load_hlo("resnet_block"))
    plan = plan_graph(folded, "priority")
    compiled = compile_plan(folded, plan, backend="cpu", cache_dir=kernel_cache)
    roles = [k.role for k in compiled.kernels]
    assert "offline" in roles and "call" in roles
    assert len(compiled.call) == roles.count("call")
    inputs = make_inputs(folded, seed=5)
    env = compiled.prepare(inputs)
    assert len(compiled.offline_s) == roles.count("offline")
    times = []
    outs = compiled.execute(env, times)
    assert len(times) == roles.count("call")
    assert_matches(folded, outs, inputs)

"""CompiledPlan.run accepts the arrays users have: read-only, non-contiguous, memory-mapped."""

from __future__ import annotations

import numpy as np
from conftest import one_group_plan

from tests.corpus_models import args_of, io, path
from workbench.codegen import compile_plan
from workbench.importers import load_graph
from workbench.ir import GraphBuilder, evaluate, verify


def _graph():
    b = GraphBuilder("ro")
    x = b.parameter("x", (4, 6))
    y = b.parameter("y", (4, 6))
    return verify(b.build([b.op("tanh", [b.op("add", [x, y])])]))


def test_read_only_and_non_contiguous_inputs_run(kernel_cache, tmp_path):
    g = _graph()
    compiled = compile_plan(g, one_group_plan(g), backend="cpu", cache_dir=kernel_cache)
    base = np.arange(48, dtype=np.float32).reshape(6, 8) / 10
    x = base[1:5, ::1][:, 1:7]                     # a strided view, not C-contiguous
    y = np.ascontiguousarray(base[:4, :6].T.T)
    y.setflags(write=False)                        # as np.asarray(jax_array) returns
    assert not x.flags.c_contiguous and not y.flags.writeable
    np.save(tmp_path / "x.npy", np.ascontiguousarray(x))
    mm = np.load(tmp_path / "x.npy", mmap_mode="r")  # memory-mapped, read-only
    want = np.tanh(x + y)
    for a in (x, mm):
        (out,) = compiled.run([a, y])
        np.testing.assert_allclose(out, want, rtol=1e-6)
        (out,) = compiled.run({"arg0": a, "arg1": y})
        np.testing.assert_allclose(out, want, rtol=1e-6)
    assert not y.flags.writeable                   # the caller's array is untouched


def test_read_only_bf16_inputs_of_a_real_model(kernel_cache):
    from workbench.planner import plan_graph

    g = load_graph(path("mlp_bf16", "before"))
    args = args_of(io("mlp_bf16"))
    for a in args.values():
        a.setflags(write=False)                    # raw |V2 bytes from np.load, read-only
    compiled = compile_plan(g, plan_graph(g), backend="cpu", cache_dir=kernel_cache)
    (out,) = compiled.run(args)
    (ref,) = evaluate(g, args)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)

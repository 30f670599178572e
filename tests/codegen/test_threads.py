"""Threads of the CPU backend: BLAS runs single-threaded (threadpoolctl) and dots share the
cores through numba's prange, in blocks chosen from their size; thread counts never exceed
the usable CPUs; numpy's BLAS is restored after the profiler's check."""

from __future__ import annotations

import os
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import one_group_plan

from workbench.codegen import blas, compile_plan
from workbench.codegen import cpu_contraction as cc
from workbench.ir import GraphBuilder


def _dot(B, M, N, K, kind="dot", dtype="f32"):
    return SimpleNamespace(B=B, M=M, N=N, K=K, kind=kind, lhs=SimpleNamespace(dtype=dtype))


def test_small_contractions_run_serially_in_one_blas_call():
    assert cc.contraction_blocks(_dot(1, 64, 64, 64), threads=2) == cc.Blocks(64, 1, 64, 1,
                                                                              False)
    few_macs = _dot(1, 1024, 1023, 1)                 # 4 MiB result, under 2**20 multiply-adds
    assert not cc.contraction_blocks(few_macs, threads=2).parallel
    small_result = _dot(1, 8, 8, 1 << 16)             # 256 B written, 4M multiply-adds
    assert not cc.contraction_blocks(small_result, threads=2).parallel
    assert not cc.contraction_blocks(_dot(1, 1024, 1024, 256), threads=1).parallel


def test_a_large_dot_gets_one_row_block_per_thread():
    b = cc.contraction_blocks(_dot(1, 1024, 1024, 256), threads=2)     # 4 MiB result
    assert b == cc.Blocks(512, 2, 1024, 1, True)
    huge = cc.contraction_blocks(_dot(1, 4096, 4096, 64), threads=2)  # 64 MiB: 8 MiB blocks
    assert huge.nmb == 8 and huge.bm == 512 and huge.nnb == 1


def test_a_dot_with_few_rows_is_split_into_column_blocks():
    b = cc.contraction_blocks(_dot(1, 32, 2048, 512), threads=8)
    assert (b.nmb, b.bm, b.nnb, b.bn, b.parallel) == (1, 32, 8, 256, True)


def test_a_dot_with_fewer_rows_than_columns_is_split_along_its_columns():
    # each block's BLAS call packs the whole operand it does not split: the LSTM's
    # [128, 1024] x [1024, 2048] and the shared mlp's [32, 256] x [256, 512] split the weights
    assert cc.contraction_blocks(_dot(1, 128, 2048, 1024), threads=2) == cc.Blocks(
        128, 1, 1024, 2, True)
    assert cc.contraction_blocks(_dot(1, 32, 512, 256), threads=2) == cc.Blocks(
        32, 1, 256, 2, True)
    # more rows than columns, or too few columns to share: row blocks
    assert cc.contraction_blocks(_dot(1, 1024, 256, 1024), threads=2) == cc.Blocks(
        512, 2, 256, 1, True)
    assert cc.contraction_blocks(_dot(1, 512, 600, 64), threads=64).nnb == 1


def test_a_batched_dot_shares_whole_batches():
    assert cc.contraction_blocks(_dot(64, 128, 128, 32), threads=2) == cc.Blocks(
        128, 1, 128, 1, True)


def test_a_convolution_gets_cache_sized_row_blocks_and_at_least_one_per_thread():
    conv = cc.contraction_blocks(_dot(1, 8192, 64, 576, kind="conv"), threads=2)
    assert conv.bm == (256 << 10) // (4 * 576) and conv.nnb == 1 and conv.parallel
    few = cc.contraction_blocks(_dot(1, 64, 512, 576, kind="conv"), threads=4)
    assert few.bm == 16 and few.nmb == 4


@pytest.mark.parametrize("transposed", [False, True])
def test_column_blocked_dots_match_numpy(kernel_cache, monkeypatch, transposed):
    monkeypatch.setattr(cc, "usable_threads", lambda: 8)
    b = GraphBuilder("cols")
    x = b.parameter("x", (32, 512))
    w = b.parameter("w", (2048, 512) if transposed else (512, 2048))
    d = b.op("dot", [x, w], lhs_contracting_dims=(1,),
             rhs_contracting_dims=(1,) if transposed else (0,))
    g = b.build([b.op("tanh", [d])])
    compiled = compile_plan(g, one_group_plan(g), backend="cpu", cache_dir=kernel_cache)
    (k,) = compiled.kernels
    assert "prange(8)" in k.source and f"sgemm_rows({int(transposed)}, " in k.source
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((32, 512)).astype(np.float32)
    ws = rng.standard_normal(g.node(w).type.shape).astype(np.float32)
    (out,) = compiled.run([xs, ws])
    want = np.tanh(xs.astype(np.float64) @ (ws.T if transposed else ws).astype(np.float64))
    assert np.abs(out - want).max() < 1e-4


def test_compiling_leaves_scipys_blas_on_one_thread(kernel_cache):
    from small_graphs import load_sample

    g = load_sample("matmul_bias_gelu")            # [128, 256] x [256, 512]
    blas.set_scipy_blas_threads(0)
    compile_plan(g, one_group_plan(g), backend="cpu", cache_dir=kernel_cache)
    if blas.blas_threads("scipy") is not None:
        assert blas.blas_threads("scipy") == 1


def test_scipy_blas_ran_multi_threaded_once_before_one_thread(kernel_cache):
    """warm_scipy_blas: one two-thread sgemm (once per process) before the BLAS goes to one
    thread (a one-thread OpenBLAS that never ran threaded multiplies 2.3x slower, see
    workbench/codegen/blas.py); after compiling, the BLAS is on one thread again."""
    from small_graphs import load_sample

    if blas.blas_threads("scipy") is None:
        pytest.skip("scipy's BLAS is not controllable here")
    g = load_sample("matmul_bias_gelu")
    compile_plan(g, one_group_plan(g), backend="cpu", cache_dir=kernel_cache)
    assert blas.warm_scipy_blas() is (blas.usable_cpus() > 1)
    assert blas._WARMED == [blas.usable_cpus() > 1]      # made once, remembered
    assert blas.blas_threads("scipy") == 1


def test_every_numba_thread_ran_one_blocked_sgemm_after_compiling(kernel_cache):
    """warm_worker_blas: a 512^3 product in row blocks on numba's threads, once per process
    (until one had run, the probe's 256^3 dot took 1.9-2.4 ms on the 2-core VM; 0.8-0.9 ms
    after: workbench/codegen/blas.py); the product is right and scipy's BLAS stays on one
    thread."""
    from small_graphs import load_sample

    if blas.blas_threads("scipy") is None:
        pytest.skip("scipy's BLAS is not controllable here")
    g = load_sample("matmul_bias_gelu")
    compile_plan(g, one_group_plan(g), backend="cpu", cache_dir=kernel_cache)
    assert blas._WORKERS_WARMED == [True] and blas.warm_worker_blas() is True
    assert blas.blas_threads("scipy") == 1
    from workbench.codegen.blas_warm import blocks

    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((64, 64)).astype(np.float32) for _ in range(2))
    c = np.zeros((64, 64), np.float32)
    blocks(a.ctypes.data, b.ctypes.data, c.ctypes.data, 64, 4)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-4)


def test_blas_threads_are_capped_at_the_usable_cpus():
    n = blas.usable_cpus()
    assert 1 <= n <= (os.cpu_count() or n)
    if hasattr(os, "sched_getaffinity"):
        assert n == len(os.sched_getaffinity(0))
    if blas.blas_threads("scipy") is None:
        pytest.skip("scipy's BLAS is not controllable here")
    try:
        assert blas.set_scipy_blas_threads(0) and blas.blas_threads("scipy") == n
        assert blas.set_scipy_blas_threads(64) and blas.blas_threads("scipy") == n
    finally:
        blas.single_thread_scipy_blas()
    assert blas.blas_threads("scipy") == 1


def test_numpy_blas_threads_are_restored():
    before = blas.blas_threads("numpy")
    if before is None:
        pytest.skip("numpy's BLAS is not controllable here")
    with blas.numpy_blas_threads(1):
        assert blas.blas_threads("numpy") == 1
    assert blas.blas_threads("numpy") == before

"""Threads of the CPU backend: dots call BLAS single-threaded (OpenBLAS's spin-waiting workers
made timings on a busy machine unreliable), thread counts never exceed the usable CPUs, and
numpy's BLAS is restored after the profiler's check."""

from __future__ import annotations

import os

from conftest import one_group_plan

from workbench.codegen import blas, compile_plan


def test_small_dots_call_blas_single_threaded(kernel_cache):
    from small_graphs import load_sample

    g = load_sample("matmul_bias_gelu")            # [128, 256] x [256, 512]: one BLAS call
    compiled = compile_plan(g, one_group_plan(g), backend="cpu", cache_dir=kernel_cache)
    (k,) = compiled.kernels
    assert "np.dot(" in k.source and "BLAS_THREADS = 1" in k.source
    assert getattr(k.launch, "__name__", "") != "wrapped"     # no thread switching around it


def test_blas_threads_are_capped_at_the_usable_cpus():
    n = blas.usable_cpus()
    assert 1 <= n <= (os.cpu_count() or n)
    if hasattr(os, "sched_getaffinity"):
        assert n == len(os.sched_getaffinity(0))
    set_, get_ = blas._openblas("scipy", "scipy.libs", "libscipy_openblas*.so*", "")
    if set_ is None:
        return
    try:
        assert blas.set_scipy_blas_threads(0) and get_() == n
        assert blas.set_scipy_blas_threads(64) and get_() == n    # never more than usable
    finally:
        blas.single_thread_scipy_blas()
    assert get_() == 1


def test_numpy_blas_threads_are_restored():
    set_, get_ = blas._openblas("numpy", "numpy.libs", "libscipy_openblas64_*.so*", "64_")
    if set_ is None:
        return
    before = get_()
    with blas.numpy_blas_threads(1):
        assert get_() == 1
    assert get_() == before

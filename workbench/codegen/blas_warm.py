"""The parallel loop :func:`workbench.codegen.blas.warm_worker_blas` runs once per process:
a module of its own so that numba caches it on disk (a function defined inside another is
compiled again in every process)."""

from __future__ import annotations

from numba import njit, prange

from workbench.codegen.cpu_intrinsics import sgemm_rows


@njit("void(int64, int64, int64, int64, int64)", parallel=True, cache=True)
def blocks(pa, pb, pc, n, nblocks):
    """``C = A @ B`` for [n, n] float32 row-major arrays at the addresses ``pa``, ``pb``,
    ``pc``, in ``nblocks`` row blocks (``n`` divisible by it), one one-thread ``sgemm`` each,
    on numba's threads."""
    rows = n // nblocks
    for k in prange(nblocks):
        off = k * rows * n * 4
        sgemm_rows(0, rows, n, n, pa + off, n, pb, n, pc + off, n)

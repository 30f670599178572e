"""BLAS threads: the CPU backend's BLAS runs single-threaded, its parallelism is numba's.

Generated kernels multiply through scipy's BLAS (numba's ``np.dot`` and the backend's
``sgemm_rows`` call what ``scipy.linalg.cython_blas`` exports), not numpy's. That BLAS is kept
at one thread, with `threadpoolctl <https://github.com/joblib/threadpoolctl>`_ (the library
scikit-learn and joblib use to control native thread pools); a dot large enough to share is
split into blocks that numba's ``prange`` runs on its thread pool, every usable core
(:mod:`workbench.codegen.cpu_contraction`). So one pool runs everything and its idle workers
sleep: OpenBLAS's own workers spin-wait for ~0.1 s after each multi-threaded call (its
``THREAD_TIMEOUT``), holding a core that numba's workers and other processes need, and a
multi-threaded BLAS call inside numba's parallel loop oversubscribes the cores (a transformer
block's fused kernel took 16 ms instead of 0.7 ms).

numpy's own BLAS (the reference interpreter's) is a separate library and keeps its threads,
except while :func:`profile` checks results (:class:`numpy_blas_threads`).
"""

from __future__ import annotations

import os

_CONTROLLERS: dict = {}


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask; ``os.cpu_count()`` counts the host's,
    and more threads than usable cores make each call wait on descheduled workers)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _blas_libs(package: str) -> list:
    """threadpoolctl's controllers of the BLAS libraries ``package`` ships (``scipy`` or
    ``numpy``), loading scipy's first; [] when threadpoolctl or the library is missing."""
    if package in _CONTROLLERS:
        return _CONTROLLERS[package]
    found = []
    try:
        if package == "scipy":
            import scipy.linalg.cython_blas  # noqa: F401  (loads scipy's BLAS)
        from threadpoolctl import ThreadpoolController

        marker = os.sep + f"{package}.libs" + os.sep
        found = [lc for lc in ThreadpoolController().lib_controllers
                 if lc.user_api == "blas" and (marker in lc.filepath
                                               or os.sep + package + os.sep in lc.filepath)]
    except ImportError:
        found = []
    _CONTROLLERS[package] = found
    return found


def blas_threads(package: str = "scipy") -> int | None:
    """The thread count of ``package``'s BLAS, or None when it is not found."""
    libs = _blas_libs(package)
    return libs[0].num_threads if libs else None


def set_scipy_blas_threads(n: int) -> bool:
    """Set scipy's BLAS to ``n`` threads (0: every usable core, see :func:`usable_cpus`; never
    more); True if it was found."""
    libs = _blas_libs("scipy")
    for lc in libs:
        lc.set_num_threads(min(n, usable_cpus()) if n else usable_cpus())
    return bool(libs)


_WARMED: list = []


def warm_scipy_blas() -> bool:
    """Run one multi-threaded ``sgemm`` of scipy's BLAS (once per process); True if it ran.

    Measured on this project's 2-CPU EPYC VM (scipy's OpenBLAS 0.3.30, ``Haswell`` kernels,
    ``pthreads``): a one-thread ``sgemm`` of [32, 512] x [512, 128] took 389-401 us in a
    process whose OpenBLAS had never run a call on more than one thread (set to one thread by
    threadpoolctl, or started with ``OPENBLAS_NUM_THREADS=1``), and 168-171 us once one call
    of a [256, 256] x [256, 256] ``sgemm`` had run on two threads (a 64 x 64 call, too small
    for OpenBLAS to split, and setting two threads without a call, left it slow). Every
    block-wise dot of the CPU backend calls this BLAS on one thread, so the call is made
    before the BLAS is set to one thread (:func:`single_thread_scipy_blas`).
    """
    if _WARMED:
        return _WARMED[0]
    ran = False
    libs = _blas_libs("scipy")
    if libs and usable_cpus() > 1:
        try:
            import numpy as np
            from scipy.linalg import blas as sblas

            x = np.ones((256, 256), np.float32, order="F")
            for lc in libs:
                lc.set_num_threads(usable_cpus())
            sblas.sgemm(1.0, x, x)
            ran = True
        except ImportError:
            ran = False
    _WARMED.append(ran)
    return ran


def single_thread_scipy_blas() -> bool:
    """Set scipy's BLAS to one thread (after :func:`warm_scipy_blas`), then warm it on each of
    numba's threads (:func:`warm_worker_blas`); True if it was found."""
    warm_scipy_blas()
    found = set_scipy_blas_threads(1)
    if found:
        warm_worker_blas()
    return found


#: the float32 product :func:`warm_worker_blas` splits over numba's threads (M = K = N)
WARM_WORKER_SIZE = 512
_WORKERS_WARMED: list = []


def warm_worker_blas() -> bool:
    """Run one blocked ``sgemm`` on every numba thread, once per process; True if it ran.

    The CPU backend's dots call scipy's BLAS (on one thread) from inside numba's parallel
    loops, one row block a thread. Measured on the 2-core development VM (numba 0.68, scipy's
    OpenBLAS 0.3.30): the calibration probe's 256^3 dot, two blocks on numba's two threads,
    took 1.9-2.4 ms in a fresh process however often it ran, and 0.83-0.92 ms once a 384^3 or
    512^3 dot had run the same way; a 512^3 ``sgemm`` on the main thread alone, and OpenBLAS's
    own warm-up (:func:`warm_scipy_blas`), left it at 2.4 ms. The probe measures its dots after
    larger ones, so before this a profile's dots ran 2-5x slower than the cost model said
    (the profile's drift check: a median of 3.9x over bench_cost_model's 63 models).
    """
    if _WORKERS_WARMED:
        return _WORKERS_WARMED[0]
    ran = False
    try:
        import numpy as np
        from numba import config

        threads = max(1, min(usable_cpus(), config.NUMBA_NUM_THREADS))
        while WARM_WORKER_SIZE % threads:
            threads -= 1
        n = WARM_WORKER_SIZE
        a, b = np.ones((n, n), np.float32), np.ones((n, n), np.float32)
        c = np.zeros((n, n), np.float32)

        from workbench.codegen.blas_warm import blocks

        blocks(a.ctypes.data, b.ctypes.data, c.ctypes.data, n, threads)
        ran = bool(c[0, 0] == n and c[-1, -1] == n)
    except ImportError:
        ran = False
    _WORKERS_WARMED.append(ran)
    return ran


class numpy_blas_threads:
    """Context manager: numpy's own BLAS (the reference interpreter's) with ``n`` threads.

    OpenBLAS's worker threads spin-wait after each multi-threaded call (for 2**28 cycles,
    ~0.1 s, by default: OpenBLAS's ``THREAD_TIMEOUT``). After the reference interpreter's
    dots, numpy's worker spun on one of a 2-core machine's cores while the next kernels were
    timed (measured: 60 ms of CPU in a 64 ms window of timed runs); :func:`profile` therefore
    runs its correctness check with one numpy BLAS thread. A no-op when numpy's BLAS is not
    found.
    """

    def __init__(self, n: int):
        self.n = n
        self.old: list = []

    def __enter__(self):
        libs = _blas_libs("numpy")
        self.old = [(lc, lc.num_threads) for lc in libs]
        for lc in libs:
            lc.set_num_threads(self.n)
        return self

    def __exit__(self, *exc):
        for lc, n in self.old:
            lc.set_num_threads(n)
        return False

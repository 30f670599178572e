"""BLAS threads for the CPU backend's block-wise dots.

numba's ``np.dot`` calls the BLAS that scipy ships (through ``scipy.linalg.cython_blas``), not
numpy's. The CPU backend calls it on row blocks from inside a ``prange`` loop, so each call must
be single-threaded: a multi-threaded BLAS inside numba's parallel loop oversubscribes the cores
(measured here: a transformer block's fused kernel took 16 ms instead of 0.7 ms). numpy's own
BLAS (used by the reference interpreter) is a separate library and keeps its threads.
"""

from __future__ import annotations

import ctypes
import glob
import os

_SETTER: list = []


def _setter():
    """scipy's OpenBLAS ``set_num_threads`` function, or None (found once)."""
    if _SETTER:
        return _SETTER[0]
    fn = None
    try:
        import scipy

        libs = os.path.join(os.path.dirname(os.path.dirname(scipy.__file__)), "scipy.libs")
        for path in glob.glob(os.path.join(libs, "libscipy_openblas*.so*")):
            lib = ctypes.CDLL(path)
            for sym in ("scipy_openblas_set_num_threads", "openblas_set_num_threads"):
                fn = fn or getattr(lib, sym, None)
    except (ImportError, OSError):
        fn = None
    _SETTER.append(fn)
    return fn


def set_scipy_blas_threads(n: int) -> bool:
    """Set scipy's bundled OpenBLAS to ``n`` threads (0: every core); True if it was found."""
    fn = _setter()
    if fn is None:
        return False
    fn(ctypes.c_int(n or os.cpu_count() or 1))
    return True


def single_thread_scipy_blas() -> bool:
    """Set scipy's bundled OpenBLAS to one thread; True if it was found."""
    return set_scipy_blas_threads(1)


def with_blas_threads(launch, n: int):
    """``launch`` wrapped to run with ``n`` BLAS threads (0: every core), then one again."""
    if _setter() is None:
        return launch

    def wrapped(arrays):
        set_scipy_blas_threads(n)
        try:
            launch(arrays)
        finally:
            set_scipy_blas_threads(1)
    return wrapped

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

_DONE: list = []


def single_thread_scipy_blas() -> bool:
    """Set scipy's bundled OpenBLAS to one thread; True if it was found (idempotent)."""
    if _DONE:
        return _DONE[0]
    ok = False
    try:
        import scipy

        libs = os.path.join(os.path.dirname(os.path.dirname(scipy.__file__)), "scipy.libs")
        for path in glob.glob(os.path.join(libs, "libscipy_openblas*.so*")):
            lib = ctypes.CDLL(path)
            for sym in ("scipy_openblas_set_num_threads", "openblas_set_num_threads"):
                fn = getattr(lib, sym, None)
                if fn is not None:
                    fn(ctypes.c_int(1))
                    ok = True
                    break
    except (ImportError, OSError):
        ok = False
    _DONE.append(ok)
    return ok

"""BLAS threads for the CPU backend's dots.

numba's ``np.dot`` calls the BLAS that scipy ships (through ``scipy.linalg.cython_blas``), not
numpy's. The CPU backend calls it single-threaded: on row blocks from inside a ``prange`` loop
(a multi-threaded BLAS inside numba's parallel loop oversubscribes the cores: a transformer
block's fused kernel took 16 ms instead of 0.7 ms), and for small dots in one call too, since
OpenBLAS's spin-waiting workers make timings unreliable on a busy machine (see
``workbench.codegen.cpu.BLAS_ALL_CORES``). numpy's own BLAS (used by the reference interpreter)
is a separate library and keeps its threads, except while :func:`profile` checks results
(:class:`numpy_blas_threads`).
"""

from __future__ import annotations

import ctypes
import glob
import os

_FUNCS: dict = {}


def _openblas(package: str, libs: str, pattern: str, suffix: str):
    """(set_num_threads, get_num_threads) of the OpenBLAS a wheel bundles, or (None, None)."""
    key = (package, suffix)
    if key in _FUNCS:
        return _FUNCS[key]
    found = (None, None)
    try:
        mod = __import__(package)
        where = os.path.join(os.path.dirname(os.path.dirname(mod.__file__)), libs)
        for path in glob.glob(os.path.join(where, pattern)):
            lib = ctypes.CDLL(path)
            set_ = getattr(lib, f"scipy_openblas_set_num_threads{suffix}", None) or getattr(
                lib, f"openblas_set_num_threads{suffix}", None)
            get_ = getattr(lib, f"scipy_openblas_get_num_threads{suffix}", None) or getattr(
                lib, f"openblas_get_num_threads{suffix}", None)
            if set_ is not None and get_ is not None:
                get_.restype = ctypes.c_int
                found = (set_, get_)
                break
    except (ImportError, OSError):
        pass
    _FUNCS[key] = found
    return found


def _setter():
    """scipy's OpenBLAS ``set_num_threads`` function, or None (found once)."""
    return _openblas("scipy", "scipy.libs", "libscipy_openblas*.so*", "")[0]


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask; ``os.cpu_count()`` counts the host's,
    and more BLAS threads than usable cores make each call wait on spinning workers)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def set_scipy_blas_threads(n: int) -> bool:
    """Set scipy's bundled OpenBLAS to ``n`` threads (0: every usable core, see
    :func:`usable_cpus`); True if it was found."""
    fn = _setter()
    if fn is None:
        return False
    fn(ctypes.c_int(min(n, usable_cpus()) if n else usable_cpus()))
    return True


def single_thread_scipy_blas() -> bool:
    """Set scipy's bundled OpenBLAS to one thread; True if it was found."""
    return set_scipy_blas_threads(1)


def with_blas_threads(launch, n: int):
    """``launch`` wrapped to run with ``n`` BLAS threads (0: every usable core), then one
    again."""
    if _setter() is None:
        return launch

    def wrapped(arrays):
        set_scipy_blas_threads(n)
        try:
            launch(arrays)
        finally:
            set_scipy_blas_threads(1)
    return wrapped


class numpy_blas_threads:
    """Context manager: numpy's own OpenBLAS (the reference interpreter's) with ``n`` threads.

    OpenBLAS's worker threads spin-wait after each multi-threaded call (for 2**28 cycles,
    ~0.1 s, by default: OpenBLAS's ``THREAD_TIMEOUT``). After the reference interpreter's
    dots, numpy's worker spun on one of a 2-core machine's cores while the next kernels were
    timed (measured: 60 ms of CPU in a 64 ms window of timed runs); :func:`profile` therefore
    runs its correctness check with one numpy BLAS thread. A no-op when numpy's OpenBLAS is not
    found (another BLAS, or a numpy built differently).
    """

    def __init__(self, n: int):
        self.n = n
        self.old = None

    def __enter__(self):
        set_, get_ = _openblas("numpy", "numpy.libs", "libscipy_openblas64_*.so*", "64_")
        if set_ is not None:
            self.old = get_()
            set_(ctypes.c_int(self.n))
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            _openblas("numpy", "numpy.libs", "libscipy_openblas64_*.so*", "64_")[0](
                ctypes.c_int(self.old))
        return False

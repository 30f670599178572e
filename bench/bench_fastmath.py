"""Micro-benchmark of workbench.codegen.fastmath and fastmath_f64 against numpy and libm loops.

For each op, over 2**22 float32 elements (by default), time

* ``numpy``       -- numpy's own ufunc (numpy has no erf: scipy.special.erf if
                     installed, else skipped; logistic is ``1 / (1 + exp(-x))``),
* ``libm loop``   -- an ``@njit`` loop calling the ``EXACT`` (``math.*``) function,
* ``fast loop``   -- the same loop calling the ``FAST`` function (parallel=False),
* ``fast prange`` -- ``@njit(parallel=True)`` with ``prange`` and the ``FAST`` function,

after a warm-up call (compilation), as the median of ``--repeats`` runs, and print
a table with the ratios libm-loop / fast-loop and numpy / fast-loop (so > 1 means
the fast loop is faster).  The ulp column is the max ulp difference between the
fast loop and the libm loop on the benchmark inputs, as a sanity check.  The last two
columns are ns per element: of the ``fast prange`` loop (wall time), and the CPU time
(``time.process_time``, the minimum over the runs) of the serial ``fast loop``, which other
processes on a shared machine disturb much less than they do wall times.

Run: ``PYTHONPATH=. python bench/bench_fastmath.py [--log2n 22] [--repeats 9]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numba
import numpy as np
from numba import njit, prange

from workbench.codegen import fastmath as fm
from workbench.codegen import fastmath_f64 as fm64

FAST = {**fm.FAST, **fm64.FAST}
EXACT = {**fm.EXACT, **fm64.EXACT}
OPS = ("exponential", "log", "tanh", "logistic", "erf", "sine", "cosine", "power",
       "log-plus-one", "exponential-minus-one")


def _loop(fn, op, parallel=False):
    """A loop applying ``fn`` as the code generator calls it: sine and cosine in their two
    stages (``fastmath_f64.STAGED``), power with exponent 1.7."""
    rng = prange if parallel else range
    if fn is FAST.get(op) and op in fm64.STAGED:
        first, second = fm64.STAGED[op][:2]  # the medium-range reduction, as kernels call it first

        @njit(parallel=parallel)
        def staged(x, out):
            for i in rng(x.size):
                out[i] = second(first(x[i]), x[i])
        return staged
    if op == "power":
        y = np.float32(1.7)

        @njit(parallel=parallel)
        def apply2(x, out):
            for i in rng(x.size):
                out[i] = fn(x[i], y)
        return apply2

    @njit(parallel=parallel)
    def apply(x, out):
        for i in rng(x.size):
            out[i] = fn(x[i])
    return apply


@njit(parallel=True)
def _pcopy(x, out):
    for i in prange(x.size):
        out[i] = x[i]


def _numpy_logistic(x):
    with np.errstate(over="ignore"):
        return np.float32(1) / (np.float32(1) + np.exp(-x))


def _numpy_funcs():
    funcs = {"exponential": np.exp, "log": np.log, "tanh": np.tanh, "logistic": _numpy_logistic,
             "sine": np.sin, "cosine": np.cos, "power": lambda x: np.power(x, np.float32(1.7)),
             "log-plus-one": np.log1p, "exponential-minus-one": np.expm1}
    try:
        from scipy.special import erf
    except ImportError:
        erf = None
    funcs["erf"] = erf
    return funcs


def _inputs(op, n, rng):
    if op == "exponential":
        return rng.uniform(-80, 80, n).astype(np.float32)
    if op == "log":
        return np.exp(rng.uniform(-20, 20, n)).astype(np.float32)
    if op == "tanh":
        return rng.uniform(-10, 10, n).astype(np.float32)
    if op == "logistic":
        return rng.uniform(-20, 20, n).astype(np.float32)
    if op in ("sine", "cosine"):
        return rng.uniform(-100, 100, n).astype(np.float32)
    if op in ("power", "log-plus-one"):
        return rng.uniform(0, 10, n).astype(np.float32)
    if op == "exponential-minus-one":
        return rng.uniform(-10, 10, n).astype(np.float32)
    return rng.uniform(-4, 4, n).astype(np.float32)  # erf


def _median_time(f, repeats):
    f()  # warm-up (compiles on first call)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _min_cpu_time(f, repeats):
    """The least CPU time (``process_time``) of a call of a single-threaded ``f``."""
    f()
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        f()
        times.append(time.process_time() - t0)
    return float(np.min(times))


def _max_ulp(a, b):
    ia = a.view(np.int32).astype(np.int64)
    ib = b.view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(2**31) - ia, ia)
    ib = np.where(ib < 0, -(2**31) - ib, ib)
    return int(np.max(np.abs(ia - ib)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2n", type=int, default=22)
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args(argv)

    n = 1 << args.log2n
    rng = np.random.default_rng(0)
    numpy_funcs = _numpy_funcs()
    print(f"n = 2**{args.log2n} float32, median of {args.repeats}; numba {numba.__version__}, "
          f"numpy {np.__version__}, {platform.machine()} {numba.config.NUMBA_DEFAULT_NUM_THREADS} threads "
          f"(os.cpu_count()={os.cpu_count()})")
    header = (f"{'op':22s} {'numpy ms':>9s} {'libm loop':>10s} {'fast loop':>10s} "
              f"{'fast prange':>12s} {'libm/fast':>10s} {'numpy/fast':>11s} {'ulp vs libm':>12s} "
              f"{'prange/copy':>12s} {'prange ns/el':>13s} {'cpu ns/el':>10s}")
    print(header)
    print("-" * len(header))
    copy_in = np.ones(n, np.float32)
    copy_out = np.empty_like(copy_in)
    _pcopy(copy_in, copy_out)
    for op in OPS:
        x = _inputs(op, n, rng)
        out_libm = np.empty_like(x)
        out_fast = np.empty_like(x)
        out_par = np.empty_like(x)
        libm, fast = _loop(EXACT[op], op), _loop(FAST[op], op)
        par = _loop(FAST[op], op, parallel=True)

        np_fn = numpy_funcs[op]
        t_np = _median_time(lambda: np_fn(x), args.repeats) if np_fn is not None else float("nan")
        t_libm = _median_time(lambda: libm(x, out_libm), args.repeats)
        t_fast = _median_time(lambda: fast(x, out_fast), args.repeats)
        t_par = _median_time(lambda: par(x, out_par), args.repeats)
        t_copy = _median_time(lambda: _pcopy(copy_in, copy_out), args.repeats)
        t_cpu = _min_cpu_time(lambda: fast(x, out_fast), args.repeats)
        assert np.array_equal(out_fast.view(np.int32), out_par.view(np.int32))
        ulp = _max_ulp(out_fast, out_libm)
        print(f"{op:22s} {t_np * 1e3:9.3f} {t_libm * 1e3:10.3f} {t_fast * 1e3:10.3f} "
              f"{t_par * 1e3:12.3f} {t_libm / t_fast:9.1f}x {t_np / t_fast:10.1f}x {ulp:12d} "
              f"{t_par / t_copy:11.2f}x {t_par / n * 1e9:13.2f} {t_cpu / n * 1e9:10.2f}")
    print("times in ms; numpy = nan: no numpy function for this op (erf needs scipy); "
          "prange/copy: the parallel loop's time over a parallel copy of as many float32 "
          "(1.0x: memory-bound); ns/el: per element, of the prange loop (wall) and of the "
          "serial fast loop (CPU time)")


if __name__ == "__main__":
    main()

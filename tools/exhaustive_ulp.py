"""Exhaustive ulp error of a float32 function of workbench.codegen.fastmath over all 2**32
float32 bit patterns, against numpy's float64 function rounded to float32.

ulp = distance between the integer-ordered float32 representations (as
``tests/codegen/test_fastmath.py``'s ``ulp_error``: +0 and -0 are 0 apart, denormal results
count on the denormal grid); a NaN on exactly one side counts as a mismatch (reported
separately). The candidate runs in a numba ``prange`` loop (as the code generator calls it),
the reference is numpy's float64 ufunc on the same inputs (erf: the C library's float64
``erf``, numpy has none), in chunks of 2**24.

Run: ``PYTHONPATH=. python tools/exhaustive_ulp.py log-plus-one [--chunk-log2 24]`` (or
``exponential``, ``log``, ``tanh``, ``logistic``, ``erf``, ``tanh_accurate_f32``);
prints the max ulp, where it occurs, the count of inputs at each ulp distance and the NaN
mismatches. It takes a few minutes on two cores.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from numba import njit, prange

from workbench.codegen import fastmath as fm

@njit(parallel=True)
def _erf64(x):
    """The C library's float64 erf (numpy has none)."""
    out = np.empty_like(x)
    for i in prange(x.size):
        out[i] = math.erf(x[i])
    return out


REFERENCE = {"exponential": np.exp, "log": np.log, "tanh": np.tanh, "erf": _erf64,
             "logistic": lambda x: 1.0 / (1.0 + np.exp(-x)), "log-plus-one": np.log1p,
             "tanh_accurate_f32": np.tanh}


def _apply(fn):
    @njit(parallel=True)
    def run(x, out):
        for i in prange(x.size):
            out[i] = fn(x[i])
    return run


@njit(parallel=True)
def _distances(got, want, hist):
    """Per-chunk: histogram of ulp distances (last bin: >= len - 1), NaN mismatches, worst
    distance and its index."""
    gb = got.view(np.int32)
    wb = want.view(np.int32)
    n = got.size
    d = np.empty(n, np.int64)
    for i in prange(n):
        g, w = got[i], want[i]
        if g != g or w != w:
            d[i] = 0 if (g != g and w != w) else -1
        else:
            a = np.int64(gb[i])
            b = np.int64(wb[i])
            a = a if a >= 0 else np.int64(-2147483648) - a
            b = b if b >= 0 else np.int64(-2147483648) - b
            d[i] = abs(a - b)
    worst, at, nan_bad = np.int64(0), -1, 0
    last = hist.size - 1
    for i in range(n):
        v = d[i]
        if v < 0:
            nan_bad += 1
            continue
        hist[min(v, last)] += 1
        if v > worst:
            worst, at = v, i
    return worst, at, nan_bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("op", choices=sorted(k for k in REFERENCE if k in fm.FAST or hasattr(fm, k)),
                    help="an op of fastmath.FAST, or a function of the module by name")
    ap.add_argument("--chunk-log2", type=int, default=24)
    args = ap.parse_args()
    fn, ref = fm.FAST[args.op] if args.op in fm.FAST else getattr(fm, args.op), REFERENCE[args.op]
    run = _apply(fn)
    chunk = 1 << args.chunk_log2
    hist = np.zeros(65, np.int64)
    worst, worst_x, nan_bad = 0, None, 0
    out = np.empty(chunk, np.float32)
    t0 = time.perf_counter()
    for start in range(0, 1 << 32, chunk):
        x = np.arange(start, start + chunk, dtype=np.uint64).astype(np.uint32).view(np.float32)
        run(x, out)
        with np.errstate(all="ignore"):
            want = ref(x.astype(np.float64)).astype(np.float32)
        w, at, nb = _distances(out, want, hist)
        nan_bad += nb
        if w > worst:
            worst, worst_x = int(w), (x[at], out[at], want[at])
    print(f"{args.op}: max {worst} ulp over all 2**32 float32 inputs "
          f"({time.perf_counter() - t0:.0f} s)")
    if worst_x is not None:
        x, g, w = worst_x
        print(f"  worst at x={x!r} (bits {np.float32(x).view(np.uint32):#010x}): "
              f"got {g!r}, want {w!r}")
    print(f"  NaN mismatches: {nan_bad}")
    for d in np.nonzero(hist)[0]:
        print(f"  {d:>3}{'+' if d == hist.size - 1 else ' '} ulp: {hist[d]} inputs")


if __name__ == "__main__":
    main()

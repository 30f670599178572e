"""Row-wise reductions on the CPU backend: how each form of the loop runs, by row length.

Prints, for a float32 ``reduce`` over the last axis of 32,768 elements (rows of 8 to 1,024),
the 25th percentile of a kernel's time (microseconds) as the backend writes it today and as
the forms :func:`workbench.codegen.source.emit_reduce_serial` chooses between:

- ``max``: the NaN flag form (``acc = max(acc, v)``, ``nan |= v != v``) against the
  ``llvm.maximum`` intrinsic (``fmaximum``);
- ``add``: the constant trip count against the trip count hidden from LLVM
  (``opaque_extent``);
- ``softmax`` (one fused kernel: the row max, the sum of ``exp(x - max)``, the division): the
  sum's loop with its extent hidden below 32 (``OPAQUE_MIN_EXTENT_TRANSCENDENTAL``) or not;

and numpy's ``x.max(1)`` / ``x.sum(1)`` on the same array for reference. The numbers in the
module notes of ``emit_reduce_serial`` come from this script.

Usage: ``PYTHONPATH=. python bench/bench_reductions.py [--repeat N]``
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

from workbench.codegen import compile_plan
from workbench.codegen import source as src
from workbench.ir import GraphBuilder
from workbench.ir.interpreter import make_inputs
from workbench.planner.plan import unfused_plan

ELEMENTS = 1 << 15
ROWS = (8, 16, 32, 48, 64, 96, 128, 256, 1024)


def _graph(reducer: str, n: int):
    b = GraphBuilder(f"reduce_{reducer}_{n}")
    rows = ELEMENTS // n
    x = b.parameter("x", (rows, n))
    if reducer != "softmax":
        return b.build([b.reduce(x, (1,), reducer, 0.0 if reducer == "add" else float("-inf"))])
    m = b.op("broadcast", [b.reduce(x, (1,), "maximum", float("-inf"))], shape=(rows, n),
             dimensions=(0,))
    e = b.op("exponential", [b.op("subtract", [x, m])])
    s = b.op("broadcast", [b.reduce(e, (1,), "add", 0.0)], shape=(rows, n), dimensions=(0,))
    return b.build([b.op("divide", [e, s])])


def kernel_time(reducer: str, n: int, repeat: int, cache: str) -> float:
    """The 25th percentile (seconds) of the one-kernel plan of ``reducer`` (``add``,
    ``maximum``, ``softmax``) over rows of ``n``."""
    from workbench.planner.plan import make_plan

    g = _graph(reducer, n)
    members = [m for m in g.topo_order if g.node(m).op not in ("parameter", "constant")]
    plan = make_plan(g, [members], policy="bench") if reducer == "softmax" else \
        unfused_plan(g, "cpu")
    bound = compile_plan(g, plan, "cpu", cache_dir=cache)
    bound = bound.bind(bound.prepare(make_inputs(g, 0)))
    for _ in range(20):
        bound.run_timed()
    return float(np.percentile([bound.run_timed()[1][0] for _ in range(repeat)], 25))


def numpy_time(reducer: str, n: int, repeat: int) -> float:
    x = np.random.default_rng(0).standard_normal((ELEMENTS // n, n)).astype(np.float32)
    fn = x.max if reducer == "maximum" else x.sum
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(1)
        times.append(time.perf_counter() - t0)
    return float(np.percentile(times, 25))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=300)
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}; float32 row reductions over "
          f"{ELEMENTS} elements, 25th percentile of {args.repeat} runs, us")
    forms = {
        "maximum": [("today", {}), ("flag form", {"SHORT_MINMAX_REDUCTION": 1 << 30}),
                    ("fmaximum", {"SHORT_MINMAX_REDUCTION": 0})],
        "add": [("today", {}), ("constant extent", {"OPAQUE_EXTENTS": range(0)}),
                ("opaque_extent", {"OPAQUE_EXTENTS": range(1, 1 << 30)})],
        "softmax": [("today", {}),
                    ("exp sum unrolled", {"OPAQUE_MIN_EXTENT_TRANSCENDENTAL": 1 << 30})],
    }
    saved = {k: getattr(src, k) for k in ("SHORT_MINMAX_REDUCTION", "OPAQUE_EXTENTS",
                                          "OPAQUE_MIN_EXTENT_TRANSCENDENTAL")}
    for reducer, variants in forms.items():
        print(f"\n{reducer:8s} row " + " ".join(f"{n:>7d}" for n in ROWS))
        for label, patch in variants:
            with tempfile.TemporaryDirectory() as cache:
                for k, v in patch.items():
                    setattr(src, k, v)
                try:
                    row = [kernel_time(reducer, n, args.repeat, cache) for n in ROWS]
                finally:
                    for k, v in saved.items():
                        setattr(src, k, v)
            print(f"  {label:15s} " + " ".join(f"{t * 1e6:7.1f}" for t in row))
        if reducer != "softmax":
            print(f"  {'numpy':15s} " + " ".join(
                f"{numpy_time(reducer, n, args.repeat) * 1e6:7.1f}" for n in ROWS))
    print(f"\nload average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()

"""Planner benchmark: times and scaling ratios, measured in one run.

    PYTHONPATH=. python bench/bench_planner.py [--quick]

Goals (issue 3): plan the flattened ``transformer_block.after_noynn.hlo`` in under 0.2 s; a
synthetic layered graph of 10,000 nodes in under 1 s and of 100,000 nodes in under 10 s, growing
near-linearly. Building the graph (and its cached topological order) is not timed; everything the
planner does is (its per-node index, patterns, the policy, the decision log, the final plan).
The ``cpu`` device profile is probed before the timings (and cached), never inside them.
Wall-clock and CPU time are both printed: on a shared machine wall time includes waiting.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.importers import load_graph  # noqa: E402
from workbench.planner import get_device, plan_graph  # noqa: E402
from workbench.costmodel.devices import probe_cpu  # noqa: E402
from workbench.ir.synthetic import layered_graph  # noqa: E402

HLO = ROOT.parent / "shared" / "hlo"


def timed(fn, repeat: int) -> tuple[float, float, object]:
    """(best wall seconds, CPU seconds of that run, result) over ``repeat`` runs."""
    best = (float("inf"), 0.0, None)
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        w, c = time.perf_counter() - w, time.process_time() - c
        if w < best[0]:
            best = (w, c, out)
    return best


def verdict(seconds: float, goal: float) -> str:
    return "ok" if seconds < goal else "OVER"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the 100,000-node graph")
    args = ap.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPUs, load average {load:.2f}")

    w, _, prof = timed(probe_cpu, 1)
    levels = ", ".join(f"{name} {bw / 1e9:.1f} GB/s" for name, _, bw in prof.memory_levels())
    print(f"cpu probe: {w:.2f} s (goal < ~1 s) -> {levels}, "
          f"{prof.peak_flops / 1e9:.1f} GFLOP/s, launch {prof.launch_overhead_s * 1e6:.2f} us, "
          f"transcendental = {prof.transcendental_flops:g} FLOP")
    get_device("cpu")  # read or write the cache before any timing

    path = HLO / "transformer_block.after_noynn.hlo"
    if path.exists():
        g = load_graph(path)
        g.topo_order
        print(f"\n{path.name}: {len(g.nodes)} nodes")
        for policy in ("priority", "xla-cpu", "greedy"):
            w, c, plan = timed(lambda: plan_graph(g, policy, "cpu"), 5)
            print(f"  {policy:9s} {w * 1e3:7.1f} ms wall ({c * 1e3:6.1f} ms CPU), "
                  f"{plan.num_kernels} kernels   goal < 200 ms: {verdict(w, 0.2)}")

    sizes = [1000, 10000] + ([] if args.quick else [100000])
    print("\nsynthetic layered graphs, policy priority (device h100):")
    rows = []
    for n in sizes:
        g = layered_graph(n)
        g.topo_order
        w, c, plan = timed(lambda: plan_graph(g, "priority", "h100"), 3 if n < 50000 else 1)
        rows.append((len(g.nodes), w, c))
        goal = {10000: 1.0, 100000: 10.0}.get(n)
        print(f"  {len(g.nodes):7d} nodes: {w:6.2f} s wall ({c:6.2f} s CPU), "
              f"{w / len(g.nodes) * 1e6:5.1f} us/node, {plan.num_kernels} kernels, "
              f"{len(plan.decisions)} decisions"
              + (f"   goal < {goal:g} s: {verdict(w, goal)}" if goal else ""))
    for (n0, w0, c0), (n1, w1, c1) in zip(rows, rows[1:]):
        print(f"  {n1 // 1000}k/{n0 // 1000}k: nodes x{n1 / n0:.1f}, wall x{w1 / w0:.1f}, "
              f"CPU x{c1 / c0:.1f} (linear: x{n1 / n0:.1f})")

    g = layered_graph(10000)
    g.topo_order
    for policy in ("xla-cpu", "greedy"):
        w, c, plan = timed(lambda: plan_graph(g, policy, "h100"), 1)
        print(f"  {policy} on {len(g.nodes)} nodes: {w:.2f} s wall ({c:.2f} s CPU), "
              f"{plan.num_kernels} kernels")


if __name__ == "__main__":
    main()

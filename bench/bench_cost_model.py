"""Cost-model accuracy on this CPU: predicted over measured time per kernel, per sample graph.

    PYTHONPATH=. python bench/bench_cost_model.py [--repeat 2] [--save DIR] [--load DIR]
                                                  [GRAPH ...]

For each sample graph, runs ``workbench run GRAPH --backend cpu --json`` (``--repeat`` times,
each a fresh process), which compiles the plan and its unfused baseline, times every kernel and
prints the cost model's prediction beside it (the ``cpu`` profile). Prints, per graph, the
median over kernels of predicted / measured (the kernel's median time) for the fused plan's
kernels and for the unfused baseline's, and the range over the runs; 1.0 is a perfect
prediction, above 1 the model is pessimistic. Beside each, the same ratio for the model before
the memory levels (the same measured profile with DRAM bandwidth for every kernel, a
transcendental = 10 FLOP and the whole machine's FLOP rate for every contraction, as up to probe
version 2) on the same measured times; then the
median ratio by kind of kernel. Kernels that fell back to numpy and offline or dead kernels are
left out. ``--save DIR`` keeps the JSON of every run, ``--load DIR`` reads runs saved before
instead of running (to print the tables again). This is a report, not a timed test: the load
average is printed, and on a busy machine the measured times are high.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.importers import load_graph  # noqa: E402
from workbench.planner import plan_cost, plan_graph, unfused_plan  # noqa: E402
from workbench.costmodel.devices import cpu_profile  # noqa: E402
GRAPHS = sorted(p.stem for p in (ROOT / "sample_graphs").glob("*.json"))


def run_graph(name: str) -> dict:
    """One ``workbench run`` of a sample graph on the CPU backend, as its JSON report."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-m", "workbench", "run",
                          str(ROOT / "sample_graphs" / f"{name}.json"), "--backend", "cpu",
                          "--json"], capture_output=True, text=True, env=env, cwd=ROOT,
                         check=True)
    return json.loads(out.stdout)


def ratios(report: dict, key: str, alt: dict | None = None) -> list[float]:
    """predicted / measured median for each per-call, compiled kernel under ``key``: the
    prediction the report carries, or ``alt[key][group id]``."""
    out = []
    for k in report.get(key) or []:
        if k.get("fallback") or k.get("role", "call") != "call" or k.get("error"):
            continue
        if not (k.get("predicted_s") and k.get("median_s")):
            continue
        pred = k["predicted_s"] if alt is None else alt[key][k["group_id"]]
        out.append(pred / k["median_s"])
    return out


def predictions(name: str, plan_device, device) -> dict:
    """``{"kernels": {group: s}, "unfused_kernels": {group: s}}``: the predicted time on
    ``device`` of each kernel of the plan ``workbench run`` makes (policy priority, costed on
    ``plan_device``) and of its unfused baseline."""
    graph = load_graph(ROOT / "sample_graphs" / f"{name}.json")
    plan = plan_graph(graph, "priority", plan_device)
    out = {}
    for key, p in (("kernels", plan), ("unfused_kernels", unfused_plan(graph, "cpu"))):
        out[key] = {g: c.predicted_s for g, c in plan_cost(graph, p, device).groups.items()}
    return out


#: ops that make a kernel a layout change, for the summary by kind
LAYOUT = {"reshape", "transpose", "slice", "iota", "concatenate", "pad"}


def kernel_class(k: dict) -> str:
    """``contraction`` (a dot or convolution, composite ones such as ``matmul`` and
    ``conv2d`` included: the registry's categories), ``transcendental`` (any), ``layout`` (a
    reshape, transpose, slice, ...) or ``streaming`` (elementwise ops and reductions)."""
    from workbench.ir.ops import REGISTRY
    from workbench.ir.index import CONTRACTION_CATEGORIES

    ops = set(k.get("ops") or ())
    if any(op in REGISTRY and REGISTRY[op].category in CONTRACTION_CATEGORIES for op in ops):
        return "contraction"
    if k.get("transcendentals"):
        return "transcendental"
    return "layout" if ops & LAYOUT else "streaming"


def by_class(all_runs: dict, alts: dict | None = None) -> dict:
    """Class -> (median ratio over every kernel of every graph (first run), kernels)."""
    out: dict[str, list] = {}
    for name, runs in all_runs.items():
        if not runs:
            continue
        for key in ("kernels", "unfused_kernels"):
            ks = [k for k in runs[0].get(key) or [] if k.get("median_s")
                  and not k.get("fallback") and k.get("role", "call") == "call"
                  and k.get("predicted_s") and not k.get("error")]
            for k, r in zip(ks, ratios({key: ks}, key, alts[name] if alts else None)):
                out.setdefault(kernel_class(k), []).append(r)
    return {c: (statistics.median(v), len(v)) for c, v in sorted(out.items())}


def cell(runs, key, alt=None) -> str:
    """``median (min-max)`` over runs of the median ratio over kernels."""
    meds = [statistics.median(x) for x in (ratios(r, key, alt) for r in runs) if x]
    if not meds:
        return "-"
    return f"{statistics.median(meds):.2f}" + (f" ({min(meds):.2f}-{max(meds):.2f})"
                                               if len(meds) > 1 else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graphs", nargs="*", default=GRAPHS)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--save", type=Path)
    ap.add_argument("--load", type=Path)
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    prof = cpu_profile()
    before = replace(prof, l2_bytes=None, l2_bandwidth_Bps=None, llc_bytes=None,
                     llc_bandwidth_Bps=None, transcendental_flops=10.0, core_flops=None)
    print("cpu profile: " + ", ".join(f"{n} {bw / 1e9:.1f} GB/s" for n, _, bw in
                                      prof.memory_levels())
          + f", {prof.peak_flops / 1e9:.0f} GFLOP/s"
          + (f" (one core {prof.core_flops / 1e9:.0f})" if prof.core_flops else "")
          + f", a transcendental = {prof.transcendental_flops:g} FLOP; 'before': DRAM only, "
          "10 FLOP, no one-core rate")
    head = ("graph", "fused", "before", "kernels", "unfused", "before", "kernels")
    print(f"{head[0]:18s} {head[1]:>17s} {head[2]:>17s} {head[3]:>7s} {head[4]:>17s} "
          f"{head[5]:>17s} {head[6]:>7s}")
    all_runs, alts = {}, {}
    for name in args.graphs:
        runs = all_runs[name] = []
        alt = alts[name] = predictions(name, prof, before)
        for r in range(args.repeat):
            path = (args.load or args.save or Path(".")) / f"{name}.{r}.json"
            if args.load:
                if not path.exists():
                    continue
                runs.append(json.loads(path.read_text()))
            else:
                runs.append(run_graph(name))
                if args.save:
                    args.save.mkdir(parents=True, exist_ok=True)
                    path.write_text(json.dumps(runs[-1]))
        cells = []
        for key in ("kernels", "unfused_kernels"):
            cells += [cell(runs, key), cell(runs, key, alt),
                      str(len(ratios(runs[0], key)) if runs else 0)]
        print(f"{name:18s} {cells[0]:>17s} {cells[1]:>17s} {cells[2]:>7s} {cells[3]:>17s} "
              f"{cells[4]:>17s} {cells[5]:>7s}")
    now, old = by_class(all_runs), by_class(all_runs, alts)
    print("by kind of kernel (all graphs, fused and unfused, first run): median pred/meas, "
          "before -> now")
    for c, (r, n) in now.items():
        print(f"  {c:15s} {old[c][0]:5.2f} -> {r:5.2f}  ({n} kernels)")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

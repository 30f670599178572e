"""Cost-model accuracy on this CPU: predicted over measured time per kernel, per sample graph.

    PYTHONPATH=. python bench/bench_cost_model.py [--repeat 2] [--save DIR] [--load DIR]
                                                  [GRAPH ...]

For each sample graph, runs ``workbench run GRAPH --backend cpu --json`` (``--repeat`` times,
each a fresh process), which compiles the plan and its unfused baseline, times every kernel and
prints the cost model's prediction beside it (the ``cpu`` profile). Prints, per graph, the
median over kernels of predicted / measured (the kernel's median time) for the fused plan's
kernels and for the unfused baseline's, and the range over the runs; 1.0 is a perfect
prediction, above 1 the model is pessimistic. Kernels that fell back to numpy and offline or dead
kernels are left out. ``--save DIR`` keeps the JSON of every run, ``--load DIR`` reads runs saved
before instead of running (to print a table again). This is a report, not a timed test: the
load average is printed, and on a busy machine the measured times are high.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GRAPHS = sorted(p.stem for p in (ROOT / "sample_graphs").glob("*.json"))


def run_graph(name: str) -> dict:
    """One ``workbench run`` of a sample graph on the CPU backend, as its JSON report."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-m", "workbench", "run",
                          str(ROOT / "sample_graphs" / f"{name}.json"), "--backend", "cpu",
                          "--json"], capture_output=True, text=True, env=env, cwd=ROOT,
                         check=True)
    return json.loads(out.stdout)


def ratios(report: dict, key: str) -> list[float]:
    """predicted / measured median for each per-call, compiled kernel under ``key``."""
    out = []
    for k in report.get(key) or []:
        if k.get("fallback") or k.get("role", "call") != "call" or k.get("error"):
            continue
        if k.get("predicted_s") and k.get("median_s"):
            out.append(k["predicted_s"] / k["median_s"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graphs", nargs="*", default=GRAPHS)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--save", type=Path)
    ap.add_argument("--load", type=Path)
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'graph':18s} {'fused: median pred/meas':>24s} {'(kernels)':>9s} "
          f"{'unfused: median pred/meas':>26s} {'(kernels)':>9s}")
    for name in args.graphs:
        runs = []
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
            meds = [statistics.median(x) for x in (ratios(r, key) for r in runs) if x]
            n = len(ratios(runs[0], key)) if runs else 0
            text = "-" if not meds else (f"{statistics.median(meds):.2f}" + (
                f" ({min(meds):.2f}-{max(meds):.2f})" if len(meds) > 1 else ""))
            cells += [text, str(n)]
        print(f"{name:18s} {cells[0]:>24s} {cells[1]:>9s} {cells[2]:>26s} {cells[3]:>9s}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

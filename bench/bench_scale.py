"""Scale of the import -> verify -> inspect -> plan -> eval path: seconds at 5k, 20k and 60k
instructions, measured in one run (issue 15).

    PYTHONPATH=. python bench/bench_scale.py [--quick] [--sizes 5000,20000,60000]

Goals: ``workbench inspect`` of a 60,000-instruction elementwise chain in at most 5 s and
``workbench plan`` in at most 10 s, each stage near-linear (the ratio 60k/20k near 3); 2,000
nested ``call`` computations and a 20,000-output graph load and plan. Each figure is the best
of the runs of one command in-process (``workbench.cli.main``, output discarded), wall-clock
and CPU; the ``cpu`` device profile is probed before any timing. The files are generated into
a temporary folder and removed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.cli import main  # noqa: E402
from workbench.costmodel.devices import probe_cpu  # noqa: E402

GOALS = {"inspect": 5.0, "plan": 10.0}


def chain_hlo(n: int) -> str:
    """An HLO module: ``n`` elementwise instructions in one chain on two f32[64] parameters."""
    ops = ("add", "multiply", "subtract", "maximum")
    lines = ["HloModule chain", "", "ENTRY main {",
             "  p0 = f32[64]{0} parameter(0)", "  p1 = f32[64]{0} parameter(1)"]
    prev = "p0"
    for k in range(n - 1):
        lines.append(f"  v{k} = f32[64]{{0}} {ops[k % 4]}({prev}, p1)")
        prev = f"v{k}"
    lines.append(f"  ROOT out = f32[64]{{0}} negate({prev})")
    lines.append("}")
    return "\n".join(lines) + "\n"


def nested_calls_hlo(depth: int) -> str:
    """``depth`` computations, each calling the next (legal HLO, as JAX nests jit calls)."""
    lines = ["HloModule nested", ""]
    for k in range(depth, 0, -1):
        body = (f"  ROOT r = f32[8]{{0}} call(p), to_apply=c{k + 1}" if k < depth
                else "  ROOT r = f32[8]{0} negate(p)")
        lines += [f"c{k} {{", "  p = f32[8]{0} parameter(0)", body, "}", ""]
    lines += ["ENTRY main {", "  x = f32[8]{0} parameter(0)",
              "  ROOT y = f32[8]{0} call(x), to_apply=c1", "}"]
    return "\n".join(lines) + "\n"


def many_outputs_hlo(n: int) -> str:
    """``n`` independent negates of one parameter, all graph outputs (a tuple ROOT)."""
    lines = ["HloModule wide", "", "ENTRY main {", "  p = f32[16]{0} parameter(0)"]
    lines += [f"  o{k} = f32[16]{{0}} negate(p)" for k in range(n)]
    lines.append("  ROOT t = (" + ", ".join("f32[16]{0}" for _ in range(n)) + ") tuple("
                 + ", ".join(f"o{k}" for k in range(n)) + ")")
    lines.append("}")
    return "\n".join(lines) + "\n"


def run(argv, repeat: int) -> tuple[float, float, int]:
    """(best wall s, its CPU s, exit status) of ``workbench ARGV`` in this process."""
    best = (float("inf"), 0.0, -1)
    for _ in range(repeat):
        sink = io.StringIO()
        w, c = time.perf_counter(), time.process_time()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            status = main(list(argv))
        w, c = time.perf_counter() - w, time.process_time() - c
        if status != 0:
            print(f"  workbench {' '.join(map(str, argv[:1]))} exited {status}: "
                  f"{sink.getvalue().strip()[-300:]}")
        if w < best[0]:
            best = (w, c, status)
    return best


def main_bench(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="one run each, sizes 2k/5k/10k")
    ap.add_argument("--sizes", default="5000,20000,60000")
    args = ap.parse_args(argv)
    sizes = [2000, 5000, 10000] if args.quick else [int(s) for s in args.sizes.split(",")]
    repeat = 1 if args.quick else 2
    probe_cpu()
    print(f"machine: {os.cpu_count()} CPUs, load average {_load()} at the start")
    results: dict = {}
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = os.path.join(tmp, f"chain{n}.hlo")
            Path(path).write_text(chain_hlo(n))
            for cmd in ("inspect", "plan", "eval"):
                w, c, status = run([cmd, path], repeat)
                results[(cmd, n)] = w
                ok &= status == 0
                print(f"{cmd:8s} chain of {n:6,d} instructions: {w:7.2f} s wall "
                      f"({c:6.2f} s CPU)", flush=True)
        print()
        for cmd in ("inspect", "plan", "eval"):
            first, last = sizes[0], sizes[-1]
            ratio = results[(cmd, last)] / max(results[(cmd, first)], 1e-9)
            prev = sizes[-2] if len(sizes) > 1 else first
            step = results[(cmd, last)] / max(results[(cmd, prev)], 1e-9)
            print(f"{cmd:8s} {last // 1000}k/{first // 1000}k = {ratio:5.1f} "
                  f"(size ratio {last / first:.0f}); {last // 1000}k/{prev // 1000}k = "
                  f"{step:4.1f} (size ratio {last / prev:.0f})")
        for cmd, goal in GOALS.items():
            t = results[(cmd, sizes[-1])]
            met = t <= goal
            ok &= met or args.quick
            print(f"goal: {cmd} of the {sizes[-1]:,}-instruction chain <= {goal:.0f} s: "
                  f"{t:.2f} s {'met' if met else 'NOT MET'}")
        print()
        for label, text, cmds in (
                ("2,000 nested calls", nested_calls_hlo(2000), ("inspect", "plan", "eval")),
                ("20,000 graph outputs", many_outputs_hlo(20000), ("inspect", "plan"))):
            path = os.path.join(tmp, "case.hlo")
            Path(path).write_text(text)
            for cmd in cmds:
                w, c, status = run([cmd, path], 1)
                ok &= status == 0
                print(f"{cmd:8s} {label}: {w:6.2f} s wall ({c:.2f} s CPU), exit {status}")
    print(f"load average {_load()} at the end (timings on a busy machine run long)")
    return 0 if ok else 1


def _load() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


if __name__ == "__main__":
    raise SystemExit(main_bench())

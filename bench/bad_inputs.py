"""Every case of the bad-input corpus through the command line, counted by outcome (issue 15).

    PYTHONPATH=. python bench/bad_inputs.py [--only SUBSTRING] [--list] [--verbose]

Builds the corpus (:mod:`bad_corpus`: mutations of ``../shared/hlo``, ``corpus/`` and
``sample_graphs/``, and the cases issue 15 lists) in a temporary folder and runs each case's
commands (``inspect``, ``plan``, ``eval --inputs --out``, ``run``, ``compare-xla``) through
``workbench.cli.main`` in a worker process held to a 4 GiB address space (``RLIMIT_AS``), each
command under the case's deadline (30 s; the large cases 120-240 s). A worker that passes a
deadline is killed and the case counted as a hang. Then a sample of cases again as real
``python -m workbench`` processes (exit status 2, one line on stderr).

Outcomes, the worst of a case's commands:

* ``traceback``: an exception other than :class:`~workbench.errors.WorkbenchError` left the
  command (or a traceback was printed);
* ``hang``: a command passed its deadline; ``blow-up``: out of memory under the 4 GiB limit;
  ``crash``: the worker died (a signal);
* ``written on failure``: a failed command left a file, or changed the existing ``--out`` file;
* ``wrong success``: an input that must be refused was accepted, or values written by ``eval``
  differ from the reference (JAX's outputs for the real models, numpy's for generated ones);
* ``garbled error``: exit 2 but not one line, or the line names no place (file, flag);
* ``false refusal``: a valid input refused;
* ``clean error`` / ``success`` (checked against a reference where the case has one) /
  ``success, unchecked`` (a random mutation that is still a valid graph).

The goal: 0 tracebacks, hangs, blow-ups, crashes, files written on failure, wrong successes and
garbled errors. Exits 1 when any is found.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

ADDRESS_SPACE = 4 << 30
SENTINEL = b"an existing file a failed run must not damage\n"
BAD = ("traceback", "hang", "blow-up", "crash", "written on failure", "wrong success",
       "garbled error")
ORDER = BAD + ("false refusal", "clean error", "success", "success, unchecked")
MARK = "\x1e@@result "


# ----- the worker: commands in-process under the limit ---------------------------------------------

def worker() -> int:
    """Read one JSON argv a line; run it; answer with a JSON line after MARK on stdout."""
    import contextlib
    import io
    import resource
    import traceback

    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    from workbench.cli import main

    real_out = sys.stdout
    for line in sys.stdin:
        argv = json.loads(line)
        out, err = io.StringIO(), io.StringIO()
        answer = {"rc": None, "exc": None}
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    answer["rc"] = main(argv)
                except SystemExit as exc:       # argparse
                    answer["rc"] = exc.code if isinstance(exc.code, int) else 2
        except BaseException as exc:  # noqa: BLE001 - what the corpus looks for
            answer["exc"] = type(exc).__name__
            answer["tb"] = traceback.format_exc()[-3000:]
        answer["stderr"] = err.getvalue()[-5000:]
        answer["stdout_tail"] = out.getvalue()[-300:]
        real_out.write(MARK + json.dumps(answer) + "\n")
        real_out.flush()
    return 0


class Worker:
    """A worker process, restarted when it hangs or dies."""

    def __init__(self):
        self.proc = None

    def start(self):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=str(ROOT),
            start_new_session=True, text=True, bufsize=1)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        self.proc = None

    def run(self, argv, timeout_s) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        self.proc.stdin.write(json.dumps(argv) + "\n")
        self.proc.stdin.flush()
        end = time.monotonic() + timeout_s
        t0 = time.monotonic()
        while True:
            left = end - time.monotonic()
            if left <= 0:
                self.stop()
                return {"hang": True, "seconds": timeout_s}
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                continue
            line = self.proc.stdout.readline()
            if not line:
                code = self.proc.wait()
                self.proc = None
                return {"crash": code, "seconds": time.monotonic() - t0}
            if line.startswith(MARK):
                answer = json.loads(line[len(MARK):])
                answer["seconds"] = time.monotonic() - t0
                return answer


# ----- one case ------------------------------------------------------------------------------------

def argv_for(case, command, out_dir, cache_dir) -> list[str]:
    extra = list(case.extra.get(command, []))
    argv = [command, case.graph]
    if command in ("eval", "run") and case.inputs:
        argv += ["--inputs", case.inputs]
    if command == "eval" and "--out" not in extra:
        argv += ["--out", str(out_dir / "result.npz")]
    if command == "run":
        argv += ["--repeat", "1", "--warmup", "0"]
        if "--cache-dir" not in extra:
            argv += ["--cache-dir", str(cache_dir)]
        if "--backend" not in extra:
            argv += ["--backend", "cpu"]
    return argv + extra


def places(case) -> list[str]:
    """Text an error line about this case should hold: the end of a file's name, or a flag."""
    from workbench.errors import one_line

    names = [case.graph] + ([case.inputs] if case.inputs else [])
    names += [a for args in case.extra.values() for a in args if isinstance(a, str)]
    out = []
    for n in names:
        if n.startswith("--"):
            out.append(n)
        elif n:
            out.append(one_line(Path(n).name, 160, keep_end=True)[-12:])
    return out


def snapshot(folder: Path) -> dict:
    out = {}
    for p in folder.rglob("*"):
        try:
            st = p.lstat()
        except OSError:
            continue
        out[str(p)] = (st.st_size, st.st_mtime_ns)
    return out


def compare(result_path: Path, ref_path: str) -> str | None:
    """None when ``eval``'s outputs match the reference's ``out*`` arrays, else why not."""
    import numpy as np

    with np.load(result_path, allow_pickle=False) as got, np.load(ref_path,
                                                                  allow_pickle=False) as ref:
        want = sorted((k for k in ref.files if k.startswith("out")), key=lambda k: int(k[3:]))
        if sorted(got.files) != sorted(want):
            return f"outputs {sorted(got.files)} != {want}"
        for k in want:
            a, b = got[k], ref[k]
            if a.shape != b.shape:
                return f"{k}: shape {a.shape} != {b.shape}"
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            scale = 1.0 + float(np.nanmax(np.abs(b64))) if b64.size else 1.0
            if not np.allclose(a64, b64, rtol=2e-3, atol=2e-3 * scale, equal_nan=True):
                return f"{k}: max difference {float(np.nanmax(np.abs(a64 - b64))):.3g}"
    return None


def reference_outputs(case, work: Path, w: Worker) -> str | None:
    """For a rewritten JSON sample: the original file's values, evaluated with the same
    inputs, are the reference."""
    src = case.extra.get("ref_from")
    if not src:
        return case.ref
    path = work / f"ref-{case.name}.npz"
    if not path.exists():
        w.run(["eval", src, "--out", str(path)], 60)
    return str(path) if path.exists() else None


def one_command(case, command, work, cache, w, corpus_dir) -> tuple[str, str]:
    out_dir = work / "out"
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir()
    (out_dir / "result.npz").write_bytes(SENTINEL)
    before = snapshot(corpus_dir)
    argv = argv_for(case, command, out_dir, cache)
    a = w.run(argv, case.timeout_s)
    if a.get("hang"):
        return "hang", f"{command}: no answer in {case.timeout_s:.0f} s"
    if "crash" in a:
        return "crash", f"{command}: worker ended with {a['crash']}"
    if a["exc"]:
        kind = "blow-up" if a["exc"] == "MemoryError" else "traceback"
        return kind, f"{command}: {a['exc']}: {a['tb'].strip().splitlines()[-1][:300]}"
    err = a["stderr"].strip()
    if "Traceback" in err:
        return "traceback", f"{command}: traceback printed: {err[-300:]}"
    if "out of memory" in err:
        return "blow-up", f"{command}: {err[:300]}"
    if a["rc"] == 0:
        if command == "eval" and case.expect == "ok":
            ref = reference_outputs(case, work, w)
            if ref:
                why = compare(out_dir / "result.npz", ref)
                if why:
                    return "wrong success", f"eval: {why}"
                return "success", ""
        return ("success" if case.expect == "ok" else "success, unchecked"), ""
    # failed: nothing written, the existing file kept, one line that names a place
    left = sorted(p.name for p in out_dir.iterdir())
    if left != ["result.npz"] or (out_dir / "result.npz").read_bytes() != SENTINEL:
        return "written on failure", f"{command}: {left}"
    if snapshot(corpus_dir) != before:
        return "written on failure", f"{command}: the corpus folder changed"
    lines = err.splitlines()
    argparse_error = len(lines) >= 2 and lines[0].startswith("usage:") and ": error:" in lines[-1]
    if a["rc"] != 2 or not lines or (len(lines) != 1 and not argparse_error):
        return "garbled error", f"{command}: exit {a['rc']}, {len(lines)} lines: {err[:300]}"
    if not any(p in lines[-1] for p in places(case)):
        return "garbled error", f"{command}: names no place: {lines[-1][:300]}"
    if len(lines[-1]) > 1000:
        return "garbled error", f"{command}: {len(lines[-1])} characters"
    return "clean error", lines[-1][:200]


def run_case(case, work, cache, w, corpus_dir) -> tuple[str, list]:
    """The case's outcome and the details of each command."""
    results = []
    for command in case.commands:
        outcome, detail = one_command(case, command, work, cache, w, corpus_dir)
        results.append((command, outcome, detail))
        if outcome in BAD[:4]:
            break
    outcomes = [o for _, o, _ in results]
    for bad in BAD:
        if bad in outcomes:
            return bad, results
    succeeded = [c for c, o, _ in results if o.startswith("success")]
    failed = [c for c, o, _ in results if o == "clean error"]
    if case.expect == "error":
        wrongly = [c for c in succeeded if c not in case.ok_commands]
        if wrongly:
            return "wrong success", results + [("", "wrong success",
                                                f"{', '.join(wrongly)} accepted it")]
        return "clean error", results
    if case.expect == "ok":
        return ("false refusal", results) if failed else ("success", results)
    # any: a graph that loads goes through every command (or is refused by all, clean)
    if succeeded and failed and "inspect" in succeeded:
        return "clean error", results
    return ("success, unchecked" if succeeded and not failed else "clean error"), results


def subprocess_sample(cases, cache) -> collections.Counter:
    """A sample of the refused cases as real processes: exit 2 and one line on stderr."""
    counts = collections.Counter()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for case in cases:
        argv = [sys.executable, "-m", "workbench", case.commands[0], case.graph]
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env,
                               cwd=str(ROOT))
        except subprocess.TimeoutExpired:
            counts["hang"] += 1
            continue
        lines = p.stderr.strip().splitlines()
        ok = p.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: ")
        counts["exit 2, one line" if ok else f"exit {p.returncode}, {len(lines)} lines"] += 1
    return counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="run the cases whose name holds this text")
    ap.add_argument("--list", action="store_true", help="list the cases and stop")
    ap.add_argument("--verbose", action="store_true", help="print every case's outcome")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker()
    from bad_corpus import build

    from workbench.costmodel.devices import probe_cpu

    probe_cpu()
    tmp = Path(tempfile.mkdtemp(prefix="bad-inputs-"))
    try:
        t0 = time.monotonic()
        cases = build(tmp / "corpus")
        if args.only:
            cases = [c for c in cases if args.only in c.name]
        if args.list:
            for c in cases:
                print(f"{c.family:14s} {c.expect:5s} {c.name}")
            print(f"{len(cases)} cases")
            return 0
        print(f"{len(cases)} cases in {len(set(c.family for c in cases))} families, "
              f"{sum(len(c.commands) for c in cases)} commands; built in "
              f"{time.monotonic() - t0:.1f} s", flush=True)
        return report(run_all(cases, tmp, args.verbose), cases, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_all(cases, tmp: Path, verbose: bool) -> dict:
    w = Worker()
    work, cache = tmp / "work", tmp / "kernel-cache"
    work.mkdir()
    outcomes = {}
    t0 = time.monotonic()
    try:
        for k, case in enumerate(cases):
            outcome, results = run_case(case, work, cache, w, tmp / "corpus")
            outcomes[case.name] = (outcome, results)
            if verbose or outcome in BAD or outcome == "false refusal":
                detail = "; ".join(f"{c} {o} {d}".strip() for c, o, d in results)
                print(f"[{k + 1}/{len(cases)}] {outcome:18s} {case.name}: {detail[:600]}",
                      flush=True)
            if case.family in ("large", "nesting") or (k + 1) % 40 == 0:
                w.stop()       # a fresh worker: caches of one case do not load the next
    finally:
        w.stop()
    print(f"ran in {time.monotonic() - t0:.0f} s")
    return outcomes


def report(outcomes: dict, cases, tmp: Path) -> int:
    counts = collections.Counter(o for o, _ in outcomes.values())
    commands = collections.Counter(o for _, rs in outcomes.values() for _, o, _ in rs if o)
    print(f"\noutcome by case ({len(outcomes)} cases, under a 4 GiB address-space limit):")
    for o in ORDER:
        print(f"  {o:20s} {counts.get(o, 0):5d}")
    print("outcome by command: " + ", ".join(f"{o} {n}" for o, n in sorted(commands.items())))
    by_family = collections.defaultdict(collections.Counter)
    for c in cases:
        if c.name in outcomes:
            by_family[c.family][outcomes[c.name][0]] += 1
    print("by family: " + "; ".join(f"{f}: " + ", ".join(f"{o} {n}" for o, n in sorted(v.items()))
                                    for f, v in sorted(by_family.items())))
    refused = [c for c in cases if outcomes.get(c.name, ("",))[0] == "clean error"
               and c.expect == "error" and not c.ok_commands and not c.extra and not c.inputs
               and "fifo" not in c.name
               and c.family not in ("large",)][::12][:12]
    sample = subprocess_sample(refused, tmp / "kernel-cache")
    print(f"as real processes ({len(refused)} refused cases): " +
          ", ".join(f"{k} {v}" for k, v in sample.items()))
    bad = sum(counts.get(o, 0) for o in BAD) + sum(v for k, v in sample.items()
                                                    if k != "exit 2, one line")
    print(f"goal: 0 of {', '.join(BAD)}: {'met' if not bad else f'NOT MET ({bad})'}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())

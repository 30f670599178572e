"""The web checks' figures in one run (issue 15): a rebinding Host refused, crafted callback
requests (tracebacks and paths in responses), files named outside the allowed folders, edit
p50/p95/max under 20 concurrent sessions, server memory after 200 uploads, 30 compile &
profile jobs from 5 sessions.

    python bench/bench_web.py

Runs the HTTP-level tests of tests/app/test_http.py that measure them (a real server on a free
port, driven over HTTP by threads) and prints the figure line each prints (``rebinding: ...``,
``crafted requests: ...``, ``files: ...``, ``20 sessions, 480 edits ...: edit p50 ... p95 ...``,
``200 uploads: server RSS ...``, ``30 jobs: ... done``), then pytest's verdict. The tests
assert the goals (0 tracebacks, paths, files opened outside; RSS growth < 120 MiB; no job
hung) but the edit p95's only loosely (the suite runs them beside other tests): this script
checks p95 <= 300 ms, and is where the figures are read (on a quiet machine).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ("test_a_rebinding_host_or_a_foreign_origin_is_refused",
         "test_junk_callback_values_are_refused_in_a_line_and_change_nothing",
         "test_no_file_outside_the_allowed_folders_can_be_named",
         "test_twenty_concurrent_sessions_are_isolated_and_edits_stay_fast",
         "test_server_memory_stays_bounded_after_200_uploads",
         "test_thirty_profile_jobs_from_five_sessions_all_end")


def main() -> int:
    argv = [sys.executable, "-m", "pytest", "-s", "-q", "-p", "no:cacheprovider",
            "--headless"] + [f"tests/app/test_http.py::{t}" for t in TESTS]
    p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    figures = ("rebinding:", "crafted requests:", "files:", "20 sessions", "200 uploads:",
               "30 jobs:")
    lines = p.stdout.splitlines()
    for line in lines:
        if line.lstrip(".FEsx").startswith(figures):
            print(line.lstrip(".FEsx"))
    print("\n".join(x for x in lines if " passed" in x or " failed" in x or
                    x.startswith(("FAILED", "ERROR", "E "))))
    # the test asserts only a gross regression (it runs beside other tests); the goal is here
    p95 = re.search(r"20 sessions.*p95 ([0-9.]+) ms", p.stdout)
    if p95:
        met = float(p95.group(1)) <= 300
        print(f"goal: edit p95 under 20 sessions <= 300 ms: {p95.group(1)} ms "
              f"{'met' if met else 'NOT MET'}")
    return p.returncode or (0 if p95 and met else 1)


if __name__ == "__main__":
    raise SystemExit(main())

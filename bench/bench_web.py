"""The web checks' figures in one run (issue 15): a rebinding Host refused, crafted callback
requests (tracebacks and paths in responses), files named outside the allowed folders, edit
p50/p95/max under 20 concurrent sessions, server memory after 200 uploads, 30 compile &
profile jobs from 5 sessions.

    python bench/bench_web.py

Runs the HTTP-level tests of tests/app/test_http.py that measure them (a real server on a free
port, driven over HTTP by threads) and prints the figure line each prints (``rebinding: ...``,
``crafted requests: ...``, ``files: ...``, ``20 sessions, 480 edits ...: edit p50 ... p95 ...``,
``200 uploads: server RSS ...``, ``30 jobs: ... done``), then pytest's verdict. The tests
assert the goals (0 tracebacks, paths, files opened outside; p95 <= 300 ms; RSS growth
< 120 MiB; no job hung); this script is where the figures are read.
"""

from __future__ import annotations

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
    return p.returncode


if __name__ == "__main__":
    raise SystemExit(main())

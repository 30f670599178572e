"""The web checks' figures in one run (issue 15): edit p50/p95/max under 20 concurrent
sessions, server memory after 200 uploads, 30 compile & profile jobs from 5 sessions.

    python bench/bench_web.py

Runs the three HTTP-level tests of tests/app/test_http.py that measure them (a real server on
a free port, driven over HTTP by threads) with their output shown; each prints its figures
(``20 sessions, 480 edits ...: edit p50 ... p95 ...``, ``200 uploads: server RSS ...``,
``30 jobs: ... done``). The tests assert the goals loosely (an edit p95 over 3 s, RSS growth
over 120 MiB, a job that hangs); this script is where the figures are read against the goals
(edit p95 <= 300 ms under 20 sessions: the line says met or NOT met).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ("test_twenty_concurrent_sessions_are_isolated_and_edits_stay_fast",
         "test_server_memory_stays_bounded_after_200_uploads",
         "test_thirty_profile_jobs_from_five_sessions_all_end")


def main() -> int:
    argv = [sys.executable, "-m", "pytest", "-s", "-q", "-p", "no:cacheprovider",
            "--headless"] + [f"tests/app/test_http.py::{t}" for t in TESTS]
    return subprocess.call(argv, cwd=ROOT)


if __name__ == "__main__":
    raise SystemExit(main())

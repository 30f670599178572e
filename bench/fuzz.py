"""The long fuzzing run (issue 15): generated HLO text and JSON graphs, valid and mutated,
through ``inspect``, ``plan`` and ``eval`` in-process; prints the count by outcome.

    PYTHONPATH=. python bench/fuzz.py [--cases 10000]

The generators and the check are tests/cli/fuzz_cases.py's (the test suite runs a few hundred
of them). An outcome is ``ok`` (every command succeeded), ``refused`` (one clean error line) or
``unexpected`` (another exception, or a garbled error): the goal is 0 unexpected.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from tests.cli.fuzz_cases import Unexpected, check, inputs  # noqa: E402

KINDS = (("hlo", ".hlo"), ("json", ".json"), ("hlo-mutated", ".hlo"), ("json-mutated", ".json"))


def run_kind(kind, suffix, n, counts, failures):
    @settings(max_examples=n, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(inputs(kind))
    def one(text):
        try:
            counts[(kind, check(text, suffix))] += 1
        except Unexpected as exc:
            counts[(kind, "unexpected")] += 1
            failures.append(str(exc)[:500])
    one()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=10_000, help="cases in all (split by kind)")
    args = ap.parse_args()
    counts, failures = collections.Counter(), []
    t0 = time.monotonic()
    for kind, suffix in KINDS:
        run_kind(kind, suffix, args.cases // len(KINDS), counts, failures)
        done = sum(v for (k, _), v in counts.items() if k == kind)
        print(f"{kind:13s} {done:6d} cases: " + ", ".join(
            f"{o} {v}" for (k, o), v in sorted(counts.items()) if k == kind), flush=True)
    total = sum(counts.values())
    bad = sum(v for (_, o), v in counts.items() if o == "unexpected")
    print(f"{total} cases in {time.monotonic() - t0:.0f} s: "
          f"{sum(v for (_, o), v in counts.items() if o == 'ok')} ok, "
          f"{sum(v for (_, o), v in counts.items() if o == 'refused')} refused in one line, "
          f"{bad} unexpected")
    for f in failures[:5]:
        print("  " + f.replace("\n", " | "))
    print(f"goal: 0 unexpected exceptions in >= 10,000 cases: "
          f"{'met' if not bad and total >= 10_000 else 'NOT MET'}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Wall time of one sweep (3 graphs x 2 policies, compiled and timed) with the local executor
(one worker process, measurements one after another) and with a local Ray (one task per
measurement, as many at once as Ray has CPUs), measured in one run, no results store.

    .venv/bin/python bench/bench_sweep.py [--cpus N] [--repeat R]

Both start from the same warm kernel cache (a first, untimed local sweep compiles every
kernel), so the times compare the executors, not numba. Ray's own start-up is printed apart.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.importers import load_graph  # noqa: E402
from workbench.paths import sample_dir  # noqa: E402
from workbench.tuning.executors import LocalExecutor  # noqa: E402
from workbench.tuning.ray_executor import RayExecutor  # noqa: E402
from workbench.tuning.sweep import sweep  # noqa: E402

GRAPHS = ("chain10", "softmax", "mlp")
POLICIES = ("priority", "greedy")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray (default 2)")
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()
    graphs = [load_graph(sample_dir() / f"{n}.json") for n in GRAPHS]
    with LocalExecutor() as ex:
        sweep(graphs, ex, None, policies=POLICIES, repeat=args.repeat)   # warm the cache
        t0 = time.perf_counter()
        local = sweep(graphs, ex, None, policies=POLICIES, repeat=args.repeat)
        t_local = time.perf_counter() - t0
    t0 = time.perf_counter()
    ray = RayExecutor(num_cpus=args.cpus)
    ray.connect()
    t_start = time.perf_counter() - t0
    try:
        t0 = time.perf_counter()
        remote = sweep(graphs, ray, None, policies=POLICIES, repeat=args.repeat)
        t_ray = time.perf_counter() - t0
        t0 = time.perf_counter()
        sweep(graphs, ray, None, policies=POLICIES, repeat=args.repeat)
        t_ray2 = time.perf_counter() - t0
    finally:
        ray.close()
    ok = sum(r.status == "ok" for r in local.rows), sum(r.status == "ok" for r in remote.rows)
    print(f"sweep of {len(GRAPHS)} graphs x {len(POLICIES)} policies, {local.fresh} plans "
          f"measured, {args.repeat} timed runs each; ok: local {ok[0]}, ray {ok[1]}")
    print(f"local executor (1 worker):        {t_local:6.1f} s")
    print(f"ray, {args.cpus} CPUs, first sweep:       {t_ray:6.1f} s  (Ray's start-up apart: "
          f"{t_start:.1f} s)")
    print(f"ray, {args.cpus} CPUs, second sweep:      {t_ray2:6.1f} s  (workers warm)")
    print(f"ratio local / ray (second sweep): {t_local / t_ray2:.2f}")


if __name__ == "__main__":
    main()

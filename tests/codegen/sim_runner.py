"""Run small graphs through the cuda-sim backend and print one JSON line per plan.

Run as a script in a fresh process with ``NUMBA_ENABLE_CUDASIM=1`` (the simulator must be on
before numba is imported): ``python sim_runner.py CACHE_DIR sample:softmax hlo:mlp ...``.
Each line: graph, plan, kernels, fallbacks, per-output ok and errors, native fusion kinds.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main(argv):
    assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"
    from conftest import one_group_plan, planner_plan
    from small_graphs import load_hlo, load_sample, small

    from workbench.codegen import check_outputs, compile_plan, reference_outputs
    from workbench.ir import make_inputs
    from workbench.planner.plan import unfused_plan

    cache = argv[0]
    for spec in argv[1:]:
        kind, name = spec.split(":")[:2]
        if kind == "corpus":              # corpus:NAME:STAGE, on the model's own inputs
            import numpy as np

            from workbench.importers import load_graph

            stage = spec.split(":")[2]
            root = Path(__file__).resolve().parents[2] / "corpus"
            graph = load_graph(root / f"{name}.{stage}.hlo")
            with np.load(root / f"{name}.io.npz") as data:
                inputs = {k: data[k] for k in data.files if k.startswith("arg")}
            plans = [unfused_plan(graph), planner_plan(graph)]
        else:
            graph = small(load_hlo(name) if kind == "hlo" else load_sample(name), name)
            inputs = make_inputs(graph, seed=2)
            plans = [one_group_plan(graph), unfused_plan(graph), planner_plan(graph)]
        ref, exact = reference_outputs(graph, inputs)
        for plan in [p for p in plans if p is not None]:
            t0 = time.perf_counter()
            compiled = compile_plan(graph, plan, backend="cuda-sim", cache_dir=cache)
            outs = compiled.run(inputs)
            checks = check_outputs(graph, outs, ref, exact)
            print(json.dumps({
                "graph": spec, "plan": plan.policy, "backend": compiled.backend,
                "kernels": len(compiled.kernels),
                "fallbacks": [[k.group_id, k.fallback_reason] for k in compiled.kernels
                              if k.fallback],
                "ok": [c.ok for c in checks],
                "errors": [c.max_abs_error for c in checks],
                "row_wise": sum("cuda.shfl" in k.source or "c_row" in k.source
                                for k in compiled.kernels),
                "tiled": sum("c_tile" in k.source for k in compiled.kernels),
                "seconds": round(time.perf_counter() - t0, 2)}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

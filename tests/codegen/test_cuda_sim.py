"""The CUDA backend's kernels, run in numba's CUDA simulator on small versions of every sample
graph and shared HLO model (fused and unfused plans), checked against the reference.

The simulator must be switched on before numba is imported, so the graphs run in subprocesses
(:mod:`sim_runner`), two at once; each prints one JSON line per plan.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from small_graphs import HLO_NAMES, SAMPLE_NAMES

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

SPECS = [f"sample:{n}" for n in SAMPLE_NAMES] + [f"hlo:{n}" for n in HLO_NAMES]


def _start(specs, cache):
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, str(HERE / "sim_runner.py"), str(cache), *specs],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


@pytest.fixture(scope="module")
def sim_results(tmp_path_factory):
    cache = tmp_path_factory.mktemp("sim_kernels")
    halves = [SPECS[0::2], SPECS[1::2]]
    procs = [_start(h, cache) for h in halves]
    lines = []
    for p in procs:
        out, err = p.communicate(timeout=900)
        assert p.returncode == 0, err[-3000:]
        lines += [json.loads(ln) for ln in out.splitlines() if ln.startswith("{")]
    return lines


def test_every_graph_ran_in_the_simulator(sim_results):
    ran = {r["graph"] for r in sim_results}
    assert ran == set(SPECS)
    assert all(r["backend"] == "cuda-sim" for r in sim_results)
    plans = {(r["graph"], r["plan"]) for r in sim_results}
    assert all((s, "unfused") in plans and (s, "test") in plans for s in SPECS)


@pytest.mark.parametrize("spec", SPECS)
def test_small_graph_matches_reference_in_simulator(sim_results, spec):
    rows = [r for r in sim_results if r["graph"] == spec]
    assert rows
    for r in rows:
        assert all(r["ok"]), r
        assert not r["fallbacks"], r


def test_simulator_used_row_wise_and_tiled_kernels(sim_results):
    by = {(r["graph"], r["plan"]): r for r in sim_results}
    assert by[("hlo:softmax", "test")]["row_wise"] == 1       # block per row, tree reduce
    assert by[("hlo:layernorm_gelu", "test")]["row_wise"] == 1
    assert by[("sample:matmul_bias_gelu", "test")]["tiled"] == 1  # tiled dot + epilogue
    assert by[("hlo:mlp", "unfused")]["tiled"] == 3

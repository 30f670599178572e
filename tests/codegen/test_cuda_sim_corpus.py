"""Corpus models with gather, dynamic-update-slice, bf16, f16 and integer bit ops, run by the
CUDA backend in numba's simulator (unfused and planned), on their own inputs.

Like test_cuda_sim.py, in subprocesses with ``NUMBA_ENABLE_CUDASIM=1``. The models are small;
the simulator runs each kernel thread as Python, so a few are chosen, one per feature.
"""

from __future__ import annotations

import json

import pytest
from test_cuda_sim import _start

SPECS = ["corpus:embedding_gather:after_noynn", "corpus:kv_cache_decode:before",
         "corpus:mlp_f16:before", "corpus:layernorm_softmax_bf16:before",
         "corpus:attn_bf16:after_noynn", "corpus:int_mix:after_noynn"]


@pytest.fixture(scope="module")
def corpus_sim(tmp_path_factory):
    cache = tmp_path_factory.mktemp("sim_corpus")
    procs = [_start(SPECS[0::2], cache), _start(SPECS[1::2], cache)]
    rows = []
    for p in procs:
        out, err = p.communicate(timeout=900)
        assert p.returncode == 0, err[-3000:]
        rows += [json.loads(ln) for ln in out.splitlines() if ln.startswith("{")]
    return rows


@pytest.mark.parametrize("spec", SPECS)
def test_corpus_model_runs_natively_in_the_simulator(corpus_sim, spec):
    rows = [r for r in corpus_sim if r["graph"] == spec]
    assert {r["plan"] for r in rows} == {"unfused", "priority"}
    for r in rows:
        assert all(r["ok"]), r
        assert not r["fallbacks"], r          # gather, DUS, bf16, f16, shifts: all native

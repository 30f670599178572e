"""The calibration probe, cut down to a few kernels: what it measures and stores, and that the
cost model reads it back."""

from __future__ import annotations

import json

import pytest

from workbench.costmodel.calibration import Calibration
from workbench.costmodel.devices import cached_cpu_profile
from workbench.profiler import calibrate


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """(the calibration document of a cut-down probe, the directory it used)."""
    tmp = tmp_path_factory.mktemp("calibrate")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(calibrate, "STREAM_ELEMENTS", (1 << 10, 1 << 14, 1 << 18))
        mp.setattr(calibrate, "COLD_ELEMENTS", (1 << 18,))
        mp.setattr(calibrate, "CLASSES", ("elementwise", "exponential", "reduce_col"))
        mp.setattr(calibrate, "STRIDED", ("reduce_col",))
        mp.setattr(calibrate, "LARGE", 1 << 18)
        mp.setattr(calibrate, "DOTS", ((64, 64, 64),))
        mp.setattr(calibrate, "CONVS", (((2, 8, 8, 8), (3, 3, 8, 8), 1),))
        mp.setattr(calibrate, "DOT_BATCHES", ((8, 8, 8, 8),))
        mp.setattr(calibrate, "RUN_BUDGET_S", 0.02)
        mp.setattr(calibrate, "ROUNDS", 2)
        mp.setattr(calibrate, "CONTEXT_KERNELS", (1, 4))
        mp.setattr(calibrate, "CONTEXT_BYTES", (0, 1 << 20))
        mp.setattr(calibrate, "TINY_CLASSES", ("reduce_col",))
        mp.setattr(calibrate, "LOOP_EXTENTS", (16, 256))
        mp.setattr(calibrate, "LOOP_KINDS", ("binary",))
        mp.setattr(calibrate, "HALF_DTYPES", ("bf16",))
        mp.setattr(calibrate, "INTERP_GAPS", (1e-4, 2e-3))
        mp.setattr(calibrate, "INTERP_BUDGET_S", 0.01)
        stages = []
        doc = calibrate.calibrate_cpu(lambda *a: stages.append(a), cache_dir=tmp / "k")
    return doc, stages, tmp


def test_the_probe_measures_every_term_with_our_kernels(probe):
    doc, stages, _ = probe
    assert doc["launch_s"] > 0 and len(doc["stream"]) == 3 and len(doc["launch_cold"]) == 1
    assert [p[:2] for p in doc["launch_ctx"]] == [[1, 0], [1, 1 << 20], [4, 0], [4, 1 << 20]]
    assert [b for b, _ in doc["stream"]] == [8 << 10, 8 << 14, 8 << 18]
    assert set(doc["per_element"]) == {"elementwise", "exponential", "exponential@short",
                                       "reduce_col"}
    # small and large working set, and rows of 32 (a small model's reduction)
    assert [p[0] for p in doc["per_element"]["reduce_col"]] == [4224, 65792, 1052672]
    # over rows of 16 the loop runs as scalar code: dearer per element than over rows of 256
    assert [n for n, _ in doc["loop"]["binary"]] == [16, 256]
    assert doc["loop"]["binary"][0][1] > doc["loop"]["binary"][1][1]
    assert all(doc["half"]["bf16"][d] > 0 for d in ("write", "read", "copy"))
    # the tiny kernel after 0.1 and 2 ms of the reference interpreter
    assert [p[0] for p in doc["launch_interp"]] == [1e-4, 2e-3]
    assert all(0 < p[1] < 1e-3 for p in doc["launch_interp"])
    assert all(s > 0 for _, s in doc["per_element"]["exponential"])
    assert {k: len(v) for k, v in doc["contraction"].items()} == {
        "dot": 1, "dot_fused": 1, "conv": 1, "conv_fused": 1, "dot_batched": 1}
    # a batched dot's point is per batch: one call's FLOPs (2 * 8 * 8 * 8) and result bytes
    assert doc["contraction"]["dot_batched"][0][:2] == [1024, 256]
    bws = [lv["Bps"] for lv in doc["levels"]]
    assert doc["levels"][-1]["name"] == "DRAM" and bws == sorted(bws, reverse=True)
    assert doc["source"].startswith("calibrated on ") and "CPU backend" in doc["source"]
    assert any(s[0] == "calibrate" for s in stages)
    cal = Calibration.from_json(json.loads(json.dumps(doc)))    # stored as JSON, read back
    assert cal.launch(0) >= doc["launch_s"]       # the median among 1 kernel, at least the best
    # the native kernels (calibrate_native): all compiled natively, so each is measured
    from workbench.costmodel.native import DEFAULTS

    assert set(doc["native"]) <= set(DEFAULTS)
    assert {"sort_compare_s", "topk_element_s", "scatter_update_s", "indexed_element_s",
            "select_tap_s", "while_iter_s"} <= set(doc["native"])
    assert all(0 <= v < 1e-6 for v in doc["native"].values())
    assert cal.native == doc["native"]


def test_refresh_stores_a_calibrated_profile_the_cost_model_uses(probe, monkeypatch):
    from workbench.costmodel import get_device, op_cost
    from workbench.ir import GraphBuilder, verify

    doc, _, tmp = probe
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp))
    monkeypatch.setattr(calibrate, "calibrate_cpu", lambda progress=None, cache_dir=None: doc)
    prof = calibrate.refresh_cpu_profile()
    assert prof.calibration and cached_cpu_profile().calibration == prof.calibration
    b = GraphBuilder("e")
    x = b.parameter("x", (4096,))
    e = b.op("exponential", [x])
    c = op_cost(verify(b.build([e])), e, get_device("cpu"))
    assert "exponential" in c.terms and c.dominant

"""The calibration drift check: two probe kernels timed again against the calibration, and the
note a profile then carries."""

from __future__ import annotations

import importlib

import pytest

from workbench.ir import GraphBuilder, verify
from workbench.planner import plan_graph
from workbench.profiler import calibrate, profile
from workbench.profiler.report import DRIFT_FACTOR, drift_note

#: the module itself (``workbench.profiler.profile`` also names the function)
profile_module = importlib.import_module("workbench.profiler.profile")


def test_the_note_names_each_kernel_off_by_more_than_the_factor():
    at = 1796306648.0
    note = drift_note({"drift": {"stream": 1.1, "dot": 2.9, "measured_at": at}})
    assert "256^3 dot 2.9x slower" in note and "streaming" not in note
    assert "devices --refresh" in note and "2026-12-03" in note
    both = drift_note({"drift": {"stream": 0.5, "dot": 1.6}})
    assert "streaming kernel (1 MiB) 0.5x faster" in both and "dot 1.6x slower" in both
    assert drift_note({"drift": {"stream": 1 / DRIFT_FACTOR, "dot": DRIFT_FACTOR}}) == ""
    assert drift_note({}) == "" and drift_note(None) == ""


def test_drift_times_the_probe_kernels_the_calibration_holds(tmp_path):
    n = calibrate.DRIFT_STREAM_ELEMENTS
    g, flops, out_bytes = calibrate._contraction_graph("dot", calibrate.DRIFT_DOT, False)
    # a calibration that measured both a thousand times faster than any machine runs them
    fake = {"launch_s": 0.0, "measured_at": 1.0, "stream": [[8 * n, 1e-9], [16 * n, 1.0]],
            "contraction": {"dot": [[flops, out_bytes, 1e-8]]}}
    d = calibrate.drift(fake, tmp_path)
    assert d["stream"] > 100 and d["dot"] > 100 and d["measured_at"] == 1.0
    # a calibration without the points: nothing timed, nothing claimed
    assert calibrate.drift({"launch_s": 0.0, "stream": [[1024, 1e-6]]}, tmp_path) == \
        {"measured_at": None}


def test_a_profile_carries_the_drift_and_says_so(monkeypatch, tmp_path):
    b = GraphBuilder("tiny")
    x = b.parameter("x", (64,))
    g = verify(b.build([b.op("exponential", [b.op("negate", [x])])]))
    monkeypatch.setattr(profile_module, "_drift",
                        lambda backend, device, cache_dir: {"stream": 1.0, "dot": 3.0,
                                                            "measured_at": None})
    report = profile(g, plan_graph(g, "priority", "cpu"), backend="cpu", repeat=3,
                     cache_dir=tmp_path)
    assert report.machine["drift"]["dot"] == pytest.approx(3.0)
    assert any("256^3 dot 3.0x slower" in n for n in report.notes)

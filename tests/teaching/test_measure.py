"""Measuring a lesson on this machine: a real profile, its record, and the per-machine cache."""

from __future__ import annotations

from workbench.teaching import LESSONS_BY_ID
from workbench.teaching import measure
from workbench.teaching.claims import PENDING, check_all
from workbench.teaching.lesson import open_lesson


def test_a_lesson_measured_here_is_stored_per_machine_and_fills_its_facts(cache):
    run = open_lesson(LESSONS_BY_ID["vertical"], "cpu")
    assert measure.records(run, "cpu") == {}
    seen = []
    recs = measure.measure_lesson(run, "cpu", lambda *a: seen.append(a))
    assert set(recs) == {"fused"} and seen
    r = recs["fused"]
    assert r["ok"] and r["backend"] == "cpu" and r["fused_s"] > 0 and r["unfused_s"] > 0
    fused = run.stage("fused").cost.total
    assert r["bytes_fused"] == fused.bytes_read + fused.bytes_written  # its kernels' buffers
    files = list((cache / "lessons" / measure.machine_key()).glob("*.json"))
    assert len(files) == 1
    again = measure.records(open_lesson(LESSONS_BY_ID["vertical"], "cpu"), "cpu")
    assert again == recs
    facts = run.with_records(recs).facts()
    assert facts["fused.measured"].source == "profile"
    assert facts["fused.measured"].value in (r["fused_s"], r["fused_min_s"])
    assert PENDING not in {c.status for c in check_all(run.with_records(recs))}
    # nothing measured twice unless asked
    assert measure.measure_lesson(run, "cpu") == recs
    # one kernel, the same rounds: the kernel's time is the whole call's, by one statistic
    assert measure.kernel_times(r) == {"g0": measure.call_time(r, "fused")}
    assert set(measure.kernel_times(r, "unfused_kernels")) == {"g0", "g1"}
    assert all(k["min_s"] <= k["measured_s"] for k in r["kernels"] + r["unfused_kernels"])


def test_stage_keys_follow_the_plan_and_the_backend():
    run = open_lesson(LESSONS_BY_ID["cost-model"], "cpu")
    fused, dup = run.stage("fused"), run.stage("duplicated")
    keys = {measure.stage_key("cost-model", s, b) for s in (fused, dup) for b in ("cpu", "cuda")}
    assert len(keys) == 4


def test_the_measuring_device_needs_no_cuda_in_the_server(monkeypatch):
    monkeypatch.setattr(measure, "_nvidia_models", lambda: ["NVIDIA H200"])
    measure.measuring.cache_clear()
    try:
        assert measure.measuring() == ("cuda", "h200")
        monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
        measure.measuring.cache_clear()
        assert measure.measuring() == ("cpu", "cpu")
    finally:
        measure.measuring.cache_clear()

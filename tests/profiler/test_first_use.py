"""Calibrating the cpu profile on first use (workbench/profiler/first_use.py), with a mocked
probe: the command line calibrates first (unless told not to), two processes never both
calibrate, a profile is never half-written, and the app's background calibration says so and
costs again when it ends."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from tests.costmodel.test_calibration import CAL
from tests.planner.planner_helpers import FIXED_CPU
from workbench.costmodel import devices
from workbench.costmodel.devices import (cached_cpu_profile, cpu_profile, cpu_profile_path,
                                         profile_lock, write_cpu_profile)
from workbench.profiler import calibrate, first_use


@pytest.fixture
def fresh_machine(tmp_path, monkeypatch):
    """A cache holding only the quick probe's (uncalibrated) profile, calibration on first use
    turned on, and a probe that takes no time: the quick probe gives FIXED_CPU and the
    calibration the hand-made CAL; ``calls`` counts the calibrations run."""
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(first_use.ENV_OFF, raising=False)
    write_cpu_profile(FIXED_CPU, tmp_path)
    calls = []

    def fake_calibrate(progress=None, cache_dir=None):
        calls.append(time.time())
        if progress is not None:
            progress("calibrate", 1, 2, "round 1 of 1: streaming kernel, 8 KiB moved")
            progress("calibrate", 2, 2, "round 1 of 1: dot (64, 64, 64)")
        return dict(CAL)

    monkeypatch.setattr(devices, "measure_cpu", lambda: (FIXED_CPU, False))
    monkeypatch.setattr(calibrate, "calibrate_cpu", fake_calibrate)
    return tmp_path, calls


def test_ensure_calibrated_calibrates_once_then_reads_the_cache(fresh_machine):
    _, calls = fresh_machine
    notes = []
    assert first_use.needs_calibration()
    assert first_use.ensure_calibrated(note=notes.append) == "calibrated"
    prof = cached_cpu_profile()
    assert prof.calibration["source"] == "hand-made calibration"
    assert not first_use.needs_calibration() and len(calls) == 1
    assert notes and notes[0].startswith("calibrating this machine's cpu profile once")
    assert first_use.ensure_calibrated(note=notes.append) == "cached" and len(calls) == 1


def test_plan_on_the_cpu_calibrates_first_with_a_note(fresh_machine, capsys):
    from workbench.cli import main

    _, calls = fresh_machine
    assert main(["plan", "mlp"]) == 0
    err = capsys.readouterr().err
    assert "calibrating this machine's cpu profile once" in err
    assert f"stored in {cpu_profile_path()}" in err and len(calls) == 1
    assert cached_cpu_profile().calibration is not None
    assert main(["plan", "mlp"]) == 0            # calibrated: no second probe, no note
    assert len(calls) == 1 and "calibrating" not in capsys.readouterr().err


def test_diff_calibrates_first_and_tune_and_sweep_take_no_calibrate(fresh_machine, capsys):
    """``diff`` costs both plans on the cpu profile, so it calibrates first as ``plan`` does;
    ``tune`` and ``sweep`` order and store predicted times, and take ``--no-calibrate``."""
    from workbench.cli import build_parser, main

    _, calls = fresh_machine
    assert main(["diff", "mlp", "--a", "priority", "--b", "unfused"]) == 0
    assert "calibrating this machine's cpu profile once" in capsys.readouterr().err
    assert len(calls) == 1 and cached_cpu_profile().calibration is not None
    for argv in (["tune", "mlp", "--no-calibrate"], ["sweep", "mlp", "--no-calibrate"]):
        assert build_parser().parse_args(argv).no_calibrate is True
    assert build_parser().parse_args(["tune", "mlp"]).no_calibrate is False


@pytest.mark.parametrize("how", ["flag", "env", "gpu"])
def test_no_calibrate_the_environment_and_a_gpu_device_keep_the_quick_probe(
        fresh_machine, monkeypatch, capsys, how):
    from workbench.cli import main

    _, calls = fresh_machine
    argv = ["plan", "mlp"]
    if how == "flag":
        argv.append("--no-calibrate")
    elif how == "env":
        monkeypatch.setenv(first_use.ENV_OFF, "1")
    else:
        argv += ["--device", "h100"]
    assert main(argv) == 0
    assert calls == [] and "calibrating" not in capsys.readouterr().err
    assert first_use.needs_calibration()


def test_run_predicts_with_the_cpu_profile_on_the_cpu_backend_and_calibrates_it_first(
        fresh_machine):
    from workbench.cli import common, run

    _, calls = fresh_machine
    args = type("Args", (), {"device": None, "backend": "cpu", "no_calibrate": False})()
    assert run.prediction_device(args) == "cpu"
    args.backend = "cuda"
    assert run.prediction_device(args) is None          # the GPU's own profile
    args.device = "cpu"
    assert run.prediction_device(args) == "cpu"
    args.backend, args.device = "cpu", None
    assert common.calibrate_first(args, run.prediction_device(args)) == "calibrated"
    assert cached_cpu_profile().calibration is not None and len(calls) == 1
    assert common.calibrate_first(args, "cpu") is None  # calibrated: nothing to do


def test_a_second_process_waits_for_the_first_and_does_not_calibrate_again(fresh_machine):
    """The lock held by "another process" (an flock of its own): the waiting caller says so,
    and once the other has stored a calibrated profile it reads it instead of probing."""
    tmp, calls = fresh_machine
    notes, result = [], []
    with profile_lock() as held:
        assert held
        t = threading.Thread(target=lambda: result.append(
            first_use.ensure_calibrated(note=notes.append)))
        t.start()
        deadline = time.time() + 10
        while not notes and time.time() < deadline:
            time.sleep(0.01)
        assert notes and notes[0].startswith("another workbench process is calibrating")
        assert t.is_alive() and not result          # it waits for the lock
        write_cpu_profile(devices.with_calibration(FIXED_CPU, CAL), tmp)
    t.join(10)
    assert result == ["waited"] and calls == []


def test_a_quick_probe_does_not_store_its_profile_while_another_process_calibrates(
        fresh_machine):
    tmp, _ = fresh_machine
    (tmp / "cpu_profile.json").unlink()
    with profile_lock():
        assert cpu_profile() == FIXED_CPU           # used here ...
        assert not (tmp / "cpu_profile.json").exists()   # ... not stored over the other's
    cpu_profile()
    assert (tmp / "cpu_profile.json").exists()      # without a holder it is stored


def test_the_profile_is_written_whole_or_not_at_all(fresh_machine, monkeypatch):
    tmp, _ = fresh_machine
    before = (tmp / "cpu_profile.json").read_text()

    def interrupted(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(devices.os, "replace", interrupted)
    with pytest.raises(OSError, match="disk full"):
        write_cpu_profile(devices.with_calibration(FIXED_CPU, CAL), tmp)
    assert (tmp / "cpu_profile.json").read_text() == before
    assert json.loads(before)["profile"]["calibration"] is None
    assert sorted(p.name for p in tmp.iterdir()) == ["cpu_profile.json"]  # no temporary left


def test_the_background_calibration_says_so_and_counts_its_generations(fresh_machine):
    release, done = threading.Event(), []
    bg = first_use.BackgroundCalibration(
        on_done=lambda: done.append(cached_cpu_profile().calibration is not None),
        calibrate=lambda: (release.wait(10), first_use.ensure_calibrated()))
    assert bg.status_text() == "" and bg.generation == 0
    assert bg.start() and bg.state == "running"
    assert bg.status_text().startswith("calibrating this machine… predictions will update")
    assert not bg.start()                       # one at a time
    release.set()
    bg.join(10)
    assert bg.state == "done" and bg.generation == 1 and done == [True]
    assert bg.status_text() == ""
    again = first_use.BackgroundCalibration()
    assert not again.start()                    # calibrated: nothing to do


def test_a_failed_background_calibration_is_said_and_nothing_else_changes(fresh_machine):
    def broken():
        raise RuntimeError("the calibration process exited with status 1")

    bg = first_use.BackgroundCalibration(calibrate=broken)
    assert bg.start()
    bg.join(10)
    assert bg.state == "failed" and bg.generation == 0
    assert "calibrating this machine failed (RuntimeError: the calibration process exited " \
           "with status 1)" in bg.status_text()
    assert first_use.needs_calibration()


def test_the_calibration_off_switch_reads_like_a_flag(monkeypatch):
    for value, off in (("1", True), ("yes", True), ("0", False), ("", False), ("false", False)):
        monkeypatch.setenv(first_use.ENV_OFF, value)
        assert first_use.disabled() is off, value
    monkeypatch.delenv(first_use.ENV_OFF)
    assert not first_use.disabled()
    assert os.environ.get("WORKBENCH_CACHE_DIR")    # the suite runs in a cache of its own

"""profile(): the report's numbers, JSON, trace export, progress, cancel, mismatches, CLI."""

from __future__ import annotations

import math
import json
from pathlib import Path

import numpy as np
import pytest

from workbench.codegen import emitters
from workbench.errors import ResourceLimitError
from workbench.importers import load_graph
from workbench.planner.plan import is_source, make_plan
from workbench.cli.report_text import format_report
from workbench.exporters import trace_events
from workbench.profiler import Cancelled, profile

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("kernels")


@pytest.fixture(scope="module")
def softmax():
    return load_graph(str(REPO / "sample_graphs" / "softmax.json"))


def _fused(graph):
    return make_plan(graph, [[n for n in graph.topo_order if not is_source(graph, n)]],
                     policy="test")


@pytest.fixture(scope="module")
def report(softmax, cache):
    calls = []
    rep = profile(softmax, _fused(softmax), backend="cpu", repeat=5, warmup=1, cache_dir=cache,
                  progress=lambda *a: calls.append(a))
    return rep, calls


def test_report_measures_fused_unfused_and_numpy(report, softmax):
    rep, _ = report
    assert rep.ok and rep.backend == "cpu" and len(rep.kernels) == 1
    assert len(rep.unfused_kernels) == len([n for n in softmax.topo_order
                                            if not is_source(softmax, n)])
    for t in (rep.fused, rep.unfused, rep.numpy):
        assert t.samples >= 3 and 0 < t.min_s <= t.median_s and t.spread_s >= 0
    k = rep.kernels[0]
    assert k.kind == "input" and not k.fallback
    assert k.bytes_read == k.bytes_written == 256 * 1024 * 4
    assert k.gbps == pytest.approx(2 * 256 * 1024 * 4 / k.timing.median_s / 1e9)
    assert k.flops > 0 and k.gflops > 0 and k.source_path.endswith(".py")
    assert sum(x.timing.median_s for x in rep.unfused_kernels) > 0


def test_report_json_has_per_output_errors(report):
    rep, _ = report
    d = json.loads(rep.dumps())
    (out,) = d["outputs"]
    assert out["ok"] is True and out["max_abs_error"] < 1e-6 and "max_rel_error" in out
    assert set(d["totals"]) >= {"fused", "unfused", "numpy", "predicted_s"}
    assert d["kernels"][0]["median_s"] > 0 and d["kernels"][0]["group_id"] == "g0"


def test_predictions_come_from_the_cost_model_or_are_absent(report):
    rep, _ = report
    try:
        import workbench.costmodel.model  # noqa: F401
    except ImportError:
        assert rep.predicted_s is None and rep.kernels[0].predicted_s is None
        assert any("no cost model" in n for n in rep.notes)
    else:
        assert rep.kernels[0].predicted_s > 0 and rep.predicted_s > 0


def test_trace_holds_every_timed_run_with_the_tables_statistics(report, tmp_path):
    rep, _ = report
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(trace_events(rep)))
    doc = json.loads(path.read_text())
    slices = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    call = [k for k in rep.kernels if k.role == "call"]
    assert len(slices) == sum(k.timing.samples for k in call) == 5 * len(call)
    for e in slices:
        assert {"name", "ts", "dur", "pid", "tid"} <= set(e) and e["dur"] > 0
    assert {e["tid"] for e in doc["traceEvents"]} == {1}
    assert sorted(e["args"]["run"] for e in slices) == list(range(5))
    for k in call:            # the table's median and min are the slices' median and min
        durs = [e["dur"] for e in slices if e["args"]["group"] == k.group_id]
        assert np.median(durs) == pytest.approx(k.timing.median_s * 1e6)
        assert min(durs) == pytest.approx(k.timing.min_s * 1e6)
    assert slices[0]["name"].startswith("g0 input: reduce+broadcast+subtract+exponential")
    assert slices[0]["args"]["ops"][:2] == ["reduce", "broadcast"]
    ordered = sorted(slices, key=lambda e: e["ts"])     # at the times they ran: no overlap
    assert all(a["ts"] + a["dur"] <= b["ts"] + 1e-3 for a, b in zip(ordered, ordered[1:]))
    meta = [e for e in doc["traceEvents"] if e["ph"] == "M"]
    assert meta and all("name" in e["args"] for e in meta)


def test_fused_and_unfused_runs_alternate(softmax, cache, monkeypatch):
    """Each round: the fused plan's instrumented run (per-kernel times) and its plain run (the
    wall time of a call), then the unfused plan's two."""
    from workbench.codegen.program import BoundPlan

    order = []
    timed, plain = BoundPlan.run_timed, BoundPlan.run

    def which(self):
        return "fused" if len(self.kernels) == 1 else "unfused"

    def run_timed(self):
        order.append(which(self) + " timed")
        return timed(self)

    def run(self):
        order.append(which(self) + " wall")
        return plain(self)

    monkeypatch.setattr(BoundPlan, "run_timed", run_timed)
    monkeypatch.setattr(BoundPlan, "run", run)
    rep = profile(softmax, _fused(softmax), backend="cpu", repeat=4, warmup=0, cache_dir=cache)
    rounds = [o for o in order if o.endswith("timed") or o.endswith("wall")]
    assert rounds[-16:] == ["fused timed", "fused wall", "unfused timed", "unfused wall"] * 4
    assert rep.fused.samples == rep.unfused.samples == rep.fused_wall.samples == 4
    assert rep.fused_wall.min_s > 0 and rep.unfused_wall.min_s > 0
    n = len(rep.kernels)
    assert rep.outside_kernels_s == (rep.fused_wall.min_s - rep.fused.min_s) / n


def test_timing_flags_noisy_measurements():
    from workbench.profiler.report import Timing

    steady = Timing.of([100e-6, 101e-6, 102e-6, 100e-6, 103e-6])
    assert not steady.noisy and steady.max_s == 103e-6 and steady.min_s == 100e-6
    # the finding: dot kernels with median ~15 ms against a min of 11.8 ms and 63 us runs
    slow_runs = Timing.of([63e-6, 15e-3, 11.8e-3, 15.2e-3, 14e-3])
    assert slow_runs.noisy and slow_runs.median_s / slow_runs.min_s > 1.5
    scattered = Timing.of([1e-3, 1e-3, 1.1e-3, 2.0e-3, 2.1e-3, 2.2e-3])   # IQR > median/2
    assert scattered.noisy
    tiny = Timing.of([2.4e-6, 4.0e-6, 4.1e-6, 3.9e-6])    # timer jitter, not noise
    assert not tiny.noisy


def test_report_says_when_the_machine_is_busy_or_noisy(report):
    import dataclasses

    from workbench.profiler.report import Timing
    from workbench.profiler.report import busy_note

    rep, _ = report
    d = rep.to_json()
    assert set(d["machine"]) >= {"cpus", "load_avg", "others_cpu_fraction", "busy"}
    assert "noisy" in d["kernels"][0] and "noisy" in d["totals"]["fused"]
    quiet = dataclasses.replace(rep, machine={"cpus": 2, "load_avg": 0.3,
                                              "others_cpu_fraction": 0.02, "busy": False},
                                fused=Timing.of([1e-3] * 5), unfused=Timing.of([2e-3] * 5),
                                kernels=[dataclasses.replace(
                                    k, timing=Timing.of([1e-3] * 5), prediction=None)
                                    for k in rep.kernels])
    assert busy_note(quiet) == ""
    far = dataclasses.replace(quiet, kernels=[dataclasses.replace(
        quiet.kernels[0], predicted_s=1e-3 / 187, timing=Timing.of([1e-3] * 5),
        prediction={"ratio": 187.0, "missed": True,
                    "text": "187.0x slower than predicted; launch: ..."})])
    text_far = format_report(far)
    row = next(ln for ln in text_far.splitlines() if ln.startswith("g0 "))
    assert "187.00" in row and "MISS" in row
    assert "prediction g0: 187.0x slower than predicted" in text_far
    # the rate columns say what they count, and that the prediction lines count otherwise
    from workbench.cli.report_text import RATES_LEGEND

    head = text_far.splitlines()[1].split()
    assert "arg" in head and "GB/s" in head and "GFLOP/s" in head
    assert RATES_LEGEND in text_far.splitlines()
    assert "FLOPs without transcendentals" in RATES_LEGEND and "FLOP-equivalents" in RATES_LEGEND
    assert "MISS" not in "\n".join(ln for ln in format_report(quiet).splitlines()
                                     if ln.startswith("g"))
    busy = dataclasses.replace(quiet, machine={"cpus": 2, "load_avg": 2.9,
                                               "others_cpu_fraction": 0.45, "busy": True},
                               fused=Timing.of([1e-3, 3e-3, 3e-3, 3e-3]))
    text = busy_note(busy)
    assert text.startswith("the machine looks busy (other processes used 45% of 2 CPUs while "
                           "profiling, load average 2.90)")
    assert "fused noisy" in text and "compare the min column (each kernel's fastest run)" in text
    assert json.loads(busy.dumps())["machine"]["busy"] is True


def test_profile_notes_a_busy_machine_in_the_table_and_json(softmax, cache, monkeypatch):
    import importlib

    profile_module = importlib.import_module("workbench.profiler.profile")
    monkeypatch.setattr(profile_module._MachineProbe, "finish", lambda self: {
        "cpus": 2, "load_avg": 3.1, "others_cpu_fraction": 0.6, "busy": True, "window_s": 1.0})
    rep = profile(softmax, _fused(softmax), backend="cpu", repeat=3, warmup=0, cache_dir=cache)
    assert rep.notes[-1].startswith("the machine looks busy (other processes used 60% of 2 CPUs")
    assert format_report(rep).splitlines()[-1] == f"note: {rep.notes[-1]}"
    assert rep.to_json()["notes"][-1] == rep.notes[-1]


def test_table_counts_the_plans_ops_and_prints_ir_types(cache):
    g = load_graph(str(REPO / "sample_graphs" / "layernorm_gelu.json"))
    rep = profile(g, _fused(g), backend="cpu", repeat=3, warmup=0, cache_dir=cache)
    (k,) = rep.kernels
    assert k.ops == ("layer_norm", "gelu") and k.primitive_ops > 10
    text = format_report(rep)
    row = next(ln for ln in text.splitlines() if ln.startswith("g0 "))
    assert f"2 ({k.primitive_ops} primitive)" in row and row.endswith("layer_norm, gelu")
    out = rep.outputs[0]
    assert f": f32[{','.join(map(str, out.shape))}]  max abs error" in text
    assert rep.to_json()["kernels"][0]["ops"] == ["layer_norm", "gelu"]


def test_progress_reports_each_group_and_timing(report):
    _, calls = report
    stages = [c[0] for c in calls]
    assert ("compile", 1, 1, "compiling group 1 of 1 (g0, input)") in calls
    n_unfused = max(c[2] for c in calls if c[0] == "compile-unfused")
    assert sorted({c[1] for c in calls if c[0] == "compile-unfused"}) == list(
        range(1, n_unfused + 1))
    assert {"check", "time", "time-unfused", "time-numpy"} <= set(stages)
    assert ("time", 1, 1, "timing kernel 1 of 1 (g0, input)") in calls


def test_cancel_stops_profiling(softmax, cache):
    state = {"compiled": False}

    def progress(stage, k, n, msg):
        state["compiled"] |= stage == "compile"

    with pytest.raises(Cancelled):
        profile(softmax, _fused(softmax), backend="cpu", repeat=2, cache_dir=cache,
                progress=progress, cancel=lambda: state["compiled"])


def test_memory_cap_is_checked_before_running(softmax, cache):
    with pytest.raises(ResourceLimitError):
        profile(softmax, _fused(softmax), backend="cpu", cache_dir=cache, max_bytes=1 << 20)


def test_mismatch_is_reported_not_hidden(softmax, cache, monkeypatch):
    monkeypatch.setitem(emitters.CPU_TABLE, "divide", lambda a, d, at, cx: f"({a[0]} * {a[1]})")
    rep = profile(softmax, _fused(softmax), backend="cpu", repeat=1, warmup=0, cache_dir=cache)
    assert not rep.ok and not rep.outputs[0].ok and rep.outputs[0].max_abs_error > 1
    (err,) = [e for e in rep.errors if e["code"] == "mismatch"]
    assert "differs from the reference" in err["message"]
    assert "MISMATCH" in format_report(rep)


def _cli(*argv):
    from workbench.cli import build_parser

    args = build_parser().parse_args(["run", *argv])
    return args.func(args)


def test_cli_run_prints_json_and_writes_trace(tmp_path, capsys, cache):
    trace = tmp_path / "t.json"
    inputs = tmp_path / "in.npz"
    np.savez(inputs, arg0=np.random.default_rng(0).standard_normal((256, 1024)).astype("f4"))
    rc = _cli(str(REPO / "sample_graphs" / "softmax.json"), "--policy", "unfused", "--backend",
              "cpu", "--repeat", "2", "--json", "--trace", str(trace), "--inputs", str(inputs),
              "--cache-dir", str(cache))
    assert rc == 0
    d = json.loads(capsys.readouterr().out)
    assert d["ok"] and d["outputs"][0]["ok"] and d["policy"] == "unfused"
    assert json.loads(trace.read_text())["traceEvents"]


def test_cli_exit_status_is_nonzero_on_mismatch(capsys, cache, monkeypatch):
    monkeypatch.setitem(emitters.CPU_TABLE, "exponential",
                        lambda a, d, at, cx: f"math.exp({a[0]} * 2)")
    rc = _cli(str(REPO / "sample_graphs" / "softmax.json"), "--policy", "unfused", "--backend",
              "cpu", "--repeat", "1", "--cache-dir", str(cache))
    assert rc == 1
    assert "MISMATCH" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (("--repeat", "0"), "argument --repeat: must be 1 or more, got 0"),
    (("--repeat", "-3"), "argument --repeat: must be 1 or more, got -3"),
    (("--warmup", "-1"), "argument --warmup: must be 0 or more, got -1"),
    (("--repeat", "two"), "argument --repeat: expected a whole number, got 'two'"),
    (("--max-memory-mib", "-5"), "argument --max-memory-mib: must be a finite number"),
])
def test_cli_rejects_bad_numbers_on_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        _cli("chain10", *argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith("workbench run: error:")


def test_no_device_profile_note_names_the_command_line_option(softmax):
    from workbench.profiler.profile import _predictions

    pred = _predictions(softmax, _fused(softmax), "cuda-sim", None)
    if pred is None:
        pytest.skip("no cost model installed")
    assert "--device NAME" in pred["error"] and "pass device=" not in pred["error"]


def test_time_outside_the_kernels_is_never_printed_negative():
    from workbench.cli.report_text import _outside_text

    assert _outside_text(2.5e-6) == ("outside the kernels 2.5 µs a kernel "
                                     "(min wall - min kernel sum)")
    neg = _outside_text(-6.81e-7)
    assert "-" not in neg.split("(")[0] and "below what this measures" in neg
    assert "681 ns a kernel under the min kernel sum" in neg
    assert _outside_text(math.nan) == "outside the kernels: not measured"


def test_predictions_from_an_uncalibrated_cpu_profile_say_so():
    from dataclasses import replace

    from tests.planner.planner_helpers import FIXED_CPU
    from workbench.costmodel.devices import with_calibration
    from workbench.profiler.profile import _calibration_note

    (note,) = _calibration_note(FIXED_CPU)
    assert note.startswith("the cpu profile is not calibrated") and "devices --refresh" in note
    assert _calibration_note("h100") == []           # a GPU profile has its datasheet terms
    assert _calibration_note(None) == []
    calibrated = with_calibration(replace(FIXED_CPU), {"launch_s": 1e-7, "levels": []})
    assert _calibration_note(calibrated) == []


def test_the_stamped_call_runs_the_plan_and_its_stamps_give_the_timed_seconds(softmax, cache):
    """run_stamped is the instrumented call alone: the same outputs as run(), each kernel's
    start and end stamp in order, and stamp_seconds gives what run_timed returns."""
    from workbench.codegen import compile_plan
    from workbench.ir import make_inputs
    from workbench.planner.plan import unfused_plan

    compiled = compile_plan(softmax, unfused_plan(softmax), "cpu", cache_dir=cache)
    inputs = make_inputs(softmax, seed=1)
    bound = compiled.bind(compiled.prepare(inputs, None))
    want = [np.array(o) for o in bound.run()]
    got = bound.run_stamped()
    assert all(np.array_equal(np.asarray(a), b) for a, b in zip(got, want))
    n = len(bound.kernels)
    assert n >= 3
    st = bound.stamps[:2 * n]
    assert all(a <= b for a, b in zip(st, st[1:]))         # start <= end <= next start
    secs, starts = bound.stamp_seconds()
    assert len(secs) == len(starts) == n and all(s >= 0 for s in secs)
    assert secs == ((st[1::2] - st[0::2]) * 1e-9).tolist()
    _outs, secs2, starts2 = bound.run_timed()
    assert len(secs2) == n and starts2[0] > starts[-1]      # a new call, later on the same clock

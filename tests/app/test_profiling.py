"""Reading a profile report for the app (the shape of ``Report.to_json()``), without running one."""

from __future__ import annotations

import json

import pytest

from tests.conftest import SAMPLES_DIR
from workbench.app import profiling
from workbench.importers import load_graph
from workbench.planner import plan_graph, unfused_plan


def report(tmp_path, ok=True):
    src = tmp_path / "k_g0.py"
    src.write_text("def kernel_g0(x, out):\n    out[:] = x\n")
    return {
        "graph": "mlp", "backend": "cpu", "ok": ok, "speedup": 1.5,
        "totals": {"fused": {"median_s": 2e-3}, "unfused": {"median_s": 3e-3},
                   "numpy": {"median_s": 1e-3}, "predicted_s": 1e-3,
                   "predicted_unfused_s": 2e-3},
        "kernels": [{"group_id": "g0", "kind": "output", "median_s": 1.5e-3, "min_s": 1.2e-3,
                     "predicted_s": 5e-4, "gbps": 1.25, "fallback": False, "cached": True,
                     "source_path": str(src)},
                    {"group_id": "g1", "kind": "loop", "median_s": "nan",
                     "predicted_s": None, "gbps": "nan", "fallback": True,
                     "source_path": None}],
        "outputs": [{"index": 0, "node": "relu3", "max_abs_error": 0.0 if ok else 0.5,
                     "max_rel_error": 0.0 if ok else 0.25, "mismatches": 0 if ok else 7,
                     "ok": ok}],
        "notes": ["no GPU: ran on cpu"], "errors": [] if ok else [
            {"code": "mismatch", "text": "output relu3 differs from the reference"}],
    }


def test_rows_summary_and_sources(tmp_path):
    doc = report(tmp_path)
    g = load_graph(SAMPLES_DIR / "mlp.json")
    plan = plan_graph(g)
    rows = profiling.kernel_rows(doc, plan)
    assert rows[0] == {"id": "g0", "group": "g0", "kind": "output", "measured_s": 1.5e-3,
                       "predicted_s": 5e-4, "min_s": 1.2e-3, "min": "1.2 ms",
                       # a record without the 25th percentile: judged by its median, as then
                       "typical_s": 1.5e-3, "typical": "1.5 ms", "spread_s": None, "noisy": False,
                       "measured": "1.5 ms", "predicted": "500 µs", "ratio": "3.00",
                       "ratio_x": pytest.approx(3.0), "missed": False, "dominant": "-", "miss": "",
                       "gbps": "1.25", "gbps_x": 1.25, "note": "cached"}
    assert rows[1]["measured"] == "-" and rows[1]["note"] == "numpy fallback"
    assert rows[1]["min"] == "-" and rows[1]["min_s"] is None
    assert profiling.correctness_rows(doc) == [{"id": "out0", "output": "out0 relu3",
                                                "max_abs_error": "0", "max_rel_error": "0",
                                                "nonfinite": "none", "ok": "yes"}]
    text = profiling.summary_text(doc)
    assert text == ("backend cpu (auto: no usable CUDA GPU here) · measured fused 2 ms vs unfused "
                    "3 ms: 1.50x speedup · predicted 1 ms vs 2 ms (2.00x) · no GPU: ran on cpu")
    assert profiling.summary_text(doc, "cpu").startswith("backend cpu (as chosen) · ")
    # several notes are kept apart ("no GPU: ran on cpu the machine looks busy" ran together)
    busy = dict(doc, notes=["no GPU: ran on cpu", "the machine looks busy (load average 9)"])
    assert profiling.summary_text(busy).endswith(
        "· no GPU: ran on cpu; the machine looks busy (load average 9)")
    assert profiling.backend_text(dict(doc, backend="cuda")) == "backend cuda"
    assert profiling.read_sources(doc) == {"g0": "def kernel_g0(x, out):\n    out[:] = x\n"}
    assert profiling.mismatch_text(doc) == ""


def test_a_mismatch_is_reported(tmp_path):
    doc = report(tmp_path, ok=False)
    assert profiling.mismatch_text(doc) == "output relu3 differs from the reference"
    assert profiling.correctness_rows(doc)[0]["ok"] == "NO (7 elements)"
    doc["errors"] = []
    assert "relu3" in profiling.mismatch_text(doc)


def test_measured_times_only_for_the_plan_profiled(tmp_path):
    g = load_graph(SAMPLES_DIR / "mlp.json")
    plan, other = plan_graph(g), unfused_plan(g)
    assert profiling.plan_key(plan) != profiling.plan_key(other)
    record = {"plan": profiling.plan_key(plan), "report": report(tmp_path),
              "trace": {"traceEvents": [{"name": "g0", "ph": "X", "ts": 0, "dur": 1}]},
              "sources": {"g0": "pass"}}
    assert profiling.measured_times(record, plan) == {"g0": 1.5e-3}  # "nan" is left out
    assert profiling.measured_times(record, other) == {}
    assert json.loads(profiling.trace_file(record))["traceEvents"][0]["ph"] == "X"
    assert profiling.sources_file(record) == "# ---- kernel g0 ----\npass\n"
    assert profiling.progress_text("compile", 3, 12, "g2") == "compile 3 of 12: g2"
    assert profiling.download("sources", record) == ("kernels.py.txt", profiling.sources_file(record))
    assert profiling.download("trace", record)[0] == "trace.json"
    name, text = profiling.download("report", record)
    assert name == "report.json" and json.loads(text)["backend"] == "cpu"


def test_noisy_kernels_are_flagged_in_the_table_the_chart_and_the_summary(tmp_path):
    """A spread (interquartile range) above half the median: the time can flip from run to
    run on a busy machine (workbench.profiler.report.noisy_reason)."""
    from workbench.app.figures import profile_bars

    doc = report(tmp_path)
    doc["kernels"][0].update(min_s=1.0e-3, spread_s=1.2e-3)  # noisy
    doc["kernels"][1].update(median_s=2e-4, min_s=1.9e-4, spread_s=1e-5)  # steady
    g = load_graph(SAMPLES_DIR / "mlp.json")
    rows = profiling.kernel_rows(doc, plan_graph(g))
    assert rows[0]["noisy"] and rows[0]["note"] == "noisy: spread (IQR) 0.8x the median · cached"
    assert not rows[1]["noisy"] and rows[1]["note"] == "numpy fallback"
    text = profiling.summary_text(doc)
    assert " · noisy: 1 kernel (marked in the table) varies widely from run to run" in text
    fig = profile_bars(rows)
    assert fig.data[0].marker.pattern.shape == ("/", "")
    assert fig.data[0].error_y.array == pytest.approx((1200.0, 10.0))  # µs
    assert fig.layout.title.text.endswith("hatched: noisy</sup>")  # its second line
    steady = dict(doc, kernels=doc["kernels"][1:])
    assert "noisy" not in profiling.summary_text(steady)


def test_choosing_cuda_without_a_gpu_is_explained_in_the_apps_words(monkeypatch):
    import workbench.codegen.backend as backend
    from workbench.errors import CompileError

    monkeypatch.setattr(backend, "gpu_available", lambda: False)
    g = load_graph(SAMPLES_DIR / "mlp.json")
    with pytest.raises(CompileError) as info:
        profiling.run_profile(g, plan_graph(g), "cuda")
    text = str(info.value)
    assert text == profiling.NO_GPU and "choose auto or cpu" in text
    assert "--backend" not in text and "cuda-sim" not in text


def test_a_missed_prediction_is_flagged_with_the_term_that_was_wrong(tmp_path):
    doc = report(tmp_path)
    doc["kernels"][0].update(dominant="reduction (row reduction)", prediction={
        "measured_s": 1.5e-3, "predicted_s": 5e-4, "ratio": 3.0, "missed": True,
        "dominant": "reduction (row reduction)",
        "text": "3.0x slower than predicted; reduction (row reduction): 3 ns per element, "
                "the model assumed 1 ns"})
    g = load_graph(SAMPLES_DIR / "mlp.json")
    rows = profiling.kernel_rows(doc, plan_graph(g))
    assert rows[0]["missed"] and rows[0]["dominant"] == "reduction (row reduction)"
    # its own column beside the ratio (the note, at the table's right edge, was out of view)
    assert rows[0]["miss"].startswith("MISS: 3.0x slower than predicted; reduction (row")
    assert "MISS" not in rows[0]["note"] and rows[1]["miss"] == ""
    cols = [c["field"] for c in _profile_columns()]
    assert cols.index("miss") == cols.index("ratio_x") + 1, cols
    # one line (it runs past the side panel's edge): whole in its tooltip and in the list
    # under the table (test_each_missed_prediction_is_listed_whole_under_the_table)
    miss = _profile_columns()[cols.index("miss")]
    assert miss["tooltipField"] == "miss" and miss["minWidth"] >= 200
    assert "wrapText" not in miss and "autoHeight" not in miss
    assert "predictions: 0 of 1 kernel within [0.5, 2] x their prediction; missed (flagged " \
        "in the table, with the term that was wrong): g0" in profiling.summary_text(doc)


def test_nan_in_an_output_is_named_in_the_correctness_table(tmp_path):
    doc = report(tmp_path, ok=False)
    doc["outputs"][0].update(nan_count=3, first_nonfinite=[0, 2])
    row = profiling.correctness_rows(doc)[0]
    assert row["nonfinite"] == "NaN in 3 elements, first at [0, 2], where the reference is finite"


def _profile_columns() -> list[dict]:
    """The column definitions of the profile table, as the layout builds them."""
    from workbench.app import ids
    from workbench.app.layout import profile_tab

    def find(c):
        if getattr(c, "id", None) == ids.PROFILE_TABLE:
            return c
        kids = getattr(c, "children", None)
        for k in (kids if isinstance(kids, (list, tuple)) else [kids] if kids else []):
            got = find(k)
            if got is not None:
                return got
        return None

    return find(profile_tab()).columnDefs



def test_each_missed_prediction_is_listed_whole_under_the_table(tmp_path):
    """The table's "which term was wrong" column is cut at the panel's edge: the app lists
    each miss, whole, under it."""
    from workbench.app.callbacks_profile import misses_list

    doc = report(tmp_path)
    text = "5.00x slower than predicted; launch: the model charges 2 µs, ... (a long sentence)"
    doc["kernels"][0]["prediction"] = {"ratio": 5.0, "missed": True, "text": text}
    rows = profiling.kernel_rows(doc, plan_graph(load_graph(SAMPLES_DIR / "mlp.json")))
    assert rows[0]["miss"] == f"MISS: {text}"
    assert profiling.miss_lines(rows) == [f"g0 (ratio 5.00): {text}"]
    head, items = misses_list(profiling.miss_lines(rows))
    assert head.children == "Missed predictions, and which term was wrong:"
    assert [li.children for li in items.children] == [f"g0 (ratio 5.00): {text}"]
    assert misses_list([]) == []


def _kernel(gid, runs):
    """A fused kernel of a hand-made report, timed by ``runs`` (seconds)."""
    from workbench.profiler.report import KernelReport, Timing

    return KernelReport(gid, "loop", "cpu", False, None, Timing.of(runs), None, 0, 0, 0, 0,
                        0.0, 0.0)


def test_the_table_the_summary_and_the_cli_count_the_same_noisy_kernels():
    """One definition of noisy (workbench.profiler.report.noisy_reason): the app judged a
    spread above the fastest run, the report a median far above it, so the summary's two
    counts (its own, and the report's busy note among the notes) disagreed."""
    from workbench.cli.report_text import format_report
    from workbench.profiler.report import Report, Timing, busy_note

    ms, us = 1e-3, 1e-6
    kernels = [_kernel("g0", [1 * ms, 2 * ms, 2 * ms, 2 * ms, 2 * ms]),  # median 2x the min
               # a spread above the fastest run, but all of it timer jitter (below 2 µs)
               _kernel("g1", [0.5 * us, 0.6 * us, 1.0 * us, 1.4 * us, 1.5 * us]),
               _kernel("g2", [1 * ms, 1.01 * ms, 1.02 * ms, 1.0 * ms, 1.03 * ms])]  # steady
    steady = Timing.of([3 * ms] * 5)
    rep = Report("toy", "test", "cpu", None, kernels, [], steady, steady, steady, None, None,
                 [], True, machine={"busy": False})
    assert [k.timing.noisy for k in kernels] == [True, False, False]
    note = busy_note(rep)
    assert "(1 kernel(s) noisy)" in note
    doc = dict(rep.to_json(), notes=[note])
    g = load_graph(SAMPLES_DIR / "mlp.json")
    rows = profiling.kernel_rows(doc, plan_graph(g))
    assert [r["noisy"] for r in rows] == [True, False, False]
    assert rows[0]["note"] == "noisy: median 2.0x the min"
    assert doc["noisy"] == ["g0"]
    assert "noisy: 1 kernel (marked in the table) varies widely" in profiling.summary_text(doc)
    table = format_report(rep).splitlines()
    marked = [ln.split()[0] for ln in table if " noisy (" in ln]
    assert marked == ["g0"] and "noisy (median 2.0x the min)" in table[2]


def _seconds(text: str) -> float:
    """``184 µs`` -> 1.84e-4."""
    value, unit = text.split()
    return float(value) * {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}[unit]


def _consistent(typical: str, predicted: str, ratio: str) -> bool:
    """The ratio as shown is typical / predicted as shown, up to their rounding (three
    significant digits each, two decimals for the ratio)."""
    r = _seconds(typical) / _seconds(predicted)
    return abs(float(ratio) - r) <= 0.005 + 0.011 * r


def test_every_number_of_a_profile_row_agrees_with_its_ratio(tmp_path):
    """The ratio is the 25th-percentile time over the prediction: the app's table and the
    CLI's show that time as a column (typical (p25)), and a miss quotes the same figures."""
    from tests.costmodel.test_calibration import CAL, DEV
    from workbench.cli.report_text import format_report
    from workbench.costmodel.devices import with_calibration
    from workbench.ir import GraphBuilder, verify
    from workbench.planner.plan import make_plan
    from workbench.profiler import profile

    # sine a thousandth of its cost: g0 misses; the negate is near its prediction or not
    cheap = dict(CAL, per_element=dict(CAL["per_element"], sine=[[128 << 10, 5e-12]]),
                 launch_s=1e-8, launch_cold=[], stream=[[1 << 20, 1e-9], [1 << 30, 1e-6]])
    b = GraphBuilder("sines")
    x = b.parameter("x", (1 << 16,))
    s = b.op("sine", [x], node_id="s")
    g = verify(b.build([s, b.op("negate", [s], node_id="n")]))
    plan = make_plan(g, [["s"], ["n"]], policy="test", device="cpu")
    rep = profile(g, plan, backend="cpu", repeat=5, warmup=1,
                  device=with_calibration(DEV, cheap), cache_dir=tmp_path)
    doc = profiling.report_record(plan, rep)["report"]
    rows = profiling.kernel_rows(doc, plan)
    assert rows[0]["missed"] and len(rows) == 2
    for row, k in zip(rows, rep.kernels):
        assert row["typical_s"] == k.prediction["measured_s"] == k.timing.typical_s
        assert _consistent(row["typical"], row["predicted"], row["ratio"]), row
        if row["missed"]:
            assert f"(typical (p25) {row['typical']} against the predicted " \
                f"{row['predicted']}); " in row["miss"]
    heads = {c["field"]: c["headerName"] for c in _profile_columns()}
    assert heads["typical_s"] == "typical (p25)"
    fields = list(heads)
    assert fields.index("typical_s") < fields.index("predicted_s") < fields.index("ratio_x")
    # the CLI's table: the same columns, and the miss's line quotes the same figures
    lines = format_report(rep).splitlines()
    head = lines[1].split("  ")
    head = [h.strip() for h in head if h.strip()]
    at = {h: i for i, h in enumerate(head)}
    for k in rep.kernels:
        line = next(ln for ln in lines if ln.startswith(k.group_id + " "))
        cells = [c.strip() for c in line.split("  ") if c.strip()]
        typical, predicted, ratio = (cells[at[h]] for h in ("typical (p25)", "predicted",
                                                            "typical/pred"))
        row = next(r for r in rows if r["group"] == k.group_id)
        assert (typical, predicted, ratio) == (row["typical"], row["predicted"], row["ratio"])
        assert _consistent(typical, predicted, ratio)
    miss = next(ln for ln in lines if ln.startswith("prediction g0: "))
    assert f"(typical (p25) {rows[0]['typical']} against the predicted " \
        f"{rows[0]['predicted']})" in miss


def test_the_correctness_table_shows_each_output_name_whole():
    """A long output name (an HLO module's ``broadcast_in_dim.3``, a scope) was cut at its
    column's edge: the column wraps it (and its tooltip has it), taking the width the sized
    columns leave."""
    from workbench.app import ids
    from workbench.app.layout import profile_tab

    def find(c, id_):
        if getattr(c, "id", None) == id_:
            return c
        kids = getattr(c, "children", None)
        for k in (kids if isinstance(kids, (list, tuple)) else [kids] if kids else []):
            got = find(k, id_)
            if got is not None:
                return got
        return None

    table = find(profile_tab(), ids.CORRECTNESS)
    out = next(c for c in table.columnDefs if c["field"] == "output")
    assert out["wrapText"] and out["autoHeight"] and out["tooltipField"] == "output"
    assert out["cellStyle"]["wordBreak"] == "break-all"   # a name has no spaces to wrap at
    assert "output" not in table.columnSizeOptions["keys"]
    assert set(table.columnSizeOptions["keys"]) == {c["field"] for c in table.columnDefs} - {
        "output"}
    name = "fusion.12/jit(f)/block_3/attn/dot_general.42"
    doc = {"outputs": [{"index": 0, "node": name, "ok": True}]}
    assert profiling.correctness_rows(doc)[0]["output"] == f"out0 {name}"


def test_the_summary_is_four_short_lines_with_the_rest_collapsed(tmp_path):
    """The summary was one paragraph of about 12 lines in the side panel: now the key figures,
    at most four lines, and the predicted totals, what noisy means and the notes under a
    collapsed *details*."""
    from workbench.app.callbacks_profile import details_view, summary_view

    doc = report(tmp_path)
    doc["kernels"][0].update(min_s=1.0e-3, spread_s=1.2e-3, prediction={
        "measured_s": 1.5e-3, "predicted_s": 5e-4, "ratio": 3.0, "missed": True, "text": "x"})
    long_note = "the machine looks busy (other processes used 76% of 2 CPUs) " * 3
    doc["notes"] = ["no GPU: ran on cpu", long_note]
    lines = profiling.summary_lines(doc, "cpu")
    assert lines == ["measured fused 2 ms vs unfused 3 ms: 1.50x speedup (predicted 2.00x)",
                     "predictions: 0 of 1 kernel within [0.5, 2] x; missed: g0",
                     "noisy: 1 kernel (marked in the table) varies widely from run to run",
                     "backend cpu (as chosen)"]
    assert all(len(line) <= 90 for line in lines)   # one line each in the side panel
    details = profiling.summary_details(doc)
    assert details[0] == "predicted 1 ms fused vs 2 ms unfused (2.00x)"
    assert details[1].startswith("noisy: 1 kernel (marked in the table) varies widely")
    assert details[2].startswith("predictions: 0 of 1 kernel within [0.5, 2] x")
    assert details[3:] == doc["notes"]
    assert [d.children for d in summary_view(lines)] == lines
    (head, items), style = details_view(details)
    assert head.children == "details (5)" and [li.children for li in items.children] == details
    assert style == {} and details_view([]) == ([], {"display": "none"})   # none: hidden
    # collapsed, and kept (not made anew) when a report is shown again, so it stays open
    from workbench.app import ids
    from workbench.app.layout import profile_tab
    box = next(c for c in profile_tab().children if getattr(c, "id", None) == ids.PROFILE_DETAILS)
    assert type(box).__name__ == "Details" and getattr(box, "open", None) in (None, False)
    # nothing of the whole text is lost: every part of summary_text is in one or the other
    whole = profiling.summary_text(doc, "cpu")
    assert all(n in whole for n in doc["notes"]) and "1.50x speedup" in whole
    quiet = report(tmp_path)
    quiet["notes"] = []
    quiet["totals"].pop("predicted_s")
    assert profiling.summary_lines(quiet) == [
        "measured fused 2 ms vs unfused 3 ms: 1.50x speedup",
        "backend cpu (auto: no usable CUDA GPU here)"]

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
                       "spread_s": None, "noisy": False,
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
    """A spread (interquartile range) above the fastest run: the time can flip from run to
    run on a busy machine."""
    from workbench.app.figures import profile_bars

    doc = report(tmp_path)
    doc["kernels"][0].update(min_s=1.0e-3, spread_s=1.2e-3)  # noisy
    doc["kernels"][1].update(median_s=2e-4, min_s=1.9e-4, spread_s=1e-5)  # steady
    g = load_graph(SAMPLES_DIR / "mlp.json")
    rows = profiling.kernel_rows(doc, plan_graph(g))
    assert rows[0]["noisy"] and rows[0]["note"] == "noisy: spread 1.2 ms, min 1 ms · cached"
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

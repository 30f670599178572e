"""What the profile and cost panels' numbers count, said where they are shown, and the profile
chart's title, whiskers and grammar (a newcomer's review)."""

from __future__ import annotations

from workbench.app import ids
from workbench.app.figures import profile_bars
from workbench.app.profiling import summary_text
from workbench.app.tables import COST_FIELDS, FLOP_EQ_LABEL, cost_rows


def _columns(component, grid_id):
    """The column definitions of the AG Grid ``grid_id`` inside ``component``."""
    if getattr(component, "id", None) == grid_id:
        return component.columnDefs
    kids = getattr(component, "children", None)
    for kid in kids if isinstance(kids, (list, tuple)) else [kids] if kids is not None else []:
        found = _columns(kid, grid_id)
        if found:
            return found
    return None


def test_the_profile_tables_rate_column_says_it_counts_the_kernels_arguments():
    from workbench.app.layout import profile_tab

    col = next(c for c in _columns(profile_tab(), ids.PROFILE_TABLE) if c["field"] == "gbps_x")
    assert col["headerName"] == "GB/s (arguments)"
    assert "arguments, each read or written once" in col["headerTooltip"]
    assert "MISS note's rate counts the cost model's bytes" in col["headerTooltip"]


def test_the_busy_note_points_to_a_min_column_the_table_has():
    """The busy machine's note says to compare the min column: the app's profile table has
    one (the fastest run, beside the median), as ``workbench run``'s table has."""
    from types import SimpleNamespace

    from workbench.app.layout import profile_tab
    from workbench.profiler.report import Timing, busy_note

    heads = [(c["headerName"], c["field"]) for c in _columns(profile_tab(), ids.PROFILE_TABLE)]
    assert heads.index(("min", "min_s")) == heads.index(("measured", "measured_s")) + 1
    steady = Timing.of([1e-3] * 5)
    busy = SimpleNamespace(machine={"busy": True, "load_avg": 3.0, "cpus": 2}, kernels=(),
                           fused=steady, unfused=steady)
    assert busy_note(busy) == ("the machine looks busy (load average 3.00): medians may be "
                               "inflated; compare the min column (each kernel's fastest run), "
                               "or run again on a quieter machine")


def test_the_cost_card_shows_flop_equivalents_beside_the_flops_and_its_intensity_says_so():
    fused = {"flops": 1000, "transcendentals": 10, "flop_equivalents": 1100.0,
             "arithmetic_intensity": 1100.0 / 400, "bytes_read": 200, "bytes_written": 200}
    rows = {label: value for label, value, _ in cost_rows(fused)}
    assert rows["FLOPs"] == "1 kFLOP" and rows["transcendentals"] == "10"
    assert rows[FLOP_EQ_LABEL] == "1.1 kFLOP-eq"
    assert rows["arithmetic intensity"] == "2.75 FLOP-eq/B"     # 1100 / 400, not 1000 / 400
    labels = [f[0] for f in COST_FIELDS]
    assert labels.index(FLOP_EQ_LABEL) == labels.index("arithmetic intensity") - 1


def test_the_profile_chart_keeps_its_title_clear_of_the_toolbar_and_its_whiskers_above_zero():
    rows = [{"group": "g0", "measured_s": 2e-6, "predicted_s": 1e-6, "spread_s": 5e-6,
             "noisy": True},
            {"group": "g1", "measured_s": 8e-6, "predicted_s": 9e-6, "spread_s": 1e-6}]
    fig = profile_bars(rows)
    err = fig.data[0].error_y
    assert err.symmetric is False and list(err.array) == [5.0, 1.0]
    assert list(err.arrayminus) == [2.0, 1.0]                  # g0 stops at 0, not at -3 µs
    assert fig.layout.modebar.orientation == "v" and fig.layout.margin.t >= 50
    title = fig.layout.title.text
    assert title.startswith("Measured vs predicted time per kernel (µs)<br><sup>")
    assert "hatched: noisy" in title.split("<br>")[1]


def _report(noisy_kernels: int, noisy_totals: bool = False) -> dict:
    spread = {"median_s": 1e-5, "min_s": 1e-6, "spread_s": 9e-6, "noisy": True}
    kernels = [dict(spread, group_id=f"g{i}") for i in range(noisy_kernels)]
    totals = {"fused": spread if noisy_totals else {"median_s": 1e-5},
              "unfused": {"median_s": 2e-5}}
    return {"backend": "cpu", "kernels": kernels, "totals": totals}


def test_the_noisy_note_agrees_with_its_subject():
    assert "1 kernel (marked in the table) varies widely" in summary_text(_report(1))
    assert "2 kernels (marked in the table) vary widely" in summary_text(_report(2))
    assert "1 kernel (marked in the table) and the totals vary widely" in summary_text(
        _report(1, True))
    assert "noisy: the totals vary widely" in summary_text(_report(0, True))

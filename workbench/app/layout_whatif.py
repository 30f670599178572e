"""The What-if and Diff tabs: knob sliders with what changed, a knob's sweep plot, the tune
button; two plans side by side and plans on time vs peak memory."""

from __future__ import annotations

from dash import dcc, html

from workbench.app import ids
from workbench.app.whatif import DIFF_CHOICES, SLIDERS, slider_marks


def _slider(spec) -> html.Div:
    neutral = 0 if spec.scale == "log" else (0.95 if spec.knob == "overlap" else spec.high)
    return html.Div(className="knob", children=[
        html.Label(f"{spec.label} ({spec.knob})", className="knob-label"),
        dcc.Slider(id=ids.knob_id(spec.knob), min=spec.low, max=spec.high, step=spec.step,
                   value=neutral, marks=slider_marks(spec), updatemode="mouseup",
                   tooltip={"placement": "bottom", "always_visible": False})])


def whatif_tab(_button, _table) -> html.Div:
    """Knobs, what they changed, the sweep of one knob, and measured autotuning (``_button``
    and ``_table`` make the page's buttons and tables: :mod:`.layout`'s)."""
    return html.Div(className="tab-body", children=[
        html.Div("Move a cost-model term: the plan is made again on the changed profile; the "
                 "decisions that flipped and the groups that changed are listed and marked on "
                 "the graph (the flipped decision's op filled red, the changed groups' ops "
                 "bordered green) until you use the plan or reset the knobs.",
                 className="hint"),
        *[_slider(s) for s in SLIDERS],
        html.Div(className="edit-bar", children=[
            _button(ids.WHATIF_APPLY, "Use this plan", "Re-plan the session on the changed "
                    "profile (undo returns)"),
            _button(ids.WHATIF_RESET, "Reset knobs", "Every knob back to the profile's value")]),
        html.Div(id=ids.WHATIF_MSG, className="msg error", role="alert"),
        html.Div(id=ids.WHATIF_SUMMARY, className="summary"),
        html.H4("Decisions that flipped"),
        _table(ids.WHATIF_FLIPS, [("action", "action"), ("nodes", "nodes"),
                                  ("before", "before"), ("after", "after"),
                                  ("why_after", "why, now")], height="220px",
               style_data_conditional=[{"if": {"column_id": "after"},
                                        "backgroundColor": "#fff3bf"}],
               style_cell_conditional=[{"if": {"column_id": "why_after"},
                                        "whiteSpace": "normal", "minWidth": 240}]),
        html.H4("Groups that changed"),
        _table(ids.WHATIF_GROUPS, [("group", "group"), ("kind", "kind"), ("n_ops", "ops"),
                                   ("ops", "members")], height="180px"),
        html.H4("Sweep one knob"),
        dcc.Dropdown(id=ids.WHATIF_SWEEP_KNOB, options=[s.knob for s in SLIDERS],
                     value="launch_overhead_s", clearable=False, className="small-dd"),
        dcc.Graph(id=ids.WHATIF_SWEEP, config={"displaylogo": False}, className="chart"),
        html.H4("Measured autotuning"),
        html.Div(className="edit-bar", children=[
            _button(ids.TUNE_RUN, "Tune", "Measure variants of the current plan (a job: "
                    "compiled and timed in a worker process) and keep the fastest", "primary"),
            dcc.Input(id=ids.TUNE_BUDGET, type="number", min=1, max=50, step=1, value=4,
                      className="small-input"),
            html.Span("variants", className="bar-label"),
            _button(ids.TUNE_CANCEL, "Cancel", "Stop the tune (queued or running); what it "
                    "measured so far stays in the results store", disabled=True),
            dcc.Interval(id=ids.TUNE_POLL, interval=500, disabled=True),
            html.Progress(id=ids.TUNE_PROGRESS, value="0", max="1"),
            html.Span(id=ids.TUNE_STATUS, className="status")]),
        html.Div(id=ids.TUNE_SUMMARY, className="summary"),
        _table(ids.TUNE_TABLE, [("step", "step"), ("change", "change"),
                                ("predicted_gain", "predicted gain"),
                                ("measured_gain", "measured gain"), ("status", "kept / why"),
                                ("stored", "")], height="220px"),
        html.H4("This graph in the results store"),
        _table(ids.TUNE_HISTORY, [("label", "what"), ("plan", "plan"), ("kernels", "kernels"),
                                  ("best", "measured"), ("predicted", "predicted"),
                                  ("peak", "peak memory")], height="180px"),
    ])


def diff_tab(_button, _table) -> html.Div:
    """Two plans side by side, and every plan on time vs peak memory."""
    opts = list(DIFF_CHOICES)
    return html.Div(className="tab-body", children=[
        html.Div(className="edit-bar", children=[
            html.Span("A", className="bar-label"),
            dcc.Dropdown(id=ids.DIFF_A, options=opts, value="priority", clearable=False,
                         className="small-dd"),
            html.Span("B", className="bar-label"),
            dcc.Dropdown(id=ids.DIFF_B, options=opts, value="xla-cpu", clearable=False,
                         className="small-dd")]),
        html.Div(id=ids.DIFF_MSG, className="msg error", role="alert"),
        html.Div(id=ids.DIFF_SUMMARY, className="summary"),
        _table(ids.DIFF_TABLE, [("n", "#"), ("a_groups", "A groups"), ("b_groups", "B groups"),
                                ("n_nodes", "nodes"), ("nodes", "which"),
                                ("pred_a", "A predicted"), ("pred_b", "B predicted"),
                                ("delta", "B − A"), ("measured", "B − A measured")],
               height="320px"),
        dcc.Graph(id=ids.TIME_MEMORY, config={"displaylogo": False}, className="chart"),
    ])

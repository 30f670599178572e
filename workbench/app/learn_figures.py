"""The Learn page's charts (pure functions of data): a what-if sweep."""

from __future__ import annotations

import plotly.graph_objects as go

from workbench.app.figures import time_unit

_LAYOUT = dict(template="plotly_white", margin=dict(l=60, r=10, t=36, b=40),
               font=dict(family="Inter, Helvetica, sans-serif", size=11))


def whatif_figure(values, times_a, times_b, names, knob_label: str, current: float,
                  crossing: float | None, unit_scale: float = 1.0, unit: str = "",
                  planner_times=()) -> go.Figure:
    """Both plans' predicted times against the knob (log axes), the planner's own plan
    re-planned at each value (dotted, when given), the knob's current value as a vertical line
    and the crossing, when there is one."""
    scale, tunit = time_unit(list(times_a) + list(times_b))
    xs = [v / unit_scale for v in values]
    fig = go.Figure()
    for name, ts, color in ((names[0], times_a, "#F58518"), (names[1], times_b, "#4C78A8")):
        fig.add_trace(go.Scatter(x=xs, y=[t * scale for t in ts], mode="lines", name=name,
                                 line={"color": color, "width": 2}))
    if planner_times:
        fig.add_trace(go.Scatter(x=xs, y=[t * scale for t in planner_times], mode="lines",
                                 name="the planner, re-planned at each value",
                                 line={"color": "#54A24B", "width": 2, "dash": "dot"}))
    ys = [t * scale for t in list(times_a) + list(times_b) + list(planner_times)]
    lo, hi = min(ys), max(ys)
    marks = [("the knob", current, "#cf222e", "solid")]
    if crossing is not None:
        marks.append(("the plans cross", crossing, "#57606a", "dot"))
    for name, x, color, dash in marks:  # vertical lines as traces: log axes take data values
        fig.add_trace(go.Scatter(x=[x / unit_scale] * 2, y=[lo, hi], mode="lines", name=name,
                                 line={"color": color, "dash": dash, "width": 2},
                                 hoverinfo="name+x"))
    fig.update_layout(**_LAYOUT)
    fig.update_layout(height=320, legend={"orientation": "h", "y": -0.25},
                      xaxis={"type": "log",
                             "title": f"{knob_label} ({unit})" if unit else knob_label},
                      yaxis={"type": "log", "title": f"predicted time per call ({tunit})"})
    return fig

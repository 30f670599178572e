"""Figures of the what-if and diff panels (pure: data in, figure out): a knob's sweep, and
plans on time vs peak memory."""

from __future__ import annotations

import plotly.graph_objects as go

from workbench.app.figures import _LAYOUT, US, empty_figure


def sweep_figure(knob: str, points) -> go.Figure:
    """Predicted time per call of the plan and of the unfused baseline at each value of one knob
    (``SweepPoint.to_json()`` dicts), with the values where the plan changes marked: the plot
    that answers "at what launch overhead does this chain stop being worth fusing?"."""
    if not points:
        return empty_figure("no sweep")
    x = [p["value"] for p in points]
    fig = go.Figure()
    fig.add_scatter(x=x, y=[p["predicted_s"] * US for p in points], mode="lines+markers",
                    name="plan (re-planned at each value)",
                    text=[f"{p['kernels']} kernels" for p in points])
    fig.add_scatter(x=x, y=[p["unfused_s"] * US for p in points], mode="lines",
                    name="unfused", line=dict(dash="dot"))
    changed = [p for p in points if p["changed"]]
    if changed:
        fig.add_scatter(x=[p["value"] for p in changed],
                        y=[p["predicted_s"] * US for p in changed], mode="markers",
                        name="the plan changes here",
                        marker=dict(symbol="diamond", size=11, color="#d62728"))
    positive = all(v > 0 for v in x)
    fig.update_layout(title=f"Predicted time vs {knob}", **_LAYOUT)
    fig.update_xaxes(title=knob, type="log" if positive else "linear")
    fig.update_yaxes(title="µs per call", type="log")
    return fig


def time_memory_figure(points) -> go.Figure:
    """Plans (``app.whatif.plan_points`` dicts) on predicted (and measured) time vs peak live
    memory."""
    if not points:
        return empty_figure("no plans")
    fig = go.Figure()
    fig.add_scatter(x=[p["predicted_s"] * US for p in points],
                    y=[p["peak_bytes"] / 2**20 for p in points], mode="markers+text",
                    text=[p["label"] for p in points], textposition="top center",
                    name="predicted", marker=dict(size=10, color="#4C78A8"))
    meas = [p for p in points if p.get("measured_s")]
    if meas:
        fig.add_scatter(x=[p["measured_s"] * US for p in meas],
                        y=[p["peak_bytes"] / 2**20 for p in meas], mode="markers",
                        text=[p["label"] for p in meas], name="measured",
                        marker=dict(size=10, symbol="x", color="#F58518"))
    fig.update_layout(title="Plans: time per call vs peak live memory", **_LAYOUT)
    fig.update_xaxes(title="µs per call", type="log")
    fig.update_yaxes(title="peak live MiB")
    return fig

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


#: label positions tried in turn for plans drawn close together (plotly's textposition)
LABEL_POSITIONS = ("top center", "bottom center", "middle right", "middle left", "top right",
                   "bottom left")
#: two points closer than these shares of the axes' spans (x in decades, log axis) are
#: "close": a label is wide, so the x share is the larger
CLOSE_X, CLOSE_Y = 0.15, 0.08


def merged_points(points) -> list[dict]:
    """Plans drawn at the same place as one point whose label names them all (``proposal =
    hand-edited``): the same plan (``same_as``), or the same predicted time and peak memory."""
    out: list[dict] = []
    for p in points:
        at = (round(p["predicted_s"], 15), p["peak_bytes"])
        twin = next((q for q in out if q["_at"] == at or q["label"] == p.get("same_as")), None)
        if twin is not None:
            twin["label"] += " = " + p["label"]
            twin["measured_s"] = twin.get("measured_s") or p.get("measured_s")
        else:
            out.append(dict(p, _at=at))
    return [{k: v for k, v in p.items() if k != "_at"} for p in out]


def label_positions(points, other_s=()) -> list[str]:
    """A text position for each point's label such that no two points drawn close together
    (within :data:`CLOSE_X` and :data:`CLOSE_Y` of the axes' spans; ``other_s``: the other
    times on the x axis, the measured ones, which widen it) put their labels on the same
    side."""
    import math

    def log(t):
        return math.log10(max(t, 1e-15))

    xs = [log(p["predicted_s"]) for p in points]
    every = xs + [log(t) for t in other_s]
    ys = [p["peak_bytes"] for p in points]
    span_x = (max(every) - min(every)) or 1.0
    span_y = (max(ys) - min(ys)) or 1.0
    out: list[str] = []
    for i in range(len(points)):
        taken = {out[j] for j in range(i)
                 if abs(xs[i] - xs[j]) < CLOSE_X * span_x
                 and abs(ys[i] - ys[j]) < CLOSE_Y * span_y}
        out.append(next((pos for pos in LABEL_POSITIONS if pos not in taken),
                        LABEL_POSITIONS[i % len(LABEL_POSITIONS)]))
    return out


def time_memory_figure(points) -> go.Figure:
    """Plans (``app.whatif.plan_points`` dicts) on predicted (and measured) time vs peak live
    memory. Plans at the same place are one point with both names; the labels of plans close
    together go to different sides (:func:`label_positions`), and the axes leave room for them."""
    if not points:
        return empty_figure("no plans")
    points = merged_points(points)
    measured = [p["measured_s"] for p in points if p.get("measured_s")]
    fig = go.Figure()
    fig.add_scatter(x=[p["predicted_s"] * US for p in points],
                    y=[p["peak_bytes"] / 2**20 for p in points], mode="markers+text",
                    text=[p["label"] for p in points],
                    textposition=label_positions(points, measured),
                    name="predicted", marker=dict(size=10, color="#4C78A8"), cliponaxis=False)
    meas = [p for p in points if p.get("measured_s")]
    if meas:
        fig.add_scatter(x=[p["measured_s"] * US for p in meas],
                        y=[p["peak_bytes"] / 2**20 for p in meas], mode="markers",
                        text=[p["label"] for p in meas], name="measured",
                        marker=dict(size=10, symbol="x", color="#F58518"))
    ys = [p["peak_bytes"] / 2**20 for p in points]
    pad = (max(ys) - min(ys)) * 0.15 or max(ys) * 0.05 or 1.0
    fig.update_layout(title="Plans: time per call vs peak live memory", **_LAYOUT)
    fig.update_xaxes(title="µs per call", type="log")
    fig.update_yaxes(title="peak live MiB", range=[min(ys) - pad, max(ys) + pad])
    return fig

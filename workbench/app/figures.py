"""Plotly figures of the cost and profile panels (pure: data in, figure out).

Cost breakdowns come in as dicts (``CostBreakdown.to_json()``); times are seconds and are drawn
in microseconds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from workbench.app.fmt import fmt_bytes, fmt_count
from workbench.app.graph_figure import KIND_COLORS, SELECT_COLOR
from workbench.app.tables import as_dict

US = 1e6  #: seconds -> microseconds
_LAYOUT = dict(template="plotly_white", margin=dict(l=50, r=10, t=36, b=40), height=300,
               font=dict(family="Inter, Helvetica, sans-serif", size=11),
               legend=dict(orientation="h", y=-0.22))


def empty_figure(message: str) -> go.Figure:
    """A blank figure with a centred message (before data is available)."""
    fig = go.Figure()
    fig.add_annotation(text=message, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper",
                       font=dict(color="#57606a"))
    fig.update_layout(**_LAYOUT)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return fig


#: a bar chart shows at most this many kernels, the slowest; the others are one "rest" bar
BAR_LIMIT = 40
#: the roofline labels this many points, the slowest kernels
LABELLED_POINTS = 12


def _top(ids: list, weights: list, limit: int) -> tuple[list, list]:
    """Indices of the ``limit`` largest ``weights`` (in their original order), and the rest."""
    if len(ids) <= limit:
        return list(range(len(ids))), []
    order = sorted(range(len(ids)), key=lambda k: -weights[k])
    keep = sorted(order[:limit - 1])
    return keep, sorted(order[limit - 1:])


def cost_bars(groups: Sequence[Mapping], costs: Mapping, unfused: Mapping,
              selected: str | None = None, limit: int = BAR_LIMIT) -> go.Figure:
    """Predicted time per group, stacked: roofline time (memory- or compute-bound) + launch.

    A marker shows what the same ops cost unfused. ``selected`` is outlined. With more than
    ``limit`` groups the slowest ``limit - 1`` are drawn (in launch order; the selected one
    always) and the others summed into one bar, ``rest (N kernels)``.
    """
    ids = [g["id"] for g in groups]
    c = [as_dict(costs.get(i)) for i in ids]
    u = [as_dict(unfused.get(i)) for i in ids]
    keep, rest = _top(ids, [x.get("predicted_s", 0.0) for x in c], limit)
    if selected in ids and ids.index(selected) in rest:
        k = ids.index(selected)
        rest.remove(k)
        keep = sorted(keep + [k])
    roof = [max(x.get("memory_s", 0.0), x.get("compute_s", 0.0)) * US for x in c]
    mem = [r if x.get("memory_s", 0) >= x.get("compute_s", 0) else 0 for r, x in zip(roof, c)]
    comp = [r - m for r, m in zip(roof, mem)]
    launch = [x.get("launch_overhead_s", 0.0) * US for x in c]
    base = [x.get("predicted_s", 0.0) * US for x in u]
    names = [ids[k] for k in keep]
    series = [[v[k] for k in keep] for v in (mem, comp, launch, base)]
    if rest:
        names.append(f"rest ({len(rest)} kernels)")
        for v, out in zip((mem, comp, launch, base), series):
            out.append(sum(v[k] for k in rest))
    line = [2 if n == selected else 0 for n in names]
    fig = go.Figure()
    for (label, color), ys in zip((("memory-bound time", "#4C78A8"),
                                   ("compute-bound time", "#F58518"),
                                   ("launch overhead", "#BAB0AC")), series[:3]):
        fig.add_bar(x=names, y=ys, name=label, marker_color=color, marker_line_width=line,
                    marker_line_color=SELECT_COLOR)
    fig.add_scatter(x=names, y=series[3], mode="markers", name="same ops unfused",
                    marker=dict(symbol="line-ew-open", size=14, color="#1f2328",
                                line_width=2))
    title = "Predicted time per kernel (µs)"
    if rest:
        title += f": the {len(keep)} slowest of {len(ids)}, the rest summed"
    fig.update_layout(barmode="stack", title=title, **_LAYOUT)
    fig.update_xaxes(type="category", tickangle=-60 if len(names) > 12 else 0)
    fig.update_yaxes(title_text="µs")
    return fig


def roofline_points(groups: Sequence[Mapping], costs: Mapping,
                    times: Mapping | None = None) -> list[dict]:
    """One roofline point per group with FLOPs: intensity (FLOP/B) and FLOP/s.

    ``times`` (group id -> seconds) gives measured times; by default the predicted ones.
    """
    pts = []
    for g in groups:
        c = as_dict(costs.get(g["id"]))
        t = (times or {}).get(g["id"], c.get("predicted_s"))
        moved = c.get("bytes_read", 0) + c.get("bytes_written", 0)
        if not c.get("flops") or not t or not moved:
            continue
        pts.append({"id": g["id"], "kind": g["kind"], "ai": c["flops"] / moved,
                    "flops_per_s": c["flops"] / t, "flops": c["flops"], "time_s": t,
                    "launch_s": c.get("launch_overhead_s") or 0.0,
                    "bound": c.get("bound", "")})
    return pts


def off_the_roofline(groups: Sequence[Mapping], costs: Mapping) -> list[str]:
    """The groups :func:`roofline_points` leaves out: no FLOPs (pure data movement: copies,
    transposes, broadcasts, gathers), which have no place on a log-scale FLOP/s axis."""
    kept = {p["id"] for p in roofline_points(groups, costs)}
    return [g["id"] for g in groups if g["id"] not in kept]


def roofline(device: Mapping, predicted: Sequence[Mapping],
             measured: Sequence[Mapping] = (), left_out: Sequence[str] = ()) -> go.Figure:
    """Arithmetic intensity vs FLOP/s, log-log, under the device's roofs.

    Parameters
    ----------
    device : mapping
        ``name``, ``bandwidth_Bps`` (bytes/s) and ``peak_flops`` (FLOP/s): the memory and compute
        ceilings; optional ``caches`` (``level``, ``bytes``, ``bandwidth_Bps``): the ceilings of
        kernels whose bytes fit in a cache, drawn dashed (the cache-aware roofline, Ilic, Pratas
        & Sousa, IEEE CAL 2014); optional ``core_flops``: one core's FP32 rate, drawn dotted
        (the compute ceiling of a kernel that runs on one core).
    predicted, measured : sequence of dict
        Points from :func:`roofline_points`.
    left_out : sequence of str
        Groups not drawn (:func:`off_the_roofline`), named in a note under the chart.
    """
    bw, peak = float(device["bandwidth_Bps"]), float(device["peak_flops"])
    ridge = peak / bw
    ais = [p["ai"] for p in list(predicted) + list(measured)] or [ridge]
    ridges = [ridge] + [peak / float(c["bandwidth_Bps"]) for c in device.get("caches", ())]
    lo = 10 ** math.floor(math.log10(min(min(ais), *ridges) / 4))
    hi = 10 ** math.ceil(math.log10(max(max(ais), ridge) * 4))
    fig = go.Figure()
    fig.add_scatter(x=[lo, ridge, hi], y=[lo * bw, peak, peak], mode="lines",
                    name=f"{device.get('name', 'device')} roof", line=dict(color="#1f2328"),
                    hovertemplate="intensity %{x:.3g} FLOP/B<br>%{y:.3g} FLOP/s<extra></extra>")
    fig.add_trace(roofline_trace("predicted", predicted))
    fig.add_trace(roofline_trace("measured", measured))
    fig.add_trace(launch_trace(predicted, lambda ai: min(peak, ai * bw)))
    for cache in device.get("caches", ()):       # after the three traces the app patches
        cbw = float(cache["bandwidth_Bps"])
        fig.add_scatter(x=[lo, peak / cbw], y=[lo * cbw, peak], mode="lines",
                        name=f"{cache['level'].upper()} ({fmt_bytes(cache['bytes'])})",
                        line=dict(color="#8c959f", dash="dash"),
                        hovertemplate=f"{cache['level'].upper()}: {fmt_count(cbw, 'B/s')}"
                                      "<extra></extra>")
    core = device.get("core_flops")
    if core and core < peak:
        fig.add_scatter(x=[core / bw, hi], y=[core, core], mode="lines",
                        name=f"one core ({fmt_count(core, 'FLOP/s')})",
                        line=dict(color="#8c959f", dash="dot"),
                        hovertemplate=f"one core: {fmt_count(core, 'FLOP/s')}<extra></extra>")
    launch_bound = sum(1 for p in predicted if p.get("bound") == "launch")
    title = (f"Roofline ({device.get('name', '')}: {fmt_count(bw, 'B/s')}, "
             f"{fmt_count(peak, 'FLOP/s')})")
    if launch_bound:
        title += f"<br><sup>{launch_bound} of {len(predicted)} kernels launch-bound</sup>"
    fig.update_layout(title=title, **dict(_LAYOUT, height=380))
    if left_out:
        names = ", ".join(left_out[:8]) + (f" and {len(left_out) - 8} more"
                                           if len(left_out) > 8 else "")
        fig.add_annotation(text=f"Not drawn, no FLOPs (data movement only): {names}",
                           showarrow=False, x=0, y=1.0, xref="paper", yref="paper",
                           xanchor="left", yanchor="bottom", font=dict(size=10,
                                                                       color="#57606a"))
    fig.update_xaxes(type="log", title_text="arithmetic intensity (FLOP/byte; FLOPs without "
                     "transcendentals, unlike the cost card's FLOP-equivalents)",
                     exponentformat="SI")
    fig.update_yaxes(type="log", title_text="FLOP/s", exponentformat="SI")
    return fig


def roofline_trace(label: str, pts: Sequence[Mapping]) -> go.Scatter:
    """The roofline's points for ``label`` (``predicted`` or ``measured``; may be empty).

    The roofline figure always holds the roof, predicted, measured, launch ceilings in that
    order; the app replaces the third in place when a profile arrives. The slowest
    :data:`LABELLED_POINTS` predicted points carry their group's id.
    """
    symbol = "circle" if label == "predicted" else "diamond-open"
    slow = sorted(pts, key=lambda p: -p.get("time_s", 0.0))[:LABELLED_POINTS]
    named = {p["id"] for p in slow} if label == "predicted" else set()
    return go.Scatter(
        x=[p["ai"] for p in pts], y=[p["flops_per_s"] for p in pts], mode="markers+text",
        name=label, customdata=[p["id"] for p in pts],
        text=[p["id"] if p["id"] in named else "" for p in pts], textposition="top center",
        textfont=dict(size=9, color="#57606a"), visible=True if pts else "legendonly",
        marker=dict(symbol=symbol, size=9, line_width=1.5,
                    color=[KIND_COLORS.get(p.get("kind"), "#1f2328") for p in pts]),
        hovertemplate="%{customdata}: %{x:.3g} FLOP/B, %{y:.3g} FLOP/s<extra>" + label
                      + "</extra>")


def launch_trace(pts: Sequence[Mapping], roof=None) -> go.Scatter:
    """Each kernel's launch-overhead ceiling: its FLOPs over the launch overhead, the most
    FLOP/s it can reach however fast its loop (a tick above its point; a point on its tick is
    launch-bound, as every small kernel on a GPU profile is). Only ceilings below the roof
    at the kernel's intensity (``roof(ai)``, FLOP/s) are drawn: the others bind nothing."""
    pts = [p for p in pts if p.get("launch_s")
           and (roof is None or p["flops"] / p["launch_s"] < roof(p["ai"]))]
    return go.Scatter(
        x=[p["ai"] for p in pts], y=[p["flops"] / p["launch_s"] for p in pts],
        mode="markers", name="launch ceiling (FLOPs / launch overhead)",
        customdata=[[p["id"], p["launch_s"] * 1e6] for p in pts],
        visible=True if pts else "legendonly",
        marker=dict(symbol="line-ew", size=12, line=dict(width=2, color="#cf222e")),
        hovertemplate="%{customdata[0]}: at most %{y:.3g} FLOP/s with a "
                      "%{customdata[1]:.3g} µs launch<extra>launch ceiling</extra>")


def time_unit(seconds: Sequence[float]) -> tuple[float, str]:
    """The scale and unit to draw these durations in: µs, or ms above 10 ms."""
    return (1e3, "ms") if max(seconds, default=0.0) > 1e-2 else (US, "µs")


def profile_bars(rows: Sequence[Mapping], limit: int = BAR_LIMIT) -> go.Figure:
    """Measured vs predicted time per kernel, grouped bars (µs, or ms for slow kernels).

    ``rows``: dicts with ``group``, ``measured_s`` and ``predicted_s``, and optionally
    ``spread_s`` (drawn as an error bar on the measured time) and ``noisy`` (the bar hatched).
    With more than ``limit`` kernels, the slowest ``limit - 1`` (by measured time) are drawn
    and the others summed into one bar, ``rest (N kernels)``.
    """
    keep, rest = _top([r["group"] for r in rows], [r.get("measured_s") or 0.0 for r in rows],
                      limit)
    shown = [rows[k] for k in keep]
    if rest:
        shown.append({"group": f"rest ({len(rest)} kernels)",
                      "measured_s": sum(rows[k].get("measured_s") or 0.0 for k in rest),
                      "predicted_s": sum(rows[k].get("predicted_s") or 0.0 for k in rest)})
    ids = [r["group"] for r in shown]
    measured = [r.get("measured_s") or 0.0 for r in shown]
    predicted = [r.get("predicted_s") or 0.0 for r in shown]
    scale, unit = time_unit(measured + predicted)
    spread = [(r.get("spread_s") or 0.0) * scale for r in shown]
    # the whisker stops at 0: no run takes less than no time (a spread wider than the median)
    below = [min(s, t * scale) for s, t in zip(spread, measured)]
    fig = go.Figure()
    fig.add_bar(x=ids, y=[t * scale for t in measured], name="measured", marker_color="#1f883d",
                marker_pattern_shape=["/" if r.get("noisy") else "" for r in shown],
                error_y=dict(type="data", symmetric=False, array=spread, arrayminus=below,
                             visible=any(spread), color="#57606a", thickness=1),
                hovertemplate="%{x}: %{y:.3g} " + unit + "<extra>measured (bar: spread)</extra>")
    fig.add_bar(x=ids, y=[t * scale for t in predicted], name="predicted",
                marker_color="#8c959f")
    more = [f"the {len(keep)} slowest of {len(rows)}, the rest summed"] if rest else []
    if any(r.get("noisy") for r in shown):
        more.append("hatched: noisy")
    # a short first line, the rest below it, and the toolbar upright at the right edge: plotly's
    # toolbar sits over the top right corner, where a long title ran under it
    title = f"Measured vs predicted time per kernel ({unit})"
    if more:
        title += f"<br><sup>{'; '.join(more)}</sup>"
    fig.update_layout(barmode="group", title=dict(text=title, x=0.01, xanchor="left"),
                      **dict(_LAYOUT, margin=dict(_LAYOUT["margin"], t=56, r=40)),
                      modebar=dict(orientation="v"))
    fig.update_xaxes(type="category", tickangle=-60 if len(ids) > 12 else 0)
    fig.update_yaxes(title_text=unit)
    return fig

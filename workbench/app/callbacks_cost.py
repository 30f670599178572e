"""Callbacks of the cost panel: the breakdowns, the bar chart and the roofline."""

from __future__ import annotations

from dash import Input, Output, Patch, State, html, no_update
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids
from workbench.app.figures import (cost_bars, off_the_roofline, roofline, roofline_points,
                                   roofline_trace)
from workbench.app.fmt import plural
from workbench.app.glossary_links import label_link
from workbench.app.profiling import measured_times
from workbench.app.tables import cost_rows


def cost_card(title: str, rows) -> list:
    """A titled table of (label, fused, unfused) rows."""
    head = html.Tr([html.Th(""), html.Th("fused"), html.Th("unfused")])
    body = [html.Tr([html.Th(label_link(label)), html.Td(f), html.Td(u)])
            for label, f, u in rows]
    return [html.H4(title), html.Table([html.Thead(head), html.Tbody(body)])]


def device_dict(device) -> dict:
    """The roofline ceilings of a DeviceProfile: DRAM/HBM bandwidth, peak, the cache
    ceilings the cost model uses for kernels whose bytes fit in a cache (``caches``:
    ``[{"level", "bytes", "bandwidth_Bps"}]``, smallest level first) and one core's FP32 rate
    (``core_flops``, or None), which the cost model uses for small kernels on a CPU."""
    caches = [{"level": lvl, "bytes": size, "bandwidth_Bps": bw}
              for lvl, size, bw in device.memory_levels() if lvl != "dram"]
    return {"name": device.name, "bandwidth_Bps": device.bandwidth_Bps,
            "peak_flops": device.peak_flops, "caches": caches,
            "core_flops": device.core_flops if device.parallel_min_bytes else None}


def register(app, services) -> None:
    """Attach the cost panel's callbacks to ``app``."""

    @app.callback(Output(ids.COST_GROUP, "children"), Output(ids.COST_TOTAL, "children"),
                  Output(ids.COST_BARS, "figure"), Output(ids.ROOFLINE, "figure"),
                  Input(ids.COST_VERSION, "data"), Input(ids.TABS, "value"),
                  Input(ids.CALIBRATION_STATE, "data"), prevent_initial_call=True)
    def show_costs(version_, tab, _calibration):
        """The selected group's and the whole plan's costs (``ids.COST_VERSION``: the version
        and the selection, copied in the browser while this tab is shown); drawn again when
        the background calibration of the cpu profile ends (``ids.CALIBRATION_STATE``)."""
        selected = (version_ or {}).get("sel")
        s = services.session((version_ or {}).get("sid"))
        if s is None or tab != ids.TAB_COST:
            raise PreventUpdate  # drawn when its tab is shown
        ws, graph = s
        from workbench.costmodel.model import get_device

        cost = services.plan_costs(ws, graph)
        groups = [g.to_json() for g in ws.plan.groups]
        group = controller.group_of_node(groups, selected)
        if group:
            left = cost_card(f"Group {group['id']} ({group['kind']}, "
                             f"{plural(len(group['nodes']), 'op')})",
                             cost_rows(cost.groups[group["id"]], cost.unfused[group["id"]]))
        else:
            left = [html.H4("Group"), html.Div("Select a group to see its breakdown.",
                                               className="hint")]
        right = cost_card(f"Whole plan ({plural(ws.plan.num_kernels, 'kernel')})",
                          cost_rows(cost.total, cost.unfused_total))
        measured = measured_times(services.store.report(version_["sid"]), ws.plan)
        roof = roofline(device_dict(get_device(ws.device)),
                        roofline_points(groups, cost.groups),
                        roofline_points(groups, cost.groups, measured) if measured else (),
                        off_the_roofline(groups, cost.groups))
        bars = cost_bars(groups, cost.groups, cost.unfused, group["id"] if group else None)
        return left, right, bars, roof

    @app.callback(Output(ids.CALIBRATION_NOTE, "children"), Output(ids.CALIBRATION_STATE, "data"),
                  Output(ids.CALIBRATION_POLL, "disabled"),
                  Input(ids.CALIBRATION_POLL, "n_intervals"), State(ids.CALIBRATION_STATE, "data"))
    def follow_calibration(_n, seen):
        """While ``workbench serve`` calibrates the cpu profile in the background: say so
        (``calibrating this machine… predictions will update``); when it ends, a new
        ``CALIBRATION_STATE`` makes :func:`show_costs` cost the plan again with the calibrated
        profile, and the poll stops."""
        cal = services.calibration
        state = {"state": cal.state, "generation": cal.generation}
        return (cal.status_text(), state if state != seen else no_update,
                cal.state != "running")

    @app.callback(Output(ids.ROOFLINE, "figure", allow_duplicate=True),
                  Input(ids.PROFILE_VERSION, "data"), State(ids.TABS, "value"),
                  State(ids.VERSION, "data"), prevent_initial_call=True)
    def add_measured(_pv, tab, version_):
        """A new profile: replace only the roofline's measured points (a partial update)."""
        s = services.session((version_ or {}).get("sid"))
        if s is None or tab != ids.TAB_COST:
            raise PreventUpdate
        ws, graph = s
        measured = measured_times(services.store.report(version_["sid"]), ws.plan)
        groups = [g.to_json() for g in ws.plan.groups]
        pts = roofline_points(groups, services.plan_costs(ws, graph).groups, measured)
        patch = Patch()
        patch["data"][2] = roofline_trace("measured", pts if measured else ())
        return patch

"""Callbacks of the cost and explain panels."""

from __future__ import annotations

from dash import Input, Output, Patch, State, html
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids
from workbench.app.figures import (cost_bars, off_the_roofline, roofline, roofline_points,
                                   roofline_trace)
from workbench.app.fmt import plural
from workbench.app.glossary_links import label_link
from workbench.app.profiling import measured_times
from workbench.app.tables import cost_rows, decision_rows, decision_text, log_styles
from workbench.errors import WorkbenchError


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
    """Attach the cost and explain panels' callbacks to ``app``."""

    @app.callback(Output(ids.COST_GROUP, "children"), Output(ids.COST_TOTAL, "children"),
                  Output(ids.COST_BARS, "figure"), Output(ids.ROOFLINE, "figure"),
                  Input(ids.VERSION, "data"), Input(ids.SELECTED, "data"),
                  Input(ids.TABS, "value"))
    def show_costs(version_, selected, tab):
        s = services.session((version_ or {}).get("sid"))
        if s is None or tab != ids.TAB_COST:
            raise PreventUpdate  # drawn when its tab is shown
        ws, graph = s
        from workbench.costmodel.model import get_device

        cost = controller.plan_costs(ws, graph)
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
        pts = roofline_points(groups, controller.plan_costs(ws, graph).groups, measured)
        patch = Patch()
        patch["data"][2] = roofline_trace("measured", pts if measured else ())
        return patch

    @app.callback(Output(ids.DECISION_LOG, "data"), Output(ids.XLA_AGREEMENT, "children"),
                  Input(ids.VERSION, "data"), Input(ids.TABS, "value"))
    def show_log(version_, tab):
        s = services.session((version_ or {}).get("sid"))
        if s is None or tab != ids.TAB_EXPLAIN:
            raise PreventUpdate  # drawn when its tab is shown
        ws, graph = s
        rows = decision_rows(ws.plan.decisions)
        if not controller.has_xla_grouping(graph):
            return rows, ("XLA's own grouping is available for optimised HLO modules "
                          "(*.after*.hlo).")
        try:
            text = controller.xla_agreement_text(ws, graph, services.propose)
        except WorkbenchError as exc:
            text = controller.error_text(exc)
        return rows, text

    @app.callback(Output(ids.STEP_TEXT, "children"),
                  Output(ids.DECISION_LOG, "style_data_conditional"),
                  Input(ids.STEP_SLIDER, "value"), Input(ids.TABS, "value"),
                  State(ids.VERSION, "data"))
    def show_step(step, tab, version_):
        s = services.session((version_ or {}).get("sid"))
        if s is None or step is None or tab != ids.TAB_EXPLAIN:
            raise PreventUpdate
        ws, _ = s
        status, head, reason = decision_text(ws.plan.decisions, step)
        label = {"fused": "taken", "refused": "refused"}.get(status, "")
        return ([html.Span(label + " ", className=status), html.Span(head),
                 html.Div(reason, className="hint")], log_styles(step))

    @app.callback(Output(ids.STEP_SLIDER, "value", allow_duplicate=True),
                  Output(ids.DECISION_LOG, "active_cell"),
                  Output(ids.DECISION_LOG, "selected_cells"),
                  Input(ids.DECISION_LOG, "active_cell"),
                  State(ids.DECISION_LOG, "derived_viewport_data"),
                  prevent_initial_call=True)
    def jump_to_step(cell, rows):
        """Clicking decision k in the log shows the plan just after it: slider step k (the
        click's cell highlight is cleared; the row of the slider's step is highlighted)."""
        if not cell or not rows or cell.get("row") is None or cell["row"] >= len(rows):
            raise PreventUpdate
        return int(rows[cell["row"]]["step"]), None, []

"""Callbacks of the plan panel: the group list, selection, and the edit controls."""

from __future__ import annotations

import re

from dash import Input, Output, State, ctx, no_update
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids
from workbench.app.callbacks_load import version
from workbench.app.fmt import fmt_seconds, plural
from workbench.app.tables import group_rows
from workbench.errors import PlanError, WorkbenchError

#: edit buttons -> controller actions
EDIT_BUTTONS = {ids.MERGE: "merge", ids.SPLIT: "split", ids.MOVE: "move", ids.FORBID: "forbid",
                ids.PIN: "pin", ids.REJECT: "reject"}
HISTORY_BUTTONS = {ids.UNDO: controller.undo, ids.REDO: controller.redo,
                   ids.RESET: controller.reset}
#: a group id as the planner makes them (safe inside a table's filter query)
GROUP_ID = re.compile(r"^g\d+$")


def plan_summary(plan, cost) -> str:
    """One line: kernels, predicted time fused vs unfused, and the saving."""
    text = f"{plural(plan.num_kernels, 'kernel')} (policy {plan.policy}, device {plan.device})"
    if cost is not None:
        ratio = cost.unfused_total.predicted_s / cost.total.predicted_s
        text += (f" · predicted {fmt_seconds(cost.total.predicted_s)} per call vs "
                 f"{fmt_seconds(cost.unfused_total.predicted_s)} unfused "
                 f"(saves {fmt_seconds(cost.saving_s)}, {ratio:.2f}x)")
    roles = [g.role for g in plan.groups]
    extra = [f"{roles.count(r)} {r}" for r in ("offline", "dead") if r in roles]
    if extra:
        text += " · not per call: " + ", ".join(extra)
    return text


def move_options(plan, nodes: list[str]) -> list[dict]:
    """The *Move to* list: every group but the one the selected node is in already."""
    own = None
    if len(nodes) == 1:
        try:
            own = plan.group_of(nodes[0]).id
        except PlanError:
            own = None  # a node this plan does not know (a stale selection)
    return [{"label": f"{g.id} ({g.kind}, {plural(g.size, 'op')})", "value": g.id}
            for g in plan.groups if g.id != own]


def row_styles(gid: str | None) -> list[dict]:
    """The plan table's conditional styles: the selected group's row highlighted."""
    if not gid or not GROUP_ID.match(gid):
        return []
    return [{"if": {"filter_query": f'{{id}} = "{gid}"'}, "backgroundColor": "#ddf4ff",
             "fontWeight": "600"}]


def run_edit(ws, graph, trigger, nodes, selected, target):
    """The workspace after the button ``trigger`` was pressed (raises WorkbenchError)."""
    if trigger in HISTORY_BUTTONS:
        return HISTORY_BUTTONS[trigger](ws)
    if trigger == ids.ACCEPT_ALL:
        return controller.accept_all(ws, graph)
    edit = controller.make_edit(EDIT_BUTTONS[trigger], ws.plan, nodes, selected, target)
    return controller.apply_user_edit(ws, graph, edit)


def register(app, services) -> None:
    """Attach the plan panel's callbacks to ``app``."""

    @app.callback(Output(ids.GROUP_TABLE, "data"), Output(ids.PLAN_SUMMARY, "children"),
                  Input(ids.VERSION, "data"))
    def show_plan(version_):
        s = services.session((version_ or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        ws, graph = s
        cost = controller.plan_costs(ws, graph)
        groups = [g.to_json() for g in ws.plan.groups]
        rows = group_rows(groups, cost.groups, cost.unfused, controller.group_marks(ws.plan))
        return rows, plan_summary(ws.plan, cost)

    @app.callback(Output(ids.MOVE_TARGET, "options"), Input(ids.VERSION, "data"),
                  Input(ids.CYTO, "selectedNodeData"))
    def show_move_targets(version_, selected_data):
        s = services.session((version_ or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        return move_options(s[0].plan, controller.selection_nodes(selected_data))

    @app.callback(Output(ids.SELECTED, "data"), Output(ids.GROUP_TABLE, "active_cell"),
                  Output(ids.GROUP_TABLE, "selected_cells"),
                  Input(ids.GROUP_TABLE, "selected_rows"), Input(ids.GROUP_TABLE, "active_cell"),
                  Input(ids.CYTO, "tapNodeData"), State(ids.GROUP_TABLE, "data"),
                  State(ids.VERSION, "data"), prevent_initial_call=True)
    def select(rows, cell, tapped, data, version_):
        """A group chosen by its radio button, by a click anywhere in its row (the cell's
        focus is cleared: the row is highlighted instead), or by a click on the graph."""
        s = services.session((version_ or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        ws, _ = s
        trigger = ctx.triggered[0]["prop_id"] if ctx.triggered else ""
        if trigger == f"{ids.GROUP_TABLE}.active_cell":
            gid = (cell or {}).get("row_id")
            if gid is None or gid not in {g.id for g in ws.plan.groups}:
                raise PreventUpdate
            return ws.plan.group(gid).nodes[0], None, []
        if trigger == f"{ids.GROUP_TABLE}.selected_rows":
            if not rows or not data or rows[0] >= len(data):
                raise PreventUpdate
            return ws.plan.group(data[rows[0]]["id"]).nodes[0], no_update, no_update
        if not tapped or not tapped.get("gid"):
            return None, no_update, no_update  # a parameter or constant: nothing to select
        return tapped.get("node") or tapped.get("rep"), no_update, no_update

    @app.callback(Output(ids.SELECTION_INFO, "children"), Output(ids.GROUP_TABLE,
                                                                 "selected_rows"),
                  Output(ids.GROUP_TABLE, "style_data_conditional"),
                  Input(ids.SELECTED, "data"), Input(ids.CYTO, "selectedNodeData"),
                  Input(ids.GROUP_TABLE, "data"), State(ids.VERSION, "data"),
                  State(ids.GROUP_TABLE, "selected_rows"))
    def show_selection(selected, selected_data, rows, version_, current_rows):
        s = services.session((version_ or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        ws, _ = s
        nodes = controller.selection_nodes(selected_data)
        group = controller.group_of_node([g.to_json() for g in ws.plan.groups], selected)
        parts = []
        if group:
            parts.append(f"Selected group {group['id']} ({group['kind']}, "
                         f"{plural(len(group['nodes']), 'op')})")
        if nodes:
            parts.append(f"selected on the graph: {', '.join(nodes[:8])}"
                         + (" …" if len(nodes) > 8 else ""))
        ids_ = [r["id"] for r in rows or ()]
        sel_rows = [ids_.index(group["id"])] if group and group["id"] in ids_ else []
        if sel_rows == (current_rows or []):
            sel_rows = no_update  # unchanged: do not trigger the selection callback again
        return ("; ".join(parts) or "Click a group or a node; shift-click to select several."
                ), sel_rows, row_styles(group["id"] if group else None)

    @app.callback(Output(ids.VERSION, "data", allow_duplicate=True),
                  Output(ids.EDIT_MSG, "children"),
                  *[Input(b, "n_clicks") for b in (*EDIT_BUTTONS, *HISTORY_BUTTONS,
                                                   ids.ACCEPT_ALL)],
                  State(ids.SESSION, "data"), State(ids.CYTO, "selectedNodeData"),
                  State(ids.SELECTED, "data"), State(ids.MOVE_TARGET, "value"),
                  prevent_initial_call=True)
    def edit(*args):
        sid, selected_data, selected, target = args[-4:]
        with services.lock(sid):
            s = services.session(sid)
            if s is None or not ctx.triggered_id:
                raise PreventUpdate
            ws, graph = s
            nodes = controller.selection_nodes(selected_data)
            try:
                new = run_edit(ws, graph, ctx.triggered_id, nodes, selected, target)
            except WorkbenchError as exc:
                return no_update, controller.error_text(exc)
            services.store.put_workspace(sid, new)
        return version(sid), ""

"""Callbacks of the plan panel: the group list, selection, and the edit controls."""

from __future__ import annotations

from dash import Input, Output, State, ctx, no_update
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids
from workbench.app.callbacks_load import version
from workbench.app.fmt import fmt_seconds
from workbench.app.tables import group_rows
from workbench.errors import WorkbenchError

#: edit buttons -> controller actions
EDIT_BUTTONS = {ids.MERGE: "merge", ids.SPLIT: "split", ids.MOVE: "move", ids.FORBID: "forbid",
                ids.PIN: "pin", ids.REJECT: "reject"}
HISTORY_BUTTONS = {ids.UNDO: controller.undo, ids.REDO: controller.redo,
                   ids.RESET: controller.reset}


def plan_summary(plan, cost) -> str:
    """One line: kernels, predicted time fused vs unfused, and the saving."""
    text = f"{plan.num_kernels} kernels (policy {plan.policy}, device {plan.device})"
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
                  Output(ids.MOVE_TARGET, "options"), Input(ids.VERSION, "data"))
    def show_plan(version_):
        s = services.session((version_ or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        ws, graph = s
        cost = controller.plan_costs(ws, graph)
        groups = [g.to_json() for g in ws.plan.groups]
        rows = group_rows(groups, cost.groups, cost.unfused)
        options = [{"label": f"{g['id']} ({g['kind']}, {len(g['nodes'])} ops)",
                    "value": g["id"]} for g in groups]
        return rows, plan_summary(ws.plan, cost), options

    @app.callback(Output(ids.SELECTED, "data"),
                  Input(ids.GROUP_TABLE, "selected_rows"), Input(ids.CYTO, "tapNodeData"),
                  State(ids.GROUP_TABLE, "data"), State(ids.VERSION, "data"),
                  prevent_initial_call=True)
    def select(rows, tapped, data, version_):
        s = services.session((version_ or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        ws, _ = s
        if ctx.triggered_id == ids.GROUP_TABLE:
            if not rows or not data or rows[0] >= len(data):
                raise PreventUpdate
            return ws.plan.group(data[rows[0]]["id"]).nodes[0]
        if not tapped or not tapped.get("gid"):
            return None  # a parameter or constant: nothing to select
        return tapped.get("node") or tapped.get("rep")

    @app.callback(Output(ids.SELECTION_INFO, "children"), Output(ids.GROUP_TABLE,
                                                                 "selected_rows"),
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
                         f"{len(group['nodes'])} ops)")
        if nodes:
            parts.append(f"selected on the graph: {', '.join(nodes[:8])}"
                         + (" …" if len(nodes) > 8 else ""))
        ids_ = [r["id"] for r in rows or ()]
        sel_rows = [ids_.index(group["id"])] if group and group["id"] in ids_ else []
        if sel_rows == (current_rows or []):
            sel_rows = no_update  # unchanged: do not trigger the selection callback again
        return ("; ".join(parts) or "Click a group or a node; shift-click to select several."
                ), sel_rows

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

"""Callbacks of the plan panel: the group list, selection, and the edit controls."""

from __future__ import annotations

from dash import ClientsideFunction, Input, Output, State, ctx, no_update
from dash.exceptions import PreventUpdate

from workbench.app import controller, edit_notes, ids
from workbench.app import view as views
from workbench.app.callbacks_load import version
from workbench.app.callbacks_view import canvas_parts
from workbench.app.drawing import vertex_ids
from workbench.app.fmt import fmt_ratio, fmt_seconds, plural
from workbench.app.graph_figure import highlight_targets
from workbench.app.hierarchy import layers_of
from workbench.app.scene import group_key
from workbench.app.tables import group_rows, top_rows
from workbench.errors import PlanError, WorkbenchError

#: edit buttons -> controller actions
EDIT_BUTTONS = {ids.MERGE: "merge", ids.SPLIT: "split", ids.MOVE: "move", ids.FORBID: "forbid",
                ids.PIN: "pin", ids.REJECT: "reject"}
HISTORY_BUTTONS = {ids.UNDO: controller.undo, ids.REDO: controller.redo,
                   ids.RESET: controller.reset}
#: buttons -> what :func:`edit_notes.edit_note` says they did (an edit button: ``edit``)
EDIT_ACTIONS = {ids.UNDO: "undo", ids.REDO: "redo", ids.RESET: "reset",
                ids.ACCEPT_ALL: "accept"}
#: the plan panel's message: an edit refused (red), or what an edit did (information)
MSG_ERROR, MSG_INFO = "msg error", "msg info"
#: buttons whose refusal is information, not an error: there was nothing to do (nothing to
#: undo or redo, the proposal already, every group pinned already)
NOTHING_TO_DO = (*HISTORY_BUTTONS, ids.ACCEPT_ALL)
#: the selection line's hint (the graph's nodes, and the group table's rows)
SELECT_HINT = ("Click a group or a node; shift-click nodes on the graph, or ctrl- or "
               "shift-click rows of the table, to select several.")


def plan_summary(plan, cost) -> str:
    """One line: kernels, predicted time fused vs unfused, and the saving."""
    text = f"{plural(plan.num_kernels, 'kernel')} (policy {plan.policy}, device {plan.device})"
    if cost is not None:
        ratio = cost.unfused_total.predicted_s / cost.total.predicted_s
        text += (f" · predicted {fmt_seconds(cost.total.predicted_s)} per call vs "
                 f"{fmt_seconds(cost.unfused_total.predicted_s)} unfused "
                 f"(saves {fmt_seconds(cost.saving_s)}, {fmt_ratio(ratio)})")
    roles = [g.role for g in plan.groups]
    extra = [f"{roles.count(r)} {r}" for r in ("offline", "dead") if r in roles]
    if extra:
        text += " · not per call: " + ", ".join(extra)
    return text


def move_options(plan, nodes: list[str]) -> list[dict]:
    """The *Move to* list: every group but the one the selected node is in already. Values
    are a member of the group (groups are renumbered by edits; a member follows its group)."""
    own = None
    if len(nodes) == 1:
        try:
            own = plan.group_of(nodes[0]).id
        except PlanError:
            own = None  # a node this plan does not know (a stale selection)
    return [{"label": f"{g.id} ({g.kind}, {plural(g.size, 'op')}: {g.nodes[0]})",
             "value": g.nodes[0]} for g in plan.groups if g.id != own]


def selection_text(plan, selected: str | None, nodes: list[str], rows=()) -> str:
    """The line about the selection: the selected group, or the groups of the nodes selected
    on the graph when they are in several, and the rows selected in the group table when
    there are several (``rows``: their group ids; *Merge* merges them)."""
    groups = []
    for n in nodes:
        try:
            gid = plan.group_of(n).id
        except PlanError:
            continue
        if gid not in groups:
            groups.append(gid)
    parts = []
    if len(groups) > 1:
        parts.append(f"Selected nodes of {plural(len(groups), 'group')}: "
                     + ", ".join(groups[:8]) + (" …" if len(groups) > 8 else ""))
    else:
        group = controller.group_of_node([g.to_json() for g in plan.groups], selected)
        if group:
            parts.append(f"Selected group {group['id']} ({group['kind']}, "
                         f"{plural(len(group['nodes']), 'op')})")
    if nodes:
        parts.append(f"selected on the graph: {', '.join(nodes[:8])}"
                     + (" …" if len(nodes) > 8 else ""))
    if len(rows) > 1:
        parts.append(f"{plural(len(rows), 'row')} selected in the table: "
                     + ", ".join(rows[:8]) + (" …" if len(rows) > 8 else "")
                     + " (Merge merges them)")
    return "; ".join(parts) or SELECT_HINT


def follow_selection(old_plan, new_plan, selected: str | None) -> tuple[bool, str]:
    """Whether the selection (``selected``, a node: its group is the selected one) still
    names the group it named before an edit, and if not, the note that says it was cleared.

    The selection is kept when one group of ``new_plan`` holds every op of the selected
    group of ``old_plan`` (a renumbering, a merge into a bigger group): it then names that
    group. When the ops are now in several groups (a split, a reject, a move out of it, an
    undo of a merge) no group is the one selected: following one op would show another
    group under the old group's id (``g5`` of 7 ops became ``g5`` of 1), so the selection
    is cleared and the note says where the ops went.

    Returns
    -------
    (keep, note) : (bool, str)
        ``keep`` False: clear the selection and show ``note``.
    """
    if not selected:
        return True, ""
    try:
        old = old_plan.group_of(selected)
    except PlanError:
        return True, ""  # a node the old plan does not know: nothing to follow
    members = set(old.nodes)
    if any(members <= set(g.nodes) for g in new_plan.groups):
        return True, ""
    now = []
    for n in old.nodes:
        try:
            gid = new_plan.group_of(n).id
        except PlanError:
            continue
        if gid not in now:
            now.append(gid)
    where = ", ".join(now[:6]) + (" …" if len(now) > 6 else "")
    return False, (f"the selected group {old.id}'s {plural(old.size, 'op')} are now in "
                   f"{len(now)} groups ({where}): selection cleared")


def selected_ids(rows) -> list[str]:
    """The ids of a grid's ``selectedRows``: the rows the user picked (a list of row data) or
    those the app set (``{"ids": [...]}``)."""
    if isinstance(rows, dict):
        return [str(x) for x in rows.get("ids", ())]
    return [str(r.get("id")) for r in rows or () if isinstance(r, dict) and r.get("id")]


def table_rows(want: list[str], have: list[str], triggers) -> list[str]:
    """The group table's selected rows after a change of the selection: ``have`` (the rows
    selected now) when the selected group (``want``: its id, or none) is among them and the
    change was a pick of rows or of the group (``triggers``: the callback's
    ``ctx.triggered_prop_ids``), else the selected group's row alone. New rows (an edit) or
    a selection on the graph reset it: after an edit a row id may name another group."""
    picked = {f"{ids.SELECTED}.data", f"{ids.ROW_PICK}.data"}
    if want and set(want) <= set(have) and set(triggers or ()) <= picked:
        return have
    return want


def run_edit(ws, graph, trigger, nodes, selected, target, rows=()):
    """The workspace after the button ``trigger`` was pressed (raises WorkbenchError);
    ``rows``: the group ids selected in the group table (a merge of two or more of them:
    :func:`~workbench.app.controller.make_edit`). An edit that changes nothing returns
    ``ws`` itself (no history step)."""
    if trigger in HISTORY_BUTTONS:
        return HISTORY_BUTTONS[trigger](ws)
    if trigger == ids.ACCEPT_ALL:
        return controller.accept_all(ws, graph)
    target_gid = None
    if target:
        try:
            target_gid = ws.plan.group_of(target).id
        except PlanError:
            raise PlanError(f"the group of {target} is gone; choose the target again") from None
    edit = controller.make_edit(EDIT_BUTTONS[trigger], ws.plan, nodes, selected, target_gid,
                                rows)
    return controller.apply_user_edit(ws, graph, edit)


def register(app, services) -> None:
    """Attach the plan panel's callbacks to ``app``."""

    def session(version_):
        s = services.session((version_ or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        return s

    @app.callback(Output(ids.GROUP_TABLE, "rowData"), Output(ids.PLAN_SUMMARY, "children"),
                  Input(ids.VERSION, "data"), Input(ids.GROUP_TOP, "value"))
    def show_plan(version_, top):
        ws, graph = session(version_)
        cost = services.plan_costs(ws, graph)
        groups = [g.to_json() for g in ws.plan.groups]
        rows = group_rows(groups, cost.groups, cost.unfused, controller.group_marks(ws.plan))
        return top_rows(rows, top, "predicted_s"), plan_summary(ws.plan, cost)

    @app.callback(Output(ids.MOVE_TARGET, "options"), Output(ids.MOVE_TARGET, "value"),
                  Input(ids.VERSION, "data"), Input(ids.CYTO, "selectedNodeData"),
                  State(ids.MOVE_TARGET, "value"))
    def show_move_targets(version_, selected_data, target):
        """The list of groups to move into, labelled with today's ids; the chosen target is
        kept (by a member of it) unless it is the selected node's own group now. *Move to*
        moves one node: the list is filled while one is selected (a list of every group is
        indexed by the browser for its search: 0.2-0.4 s on a training step's 423 groups,
        at every edit)."""
        ws, _ = session(version_)
        nodes = controller.selection_nodes(selected_data)
        if len(nodes) != 1:
            return ([], None) if target is not None else ([], no_update)
        options = move_options(ws.plan, nodes)
        keep = target if target in {o["value"] for o in options} else None
        return options, keep

    # the edit message is about the plan it was said of: another graph or plan clears it
    # (a version that is not an edit's); in the browser
    app.clientside_callback(ClientsideFunction("workbench", "clearEdit"),
                            Output(ids.EDIT_MSG, "children", allow_duplicate=True),
                            Output(ids.EDIT_MSG, "className", allow_duplicate=True),
                            Input(ids.VERSION, "data"), prevent_initial_call=True)

    # the grid reports the row the app selected as picked: only a pick of another row asks
    # the server (``rowGate``)
    app.clientside_callback(ClientsideFunction("workbench", "rowGate"),
                            Output(ids.ROW_PICK, "data"), Input(ids.GROUP_TABLE, "selectedRows"),
                            State(ids.ROW_SET, "data"), prevent_initial_call=True)

    @app.callback(Output(ids.SELECTED, "data"),
                  Output(ids.FOUND, "data", allow_duplicate=True),
                  Output(ids.VIEW_STATE, "data", allow_duplicate=True),
                  Output(ids.EDIT_MSG, "children", allow_duplicate=True),
                  Input(ids.ROW_PICK, "data"), Input(ids.CYTO, "tapNodeData"),
                  State(ids.VERSION, "data"), State(ids.SELECTED, "data"),
                  State(ids.VIEW_STATE, "data"), prevent_initial_call=True)
    def select(rows, tapped, version_, current, record):
        """A group chosen by a click on its row, or a node or group clicked on the graph. The
        row the app selected for the current selection (after an edit renumbered the groups)
        changes nothing. A row picked in the table also brings its group into view: the
        layers that hold it open (the group expanded, as search does) and the canvas centres
        on its box (ids.FOUND), or on its op for a one-op kernel. A group picked clears the
        last edit's message (it was about the group selected then). Rows added to the table's
        selection (ctrl- or shift-click) keep the selected group when it is among them (they
        are for *Merge*); else the first of them is the one selected."""
        ws, graph = session(version_)
        if ctx.triggered_id == ids.ROW_PICK:
            known = {g.id for g in ws.plan.groups}
            chosen = [gid for gid in selected_ids(rows) if gid in known]
            if not chosen:
                raise PreventUpdate
            now = controller.group_of_node([g.to_json() for g in ws.plan.groups], current)
            if now is not None and now["id"] in chosen:
                raise PreventUpdate
            gid = chosen[0]
            group = ws.plan.group(gid)
            return (group.nodes[0],) + reveal_group(ws, graph, group.nodes, record) + ("",)
        if not tapped or not tapped.get("gid"):
            if tapped and tapped.get("layer"):
                raise PreventUpdate  # a layer: the view opens it, the selection stays
            # a parameter or constant: nothing to select
            return None, no_update, no_update, no_update
        return tapped.get("node") or tapped.get("rep"), no_update, no_update, ""

    def reveal_group(ws, graph, members, record):
        """(the drawing id to centre on, the view record with the group shown) for a group of
        the plan (the plan's view: a replay step or XLA's grouping shows other groups)."""
        groups = [g.to_json() for g in ws.plan.groups]
        layers = layers_of(graph)
        record = views.record_for(record, ws.graph_key, graph, layers, groups)
        _, placement = services.drawing_for(ws.graph_key, graph, groups)
        new = views.reveal(record, members[:1], layers, groups, placement)
        vid = vertex_ids(graph)
        focus = group_key(members, vid) if len(members) > 1 else vid[members[0]]
        return focus, (new if new != record else no_update)

    @app.callback(Output(ids.SELECTION_INFO, "children"),
                  Output(ids.GROUP_TABLE, "selectedRows"),
                  Output(ids.GROUP_TABLE, "scrollTo"), Output(ids.ROW_SET, "data"),
                  Input(ids.SELECTED, "data"), Input(ids.CYTO, "selectedNodeData"),
                  Input(ids.GROUP_TABLE, "rowData"), Input(ids.ROW_PICK, "data"),
                  State(ids.VERSION, "data"), State(ids.GROUP_TABLE, "selectedRows"))
    def show_selection(selected, selected_data, rows, _picked, version_, current_rows):
        """The selection line, and the table's selected rows: the selected group's row. Rows
        the user added (ctrl- or shift-click) stay selected while the selected group is among
        them (:func:`table_rows`)."""
        ws, _ = session(version_)
        nodes = controller.selection_nodes(selected_data)
        group = controller.group_of_node([g.to_json() for g in ws.plan.groups], selected)
        listed = {r["id"] for r in rows or ()}
        want = [group["id"]] if group and group["id"] in listed else []
        have = selected_ids(current_rows)
        kept = table_rows(want, have, ctx.triggered_prop_ids)
        row = want[0] if want else None
        text = selection_text(ws.plan, selected, nodes, kept)
        if kept == have:
            return text, no_update, no_update, row
        scroll = {"rowId": group["id"]} if want else no_update
        return text, {"ids": kept}, scroll, row

    @app.callback(Output(ids.VERSION, "data", allow_duplicate=True),
                  Output(ids.EDIT_MSG, "children"),
                  Output(ids.EDIT_MSG, "className"),
                  Output(ids.MARKS, "data", allow_duplicate=True),
                  Output(ids.HOVER_INFO, "children", allow_duplicate=True),
                  Output(ids.CYTO, "elements", allow_duplicate=True),
                  Output(ids.CYTO, "minZoom", allow_duplicate=True),
                  Output(ids.BANNER, "children", allow_duplicate=True),
                  Output(ids.PLAN_SUMMARY, "children", allow_duplicate=True),
                  Output(ids.SELECTED, "data", allow_duplicate=True),
                  Output(ids.HIGHLIGHT, "data", allow_duplicate=True),
                  *[Input(b, "n_clicks") for b in (*EDIT_BUTTONS, *HISTORY_BUTTONS,
                                                   ids.ACCEPT_ALL)],
                  State(ids.SESSION, "data"), State(ids.CYTO, "selectedNodeData"),
                  State(ids.SELECTED, "data"), State(ids.MOVE_TARGET, "value"),
                  State(ids.VIEW_STATE, "data"), State(ids.REPLAY_STEP, "data"),
                  State(ids.XLA_TOGGLE, "value"), State(ids.FOUND, "data"),
                  State(ids.GROUP_TABLE, "selectedRows"), prevent_initial_call=True)
    def edit(*args):
        """Apply an edit; a refused one changes nothing, says why, and marks the path that
        makes it illegal (a cycle's way out of the group and back). The new plan's canvas
        comes in the same response when the canvas shows the plan (no replay step, no XLA
        grouping): one round trip, the version marked ``drawn`` so that the canvas's own
        callback does not draw it again. The plan's summary (kernels, predicted time) comes
        with it too: the group table's callback (on the new version) sends it again a round
        trip later, with the table, whose rows take the browser longer to render.

        The selection follows the selected group's ops when one group holds them all now,
        else it is cleared with a note (:func:`follow_selection`); with the new canvas comes
        its highlight, so that the old highlight (a group id: ``g5``) is never put on the new
        drawing, where ``g5`` may be another group.

        *Merge* merges the groups of the rows selected in the table when there are two or
        more, else those of the nodes selected on the graph. An edit that changes nothing
        (a split of a one-op group) adds no undo step and says so; nothing to undo, redo,
        reset or accept is said as information, not as an error."""
        (sid, selected_data, selected, target, record, step, xla_value, found,
         table) = args[-9:]
        with services.lock(sid):
            s = services.session(sid)
            if s is None or not ctx.triggered_id:
                raise PreventUpdate
            ws, graph = s
            nodes, rows = controller.selection_nodes(selected_data), selected_ids(table)
            try:
                new = run_edit(ws, graph, ctx.triggered_id, nodes, selected, target, rows)
            except WorkbenchError as exc:
                if ctx.triggered_id in NOTHING_TO_DO:
                    return (no_update, controller.error_text(exc), MSG_INFO, None,
                            *[no_update] * 7)
                if ctx.triggered_id == ids.MERGE:
                    nodes = controller.merge_nodes(ws.plan, nodes, rows)
                marks = controller.refusal_marks(graph, ws.plan, nodes, exc)
                return (no_update, controller.error_text(exc), MSG_ERROR, marks,
                        *[no_update] * 7)
            if new is ws:
                return (no_update, edit_notes.edit_note("edit", ws.plan, ws.plan), MSG_INFO,
                        None, *[no_update] * 7)
            services.store.put_workspace(sid, new)
        summary = plan_summary(new.plan, services.plan_costs(new, graph))
        keep, note = follow_selection(ws.plan, new.plan, selected)
        chosen = selected if keep else None
        sel_out = no_update if keep else None
        text = "; ".join(x for x in (edit_notes.edit_note(
            EDIT_ACTIONS.get(ctx.triggered_id, "edit"), ws.plan, new.plan), note,
            edit_notes.renamed_note(ws.plan, new.plan)) if x)
        # the replay's step stays where it was while the decisions up to it are the same
        shared = edit_notes.common_decisions(ws.plan, new.plan)
        if step is not None or xla_value:
            return (version(sid, False, new, keep=shared), text, MSG_INFO, None, "", no_update,
                    no_update, no_update, summary, sel_out, no_update)
        view = controller.current_view(new, graph, None, False, None, False, None)
        elements, min_zoom, banner = canvas_parts(services, sid, new, graph, view, record)
        group = controller.group_of_node(view.groups, chosen)
        hl = highlight_targets(group["id"] if group else None, found, ())
        return (version(sid, False, new, drawn=True, keep=shared), text, MSG_INFO, None, "",
                elements, min_zoom, banner, summary, sel_out, hl)

"""Callbacks of the explain panel: the replay (slider, jumps, reason filter, the log) and XLA's
agreement. The canvas follows the step: the layers holding the decision's ops open, the view
centres on them, the ops and the group it made are marked."""

from __future__ import annotations

from dash import ALL, ClientsideFunction, Input, Output, State, ctx, html, no_update
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids
from workbench.app import view as views
from workbench.app.drawing import vertex_ids
from workbench.app.hierarchy import layers_of
from workbench.app.scene import group_key
from workbench.app.tables import (decision_numbers, decision_text, decision_window,
                                  reason_options)
from workbench.errors import WorkbenchError


def step_marks(graph, change, decision, groups_now) -> dict:
    """The drawn ids a replay step marks: ``step`` (the decision's ops), ``after`` (the
    group it made, or for a refused one the groups its ops are in), ``before`` (unused when
    the groups it replaced are gone into ``after``)."""
    vid = vertex_ids(graph)
    nodes = [n for n in decision.nodes if n in vid]
    step = [vid[n] for n in nodes]
    if change.after:
        after = [group_key(m, vid) if len(m) > 1 else vid[next(iter(m))] for m in change.after]
    else:
        after = [group_key(s, vid) for s in groups_now
                 if len(s) > 1 and any(n in s for n in nodes)]
    return {"step": step, "after": after, "before": []}


def register(app, services) -> None:
    """Attach the explain panel's callbacks to ``app``."""

    def session(version):
        s = services.session((version or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        return s

    # A new plan: the slider at its end (the plan itself), set in the browser (the version
    # says how many decisions the plan has), unless the user was on a step before the end
    # that the new plan's log shares (an edit, an undo: the version's ``keep``); when such a
    # step must go, ids.STEP_NOTE says why. The slider at its end draws the plan, no step,
    # no marks, also in the browser; a step before the end asks the server (``follow``).
    app.clientside_callback(ClientsideFunction("workbench", "stepReset"),
                            Output(ids.STEP_SLIDER, "max"), Output(ids.STEP_SLIDER, "value"),
                            Output(ids.STEP_NOTE, "children"),
                            Input(ids.VERSION, "data"), State(ids.STEP_SLIDER, "max"),
                            State(ids.STEP_SLIDER, "value"))
    app.clientside_callback(ClientsideFunction("workbench", "stepGate"),
                            Output(ids.REPLAY_REQUEST, "data"),
                            Output(ids.REPLAY_STEP, "data", allow_duplicate=True),
                            Output(ids.MARKS, "data", allow_duplicate=True),
                            Input(ids.STEP_SLIDER, "value"), State(ids.STEP_SLIDER, "max"),
                            State(ids.REPLAY_STEP, "data"), State(ids.MARKS, "data"),
                            prevent_initial_call=True)

    # the replay is drawn while Explain is shown: another tab draws the plan (no banner, no
    # marks); back on Explain mid-replay, the slider's step is drawn again
    app.clientside_callback(ClientsideFunction("workbench", "replayTab"),
                            Output(ids.REPLAY_REQUEST, "data", allow_duplicate=True),
                            Output(ids.REPLAY_STEP, "data", allow_duplicate=True),
                            Output(ids.MARKS, "data", allow_duplicate=True),
                            Output(ids.FOUND, "data", allow_duplicate=True),
                            Input(ids.TABS, "value"), State(ids.STEP_SLIDER, "value"),
                            State(ids.STEP_SLIDER, "max"), State(ids.REPLAY_STEP, "data"),
                            State(ids.MARKS, "data"), prevent_initial_call=True)

    @app.callback(Output(ids.REASON_FILTER, "options"), Output(ids.REASON_FILTER, "value"),
                  Input(ids.EXPLAIN_VERSION, "data"), prevent_initial_call=True)
    def reset(version):
        """A new plan: the reason filter's choices."""
        ws, _ = session(version)
        return reason_options(ws.plan.decisions), None

    @app.callback(Output(ids.REPLAY_STEP, "data"), Output(ids.MARKS, "data"),
                  Output(ids.VIEW_STATE, "data", allow_duplicate=True),
                  Output(ids.FOUND, "data", allow_duplicate=True),
                  Input(ids.REPLAY_REQUEST, "data"), State(ids.VERSION, "data"),
                  State(ids.VIEW_STATE, "data"), prevent_initial_call=True)
    def follow(step, version, record):
        """The canvas at the slider's step before its end (the browser's ``stepGate``
        handles the end): open what holds the decision's ops, centre on them, mark them and
        the group the decision made."""
        ws, graph = session(version)
        n = len(ws.plan.decisions)
        if step is None or step >= n or step < 0:
            return None, None, no_update, no_update
        index = services.replay_index(ws.plan, graph)
        view = controller.current_view(ws, graph, step, False, index.groups_at)
        layers = layers_of(graph)
        record = views.record_for(record, ws.graph_key, graph, layers, view.groups)
        if step == 0:
            return step, None, no_update, no_update
        d = ws.plan.decisions[step - 1]
        change = index.change(step)
        _, placement = services.drawing_for(ws.graph_key, graph, view.groups)
        new = views.reveal(record, d.nodes, layers, view.groups, placement)
        marks = step_marks(graph, change, d, [frozenset(g["nodes"]) for g in view.groups])
        focus = marks["after"][0] if marks["after"] else (marks["step"] or [None])[0]
        return step, marks, new if new != record else no_update, focus

    @app.callback(Output(ids.STEP_SLIDER, "value", allow_duplicate=True),
                  Output(ids.STEP_TEXT, "children", allow_duplicate=True),
                  Input({"type": ids.STEP_JUMPS, "dir": ALL, "taken": ALL}, "n_clicks"),
                  State(ids.STEP_SLIDER, "value"), State(ids.REASON_FILTER, "value"),
                  State(ids.VERSION, "data"), prevent_initial_call=True)
    def jump(_clicks, step, reason, version):
        """The previous or next taken (or refused) decision, of the chosen reason."""
        trigger = ctx.triggered_id
        if not isinstance(trigger, dict) or not ctx.triggered[0].get("value"):
            raise PreventUpdate
        ws, graph = session(version)
        index = services.replay_index(ws.plan, graph)
        taken = {"yes": True, "no": False}.get(trigger["taken"])
        forward = trigger["dir"] == "next"
        at = step or 0
        if forward and at >= len(index):
            at = 0  # at the final plan: the first such decision
        target = index.next_step(at, forward, taken, reason)
        if target is None:
            what = {True: "taken", False: "refused"}.get(taken, "")
            side = "after" if trigger["dir"] == "next" else "before"
            extra = f" of reason {reason}" if reason else ""
            return no_update, html.Div(f"no {what} decision{extra} {side} step {step}",
                                       className="hint")
        return target, no_update

    @app.callback(Output(ids.STEP_TEXT, "children"), Input(ids.STEP_SHOWN, "data"),
                  Input(ids.TABS, "value"), State(ids.STEP_SLIDER, "value"),
                  State(ids.VERSION, "data"), prevent_initial_call=True)
    def show_step(_shown, tab, step, version):
        """The decision at the slider's step (``ids.STEP_SHOWN``: the step and the version,
        copied in the browser while this tab is shown)."""
        if step is None or tab != ids.TAB_EXPLAIN:
            raise PreventUpdate
        ws, graph = session(version)
        status, head, reason = decision_text(ws.plan.decisions, step)
        label = {"fused": "taken", "refused": "refused"}.get(status, "")
        out = [html.Span(label + " ", className=status), html.Span(head),
               html.Div(reason, className="hint")]
        if 1 <= step <= len(ws.plan.decisions):
            change = services.replay_index(ws.plan, graph).change(step)
            rows = decision_numbers(ws.plan.decisions[step - 1], change)
            if rows:
                out.append(html.Table([html.Tr([html.Th(k), html.Td(v)]) for k, v in rows],
                                      className="step-numbers"))
        return out

    @app.callback(Output(ids.DECISION_LOG, "rowData"), Output(ids.LOG_NOTE, "children"),
                  Output(ids.DECISION_LOG, "scrollTo"),
                  Input(ids.STEP_SHOWN, "data"), Input(ids.REASON_FILTER, "value"),
                  Input(ids.TABS, "value"), State(ids.STEP_SLIDER, "value"),
                  State(ids.VERSION, "data"), prevent_initial_call=True)
    def show_log(_shown, reason, tab, step, version):
        """The decisions around the slider's step (of one reason when the filter says so),
        the step's row marked and scrolled to: a log may hold 200,000 decisions."""
        if tab != ids.TAB_EXPLAIN:
            raise PreventUpdate
        ws, graph = session(version)
        steps = services.replay_index(ws.plan, graph).matching(None, reason)
        rows, note, at = decision_window(ws.plan.decisions, steps, step or 0, reason)
        return rows, note, ({"rowIndex": at, "rowPosition": "middle"} if at is not None
                            else no_update)

    @app.callback(Output(ids.STEP_SLIDER, "value", allow_duplicate=True),
                  Input(ids.DECISION_LOG, "cellClicked"), prevent_initial_call=True)
    def jump_to_row(cell):
        """Clicking decision k in the log shows the plan just after it: slider step k."""
        if not cell or not str(cell.get("rowId") or "").isdigit():
            raise PreventUpdate
        return int(cell["rowId"])

    @app.callback(Output(ids.XLA_AGREEMENT, "children"), Input(ids.EXPLAIN_VERSION, "data"),
                  Input(ids.TABS, "value"), prevent_initial_call=True)
    def show_agreement(version, tab):
        if tab != ids.TAB_EXPLAIN:
            raise PreventUpdate
        ws, graph = session(version)
        if not controller.has_xla_grouping(graph):
            return "XLA's own grouping is available for optimised HLO modules (*.after*.hlo)."
        try:
            return controller.xla_agreement_text(ws, graph, services.propose,
                                                 services.xla_plan(graph, ws.device))
        except WorkbenchError as exc:
            return controller.error_text(exc)

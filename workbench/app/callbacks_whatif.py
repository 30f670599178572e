"""Callbacks of the What-if tab: knobs -> a live re-plan with the flipped decisions and changed
groups; "Use this plan"; the sweep of one knob; Tune (measured autotuning)."""

from __future__ import annotations

from dash import Input, Output, State, ctx, no_update
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids
from workbench.app.callbacks_load import version
from workbench.app.figures_whatif import sweep_figure
from workbench.app.fmt import fmt_bytes, fmt_seconds
from workbench.app.whatif import (SLIDERS, changed_group_rows, flip_rows, settings_from_sliders,
                                  slider_state, trial_rows, tune_summary, whatif_marks,
                                  whatif_summary)
from workbench.errors import WorkbenchError

SLIDER_IDS = [ids.knob_id(s.knob) for s in SLIDERS]


def sweep_values(knob: str, device) -> list:
    """Values a sweep plot of ``knob`` visits on ``device``: 13 from 1/1000 to 1000 times the
    profile's value (log), or across the slider's range (overlap, registers)."""
    spec = next(s for s in SLIDERS if s.knob == knob)
    base = getattr(device, knob)
    if base is None:
        return []
    if spec.scale == "log":
        return [base * 10 ** (e / 2) for e in range(-6, 7)]
    n = 11
    vals = [spec.low + (spec.high - spec.low) * k / (n - 1) for k in range(n)]
    return [int(v) for v in vals] if knob == "max_registers_per_thread" else vals


def history_rows(graph) -> list[dict]:
    """The results store's measurements of ``graph`` (newest first)."""
    from workbench.tuning.store import ResultsStore

    try:
        store = ResultsStore()
    except WorkbenchError:
        return []
    with store:
        return [{"label": r.label or r.policy, "plan": r.plan_fp[:8], "kernels": r.kernels,
                 "best": fmt_seconds(r.best_s), "predicted": fmt_seconds(r.predicted_s),
                 "peak": fmt_bytes(r.peak_bytes)} for r in store.history(graph.fingerprint)]


def register(app, services) -> None:
    """Attach the What-if tab's callbacks to ``app``."""

    @app.callback(*[Output(i, "disabled") for i in SLIDER_IDS],
                  Input(ids.VERSION, "data"))
    def enable_knobs(version_):
        s = services.session((version_ or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        from workbench.costmodel import get_device

        return [st["disabled"] for st in slider_state(get_device(s[0].device))]

    @app.callback(Output(ids.WHATIF_SUMMARY, "children"), Output(ids.WHATIF_FLIPS, "rowData"),
                  Output(ids.WHATIF_GROUPS, "rowData"), Output(ids.WHATIF_MSG, "children"),
                  Output(ids.MARKS, "data", allow_duplicate=True),
                  *[Input(i, "value") for i in SLIDER_IDS], Input(ids.VERSION, "data"),
                  Input(ids.TABS, "value"), State(ids.MARKS, "data"),
                  prevent_initial_call=True)
    def show_whatif(*args):
        """Re-plan live on the knobbed profile; mark on the graph the groups that changed and
        the decisions that flipped (the marks go when the knobs are neutral again or another
        tab is shown)."""
        *values, version_, tab, marks = args
        ours = bool(marks and "whatif" in marks)      # the marks on the canvas are ours
        s = services.session((version_ or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        if tab != ids.TAB_WHATIF:
            if not ours:
                raise PreventUpdate
            return no_update, no_update, no_update, no_update, None
        ws, graph = s
        from workbench.costmodel import get_device
        from workbench.planner.whatif import what_if

        try:
            settings = settings_from_sliders(get_device(ws.device), values)
            w = what_if(graph, settings, ws.policy, ws.device, ws.plan.constraints,
                        base_plan=ws.proposal)
        except WorkbenchError as exc:
            return no_update, no_update, no_update, controller.error_text(exc), no_update
        new_marks = whatif_marks(w, graph)
        if new_marks is None and not ours:
            new_marks = no_update                       # leave a replay's or an edit's marks
        return whatif_summary(w), flip_rows(w.flips), changed_group_rows(w), "", new_marks

    @app.callback(Output(ids.VERSION, "data", allow_duplicate=True),
                  Output(ids.WHATIF_MSG, "children", allow_duplicate=True),
                  *[Output(i, "value") for i in SLIDER_IDS],
                  Input(ids.WHATIF_APPLY, "n_clicks"), Input(ids.WHATIF_RESET, "n_clicks"),
                  *[State(i, "value") for i in SLIDER_IDS],
                  State(ids.SESSION, "data"), prevent_initial_call=True)
    def knob_buttons(_apply, _reset, *args):
        """*Use this plan*: re-plan the session on the knobbed profile, and put every slider
        back to its neutral position on that profile — the sliders are relative to the
        session's profile, which now holds the knobs (left where they were, they would apply
        the knobs a second time). *Reset knobs*: the sliders back to neutral."""
        *values, sid = args
        from workbench.costmodel import get_device
        from workbench.costmodel.knobs import apply_knobs as knobbed

        with services.lock(sid):
            s = services.session(sid)
            if s is None or not ctx.triggered_id:
                raise PreventUpdate
            ws, graph = s
            if ctx.triggered_id == ids.WHATIF_RESET:
                return (no_update, "", *[st["value"] for st in
                                         slider_state(get_device(ws.device))])
            try:
                dev = knobbed(get_device(ws.device), settings_from_sliders(
                    get_device(ws.device), values))
                new = controller.replan(ws, graph, ws.policy, dev.name, planner=services.propose)
            except WorkbenchError as exc:
                return (no_update, controller.error_text(exc), *[no_update] * len(values))
            services.store.put_workspace(sid, new)
        return (version(sid, False, new), "", *[st["value"] for st in slider_state(dev)])

    @app.callback(Output(ids.WHATIF_SWEEP, "figure"), Input(ids.WHATIF_SWEEP_KNOB, "value"),
                  Input(ids.VERSION, "data"), Input(ids.TABS, "value"))
    def show_sweep(knob, version_, tab):
        s = services.session((version_ or {}).get("sid"))
        if s is None or tab != ids.TAB_WHATIF or not knob:
            raise PreventUpdate
        ws, graph = s
        from workbench.costmodel import get_device
        from workbench.planner.whatif import knob_sweep

        values = sweep_values(knob, get_device(ws.device))
        try:
            points = knob_sweep(graph, knob, values, ws.policy, ws.device, ws.plan.constraints)
        except WorkbenchError:
            points = []
        return sweep_figure(knob, [p.to_json() for p in points])

    @app.callback(Output(ids.TUNE_SUMMARY, "children"), Output(ids.TUNE_TABLE, "rowData"),
                  Output(ids.TUNE_HISTORY, "rowData"),
                  Output(ids.VERSION, "data", allow_duplicate=True),
                  Input(ids.TUNE_RUN, "n_clicks"), State(ids.TUNE_BUDGET, "value"),
                  State(ids.SESSION, "data"), prevent_initial_call=True)
    def run_tune(_n, budget, sid):
        s = services.session(sid)
        if s is None or not ctx.triggered_id:
            raise PreventUpdate
        ws, graph = s
        from workbench.tuning.store import ResultsStore
        from workbench.tuning.tune import tune

        budget = max(1, min(int(budget or 4), 50))
        try:
            with services.tune_executor() as ex, ResultsStore() as store:
                result = tune(graph, ex, store, start=ws.plan, device=ws.device, budget=budget)
        except WorkbenchError as exc:
            return controller.error_text(exc), [], no_update, no_update
        new_version = no_update
        if result.improved:
            with services.lock(sid):
                cur = services.session(sid)
                if cur is not None:
                    services.store.put_workspace(sid, controller.push(cur[0], result.best))
                    new_version = version(sid)
        return tune_summary(result), trial_rows(result), history_rows(graph), new_version

    @app.callback(Output(ids.TUNE_HISTORY, "rowData", allow_duplicate=True),
                  Input(ids.TABS, "value"), State(ids.SESSION, "data"),
                  prevent_initial_call=True)
    def show_history(tab, sid):
        s = services.session(sid)
        if s is None or tab != ids.TAB_WHATIF:
            raise PreventUpdate
        return history_rows(s[1])

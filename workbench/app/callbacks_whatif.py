"""Callbacks of the What-if tab: knobs -> a live re-plan with the flipped decisions and changed
groups; "Use this plan"; the sweep of one knob; Tune (measured autotuning, a job in the worker
pool of :mod:`workbench.app.jobs`, read by a ``dcc.Interval`` while it is in flight)."""

from __future__ import annotations

from dash import Input, Output, State, ctx, no_update
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids
from workbench.app.callbacks_load import version
from workbench.app.callbacks_profile import IDLE as PROFILE_IDLE
from workbench.app.callbacks_profile import IN_FLIGHT as PROFILE_IN_FLIGHT
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
                 # the prediction is the one made with these knobs: say which
                 "cost": cost_model_words(r.cost_device),
                 "peak": fmt_bytes(r.peak_bytes)} for r in store.history(graph.fingerprint)]


def cost_model_words(cost_device: str | None) -> str:
    """The cost model a stored prediction was made with: ``cpu``, or ``cpu, knobs moved:
    peak_flops=2.18e10, transcendental_flops=870`` (a what-if profile's name,
    :func:`workbench.costmodel.knobs.split_name`)."""
    name = str(cost_device or "-")
    base, _, knobs = name.partition("+")
    if not knobs:
        return base
    return f"{base}, knobs moved: " + ", ".join(_knob_words(k) for k in knobs.split("+"))


def _knob_words(setting: str) -> str:
    """``peak_flops=2.18e+10`` for ``peak_flops=21808134571.533905`` (4 significant digits)."""
    key, _, value = setting.partition("=")
    try:
        return f"{key}={float(value):.4g}"
    except ValueError:
        return setting


#: the tune's controls while its job is in flight and after: (poll disabled, *Tune* disabled,
#: *Cancel* disabled), as the profile panel's
IN_FLIGHT, IDLE = PROFILE_IN_FLIGHT, PROFILE_IDLE
#: the status line of a tune that ended without a result
TUNE_ENDED = {"cancelled": "cancelled: stopped (what was measured stays in the results store)",
              "failed": "failed", "timed out": "timed out: stopped"}
#: variants one *Tune* measures at most
MAX_BUDGET = 50


def tune_owner(sid: str) -> str:
    """The job owner of a session's tune (``tune:<sid>``): one tune per session at a time,
    beside its compile & profile job; the server's limit of jobs counts both."""
    return f"tune:{sid}"


def tune_budget(value) -> int:
    """The variants a *Tune* measures: the field's value clipped to 1..50 (4 when empty)."""
    try:
        n = int(value or 4)
    except (TypeError, ValueError, OverflowError):
        n = 4
    return max(1, min(n, MAX_BUDGET))


def submit_tune(services, sid: str, budget: int):
    """Queue a tune of the session's current plan (at most ``budget`` variants, on the
    session's device profile) in the worker pool; returns the task.

    Raises
    ------
    WorkbenchError
        :class:`~workbench.app.jobs.JobLimitError` when the session has a tune in flight or
        the server's queue is full.
    """
    from workbench.ir.graph import Graph

    ws, graph = services.session(sid)
    bare = Graph(graph.name, graph.nodes, graph.outputs, graph.meta)  # without its caches
    local_ray = services.ray_target is not None and not services.config.ray_address
    return services.jobs.submit(tune_owner(sid), "tune", (
        bare, ws.plan, ws.device, int(budget), services.ray_target, local_ray,
        dict(services.config.tune_options)))


#: what the summary adds when the tune's faster plan could not be made current
NOT_APPLIED = {"changed": " The plan was changed while the tune ran: the tuned plan was not "
                          "made current (the measurements are in the results store).",
               "gone": " The session ended while the tune ran."}


def tune_view(services, task, graph) -> tuple:
    """(status, progress value, progress max, summary, trial rows, history rows, new
    ``ids.VERSION``, controls) for the poll: the job's progress while it is in flight, its
    outcome once it ended (one line when it failed, timed out or was cancelled)."""
    keep = (no_update,) * 4
    if task is None:
        return ("", "0", "1", *keep, *IDLE)
    if not task.over:
        k, n, text = task.progress
        if task.state == "queued":
            ahead = services.jobs.position(task)
            text = f"queued: {ahead} job(s) before it" if ahead else "queued"
        return (text, str(k), str(n), *keep, *IN_FLIGHT)
    if task.state == "done":
        result, applied = task.result["result"], task.result.get("applied")
        summary = tune_summary(result)
        if applied in NOT_APPLIED:
            summary = summary.replace("; it is now the current plan (undo returns to the "
                                      "start).", ".") + NOT_APPLIED[applied]
        ok = sum(1 for t in result.trials if t.status == "ok")
        return (f"done: {ok} variant(s) measured", "1", "1", summary, trial_rows(result),
                history_rows(graph),
                version(task.owner.split(":", 1)[1]) if applied == "yes" else no_update,
                *IDLE)
    message = controller.error_text(task.error) if task.error else \
        TUNE_ENDED.get(task.state, task.state)
    return (TUNE_ENDED.get(task.state, task.state), "0", "1", message, no_update, no_update,
            no_update, *IDLE)


def register(app, services) -> None:
    """Attach the What-if tab's callbacks to ``app``."""

    @app.callback(*[Output(i, "disabled") for i in SLIDER_IDS],
                  Input(ids.WHATIF_VERSION, "data"), prevent_initial_call=True)
    def enable_knobs(version_):
        s = services.session((version_ or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        from workbench.costmodel import get_device

        return [st["disabled"] for st in slider_state(get_device(s[0].device))]

    @app.callback(Output(ids.WHATIF_SUMMARY, "children"), Output(ids.WHATIF_FLIPS, "rowData"),
                  Output(ids.WHATIF_GROUPS, "rowData"), Output(ids.WHATIF_MSG, "children"),
                  Output(ids.MARKS, "data", allow_duplicate=True),
                  *[Input(i, "value") for i in SLIDER_IDS], Input(ids.WHATIF_VERSION, "data"),
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
                  Input(ids.WHATIF_VERSION, "data"), Input(ids.TABS, "value"),
                  prevent_initial_call=True)
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

    controls = (Output(ids.TUNE_POLL, "disabled", allow_duplicate=True),
                Output(ids.TUNE_RUN, "disabled", allow_duplicate=True),
                Output(ids.TUNE_CANCEL, "disabled", allow_duplicate=True))

    @app.callback(Output(ids.TUNE_SUMMARY, "children"), Output(ids.TUNE_STATUS, "children"),
                  Output(ids.TUNE_PROGRESS, "value"), Output(ids.TUNE_PROGRESS, "max"),
                  *controls, Input(ids.TUNE_RUN, "n_clicks"), State(ids.TUNE_BUDGET, "value"),
                  State(ids.SESSION, "data"), prevent_initial_call=True)
    def run_tune(_n, budget, sid):
        """*Tune* queues a tune job (:func:`submit_tune`) and answers at once; the poll shows
        its progress and outcome. A second *Tune* while one is in flight is refused."""
        if services.session(sid) is None or not ctx.triggered_id:
            raise PreventUpdate
        budget = tune_budget(budget)
        task = services.jobs.latest(tune_owner(sid))
        if task is not None and not task.over:
            k, n, _ = task.progress
            return (f"A tune of this session is {task.state} already ({k} of {n} variants "
                    "measured); wait for it, or cancel it.", no_update, no_update, no_update,
                    *IN_FLIGHT)
        try:
            submit_tune(services, sid, budget)
        except WorkbenchError as exc:
            return controller.error_text(exc), "", "0", "1", *IDLE
        return ("", f"tuning: up to {budget} variant(s)…", "0", str(budget), *IN_FLIGHT)

    @app.callback(Output(ids.TUNE_STATUS, "children", allow_duplicate=True),
                  Output(ids.TUNE_PROGRESS, "value", allow_duplicate=True),
                  Output(ids.TUNE_PROGRESS, "max", allow_duplicate=True),
                  Output(ids.TUNE_SUMMARY, "children", allow_duplicate=True),
                  Output(ids.TUNE_TABLE, "rowData"),
                  Output(ids.TUNE_HISTORY, "rowData", allow_duplicate=True),
                  Output(ids.VERSION, "data", allow_duplicate=True), *controls,
                  Input(ids.TUNE_POLL, "n_intervals"), State(ids.SESSION, "data"),
                  prevent_initial_call=True)
    def poll_tune(_n, sid):
        """The tune job's progress, or its outcome (a faster plan is the current one already:
        the pool made it so when the job ended, :meth:`Services._tune_finished`)."""
        s = services.session(sid)
        if s is None:
            return ("", "0", "1", no_update, no_update, no_update, no_update, *IDLE)
        return tune_view(services, services.jobs.latest(tune_owner(sid)), s[1])

    @app.callback(Output(ids.TUNE_STATUS, "children", allow_duplicate=True),
                  Output(ids.TUNE_PROGRESS, "value", allow_duplicate=True), *controls,
                  Input(ids.TUNE_CANCEL, "n_clicks"), State(ids.SESSION, "data"),
                  prevent_initial_call=True)
    def cancel_tune(n, sid):
        """*Cancel* stops the session's tune (queued: dropped; running: its worker and the
        worker measuring for it are ended)."""
        if not n or services.session(sid) is None:
            raise PreventUpdate
        if services.jobs.cancel(tune_owner(sid)) is None:
            return ("nothing to cancel: no tune is queued or running", no_update, no_update,
                    no_update, no_update)
        return TUNE_ENDED["cancelled"], "0", *IDLE

    @app.callback(Output(ids.TUNE_HISTORY, "rowData", allow_duplicate=True),
                  Input(ids.TABS, "value"), State(ids.SESSION, "data"),
                  prevent_initial_call=True)
    def show_history(tab, sid):
        s = services.session(sid)
        if s is None or tab != ids.TAB_WHATIF:
            raise PreventUpdate
        return history_rows(s[1])

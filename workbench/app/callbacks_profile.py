"""Callbacks of the compile & profile panel: a job in a worker process, its progress, cancel."""

from __future__ import annotations

from dash import ClientsideFunction, Input, Output, State, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids, profiling
from workbench.app.figures import empty_figure, profile_bars
from workbench.app.layout import BACKENDS
from workbench.app.tables import top_rows
from workbench.errors import WorkbenchError

DOWNLOADS = (ids.DOWNLOAD_PLAN, ids.DOWNLOAD_SOURCES, ids.DOWNLOAD_TRACE, ids.DOWNLOAD_REPORT)
#: the downloads made from a profile report (see :func:`profiling.download`)
FROM_REPORT = {ids.DOWNLOAD_SOURCES: "sources", ids.DOWNLOAD_TRACE: "trace",
               ids.DOWNLOAD_REPORT: "report"}


#: the job's controls while it is in flight and after: (poll disabled, run disabled,
#: cancel disabled)
IN_FLIGHT, IDLE = (False, True, False), (True, False, True)
#: what the status line says of a job that ended without a report
ENDED = {"cancelled": "cancelled: nothing new was profiled", "failed": "failed",
         "timed out": "timed out: stopped"}


def submit_job(services, sid, backend):
    """Queue a compile & profile job of the session's current plan; returns the task.

    Raises
    ------
    WorkbenchError
        :class:`~workbench.app.jobs.JobLimitError` when the session has a job in flight or
        the server's queue is full.
    """
    from workbench.ir.graph import Graph

    ws, graph = services.session(sid)
    bare = Graph(graph.name, graph.nodes, graph.outputs, graph.meta)  # without its caches
    backend = backend if backend in BACKENDS else "auto"
    return services.jobs.submit(sid, "profile", (bare, ws.plan, backend,
                                                 dict(services.config.profile_options),
                                                 services.ray_target))


def job_view(services, task) -> tuple:
    """(status, progress value, progress max, message, new PROFILE_VERSION, controls) for
    the poll: the job's progress while it is in flight, its outcome once it ended."""
    if task is None:
        return ("", "0", "1", no_update, no_update, *IDLE)
    if not task.over:
        k, n, text = task.progress
        if task.state == "queued":
            ahead = services.jobs.position(task)
            text = f"queued: {ahead} job(s) of other sessions before it" if ahead else "queued"
        return (text, str(k), str(n), no_update, no_update, *IN_FLIGHT)
    if task.state == "done":
        return ("done", "1", "1", profiling.mismatch_text(task.result["report"]),
                {"sid": task.owner, "job": task.id}, *IDLE)
    message = controller.error_text(task.error) if task.error else no_update
    return (ENDED.get(task.state, task.state), "0", "1", message, no_update, *IDLE)


def misses_list(lines: list[str]) -> list:
    """The missed predictions under the profile table: a heading and one item each, wrapped
    in the panel's width (nothing when none missed)."""
    if not lines:
        return []
    return [html.B("Missed predictions, and which term was wrong:"),
            html.Ul([html.Li(line) for line in lines])]


def summary_view(lines: list[str]) -> list:
    """The profile summary: its key lines (:func:`profiling.summary_lines`, at most four)."""
    return [html.Div(line, className="summary-line") for line in lines]


def details_view(details: list[str]) -> tuple[list, dict]:
    """(children, style) of the collapsed *details* under the summary
    (:func:`profiling.summary_details`, one item each); hidden when there are none."""
    if not details:
        return [], {"display": "none"}
    return [html.Summary(f"details ({len(details)})"),
            html.Ul([html.Li(d) for d in details])], {}


def register(app, services) -> None:
    """Attach the profile panel's callbacks: the job runs in a worker process
    (:mod:`workbench.app.jobs`); a ``dcc.Interval`` reads its progress while it is in flight."""
    controls = (Output(ids.PROFILE_POLL, "disabled", allow_duplicate=True),
                Output(ids.PROFILE_RUN, "disabled", allow_duplicate=True),
                Output(ids.PROFILE_CANCEL, "disabled", allow_duplicate=True))

    @app.callback(Output(ids.PROFILE_MSG, "children"), Output(ids.PROFILE_STATUS, "children"),
                  Output(ids.PROFILE_PROGRESS, "value"), *controls,
                  Input(ids.PROFILE_RUN, "n_clicks"), State(ids.SESSION, "data"),
                  State(ids.PROFILE_BACKEND, "value"), prevent_initial_call=True)
    def run(_n, sid, backend):
        if services.session(sid) is None:
            raise PreventUpdate
        try:
            submit_job(services, sid, backend)
        except WorkbenchError as exc:
            return controller.error_text(exc), no_update, no_update, *IDLE
        return "", "queued", "0", *IN_FLIGHT

    @app.callback(Output(ids.PROFILE_STATUS, "children", allow_duplicate=True),
                  Output(ids.PROFILE_PROGRESS, "value", allow_duplicate=True),
                  Output(ids.PROFILE_PROGRESS, "max"),
                  Output(ids.PROFILE_MSG, "children", allow_duplicate=True),
                  Output(ids.PROFILE_VERSION, "data"), *controls,
                  Input(ids.PROFILE_POLL, "n_intervals"), State(ids.SESSION, "data"),
                  prevent_initial_call=True)
    def poll(_n, sid):
        """The job's progress, or its outcome (the report is in the store already: the pool
        put it there when the job ended)."""
        if services.session(sid) is None:
            return ("", "0", "1", no_update, no_update, *IDLE)
        return job_view(services, services.jobs.latest(sid))

    @app.callback(Output(ids.PROFILE_STATUS, "children", allow_duplicate=True),
                  Output(ids.PROFILE_PROGRESS, "value", allow_duplicate=True), *controls,
                  Input(ids.PROFILE_CANCEL, "n_clicks"), State(ids.SESSION, "data"),
                  prevent_initial_call=True)
    def cancelled(n, sid):
        """*Cancel* stops the session's job (queued: dropped; running: its worker is ended)."""
        if not n or services.session(sid) is None:
            raise PreventUpdate
        if services.jobs.cancel(sid) is None:
            return "nothing to cancel: no job is queued or running", no_update, no_update, \
                no_update, no_update
        return ENDED["cancelled"], "0", *IDLE

    # a message beside the button is about the last run: another backend or another plan
    # clears it (and another graph the status line and the bar too); in the browser
    app.clientside_callback(ClientsideFunction("workbench", "clearProfile"),
                            Output(ids.PROFILE_MSG, "children", allow_duplicate=True),
                            Output(ids.PROFILE_STATUS, "children", allow_duplicate=True),
                            Output(ids.PROFILE_PROGRESS, "value", allow_duplicate=True),
                            Input(ids.VERSION, "data"), Input(ids.PROFILE_BACKEND, "value"),
                            prevent_initial_call=True)

    @app.callback(Output(ids.PROFILE_SUMMARY, "children"),
                  Output(ids.PROFILE_DETAILS, "children"), Output(ids.PROFILE_DETAILS, "style"),
                  Output(ids.PROFILE_TABLE, "rowData"),
                  Output(ids.PROFILE_BARS, "figure"), Output(ids.CORRECTNESS, "rowData"),
                  Output(ids.PROFILE_MISSES, "children"),
                  Input(ids.PROFILE_VERSION, "data"), Input(ids.PROFILE_TAB_VERSION, "data"),
                  Input(ids.TABS, "value"), Input(ids.PROFILE_TOP, "value"),
                  prevent_initial_call=True)
    def show_report(_pv, version_, tab, top):
        sid = (version_ or {}).get("sid")
        s = services.session(sid)
        if s is None or tab != ids.TAB_PROFILE:
            raise PreventUpdate  # drawn when its tab is shown
        ws, _ = s
        record = services.store.report(sid)
        if not record:
            return ("Not profiled yet: press Compile & profile.", *details_view([]), [],
                    empty_figure("no profile yet"), [], [])
        report = record["report"]
        lines = profiling.summary_lines(report, record.get("requested", "auto"))
        if record["plan"] != profiling.plan_key(ws.plan):
            lines[0] = "This report is for an earlier plan; profile again. · " + lines[0]
        rows = profiling.kernel_rows(report, ws.plan)
        return (summary_view(lines), *details_view(profiling.summary_details(report)), top_rows(rows, top, "measured_s"), profile_bars(rows),
                profiling.correctness_rows(report), misses_list(profiling.miss_lines(rows)))

    @app.callback(Output(ids.KERNEL_SOURCE, "children"), Input(ids.PROFILE_TAB_VERSION, "data"),
                  Input(ids.PROFILE_VERSION, "data"), Input(ids.TABS, "value"),
                  prevent_initial_call=True)
    def show_source(version_, _pv, tab):
        """The selected group's kernel source (``ids.PROFILE_TAB_VERSION``: the version and
        the selection, copied in the browser while this tab is shown)."""
        selected = (version_ or {}).get("sel")
        sid = (version_ or {}).get("sid")
        s = services.session(sid)
        if tab != ids.TAB_PROFILE:
            raise PreventUpdate
        record = services.store.report(sid) if s else None
        if not record:
            return "Profile the plan to see the generated kernels."
        group = controller.group_of_node([g.to_json() for g in s[0].plan.groups], selected)
        sources = record.get("sources", {})
        if group is None:
            return "Select a group to see its kernel's source."
        return sources.get(group["id"], f"No source for {group['id']} in the report.")

    @app.callback(Output(ids.DOWNLOAD, "data"),
                  Output(ids.PROFILE_MSG, "children", allow_duplicate=True),
                  *[Input(b, "n_clicks") for b in DOWNLOADS],
                  State(ids.SESSION, "data"), prevent_initial_call=True)
    def download(*args):
        sid = args[-1]
        s = services.session(sid)
        if s is None:
            raise PreventUpdate
        ws, graph = s
        if ctx.triggered_id == ids.DOWNLOAD_PLAN:
            return dcc.send_string(ws.plan.dumps(), f"{graph.name}.plan.json"), no_update
        record = services.store.report(sid)
        if not record:
            return no_update, "Profile the plan first: the kernels, trace and report come from it."
        name, text = profiling.download(FROM_REPORT[ctx.triggered_id], record)
        return dcc.send_string(text, f"{graph.name}.{name}"), no_update

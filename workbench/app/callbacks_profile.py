"""Callbacks of the compile & profile panel: a background job with progress and cancel."""

from __future__ import annotations

import time
import traceback

from dash import Input, Output, State, ctx, dcc, no_update
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids, profiling
from workbench.app.figures import empty_figure, profile_bars
from workbench.app.tables import top_rows
from workbench.errors import WorkbenchError

DOWNLOADS = (ids.DOWNLOAD_PLAN, ids.DOWNLOAD_SOURCES, ids.DOWNLOAD_TRACE, ids.DOWNLOAD_REPORT)
#: the downloads made from a profile report (see :func:`profiling.download`)
FROM_REPORT = {ids.DOWNLOAD_SOURCES: "sources", ids.DOWNLOAD_TRACE: "trace",
               ids.DOWNLOAD_REPORT: "report"}


def register(app, services, manager) -> None:
    """Attach the profile panel's callbacks; ``manager`` is the DiskcacheManager."""

    @app.callback(Output(ids.PROFILE_VERSION, "data"), Output(ids.PROFILE_MSG, "children"),
                  Input(ids.PROFILE_RUN, "n_clicks"), State(ids.SESSION, "data"),
                  State(ids.PROFILE_BACKEND, "value"), background=True, manager=manager, prevent_initial_call=True,
                  running=[(Output(ids.PROFILE_RUN, "disabled"), True, False),
                           (Output(ids.PROFILE_CANCEL, "disabled"), False, True)],
                  progress=[Output(ids.PROFILE_PROGRESS, "value"),
                            Output(ids.PROFILE_PROGRESS, "max"),
                            Output(ids.PROFILE_STATUS, "children")],
                  cancel=[Input(ids.PROFILE_CANCEL, "n_clicks")])
    def run(set_progress, _n, sid, backend):
        # a forked process: its own store, not the server's (whose lock may be held forever)
        store = services.store.reopened()
        s = services.session(sid, store)
        if s is None:
            raise PreventUpdate
        ws, graph = s

        def progress(stage, k, n, message=""):
            set_progress((str(k), str(max(n, 1)), profiling.progress_text(stage, k, n, message)))

        set_progress(("0", "1", "starting…"))
        try:
            report = profiling.run_profile(graph, ws.plan, backend or "auto", progress)
        except WorkbenchError as exc:
            set_progress(("0", "1", "failed"))
            return no_update, controller.error_text(exc)
        except Exception as exc:  # noqa: BLE001 - a job in another process: say what happened
            traceback.print_exc()
            set_progress(("0", "1", "failed"))
            return no_update, f"the profiler failed unexpectedly: {type(exc).__name__}: {exc}"
        record = profiling.report_record(ws.plan, report, backend or "auto")
        store.put_report(sid, record)
        set_progress(("1", "1", "done"))
        return {"sid": sid, "t": time.time_ns()}, profiling.mismatch_text(record["report"])

    @app.callback(Output(ids.PROFILE_STATUS, "children", allow_duplicate=True),
                  Output(ids.PROFILE_PROGRESS, "value", allow_duplicate=True),
                  Input(ids.PROFILE_CANCEL, "n_clicks"), prevent_initial_call=True)
    def cancelled(n):
        """*Cancel* stops the job (Dash ends its process); say so, and empty the bar."""
        if not n:
            raise PreventUpdate
        return "cancelled: nothing new was profiled", "0"

    @app.callback(Output(ids.PROFILE_MSG, "children", allow_duplicate=True),
                  Output(ids.PROFILE_STATUS, "children", allow_duplicate=True),
                  Output(ids.PROFILE_PROGRESS, "value", allow_duplicate=True),
                  Input(ids.VERSION, "data"), Input(ids.PROFILE_BACKEND, "value"),
                  prevent_initial_call=True)
    def clear_message(version_, _backend):
        """A message beside the button is about the last run: another backend or another
        plan clears it (and another graph the status line and the bar too)."""
        if ctx.triggered_id == ids.VERSION and (version_ or {}).get("graph"):
            return "", "", "0"
        return "", no_update, no_update

    @app.callback(Output(ids.PROFILE_SUMMARY, "children"),
                  Output(ids.PROFILE_TABLE, "rowData"),
                  Output(ids.PROFILE_BARS, "figure"), Output(ids.CORRECTNESS, "rowData"),
                  Input(ids.PROFILE_VERSION, "data"), Input(ids.VERSION, "data"),
                  Input(ids.TABS, "value"), Input(ids.PROFILE_TOP, "value"))
    def show_report(_pv, version_, tab, top):
        sid = (version_ or {}).get("sid")
        s = services.session(sid)
        if s is None or tab != ids.TAB_PROFILE:
            raise PreventUpdate  # drawn when its tab is shown
        ws, _ = s
        record = services.store.report(sid)
        if not record:
            return ("Not profiled yet: press Compile & profile.", [],
                    empty_figure("no profile yet"), [])
        report = record["report"]
        summary = profiling.summary_text(report, record.get("requested", "auto"))
        if record["plan"] != profiling.plan_key(ws.plan):
            summary = "This report is for an earlier plan; profile again. · " + summary
        rows = profiling.kernel_rows(report, ws.plan)
        return (summary, top_rows(rows, top, "measured_s"), profile_bars(rows),
                profiling.correctness_rows(report))

    @app.callback(Output(ids.KERNEL_SOURCE, "children"), Input(ids.SELECTED, "data"),
                  Input(ids.PROFILE_VERSION, "data"), Input(ids.TABS, "value"),
                  State(ids.VERSION, "data"))
    def show_source(selected, _pv, tab, version_):
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

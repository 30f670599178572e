"""Callbacks of the Diff tab: two plans side by side (the same data as ``workbench diff``), and
the session's plans on time vs peak memory."""

from __future__ import annotations

from dash import Input, Output
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids
from workbench.app.figures_whatif import time_memory_figure
from workbench.app.profiling import measured_times
from workbench.app.whatif import diff_rows, diff_summary, named_plan_for, plan_points
from workbench.errors import WorkbenchError


def stored_times(graph) -> dict:
    """Plan fingerprint -> best measured seconds, from the results store (this machine)."""
    from workbench.tuning.store import ResultsStore

    try:
        with ResultsStore() as store:
            out = {}
            for r in store.history(graph.fingerprint):
                out.setdefault(r.plan_fp, r.best_s)
            return out
    except WorkbenchError:
        return {}


def register(app, services) -> None:
    """Attach the Diff tab's callbacks to ``app``."""

    @app.callback(Output(ids.DIFF_SUMMARY, "children"), Output(ids.DIFF_TABLE, "rowData"),
                  Output(ids.DIFF_MSG, "children"), Output(ids.TIME_MEMORY, "figure"),
                  Input(ids.DIFF_A, "value"), Input(ids.DIFF_B, "value"),
                  Input(ids.DIFF_VERSION, "data"), Input(ids.TABS, "value"),
                  prevent_initial_call=True)
    def show_diff(a_name, b_name, version_, tab):
        s = services.session((version_ or {}).get("sid"))
        if s is None or tab != ids.TAB_DIFF:
            raise PreventUpdate
        ws, graph = s
        from workbench.planner.diff import diff_plans

        report = services.store.report(version_["sid"])
        points = plan_points(ws, graph, stored_times(graph))
        try:
            a, b = named_plan_for(ws, graph, a_name), named_plan_for(ws, graph, b_name)
            d = diff_plans(graph, a, b, device=ws.device, a_label=a_name, b_label=b_name,
                           measured_a=measured_times(report, a) or None,
                           measured_b=measured_times(report, b) or None)
        except WorkbenchError as exc:
            return "", [], controller.error_text(exc), time_memory_figure(points)
        return diff_summary(d), diff_rows(d), "", time_memory_figure(points)

"""Callbacks of the Learn page: which page shows, the navigation, a lesson and its stages, and
the lesson's measurement, a job in the same worker processes and with the same profiler as
*Compile & profile* (:mod:`workbench.app.jobs`), followed by a ``dcc.Interval``."""

from __future__ import annotations

from dash import ClientsideFunction, Input, Output, State, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids, learn_view
from workbench.app.glossary_links import linkify, segments
from workbench.errors import WorkbenchError

SECTION_KINDS = tuple(ids.LEARN_SECTIONS)


def _mark(best: float | None, exercise) -> str:
    """An exercise's best score in the list, naming the key it is against: XLA's fusions for a
    real module (:attr:`~workbench.teaching.scoring.Score.main`), else the planner's plan."""
    if best is None:
        return ""
    key = "XLA's fusions" if exercise.real_module else "the planner"
    return f" ✓ (matches {key})" if best >= 1.0 else f" (best F1 {best:.2f} against {key})"


def nav(item: dict, learning: dict) -> list:
    """The Learn page's list: lessons, what-if questions, exercises by level (with this
    session's best score), the glossary; the current item highlighted."""
    from workbench import teaching
    from workbench.teaching.exercises import LEVELS

    def link(kind, id_, text, extra=""):
        current = item.get("kind") == kind and item.get("id") == id_
        return html.Li(dcc.Link(text + extra, href=f"/learn?{kind}={id_}",
                                className="nav-item current" if current else "nav-item"))

    best = learning.get("best", {})
    out = [html.H4(dcc.Link("Learn", href="/learn")), html.H4("Lessons"),
           html.Ol([link("lesson", x.id, x.title) for x in teaching.LESSONS])]
    out += [html.H4("What if…"), html.Ul([link("question", q.id, q.title)
                                          for q in teaching.QUESTIONS])]
    out.append(html.H4("Exercises: predict the fusion"))
    for level, name in LEVELS.items():
        items = [e for e in teaching.EXERCISES if e.level == level]
        out.append(html.Div(name, className="nav-level"))
        out.append(html.Ul([link("exercise", e.id, e.title, _mark(best.get(e.id), e)
                                 if e.available() else " (needs ../shared/hlo)")
                            for e in items]))
    out.append(html.H4(dcc.Link("Glossary", href="/learn?term=")))
    return out


def lesson_of(item: dict):
    """The lesson an item names, or None."""
    from workbench import teaching

    return teaching.LESSONS_BY_ID.get(item.get("id")) if item.get("kind") == "lesson" else None


def lesson_run(lesson, with_records: bool = True):
    """The lesson opened on the device lessons are measured on, with its stored figures."""
    from workbench.teaching import measure
    from workbench.teaching.lesson import open_lesson

    backend, device = measure.measuring()
    run = open_lesson(lesson, device)
    return run.with_records(measure.records(run, backend)) if with_records else run


def claims_children(run) -> list:
    from workbench.teaching.claims import check_all

    icon = {"holds": "✓", "fails": "✗", "pending": "…"}
    return [html.Div(className=f"claim {c.status}", children=[
        html.Span(icon[c.status], className="claim-mark"),
        html.Div([html.Div(segments(c.statement), className="claim-statement"),
                  html.Div(segments(c.verdict, link_terms=False), className="hint")])])
        for c in check_all(run)]


def measured_children(run) -> list:
    rows = learn_view.measured_rows(run, run.records)
    if not rows:
        return [html.Div("This lesson is costed on the "
                         f"{run.device.name} profile and not measured here.", className="hint")]
    head = html.Tr([html.Th(h) for h in learn_view.MEASURED_COLUMNS])
    body = [html.Tr([html.Td(x, className=("miss" if x == "miss" else ""))
                     for x in r]) for r in rows]
    return [html.Table([html.Thead(head), html.Tbody(body)], className="measured-table"),
            html.Div(learn_view.provenance(run.records), className="hint")]


def stage_table(run, k: int) -> list:
    head = html.Tr([html.Th(""), html.Th("unfused"), html.Th("this stage"), html.Th("change")])
    body = [html.Tr([html.Th(linkify(label)), html.Td(u), html.Td(h), html.Td(c)])
            for label, u, h, c in learn_view.stage_rows(run, k)]
    return [html.H4("The cost model, this stage against every op alone"),
            html.Table([html.Thead(head), html.Tbody(body)]),
            html.Div(learn_view.bytes_saved_line(run, k), className="summary")]


def register(app, services) -> None:
    """Attach the Learn page's callbacks."""

    @app.callback(Output(ids.LEARN_VIEW, "children"), Output(ids.LEARN_BUILT, "data"),
                  Input(ids.URL, "pathname"), State(ids.LEARN_BUILT, "data"))
    def build_page(pathname, built):
        """The Learn page's components, added the first time it opens (the workbench's own
        page does not carry them: :func:`~workbench.app.learn_layout.learn_shell`)."""
        from workbench.app.learn_layout import learn_contents

        if built or not (pathname or "").startswith("/learn"):
            raise PreventUpdate
        return learn_contents(controller.device_choices()), True

    app.clientside_callback(ClientsideFunction("learn", "route"),
                            Output(ids.MAIN_VIEW, "style"), Output(ids.LEARN_VIEW, "style"),
                            Input(ids.URL, "pathname"))

    # The Learn page's callbacks below wait for LEARN_ITEM (set on /learn only): on the
    # workbench's page they would ask the server for a hidden page while the graph is drawn.
    @app.callback(Output(ids.LEARN_ITEM, "data"), Input(ids.URL, "search"),
                  Input(ids.URL, "pathname"))
    def choose_item(search, pathname):
        if not (pathname or "").startswith("/learn"):
            raise PreventUpdate
        return learn_view.parse_item(search)

    @app.callback(*[Output(ids.LEARN_SECTIONS[k], "style") for k in SECTION_KINDS],
                  Input(ids.LEARN_ITEM, "data"), prevent_initial_call=True)
    def show_section(item):
        kind = (item or {}).get("kind", "home")
        return [{} if k == kind else {"display": "none"} for k in SECTION_KINDS]

    app.clientside_callback(ClientsideFunction("learn", "showTerm"),
                            Output(ids.GLOSSARY, "title"), Input(ids.LEARN_ITEM, "data"))

    @app.callback(Output(ids.LEARN_NAV, "children"), Input(ids.LEARN_ITEM, "data"),
                  Input(ids.EX_VERSION, "data"), State(ids.SESSION, "data"),
                  prevent_initial_call=True)
    def show_nav(item, _v, sid):
        return nav(item or {}, services.store.learning(sid))

    @app.callback(Output(ids.LESSON_TITLE, "children"), Output(ids.LESSON_TEXT, "children"),
                  Output(ids.LESSON_STAGE, "max"), Output(ids.LESSON_STAGE, "marks"),
                  Output(ids.LESSON_STAGE, "value"), Output(ids.LESSON_CLAIMS, "children"),
                  Output(ids.LESSON_MEASURED, "children"),
                  Output(ids.LESSON_QUESTIONS, "children"),
                  Output(ids.LESSON_MEASURE_AGAIN, "disabled"),
                  Input(ids.LEARN_ITEM, "data"), Input(ids.LESSON_MEASURED_VERSION, "data"),
                  State(ids.LESSON_STAGE, "value"), prevent_initial_call=True)
    def show_lesson(item, _mv, stage):
        lesson = lesson_of(item or {})
        if lesson is None:
            if (item or {}).get("kind") != "lesson":
                raise PreventUpdate
            return (f"No lesson named {item.get('id')!r}", "", 0, {}, 0, [], [], [], True)
        run = lesson_run(lesson)
        facts = run.facts()
        from workbench.teaching.template import render

        text = [html.P(segments(render(p, facts))) for p in lesson.text]
        n = len(run.stages)
        value = 0 if ctx.triggered_id == ids.LEARN_ITEM or stage is None else min(stage, n - 1)
        questions = [html.Span("What if: ")] + [
            dcc.Link(q, href=f"/learn?question={q}", className="term") for q in lesson.questions]
        return (lesson.title, text, n - 1, learn_view.stage_marks(run), value,
                claims_children(run), measured_children(run),
                questions if lesson.questions else [], not lesson.measure)

    @app.callback(Output(ids.LESSON_STAGE_TEXT, "children"), Output(ids.LESSON_CYTO, "elements"),
                  Output(ids.LESSON_STAGE_TABLE, "children"), Output(ids.LESSON_KERNELS, "data"),
                  Output(ids.LESSON_KERNELS, "columns"),
                  Input(ids.LESSON_STAGE, "value"), Input(ids.LEARN_ITEM, "data"),
                  Input(ids.LESSON_MEASURED_VERSION, "data"), prevent_initial_call=True)
    def show_stage(k, item, _mv):
        lesson = lesson_of(item or {})
        if lesson is None or k is None:
            raise PreventUpdate
        run = lesson_run(lesson)
        k = max(0, min(int(k), len(run.stages) - 1))
        stage = run.stages[k]
        status, head, detail = learn_view.stage_heading(run, k)
        label = {"fused": "taken ", "refused": "refused "}.get(status, "")
        text = [html.Span(label, className=status), html.Span(head),
                html.Div(linkify(detail), className="hint") if detail else None]
        from workbench.app.graph_figure import grouping_from_plan

        basis = [g.nodes for g in run.plan.groups] if stage.graph is run.graph else None
        elements = learn_view.drawn_elements(services.layouts, stage.graph,
                                             grouping_from_plan(stage.plan), basis, lesson.id)
        record, which = learn_view.stage_record(run, k)
        rows = learn_view.kernel_rows(stage, record, which, run.device)
        return (text, elements, stage_table(run, k), rows,
                learn_view.kernel_columns(record))

    @app.callback(Output(ids.LESSON_STAGE, "value", allow_duplicate=True),
                  Input(ids.LESSON_PREV, "n_clicks"), Input(ids.LESSON_NEXT, "n_clicks"),
                  State(ids.LESSON_STAGE, "value"), State(ids.LESSON_STAGE, "max"),
                  prevent_initial_call=True)
    def step(_p, _n, k, top):
        k = (k or 0) + (1 if ctx.triggered_id == ids.LESSON_NEXT else -1)
        return max(0, min(k, top or 0))

    @app.callback(Output(ids.LESSON_PREV, "disabled"), Output(ids.LESSON_NEXT, "disabled"),
                  Input(ids.LESSON_STAGE, "value"), Input(ids.LESSON_STAGE, "max"))
    def stepper_ends(k, top):
        return learn_view.stepper_disabled(k, top)

    register_measurement(app, services)

    @app.callback(Output(ids.VERSION, "data", allow_duplicate=True),
                  Output(ids.URL, "pathname"), Input(ids.LESSON_OPEN_MAIN, "n_clicks"),
                  State(ids.LEARN_ITEM, "data"), State(ids.SESSION, "data"),
                  prevent_initial_call=True)
    def open_in_workbench(n, item, sid):
        """The lesson's graph in the workbench's own view (the session's graph changes)."""
        from workbench.app.callbacks_load import open_graph

        lesson = lesson_of(item or {})
        if not n or lesson is None or services.session(sid) is None:
            raise PreventUpdate
        run = lesson_run(lesson, with_records=False)
        device = run.device.name if run.device.name in controller.device_choices() else \
            controller.DEFAULT_DEVICE
        with services.lock(sid):
            v = open_graph(services, sid, run.graph, f"lesson {lesson.id}", device=device)
        return v, "/"


#: the measurement's controls while it is in flight and after: (poll disabled, *Measure again*
#: disabled)
MEASURING, IDLE = (False, True), (True, False)


def measure_owner(lesson) -> str:
    """The job owner of a lesson's measurement: the lesson, not a session, so that a class
    opening one lesson at once starts one measurement, which every student follows."""
    return f"lesson:{lesson.id}"


def submit_measurement(services, lesson, again: bool):
    """Queue the measurement of ``lesson`` in the worker pool, or follow the one in flight;
    returns the task.

    Raises
    ------
    WorkbenchError
        :class:`~workbench.app.jobs.JobLimitError` when the server's queue is full.
    """
    task = services.jobs.latest(measure_owner(lesson))
    if task is not None and not task.over:
        return task
    return services.jobs.submit(measure_owner(lesson), "lesson", (lesson.id, bool(again)))


def measurement_view(services, lesson, task) -> tuple:
    """(progress value, max, status, message, new LESSON_MEASURED_VERSION, poll disabled,
    *Measure again* disabled) for the poll."""
    if task is None:
        return ("0", "1", "", no_update, no_update, *IDLE)
    if not task.over:
        k, n, text = task.progress
        if task.state == "queued":
            ahead = services.jobs.position(task)
            text = (f"measuring… queued behind {ahead} other job(s)" if ahead
                    else "measuring… queued")
        return (str(k), str(max(n, 1)), text, no_update, no_update, *MEASURING)
    if task.state == "done":
        return ("1", "1", "measured on this machine", "",
                {"lesson": lesson.id, "t": task.id}, *IDLE)
    why = controller.error_text(task.error) if task.error else f"the measurement was {task.state}"
    return ("0", "1", "not measured", why, no_update, *IDLE)


def register_measurement(app, services) -> None:
    """Opening a lesson whose plans are not measured on this machine yet, or *Measure again*,
    queues its measurement; an interval follows it until it ends."""
    controls = (Output(ids.LESSON_MEASURE_POLL, "disabled", allow_duplicate=True),
                Output(ids.LESSON_MEASURE_AGAIN, "disabled", allow_duplicate=True))

    @app.callback(Output(ids.LESSON_MEASURE_STATUS, "children"),
                  Output(ids.LESSON_MEASURE_MSG, "children"), *controls,
                  Input(ids.LEARN_ITEM, "data"), Input(ids.LESSON_MEASURE_AGAIN, "n_clicks"),
                  prevent_initial_call=True)
    def start(item, _n):
        lesson = lesson_of(item or {})
        if lesson is None or not lesson.measure:
            raise PreventUpdate
        again = ctx.triggered_id == ids.LESSON_MEASURE_AGAIN
        if not again:
            run = lesson_run(lesson)
            task = services.jobs.latest(measure_owner(lesson))
            if len(run.records) == len(run.measured_stages) and (task is None or task.over):
                return "", "", *IDLE
        try:
            submit_measurement(services, lesson, again)
        except WorkbenchError as exc:
            return "not measured", controller.error_text(exc), *IDLE
        return "measuring… queued", "", *MEASURING

    @app.callback(Output(ids.LESSON_MEASURE_PROGRESS, "value"),
                  Output(ids.LESSON_MEASURE_PROGRESS, "max"),
                  Output(ids.LESSON_MEASURE_STATUS, "children", allow_duplicate=True),
                  Output(ids.LESSON_MEASURE_MSG, "children", allow_duplicate=True),
                  Output(ids.LESSON_MEASURED_VERSION, "data"), *controls,
                  Input(ids.LESSON_MEASURE_POLL, "n_intervals"), State(ids.LEARN_ITEM, "data"),
                  prevent_initial_call=True)
    def poll(_n, item):
        lesson = lesson_of(item or {})
        if lesson is None:
            return ("0", "1", "", no_update, no_update, *IDLE)
        return measurement_view(services, lesson, services.jobs.latest(measure_owner(lesson)))

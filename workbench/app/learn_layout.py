"""The Learn page (lessons, exercises, what-if questions, the glossary) and the tour's card.

The page lives beside the workbench's own view in one Dash layout; ``/learn`` shows it and
``/`` the workbench (:mod:`.callbacks_learn` switches them). Ids are in :mod:`.ids`.
"""

from __future__ import annotations

import dash_cytoscape as cyto
from dash import dash_table, dcc, html

from workbench.app import ids
from workbench.app.glossary_links import linkify
from workbench.app.learn_view import KERNEL_COLUMNS
from workbench.app.graph_figure import stylesheet
from workbench.teaching.glossary import TERMS

INTRO = (
    "Each lesson is a small graph of its own. Step from every op its own kernel to the "
    "planner's plan and watch the groups form, the bytes that stop moving and the cost "
    "model's prediction change; the lesson profiles its plans on this machine in the "
    "background and checks its own claims against what it measured.",
    "In an exercise you see a graph unfused and draw the groups yourself: select ops on the "
    "canvas (a click adds an op to the selection, another click takes it out) and press Group. "
    "Check my answer scores it against the planner's plan, and for a real XLA module against "
    "XLA's own fusions, and explains each difference with the planner's decision records.",
    "What-if questions move one knob of the cost model, such as the launch overhead, and find "
    "where a fusion stops paying. The glossary defines every term; terms in the text link to it.",
)


def _button(id_, label, title="", kind="") -> html.Button:
    return html.Button(label, id=id_, n_clicks=0, title=title, className=f"btn {kind}".strip())


def _canvas(id_) -> cyto.Cytoscape:
    return cyto.Cytoscape(id=id_, elements=[], stylesheet=stylesheet(),
                          layout={"name": "preset", "fit": True}, minZoom=0.05, maxZoom=3.0,
                          boxSelectionEnabled=True, responsive=True,
                          style={"width": "100%", "height": "100%"})


def _table(id_, columns, height="240px") -> dash_table.DataTable:
    return dash_table.DataTable(
        id=id_, columns=[{"name": n, "id": i} for i, n in columns], data=[],
        style_table={"overflowY": "auto", "maxHeight": height},
        style_cell={"fontFamily": "Inter, Helvetica, sans-serif", "fontSize": 12,
                    "padding": "2px 4px", "textAlign": "left", "whiteSpace": "normal",
                    "height": "auto", "maxWidth": 420},
        style_header={"fontWeight": "600", "backgroundColor": "#f3f4f6"})


def home_section() -> html.Div:
    return html.Div(id=ids.LEARN_SECTIONS["home"], className="learn-section", children=[
        html.H2("Learn fusion by measuring it"),
        *[html.P(linkify(p)) for p in INTRO]])


def lesson_section() -> html.Div:
    stepper = html.Div(className="stepper", children=[
        _button(ids.LESSON_PREV, "◀ Back", "The previous stage"),
        html.Div(dcc.Slider(id=ids.LESSON_STAGE, min=0, max=1, step=1, value=0, marks=None,
                            updatemode="mouseup", allow_direct_input=False),
                 className="stage-slider"),
        _button(ids.LESSON_NEXT, "Next ▶", "The next stage, towards the fused plan")])
    measured = html.Div(className="measured-box", children=[
        html.Div(className="profile-bar", children=[
            html.H4("On this machine"),
            html.Progress(id=ids.LESSON_MEASURE_PROGRESS, value="0", max="1"),
            html.Span(id=ids.LESSON_MEASURE_STATUS, className="status"),
            _button(ids.LESSON_MEASURE_AGAIN, "Measure again", "Profile the lesson's plans "
                    "again on this machine, replacing the stored figures")]),
        html.Div(id=ids.LESSON_MEASURE_MSG, className="msg error", role="alert"),
        html.Div(id=ids.LESSON_MEASURED)])
    return html.Div(id=ids.LEARN_SECTIONS["lesson"], className="learn-section",
                    style={"display": "none"}, children=[
        html.H2(id=ids.LESSON_TITLE),
        html.Div(id=ids.LESSON_TEXT, className="lesson-text"),
        stepper,
        html.Div(id=ids.LESSON_STAGE_TEXT, className="step-text"),
        html.Div(className="lesson-body", children=[
            html.Div(_canvas(ids.LESSON_CYTO), className="learn-canvas"),
            html.Div(className="lesson-figures", children=[
                html.Div(id=ids.LESSON_STAGE_TABLE, className="cost-card"),
                _table(ids.LESSON_KERNELS, KERNEL_COLUMNS + (("measured", "measured"),),
                       "200px")])]),
        measured,
        html.H4("What the lesson claims, checked here"),
        html.Div(id=ids.LESSON_CLAIMS, className="claims"),
        html.Div(id=ids.LESSON_QUESTIONS, className="hint"),
        _button(ids.LESSON_OPEN_MAIN, "Open this graph in the workbench", "Explore the "
                "lesson's graph with every panel of the workbench"),
        dcc.Interval(id=ids.LESSON_MEASURE_POLL, interval=400, disabled=True),
        dcc.Store(id=ids.LESSON_MEASURED_VERSION)])


def exercise_section() -> html.Div:
    bar = html.Div(className="edit-bar", children=[
        _button(ids.EX_GROUP, "Group", "Put the selected ops in one kernel", "primary"),
        _button(ids.EX_UNGROUP, "Ungroup", "Split the selected op's group into single ops"),
        _button(ids.EX_RESET, "Start over", "Every op its own kernel again"),
        _button(ids.EX_CHECK, "Check my answer", "Score your groups against the key"),
        dcc.RadioItems(id=ids.EX_SHOW, value="answer", inline=True, className="show-radio",
                       options=[{"label": " my answer", "value": "answer"},
                                {"label": " the planner's plan", "value": "planner"},
                                {"label": " XLA's fusions", "value": "xla",
                                 "disabled": True}])])
    return html.Div(id=ids.LEARN_SECTIONS["exercise"], className="learn-section",
                    style={"display": "none"}, children=[
        html.H2(id=ids.EX_TITLE), html.Div(id=ids.EX_PROMPT, className="lesson-text"),
        bar, html.Div(id=ids.EX_MSG, className="msg error", role="alert"),
        html.Div(id=ids.EX_STATE, className="hint"),
        html.Div(_canvas(ids.EX_CYTO), className="learn-canvas tall"),
        html.Div(id=ids.EX_SCORE, className="summary"),
        _table(ids.EX_DIFFS, [("side", "difference"), ("pairs", "pairs of ops"),
                              ("step", "decision step"), ("reason", "reason"),
                              ("explanation", "the key's own record")], "360px"),
        html.Div(id=ids.EX_PROGRESS, className="hint"),
        dcc.Store(id=ids.EX_VERSION)])


def question_section(devices) -> html.Div:
    return html.Div(id=ids.LEARN_SECTIONS["question"], className="learn-section",
                    style={"display": "none"}, children=[
        html.H2(id=ids.Q_TITLE), html.Div(id=ids.Q_TEXT, className="lesson-text"),
        html.Div(className="profile-bar", children=[
            html.Label("Device", className="ctl-label"),
            dcc.Dropdown(id=ids.Q_DEVICE, options=list(devices), value=devices[0],
                         clearable=False, className="small-dd"),
            html.Label("Move the knob", className="ctl-label"),
            html.Div(dcc.Slider(id=ids.Q_KNOB, min=-3, max=3, step=0.05, value=0, marks=None,
                                updatemode="drag", allow_direct_input=False),
                     className="stage-slider")]),
        html.Div(id=ids.Q_ANSWER, className="step-text"),
        # the chart (a dcc.Graph) is put here by the question's callback: a Graph in the
        # layout would load plotly (4.8 MB of script) on every page, the workbench's too
        html.Div(id=ids.Q_CHART_BOX)])


def glossary_section() -> html.Div:
    entries = [html.Div(id=f"term-{t.id}", className="term-entry", children=[
        html.H4(t.title), html.P(t.text),
        html.Div(["See also: ", *[x for r in t.related for x in (
            dcc.Link(TERMS[r].title, href=f"/learn?term={r}", className="term"), " ")]],
            className="hint") if t.related else None]) for t in TERMS.values()]
    return html.Div(id=ids.LEARN_SECTIONS["term"], className="learn-section",
                    style={"display": "none"}, children=[
        html.H2("Glossary"), html.Div(entries, id=ids.GLOSSARY)])


def learn_shell() -> html.Div:
    """The Learn page's empty frame, the initial layout's part: :func:`learn_contents` fills it
    when the page first opens (``/learn``). Its 250 components (the glossary's ~170 among them,
    two canvases, three tables that load dash_table's 0.5 MB of script) cost the workbench's
    own first draw about a second of renderer time when they were in the initial layout."""
    return html.Div(id=ids.LEARN_VIEW, className="app learn", style={"display": "none"},
                    children=[])


def learn_page(devices) -> html.Div:
    """The Learn page: navigation on the left, the chosen item on the right (the frame of
    :func:`learn_shell` holding :func:`learn_contents`; the app's validation layout)."""
    page = learn_shell()
    page.children = learn_contents(devices)
    return page


def learn_contents(devices) -> list:
    """The Learn page's components: navigation on the left, the chosen item on the right."""
    top = html.Div(className="header learn-header", children=[html.Div(className="brand-row",
        children=[html.Span("Fusion Workbench · Learn", className="brand"),
                  dcc.Link("← Back to the workbench", href="/", className="nav-link"),
                  dcc.Link("Glossary", href="/learn?term=", className="nav-link")])])
    content = html.Div(className="learn-content", children=[
        home_section(), lesson_section(), exercise_section(), question_section(devices),
        glossary_section()])
    return [top, html.Div(className="learn-main", children=[
        html.Div(id=ids.LEARN_NAV, className="learn-nav"), content]),
        dcc.Store(id=ids.LEARN_ITEM)]


def tour_card() -> html.Div:
    """The tour's card (filled and shown by :mod:`.callbacks_tour`)."""
    return html.Div(id=ids.TOUR, className="tour", style={"display": "none"}, children=[
        html.Div([html.Span(id=ids.TOUR_TITLE, className="tour-title"),
                  html.Span(id=ids.TOUR_COUNT, className="status")], className="tour-head"),
        html.Div(id=ids.TOUR_TEXT, className="tour-text"),
        html.Div(className="edit-bar", children=[
            _button(ids.TOUR_BACK, "Back"), _button(ids.TOUR_NEXT, "Next", kind="primary"),
            _button(ids.TOUR_CLOSE, "Close", "Close the tour (the Tour button opens it "
                    "again)")]),
        dcc.Store(id=ids.TOUR_STEP), dcc.Store(id=ids.TOUR_SEEN, storage_type="local"),
        dcc.Store(id=ids.TOUR_TARGET)])

"""The page: a header of load-and-plan controls, the graph view, and tabbed panels beside it."""

from __future__ import annotations

import dash_cytoscape as cyto
from dash import dash_table, dcc, html

from workbench.app import ids
from workbench.app.controller import DEFAULT_DEVICE, DEFAULT_POLICY, device_choices
from workbench.app.glossary_links import kind_link, term_link
from workbench.app.graph_figure import KIND_COLORS, KIND_HELP, ROLE_HELP, stylesheet
from workbench.app.layout_whatif import diff_tab, whatif_tab
from workbench.app.tables import LOG_STYLES
from workbench.teaching.glossary import BOUND_TERMS, KIND_TERMS, TERMS

#: code generator backends offered (docs/architecture.md: compile_plan's backends)
BACKENDS = ("auto", "cpu", "cuda")
#: the plan table's header tooltips: the glossary's words for kinds and bounds
KIND_TOOLTIPS = {
    "kind": "The fusion kind: " + "; ".join(f"{k}: {TERMS[t].short}"
                                            for k, t in KIND_TERMS.items()),
    "bound": "What bounds the kernel's predicted time: " + "; ".join(
        f"{b}: {TERMS[t].short}" for b, t in BOUND_TERMS.items()),
}
#: the upload size cap (bytes); the importers' own cap is larger (64 MiB)
UPLOAD_MAX_BYTES = 16 << 20


def _button(id_, label, title="", kind="", disabled=False) -> html.Button:
    return html.Button(label, id=id_, n_clicks=0, title=title, className=f"btn {kind}".strip(),
                       disabled=disabled)


def header(choices: list[dict], initial_choice: str | None, policies: tuple) -> html.Div:
    """Title, graph chooser, upload, planner policy and device profile, re-plan."""
    return html.Div(className="header", children=[
        html.Div([html.Span("Fusion Workbench", className="brand"),
                  html.Span(id=ids.GRAPH_TITLE, className="graph-title"),
                  dcc.Link("Learn", href="/learn", id=ids.LEARN_LINK, className="nav-link",
                           title="Lessons, exercises, what-if questions and the glossary"),
                  html.Button("Tour", id=ids.TOUR_OPEN, n_clicks=0, className="btn",
                              title="A short tour of the panels")],
                 className="brand-row"),
        html.Div(className="controls", children=[
            dcc.Dropdown(id=ids.GRAPH_CHOICE, options=choices, value=initial_choice,
                         clearable=False, placeholder="Choose a graph…",
                         className="graph-choice"),
            dcc.Upload(id=ids.UPLOAD, multiple=False,
                       className="upload", children=html.Div(
                           ["Drop or ", html.A("upload"), " a .json / .hlo graph or a saved plan"],
                           title="A graph (.hlo, .json) opens it; a plan saved with the Plan "
                                 "JSON button is applied to the current graph")),
            html.Label("Policy", className="ctl-label"),
            dcc.Dropdown(id=ids.POLICY, options=list(policies), value=DEFAULT_POLICY,
                         clearable=False, className="small-dd"),
            html.Label("Device", className="ctl-label"),
            dcc.Dropdown(id=ids.DEVICE, options=list(device_choices()), value=DEFAULT_DEVICE,
                         clearable=False, className="small-dd"),
            _button(ids.REPLAN, "Re-plan", "Run the planner again, keeping forbidden pairs "
                    "and pinned groups"),
        ]),
        html.Div([html.Div(id=ids.APP_MSG, className="msg error", role="alert"),
                  html.Div(id=ids.LOAD_MSG, className="msg error", role="alert"),
                  html.Div(id=ids.LOAD_NOTE, className="msg note", role="status"),
                  html.Div(id=ids.REPLAN_MSG, className="msg error", role="alert")]),
    ])


def legend() -> html.Div:
    """The fusion-kind colours and the marks used on the graph."""
    items = [html.Span([html.Span(className="swatch", style={"background": c}), kind_link(k)],
                       title=KIND_HELP[k], className="legend-item")
             for k, c in KIND_COLORS.items()]
    items += [html.Span([html.Span(className="swatch dup"), term_link("duplicated",
                                                                     "duplication")],
                        title="recomputed in every group that lists it",
                        className="legend-item"),
              html.Span([html.Span(className="swatch out"), "graph output"],
                        className="legend-item")]
    items += [html.Span([html.Span(className=f"swatch role-{role}"), role], title=text,
                        className="legend-item") for role, text in ROLE_HELP.items()]
    return html.Div(items, id=ids.LEGEND, className="legend")


def graph_panel() -> html.Div:
    """The canvas with its toolbar, banner, legend and hover line."""
    toolbar = html.Div(className="toolbar", children=[
        dcc.Input(id=ids.SEARCH, type="search", debounce=True, placeholder="Find node by name",
                  className="search"),
        _button(ids.FIT, "Fit", "Zoom to fit the whole graph"),
        _button(ids.COLLAPSE_ALL, "Collapse all", "Draw every group as one box"),
        _button(ids.EXPAND_ALL, "Expand all", "Draw every op"),
        _button(ids.TOGGLE_GROUP, "Collapse/expand selected", "Collapse or expand the selected "
                "group"),
        _button(ids.RELAYOUT, "Re-layout", "Lay the graph out again for the current groups"),
        html.Span(id=ids.SEARCH_MSG, className="msg"),
    ])
    canvas = cyto.Cytoscape(
        id=ids.CYTO, elements=[], stylesheet=stylesheet(), layout={"name": "preset", "fit": True},
        minZoom=0.05, maxZoom=3.0, boxSelectionEnabled=True, responsive=True,
        style={"width": "100%", "height": "100%"})
    return html.Div(className="graph-panel", children=[
        toolbar, html.Div(id=ids.BANNER, className="banner"),
        html.Div(canvas, className="canvas"), legend(),
        html.Div(id=ids.HOVER_INFO, className="hover-info")])


def _table(id_, columns, **kw) -> dash_table.DataTable:
    return dash_table.DataTable(
        id=id_, columns=[{"name": n, "id": i} for i, n in columns], data=[],
        style_table={"overflowY": "auto", "maxHeight": kw.pop("height", "320px")},
        style_cell={"fontFamily": "Inter, Helvetica, sans-serif", "fontSize": 12,
                    "padding": "3px 6px", "textAlign": "left", "maxWidth": 340,
                    "overflow": "hidden", "textOverflow": "ellipsis"},
        style_header={"fontWeight": "600", "backgroundColor": "#f3f4f6"},
        page_action="native", page_size=kw.pop("page_size", 40), **kw)


def plan_tab() -> html.Div:
    """Groups, selection, and the edit controls."""
    edits = html.Div(className="edit-bar", children=[
        html.Span("Edit", className="bar-label"),
        _button(ids.MERGE, "Merge", "Merge the selected nodes' groups into one"),
        _button(ids.SPLIT, "Split", "Split the selected group: its ops become one-op kernels"),
        _button(ids.MOVE, "Move to", "Move the selected node into the chosen group"),
        dcc.Dropdown(id=ids.MOVE_TARGET, placeholder="group", clearable=True,
                     className="small-dd"),
        _button(ids.FORBID, "Forbid", "Forbid the two selected nodes ever sharing a group"),
        _button(ids.PIN, "Pin", "Keep the selected group as it is when re-planning"),
        _button(ids.REJECT, "Reject", "Reject the selected group: its ops run alone"),
    ])
    history = html.Div(className="edit-bar", children=[
        html.Span("Plan", className="bar-label"),
        _button(ids.ACCEPT_ALL, "Accept all", "Accept every group: pin them all"),
        _button(ids.UNDO, "Undo"), _button(ids.REDO, "Redo"),
        _button(ids.RESET, "Reset", "Back to the planner's proposal"),
    ])
    return html.Div(className="tab-body", children=[
        html.Div(id=ids.PLAN_SUMMARY, className="summary"),
        html.Div(id=ids.SELECTION_INFO, className="selection"),
        edits, history,
        html.Div(id=ids.EDIT_MSG, className="msg error", role="alert"),
        _table(ids.GROUP_TABLE, [("id", "group"), ("kind", "kind"), ("state", "state"),
                                 ("n_ops", "ops"), ("predicted", "predicted"),
                                 ("bound", "bound"), ("saving", "saving"), ("ops", "members")],
               row_selectable="single", height="420px", sort_action="native",
               tooltip_header=KIND_TOOLTIPS),
    ])


def cost_tab() -> html.Div:
    """The selected group's and the whole plan's cost breakdowns, bar chart and roofline."""
    return html.Div(className="tab-body", children=[
        html.Div(className="cost-tables", children=[
            html.Div(id=ids.COST_GROUP, className="cost-card"),
            html.Div(id=ids.COST_TOTAL, className="cost-card")]),
        dcc.Graph(id=ids.COST_BARS, config={"displaylogo": False}, className="chart"),
        html.Div(["Reading it: ", term_link("roofline", "roofline"), ", ",
                  term_link("arithmetic intensity", "arithmetic-intensity"), ", ",
                  term_link("memory-bound", "memory-bound"), " and ",
                  term_link("compute-bound", "compute-bound"), "."], className="hint"),
        dcc.Graph(id=ids.ROOFLINE, config={"displaylogo": False}, className="chart"),
    ])


def explain_tab() -> html.Div:
    """The planner's decision log and the step-through slider; XLA's grouping for comparison."""
    return html.Div(className="tab-body", children=[
        html.Div(["Step through the planner, from every op alone to its final plan (each step "
                  "is a ", term_link("decision record", "decision"), "):"], className="hint"),
        dcc.Slider(id=ids.STEP_SLIDER, min=0, max=0, step=1, value=0, marks=None,
                   tooltip={"placement": "bottom", "always_visible": False},
                   updatemode="mouseup"),
        html.Div(id=ids.STEP_TEXT, className="step-text"),
        dcc.Checklist(id=ids.XLA_TOGGLE, options=[], value=[], className="xla-toggle"),
        html.Div(id=ids.XLA_AGREEMENT, className="summary"),
        _table(ids.DECISION_LOG, [("step", "step"), ("action", "action"), ("fused", "taken"),
                                  ("reason", "reason"), ("message", "why"),
                                  ("nodes", "nodes")],
               height="420px", page_size=25, style_data_conditional=LOG_STYLES,
               style_cell_conditional=[
                   {"if": {"column_id": "message"}, "whiteSpace": "normal",
                    "minWidth": 260, "height": "auto"}]),
    ])


def profile_tab() -> html.Div:
    """Compile & profile: progress, results, correctness, kernel source and downloads."""
    return html.Div(className="tab-body", children=[
        html.Div(className="profile-bar", children=[
            _button(ids.PROFILE_RUN, "Compile & profile", "JIT-compile the plan with numba, "
                    "time every kernel, check the results", "primary"),
            html.Span(dcc.Dropdown(id=ids.PROFILE_BACKEND, options=list(BACKENDS),
                                   value="auto", clearable=False, className="small-dd"),
                      title="backend — auto: CUDA when a GPU is present, else the CPU"),
            _button(ids.PROFILE_CANCEL, "Cancel", "Stop the job (queued or running)",
                    disabled=True),
            dcc.Interval(id=ids.PROFILE_POLL, interval=300, disabled=True),
            html.Progress(id=ids.PROFILE_PROGRESS, value="0", max="1"),
            html.Span(id=ids.PROFILE_STATUS, className="status")]),
        html.Div(id=ids.PROFILE_MSG, className="msg error", role="alert"),
        html.Div(id=ids.PROFILE_SUMMARY, className="summary"),
        dcc.Graph(id=ids.PROFILE_BARS, config={"displaylogo": False}, className="chart"),
        _table(ids.PROFILE_TABLE, [("group", "kernel"), ("kind", "kind"),
                                   ("measured", "measured"), ("predicted", "predicted"),
                                   ("ratio", "measured/predicted"), ("gbps", "GB/s"),
                                   ("note", "note")], height="260px"),
        html.H4("Correctness against the reference interpreter"),
        _table(ids.CORRECTNESS, [("output", "output"), ("max_abs_error", "max abs error"),
                                 ("max_rel_error", "max rel error"), ("ok", "ok")],
               height="160px"),
        html.H4("Generated source of the selected group's kernel"),
        html.Pre(id=ids.KERNEL_SOURCE, className="source"),
        html.Div(className="downloads", children=[
            _button(ids.DOWNLOAD_PLAN, "Plan JSON"), _button(ids.DOWNLOAD_SOURCES,
                                                             "Kernel sources"),
            _button(ids.DOWNLOAD_TRACE, "Perfetto trace"), _button(ids.DOWNLOAD_REPORT,
                                                                   "Report JSON"),
            dcc.Download(id=ids.DOWNLOAD)]),
    ])


def page(choices: list[dict], initial_choice: str | None, policies: tuple) -> html.Div:
    """The whole page."""
    stores = [dcc.Store(id=ids.SESSION, storage_type="session"),
              dcc.Store(id=ids.UPLOAD_LIMIT, data=UPLOAD_MAX_BYTES), dcc.Store(id=ids.UPLOAD_CHECKED),
              dcc.Store(id=ids.VERSION), dcc.Store(id=ids.PROFILE_VERSION),
              dcc.Store(id=ids.SELECTED), dcc.Store(id=ids.COLLAPSED, data=None),
              dcc.Store(id=ids.FOUND)]
    tabs = dcc.Tabs(id=ids.TABS, value=ids.TAB_PLAN, className="tabs", children=[
        dcc.Tab(plan_tab(), label="Plan", value=ids.TAB_PLAN),
        dcc.Tab(cost_tab(), label="Cost", value=ids.TAB_COST),
        dcc.Tab(explain_tab(), label="Explain", value=ids.TAB_EXPLAIN),
        dcc.Tab(profile_tab(), label="Compile & profile", value=ids.TAB_PROFILE),
        dcc.Tab(whatif_tab(_button, _table), label="What-if", value=ids.TAB_WHATIF),
        dcc.Tab(diff_tab(_button, _table), label="Diff", value=ids.TAB_DIFF)])
    return html.Div(className="app", children=stores + [
        header(choices, initial_choice, policies),
        html.Div(className="main", children=[graph_panel(),
                                             html.Div(tabs, className="side-panel")])])

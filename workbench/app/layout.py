"""The page: a header of load-and-plan controls, the graph view, and tabbed panels beside it."""

from __future__ import annotations

import dash_ag_grid as dag
import dash_cytoscape as cyto
from dash import dcc, html

from workbench.app import ids
from workbench.app.controller import DEFAULT_DEVICE, DEFAULT_POLICY, device_choices
from workbench.app.glossary_links import kind_link, term_link
from workbench.app.graph_figure import (KIND_COLORS, KIND_HELP, KIND_LABELS, ROLE_HELP,
                                        XLA_COLORS, XLA_HELP, stylesheet)
from workbench.app.layout_whatif import diff_tab, whatif_tab
from workbench.app.tables import TOP_CHOICES
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



#: the profile table's ratio: the figure the prediction check compares, shown in its own
#: column (workbench.profiler.accuracy.measured_time)
RATIO_TIP = ("typical (p25) / predicted: the kernel's 25th-percentile time (the typical "
             "column, what the cost model is calibrated to) over the predicted time")
#: the profile table's typical column
TYPICAL_TIP = ("the 25th percentile of the kernel's runs: the statistic the cost model's "
               "calibration fits, so the time the ratio and a MISS compare with the prediction")
#: the profile table's measured and min columns (what a busy machine's note compares)
MEDIAN_TIP = "the median of the kernel's runs"
MIN_TIP = ("the kernel's fastest run: on a busy machine, compare it with the median (the "
           "measured column)")


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
                         className="graph-choice", optionHeight=30),
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
            _button(ids.FOLD_BN, "Fold batch norms", "Fold each inference batch norm after a "
                    "convolution or matmul into its weights (opens the folded graph; the "
                    "command line's workbench plan --fold-bn)"),
            _button(ids.SHARE, "Share link", "A link to this workspace: the graph, policy, "
                    "device, What-if knobs and plan (with your edits); opening it restores "
                    "them"),
        ]),
        html.Div(id=ids.SHARE_BOX, className="share-box", style={"display": "none"}, children=[
            dcc.Input(id=ids.SHARE_URL, type="text", readOnly=True, className="share-url",
                      debounce=True),
            dcc.Clipboard(target_id=ids.SHARE_URL, id=ids.SHARE_COPY, className="share-copy",
                          title="Copy the link")]),
        html.Div([html.Div(id=ids.APP_MSG, className="msg error", role="alert"),
                  html.Div(id=ids.LOAD_MSG, className="msg error", role="alert"),
                  html.Div(id=ids.LOAD_NOTE, className="msg note", role="status"),
                  html.Div(id=ids.REPLAN_MSG, className="msg error", role="alert"),
                  html.Div(id=ids.LINK_MSG, className="msg note", role="status")]),
    ])


def legend() -> html.Div:
    """The fusion-kind colours and the marks used on the graph."""
    items = [html.Span([html.Span(className="swatch", style={"background": c}),
                        kind_link(k, KIND_LABELS[k])], title=KIND_HELP[k],
                       className="legend-item")
             for k, c in KIND_COLORS.items()]
    items += [html.Span([html.Span(className="swatch dup"), term_link("duplicated",
                                                                     "duplication")],
                        title="recomputed in every group that lists it",
                        className="legend-item"),
              html.Span([html.Span(className="swatch out"), "graph output"],
                        className="legend-item"),
              html.Span([html.Span(className="swatch layer"), "layer (click a closed one)"],
                        title="a layer of the model's name stack (HLO metadata op_name)",
                        className="legend-item")]
    items += [html.Span([html.Span(className=f"swatch role-{role}"), role], title=text,
                        className="legend-item") for role, text in ROLE_HELP.items()]
    items += [html.Span([html.Span(className="swatch", style={"background": c}),
                         f"XLA: {XLA_HELP[s]}"], className="legend-item xla-legend",
                        title="shown when fusions are coloured by agreement with XLA")
              for s, c in XLA_COLORS.items()]
    return html.Div(items, id=ids.LEGEND, className="legend")


def first_help() -> html.Div:
    """What a first-time visitor needs to know, shown until dismissed (remembered by the
    browser)."""
    return html.Div(id=ids.HELP, className="first-help", style={"display": "none"}, children=[
        html.B("Welcome. "),
        "The canvas shows the model's layers (from the name stack JAX writes) and, inside "
        "them, the planner's fusion groups: each box is one kernel. Click a closed layer to "
        "open it; Find searches ids, ops and scopes and opens what it finds; Fit shows "
        "everything, and the map at the bottom right shows where you are. Select nodes "
        "(shift-click for several) and use the Plan tab to merge, split or move them; the "
        "Explain tab replays the planner's decisions one by one; Compile & profile runs the "
        "kernels on this machine.",
        html.Button("Got it", id=ids.HELP_CLOSE, n_clicks=0, className="btn")])


def graph_panel() -> html.Div:
    """The canvas with its toolbar, breadcrumb, banner, overview map, legend and hover line."""
    toolbar = html.Div(className="toolbar", children=[
        dcc.Input(id=ids.SEARCH, type="search", debounce=True,
                  placeholder="Find: id, op or scope", className="search"),
        _button(ids.FIT, "Fit", "Zoom to fit the whole drawing"),
        _button(ids.COLLAPSE_ALL, "Collapse all", "Close every layer, collapse every group"),
        _button(ids.EXPAND_ALL, "Expand all", "Open every layer, expand every group"),
        _button(ids.TOGGLE_GROUP, "Collapse/expand group", "Collapse or expand the selected "
                "group"),
        _button(ids.CLOSE_LAYER, "Close layer", "Close the breadcrumb's last layer (click an "
                "open layer's background, or an op in it)"),
        _button(ids.RELAYOUT, "Re-layout", "Lay the graph out afresh (edits keep every other "
                "node in place until then)"),
    ])
    canvas = cyto.Cytoscape(
        id=ids.CYTO, elements=[], stylesheet=stylesheet(), layout={"name": "preset", "fit": True},
        minZoom=0.05, maxZoom=3.0, boxSelectionEnabled=True, responsive=True,
        autoRefreshLayout=False,
        style={"width": "100%", "height": "100%"})
    overview = html.Canvas(id=ids.OVERVIEW, className="overview", width=200, height=150,
                           title="Overview: the whole drawing; the box is what the canvas "
                                 "shows. Click or drag to move there.")
    return html.Div(className="graph-panel", children=[
        toolbar, html.Div(id=ids.BREADCRUMB, className="breadcrumb"),
        html.Div(id=ids.BANNER, className="banner"),
        # the search's and Close layer's line floats over the canvas's top: in the toolbar it
        # wrapped to a line of its own when it appeared and pushed the canvas down ~20 px
        html.Div([canvas, overview, html.Div(id=ids.SEARCH_MSG, className="msg canvas-msg",
                                             role="status")], className="canvas"), legend(),
        html.Div(id=ids.HOVER_INFO, className="hover-info")])


#: what the profile table's GB/s counts (the header's tooltip)
GBPS_TOOLTIP = ("GB/s of the kernel's arguments, each read or written once, over its median "
                "time. A MISS note's rate counts the cost model's bytes moved instead (it says "
                "how many), which can differ: values kept in a cache, broadcasts re-read.")


def grid(id_, columns, height="320px", row_ids: bool = True, **kw) -> dag.AgGrid:
    """An AG Grid: sortable, resizable columns (``(field, header, extra column options)``;
    a column with ``sort_by`` sorts by that numeric field and shows this one). Every row has
    an ``id`` (the grid's row id) unless ``row_ids`` is false."""
    defs = []
    for field_, name, *extra in columns:
        opts = dict(extra[0]) if extra else {}
        by = opts.pop("sort_by", None)
        col = {"field": by or field_, "headerName": name, **opts}
        if by:  # numbers sort, their text shows
            col["valueFormatter"] = {"function": f"params.data ? params.data.{field_} : ''"}
            col["type"] = "numericColumn"
        defs.append(col)
    return dag.AgGrid(
        id=id_, columnDefs=defs, rowData=[], columnSize=kw.pop("columnSize", "autoSize"),
        defaultColDef={"sortable": True, "resizable": True, "minWidth": 60,
                       "cellStyle": {"fontSize": "12px"}},
        **({"getRowId": "params.data.id"} if row_ids else {}),
        dashGridOptions={"rowHeight": 26, "headerHeight": 28, "animateRows": False,
                         "tooltipShowDelay": 300, **kw.pop("options", {})},
        className="ag-theme-alpine grid", style={"height": height, "width": "100%"}, **kw)


def _table(id_, columns, height="320px", style_data_conditional=(),
           style_cell_conditional=(), **kw) -> dag.AgGrid:
    """A table of ``(field, header)`` columns as an AG Grid (:func:`grid`), for the panels that
    name their columns so (the What-if and Diff tabs); a DataTable-style conditional style of
    one column (``{"if": {"column_id": c}, ...}``) becomes that column's cell style, and
    ``whiteSpace: normal`` wraps its text."""
    styles: dict = {}
    for rule in list(style_data_conditional) + list(style_cell_conditional):
        col = (rule.get("if") or {}).get("column_id")
        if col:
            styles.setdefault(col, {}).update({k: v for k, v in rule.items() if k != "if"})
    cols, wrapped = [], []
    for field_, name in columns:
        extra = {}
        style = styles.get(field_, {})
        if style.get("whiteSpace") == "normal":
            # a wrapped column takes the width the others leave (at least its minWidth): the
            # grid's autoSize, which sized it to its header, left one word per line
            extra.update(wrapText=True, autoHeight=True, flex=1,
                         minWidth=style.get("minWidth", WRAP_MIN_WIDTH))
            wrapped.append(field_)
        css = {k: v for k, v in style.items() if k in ("backgroundColor", "fontWeight", "color")}
        if css:
            extra["cellStyle"] = css
        cols.append((field_, name, extra))
    if wrapped:
        kw.setdefault("columnSizeOptions", {"keys": [f for f, _ in columns if f not in wrapped]})
    return grid(id_, cols, height=height, row_ids=False, **kw)


#: the narrowest a wrapped column of :func:`_table` is drawn (pixels)
WRAP_MIN_WIDTH = 240


def top_choice(id_) -> dcc.Dropdown:
    """A table's *show* list: all rows, or the top N by time."""
    return dcc.Dropdown(id=id_, options=[{"label": label, "value": n} for label, n in TOP_CHOICES],
                        value=0, clearable=False, className="small-dd")


def plan_tab() -> html.Div:
    """Groups, selection, and the edit controls."""
    edits = html.Div(className="edit-bar", children=[
        html.Span("Edit", className="bar-label"),
        _button(ids.MERGE, "Merge", "Merge into one group the groups of the rows selected in "
                "the table (ctrl- or shift-click), or of the nodes selected on the graph"),
        _button(ids.SPLIT, "Split", "Split the selected group: its ops become one-op kernels"),
        _button(ids.MOVE, "Move to", "Move the selected node into the chosen group"),
        dcc.Dropdown(id=ids.MOVE_TARGET, placeholder="group (select one node)",
                     clearable=True, className="move-dd"),
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
        html.Div(id=ids.EDIT_MSG, className="msg info", role="status"),
        html.Div([html.Span("Groups:", className="bar-label wide"), top_choice(ids.GROUP_TOP),
                  html.Span("click a row to select its group, ctrl- or shift-click to add "
                            "rows (Merge merges them); click a column to sort; top N: the "
                            "slowest by predicted time", className="hint")],
                 className="edit-bar"),
        # the columns share the panel's width in these proportions (responsiveSizeToFit):
        # sized to their text, the widths stayed those of the first rows shown, and a merged
        # group's member list or a pattern's kind ran the table past the panel's edge; a cut
        # cell is whole in its tooltip
        grid(ids.GROUP_TABLE, [
            ("id", "group", {"comparator": {"function": "groupOrder"}, "width": 68}),
            ("kind", "kind", {"headerTooltip": KIND_TOOLTIPS["kind"], "tooltipField": "kind",
                              "width": 84}),
            ("state", "state", {"width": 58, "minWidth": 44}),
            ("n_ops", "ops", {"type": "numericColumn", "width": 56, "minWidth": 44}),
            ("predicted", "predicted", {"sort_by": "predicted_s", "width": 86}),
            ("bound", "bound", {"width": 84, "headerTooltip": KIND_TOOLTIPS["bound"],
                                "tooltipField": "bound"}),
            ("saving", "saving", {"sort_by": "saving_s", "width": 76}),
            ("ops", "members", {"tooltipField": "ops", "width": 96})],
            columnSize="responsiveSizeToFit",
            # a click selects a group; ctrl-click adds a row, shift-click a range (for Merge)
            height="420px", options={"rowSelection": {"mode": "multiRow", "checkboxes": False,
                                                      "headerCheckbox": False,
                                                      "enableClickSelection": True}}),
    ])


def cost_tab() -> html.Div:
    """The selected group's and the whole plan's cost breakdowns, bar chart and roofline."""
    return html.Div(className="tab-body", children=[
        html.Div(id=ids.CALIBRATION_NOTE, className="hint calibration-note", role="status"),
        dcc.Interval(id=ids.CALIBRATION_POLL, interval=2000, disabled=False),
        dcc.Store(id=ids.CALIBRATION_STATE),
        html.Div(className="cost-tables", children=[
            html.Div(id=ids.COST_GROUP, className="cost-card"),
            html.Div(id=ids.COST_TOTAL, className="cost-card")]),
        dcc.Graph(id=ids.COST_BARS, config={"displaylogo": False}, className="chart"),
        html.Div(["Reading it: ", term_link("roofline", "roofline"), ", ",
                  term_link("arithmetic intensity", "arithmetic-intensity"), ", ",
                  term_link("memory-bound", "memory-bound"), " and ",
                  term_link("compute-bound", "compute-bound"), "."], className="hint"),
        dcc.Graph(id=ids.ROOFLINE, config={"displaylogo": False}, className="chart tall"),
    ])


def _jump(label, direction, taken, title):
    return html.Button(label, id={"type": ids.STEP_JUMPS, "dir": direction, "taken": taken},
                       n_clicks=0, className="btn", title=title)


def explain_tab() -> html.Div:
    """The planner's decision log and the step-through slider; XLA's grouping for comparison."""
    jumps = html.Div(className="edit-bar", children=[
        _jump("◀ taken", "prev", "yes", "The previous decision that fused"),
        _jump("taken ▶", "next", "yes", "The next decision that fused"),
        _jump("◀ refused", "prev", "no", "The previous decision that was refused"),
        _jump("refused ▶", "next", "no", "The next decision that was refused"),
        _jump("◀ any", "prev", "any", "The previous decision"),
        _jump("any ▶", "next", "any", "The next decision"),
        dcc.Dropdown(id=ids.REASON_FILTER, placeholder="any reason", clearable=True,
                     className="reason-dd"),
    ])
    return html.Div(className="tab-body", children=[
        html.Div(["Step through the planner, from every op alone to its final plan (each step "
                  "is a ", term_link("decision record", "decision"), "; the canvas follows "
                  "each step):"], className="hint"),
        dcc.Slider(id=ids.STEP_SLIDER, min=0, max=0, step=1, value=0, marks=None,
                   tooltip={"placement": "bottom", "always_visible": False},
                   updatemode="mouseup"),
        html.Div(id=ids.STEP_NOTE, className="hint", role="status"),
        jumps,
        html.Div(id=ids.STEP_TEXT, className="step-text"),
        dcc.Checklist(id=ids.XLA_TOGGLE, options=[], value=[], className="xla-toggle"),
        html.Div(id=ids.XLA_AGREEMENT, className="summary"),
        html.Div(id=ids.LOG_NOTE, className="hint"),
        grid(ids.DECISION_LOG, [
            ("step", "step", {"type": "numericColumn", "width": 80}),
            ("action", "action", {"width": 90}), ("fused", "taken", {"width": 70}),
            ("reason", "reason", {"width": 130}),
            ("message", "why", {"tooltipField": "message", "flex": 3}),
            ("nodes", "nodes", {"tooltipField": "nodes"})],
            height="420px", options={"rowClassRules": {
                "log-current": "params.data && params.data.current",
                "log-refused": "params.data && params.data.fused === 'no'"}}),
    ])


#: the correctness table's columns sized to their text (the output's name wraps in the rest)
CORRECTNESS_SIZED = ("max_abs_error", "max_rel_error", "nonfinite", "ok")


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
        # the rest of the summary, collapsed; one element kept across reports (its children
        # change), so that it stays open while the report is shown again
        html.Details(id=ids.PROFILE_DETAILS, className="summary-details",
                     style={"display": "none"}),
        html.Div([html.Span("Kernels:", className="bar-label wide"), top_choice(ids.PROFILE_TOP),
                  html.Span("top N: the slowest measured; the chart adds the rest as one bar",
                            className="hint")], className="edit-bar"),
        dcc.Graph(id=ids.PROFILE_BARS, config={"displaylogo": False}, className="chart"),
        grid(ids.PROFILE_TABLE, [
            ("group", "kernel", {"comparator": {"function": "groupOrder"}, "width": 80}),
            # the times and the ratio at fixed widths (not sized to their headers), so that
            # the column after them is in view in the side panel
            ("kind", "kind"),
            ("measured", "measured", {"sort_by": "measured_s", "width": 90,
                                      "suppressAutoSize": True, "headerTooltip": MEDIAN_TIP}),
            # the fastest run: what a busy machine's note says to compare (busy_note)
            ("min", "min", {"sort_by": "min_s", "width": 80, "suppressAutoSize": True,
                            "headerTooltip": MIN_TIP}),
            # the time the ratio is made of (ratio = typical / predicted)
            ("typical", "typical (p25)", {"sort_by": "typical_s", "width": 104,
                                          "suppressAutoSize": True,
                                          "headerTooltip": TYPICAL_TIP}),
            ("predicted", "predicted", {"sort_by": "predicted_s", "width": 90,
                                        "suppressAutoSize": True}),
            ("ratio", "ratio", {"sort_by": "ratio_x", "tooltipField": "miss",
                                "headerTooltip": RATIO_TIP, "width": 72,
                                "suppressAutoSize": True}),
            # a miss: which term was wrong (the report's PredictionCheck.text), beside the
            # ratio, on one line (whole in its tooltip, and wrapped in the list under the
            # table: ids.PROFILE_MISSES; the column runs past the side panel's edge)
            ("miss", "which term was wrong", {"tooltipField": "miss", "flex": 3,
                                              "minWidth": 200}),
            ("dominant", "dominant term", {"tooltipField": "dominant", "maxWidth": 200}),
            # the kernel's arguments, as the report's ``gbps``; the notes of a miss count the
            # cost model's bytes (workbench.costmodel.text.miss_text): the header says which
            ("gbps", "GB/s (arguments)", {"sort_by": "gbps_x", "headerTooltip": GBPS_TOOLTIP}),
            ("note", "note", {"tooltipField": "note", "flex": 1, "minWidth": 120})],
             height="300px",
             # a kernel outside [0.5, 2] x its prediction is flagged (issue 11)
             getRowStyle={"styleConditions": [{"condition": "params.data.missed",
                                               "style": {"backgroundColor": "#fde8e8"}}]}),
        # the column's text is cut at the panel's edge: each miss whole, wrapped, under it
        html.Div(id=ids.PROFILE_MISSES, className="misses"),
        html.H4("Correctness against the reference interpreter"),
        # an output's name whole: wrapped in its cell (and in the tooltip), never cut
        grid(ids.CORRECTNESS, [("output", "output", {"flex": 2, "minWidth": 160,
                                                     "wrapText": True, "autoHeight": True,
                                                     "tooltipField": "output",
                                                     "cellStyle": {"fontSize": "12px",
                                                                   "lineHeight": "18px",
                                                                   "wordBreak": "break-all"}}),
                               ("max_abs_error", "max abs error"),
                               ("max_rel_error", "max rel error"),
                               ("nonfinite", "NaN / inf"), ("ok", "ok")],
             # sized to their text, but not the output: it takes the width left, and wraps
             columnSizeOptions={"keys": list(CORRECTNESS_SIZED)}, height="160px"),
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
              dcc.Store(id=ids.SELECTED), dcc.Store(id=ids.VIEW_STATE, data=None),
              dcc.Store(id=ids.FOUND), dcc.Store(id=ids.REPLAY_STEP, data=None),
              dcc.Store(id=ids.MARKS), dcc.Store(id=ids.HIGHLIGHT),
              dcc.Store(id=ids.HIGHLIGHT_DONE), dcc.Store(id=ids.DRAW_VERSION), dcc.Store(id=ids.FIRST_VISIT, storage_type="local"),
              dcc.Store(id=ids.HEADER_VERSION), dcc.Store(id=ids.REPLAY_REQUEST),
              dcc.Store(id=ids.CRUMB_LAYER), dcc.Store(id=ids.SESSION_REQUEST),
              dcc.Store(id=ids.LINK_REQUEST), dcc.Store(id=ids.ROW_SET),
              dcc.Store(id=ids.ROW_PICK)]
    stores += [dcc.Store(id=i) for i in ids.TAB_STORES] + [dcc.Store(id=ids.STEP_SHOWN)]
    tabs = dcc.Tabs(id=ids.TABS, value=ids.TAB_PLAN, className="tabs", children=[
        dcc.Tab(plan_tab(), label="Plan", value=ids.TAB_PLAN),
        dcc.Tab(cost_tab(), label="Cost", value=ids.TAB_COST),
        dcc.Tab(explain_tab(), label="Explain", value=ids.TAB_EXPLAIN),
        dcc.Tab(profile_tab(), label="Compile & profile", value=ids.TAB_PROFILE),
        dcc.Tab(whatif_tab(_button, _table), label="What-if", value=ids.TAB_WHATIF),
        dcc.Tab(diff_tab(_button, _table), label="Diff", value=ids.TAB_DIFF)])
    return html.Div(className="app", children=stores + [
        header(choices, initial_choice, policies), first_help(),
        html.Div(className="main", children=[graph_panel(),
                                             html.Div(tabs, className="side-panel")])])

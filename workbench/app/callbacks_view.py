"""Callbacks of the graph view: draw, highlight, search, fit, open and close layers and groups,
the breadcrumb, the hover line."""

from __future__ import annotations

from dash import (ALL, ClientsideFunction, Input, Output, Patch, State, ctx, html, no_update,
                  set_props)
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids
from workbench.app import view as views
from workbench.app.drawing import vertex_ids
from workbench.app.fmt import plural
from workbench.app.graph_figure import highlight_targets, with_scoped_ids
from workbench.app.hierarchy import ROOT, find_nodes, layers_of
from workbench.app.scene import group_key
from workbench.errors import WorkbenchError

#: the checklist values of the XLA toggle
SHOW_XLA, AGREEMENT = "xla", "agree"


def triggered_ids() -> set:
    """The ids of every input that triggered the running callback (several can at once)."""
    return {t["prop_id"].split(".")[0] for t in ctx.triggered if t.get("prop_id") != "."}


def next_match(matches: list[str], current: str | None) -> str | None:
    """The match after ``current`` (wrapping round), or the first: pressing Enter again in the
    search box steps through the matches."""
    if not matches:
        return None
    if current in matches:
        return matches[(matches.index(current) + 1) % len(matches)]
    return matches[0]


def search_text(query: str, matches: list[str], node: str | None, where: str = "") -> str:
    """The line beside the search box (``where``: the layers the match is in)."""
    if node is None:
        return f"no node id, op or scope matches {query!r}" if query else ""
    at = f" in {where}" if where else ""
    if len(matches) == 1:
        return f"found {node}{at}"
    return f"found {node}{at} ({matches.index(node) + 1} of {len(matches)}; Enter for the next)"


def breadcrumb(layers, lid: str | None) -> list:
    """The breadcrumb's children: the root's name, then each layer down to ``lid``, each a
    button that centres the view on that layer."""
    if not layers.has_layers:
        return []
    chain = layers.chain(lid or ROOT)
    out = []
    for k, x in enumerate(chain):
        if k:
            out.append(html.Span("›", className="crumb-sep"))
        out.append(html.Button(layers.layers[x].name, id={"type": ids.CRUMB, "layer": x},
                               n_clicks=0, className="crumb", title="Show this layer"))
    return out


#: how the hints of *Close layer* start (the browser clears them at the next click on the
#: canvas: ``hintGate`` in assets/workbench.js)
CLOSE_HINT = "Close layer: "


def close_hint(layers) -> str:
    """What *Close layer* says when the breadcrumb names no open layer below the whole graph.
    The click it asks for selects an op (the breadcrumb then names its layer) or opens a
    layer: it does not close anything, so the hint says to press *Close layer* after it (or,
    for a graph without layers, that there is nothing to close); the click clears it."""
    if not layers.has_layers:
        return (CLOSE_HINT + "this graph has no layers (its ops have no name scopes), so "
                "there is no layer to close")
    return (CLOSE_HINT + "the breadcrumb names no layer to close; click an op in an open "
            "layer (or the layer's background), then press Close layer")


def mode_flags(xla_value) -> tuple[bool, bool]:
    """(draw XLA's grouping, colour by agreement) from the XLA checklist's value."""
    value = set(xla_value or ())
    return SHOW_XLA in value, AGREEMENT in value


def register(app, services) -> None:
    """Attach the graph view's callbacks to ``app``."""

    def session(version):
        s = services.session((version or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        return s

    def view_of(ws, graph, step, xla_value):
        show, agree = mode_flags(xla_value)
        xp = (services.xla_plan(graph, ws.device)
              if (show or agree) and controller.has_xla_grouping(graph) else None)
        replayer = None
        if step is not None:
            replayer = services.replay_index(ws.plan, graph).groups_at
        return controller.current_view(ws, graph, step, show, replayer, agree, xp)

    @app.callback(Output(ids.XLA_TOGGLE, "options"),
                  Output(ids.HOVER_INFO, "children"),
                  Output(ids.SEARCH_MSG, "children", allow_duplicate=True),
                  Output(ids.SELECTED, "data", allow_duplicate=True),
                  Output(ids.FOUND, "data", allow_duplicate=True),
                  Input(ids.HEADER_VERSION, "data"), State(ids.XLA_TOGGLE, "value"),
                  State(ids.SEARCH, "value"), prevent_initial_call=True)
    def new_graph(version, xla_value, query):
        """Another graph (or a reload): the view starts afresh. XLA's grouping is unticked
        (and offered only for a graph that has one), the hover line, search and selection
        are cleared. The toggle and the search box are set (``set_props``) only when they
        hold something: they are inputs of the canvas, which Dash would hold back until
        this answered if they were declared outputs (a ticked toggle draws again)."""
        _, graph = session(version)
        if not version.get("graph"):
            raise PreventUpdate
        options = ([{"label": " Show XLA's own grouping", "value": SHOW_XLA},
                    {"label": " Colour fusions by agreement with XLA", "value": AGREEMENT}]
                   if controller.has_xla_grouping(graph) else [])
        if xla_value:
            set_props(ids.XLA_TOGGLE, {"value": []})
        if query:
            set_props(ids.SEARCH, {"value": ""})
        return options, "", "", None, None

    app.clientside_callback(ClientsideFunction("workbench", "drawGate"),
                            Output(ids.DRAW_VERSION, "data"), Input(ids.VERSION, "data"))

    @app.callback(Output(ids.CYTO, "elements"), Output(ids.CYTO, "layout"),
                  Output(ids.CYTO, "minZoom"), Output(ids.BANNER, "children"),
                  Input(ids.DRAW_VERSION, "data"), Input(ids.VIEW_STATE, "data"),
                  Input(ids.REPLAY_STEP, "data"), Input(ids.XLA_TOGGLE, "value"))
    def draw(version, record, step, xla_value):
        """The canvas. After an edit it comes with the edit's own response
        (:func:`canvas_parts` from the plan panel's ``edit``; ``drawGate`` passes such a
        version on to ids.DRAW_VERSION no more)."""
        ws, graph = session(version)
        view = view_of(ws, graph, step, xla_value)
        elements, min_zoom, banner = canvas_parts(services, version["sid"], ws, graph, view,
                                                  record)
        triggers = triggered_ids()
        fit = not triggers or ids.XLA_TOGGLE in triggers or (
            ids.DRAW_VERSION in triggers and bool(version.get("graph")))
        # the canvas does not lay out again when its elements change (autoRefreshLayout off:
        # every element comes with its position, and dash-cytoscape's refresh ran the whole
        # layout 100 ms after each edit); a fit is asked for by a new layout value
        layout = ({"name": "preset", "fit": True, "padding": 20, "run": version.get("t")}
                  if fit else no_update)
        whole = (record or {}).get("fit")
        if not fit and ids.VIEW_STATE in triggers and whole:
            # Collapse all / Expand all: fit the whole new drawing (``whole``: not moved to a
            # readable zoom at its top, as a new graph is; assets/workbench.js)
            layout = {"name": "preset", "fit": True, "padding": 20,
                      "run": f"{version.get('t')}.{whole}", "whole": True}
        return elements, layout, min_zoom, banner

    @app.callback(Output(ids.VIEW_STATE, "data"), Output(ids.FOUND, "data",
                                                          allow_duplicate=True),
                  Output(ids.SEARCH_MSG, "children", allow_duplicate=True),
                  Input(ids.COLLAPSE_ALL, "n_clicks"), Input(ids.EXPAND_ALL, "n_clicks"),
                  Input(ids.TOGGLE_GROUP, "n_clicks"), Input(ids.CLOSE_LAYER, "n_clicks"),
                  Input(ids.CYTO, "tapNodeData"), Input({"type": ids.CRUMB, "layer": ALL},
                                                        "n_clicks"),
                  State(ids.VERSION, "data"), State(ids.VIEW_STATE, "data"),
                  State(ids.SELECTED, "data"), State(ids.REPLAY_STEP, "data"),
                  State(ids.XLA_TOGGLE, "value"), State(ids.CRUMB_LAYER, "data"),
                  prevent_initial_call=True)
    def open_close(_a, _b, _c, _d, tapped, _crumbs, version, record, selected, step, xla_value,
                   crumb):
        trigger = ctx.triggered_id
        if isinstance(trigger, dict):          # a breadcrumb: show that layer
            _, graph = session(version)
            lid = trigger.get("layer")
            if lid not in layers_of(graph).layers or not ctx.triggered[0].get("value"):
                raise PreventUpdate            # (new breadcrumb buttons fire with 0 clicks)
            return no_update, lid if lid != ROOT else no_update, ""
        if trigger == ids.CYTO and (not tapped or "layer" not in tapped or tapped.get("gid")):
            raise PreventUpdate                # a click on an op or a group: not for this view
        ws, graph = session(version)
        view = view_of(ws, graph, step, xla_value)
        layers = layers_of(graph)
        record = views.record_for(record, ws.graph_key, graph, layers, view.groups)
        _, placement = services.drawing_for(ws.graph_key, graph, view.groups)
        focus = no_update
        if trigger == ids.COLLAPSE_ALL:
            new = views.everything(record, layers, view.groups, False)
        elif trigger == ids.EXPAND_ALL:
            new = views.everything(record, layers, view.groups, True)
        elif trigger == ids.TOGGLE_GROUP:
            group = controller.group_of_node(view.groups, selected)
            if group is None or len(group["nodes"]) < 2:
                return no_update, no_update, "select a group of two or more ops to collapse " \
                                             "or expand it"
            new = views.toggle_group(record, group)
            focus = group_key(group["nodes"], vertex_ids(graph))
        elif trigger == ids.CLOSE_LAYER:
            lid = crumb if crumb in layers.layers else innermost_layer(
                layers, placement, view.groups, selected)
            if lid == ROOT or lid not in set(record.get("open", ())):
                return no_update, no_update, close_hint(layers)
            new = views.toggle_layer(record, lid, layers, view.groups, placement)
            focus = lid
        else:                                     # a click on the canvas: open a closed box
            key = tapped.get("vid") or tapped["layer"]
            opened = set(record.get("open", ()))
            if key in opened or key == ROOT:
                raise PreventUpdate
            new = views.toggle_layer(record, key, layers, view.groups, placement)
            focus = key
        if new == record:
            raise PreventUpdate
        return new, focus, ""

    # the close-layer hint goes at the next click on the canvas (what it asked for)
    app.clientside_callback(ClientsideFunction("workbench", "hintGate"),
                            Output(ids.SEARCH_MSG, "children", allow_duplicate=True),
                            Input(ids.CYTO, "tapNodeData"), State(ids.SEARCH_MSG, "children"),
                            prevent_initial_call=True)

    def innermost_layer(layers, placement, groups, selected):
        group = controller.group_of_node(groups, selected)
        if group is None:
            return placement.source_layer.get(selected, ROOT) if selected else ROOT
        gi = next(i for i, g in enumerate(groups) if g is group)
        return placement.group_layer[gi]

    @app.callback(Output(ids.HIGHLIGHT, "data"), Input(ids.SELECTED, "data"),
                  Input(ids.FOUND, "data"), Input(ids.MARKS, "data"), Input(ids.VERSION, "data"),
                  Input(ids.REPLAY_STEP, "data"), Input(ids.XLA_TOGGLE, "value"),
                  State(ids.HIGHLIGHT, "data"))
    def highlight(selected, found, marks, version, step, xla_value, shown):
        """What the canvas marks (:func:`~.graph_figure.highlight_targets`); the browser puts
        the highlight classes on those elements (``highlight`` in assets/workbench.js): the
        stylesheet never changes, which would restyle every element."""
        try:
            ws, graph = session(version)
            group = controller.group_of_node(view_of(ws, graph, step, xla_value).groups,
                                             selected)
        except WorkbenchError:
            group = None
        marked = [(marks or {}).get(k, ()) for k in ("step", "before", "after")]
        out = highlight_targets(group["id"] if group else None, found, marked)
        if out == shown:
            raise PreventUpdate
        return out

    app.clientside_callback(ClientsideFunction("workbench", "highlight"),
                            Output(ids.HIGHLIGHT_DONE, "data"), Input(ids.HIGHLIGHT, "data"),
                            Input(ids.CYTO, "elements"), State(ids.CYTO, "id"),
                            prevent_initial_call=True)

    @app.callback(Output(ids.FOUND, "data"), Output(ids.SELECTED, "data", allow_duplicate=True),
                  Output(ids.SEARCH_MSG, "children"),
                  Output(ids.VIEW_STATE, "data", allow_duplicate=True),
                  Input(ids.SEARCH, "n_submit"), Input(ids.SEARCH, "value"),
                  State(ids.VERSION, "data"), State(ids.VIEW_STATE, "data"),
                  State(ids.REPLAY_STEP, "data"), State(ids.XLA_TOGGLE, "value"),
                  State(ids.SELECTED, "data"), prevent_initial_call=True)
    def search(_n, query, version, record, step, xla_value, selected):
        """Find a node by id, op or scope; open the layers and the group that hold it."""
        ws, graph = session(version)
        view = view_of(ws, graph, step, xla_value)
        layers = layers_of(graph)
        matches = find_nodes(graph, query, layers)
        again = f"{ids.SEARCH}.value" not in ctx.triggered_prop_ids  # Enter on the same text
        node = next_match(matches, selected if again else None)
        if node is None:
            return None, no_update, search_text(query, matches, None), no_update
        record = views.record_for(record, ws.graph_key, graph, layers, view.groups)
        _, placement = services.drawing_for(ws.graph_key, graph, view.groups)
        new = views.reveal(record, [node], layers, view.groups, placement)
        where = layers.path_text(layers.node_layer.get(node) or placement.source_layer.get(
            node, ROOT))
        return (vertex_ids(graph)[node], node, search_text(query, matches, node, where),
                new if new != record else no_update)

    @app.callback(Output(ids.BREADCRUMB, "children"), Output(ids.CRUMB_LAYER, "data"),
                  Input(ids.SELECTED, "data"), Input(ids.CYTO, "tapNodeData"),
                  Input(ids.HEADER_VERSION, "data"), State(ids.VERSION, "data"),
                  State(ids.CRUMB_LAYER, "data"))
    def show_breadcrumb(selected, tapped, header, version, shown):
        """The layers down to the clicked layer or the selected op's layer; the last one is
        what *Close layer* closes. It depends on the graph (``ids.HEADER_VERSION``: not
        bumped by an edit), and is left as it is when it would show the same layers (new
        buttons would fire the breadcrumb's callback: a round trip)."""
        ws, graph = session(version)
        layers = layers_of(graph)
        lid = ROOT
        if ctx.triggered_id == ids.CYTO and tapped and tapped.get("layer"):
            lid = str(tapped["layer"]).split(":", 1)[0]
        elif selected in layers.node_layer:
            lid = layers.node_layer[selected]
        lid = lid if lid in layers.layers else ROOT
        if lid == shown and ids.HEADER_VERSION not in triggered_ids():
            raise PreventUpdate
        return breadcrumb(layers, lid), lid

    @app.callback(Output(ids.HOVER_INFO, "children", allow_duplicate=True),
                  Input(ids.CYTO, "mouseoverNodeData"), State(ids.VERSION, "data"),
                  prevent_initial_call=True)
    def hover(data, version):
        _, graph = session(version)
        if not data:
            raise PreventUpdate
        return hover_text(graph, data)

    app.clientside_callback(ClientsideFunction("workbench", "fit"),
                            Output(ids.FIT, "title"), Input(ids.FIT, "n_clicks"),
                            State(ids.CYTO, "id"), prevent_initial_call=True)
    app.clientside_callback(ClientsideFunction("workbench", "center"),
                            Output(ids.SEARCH, "title"), Input(ids.FOUND, "data"),
                            State(ids.CYTO, "id"), prevent_initial_call=True)


def canvas_parts(services, sid: str, ws, graph, view, record) -> tuple:
    """(elements, zoom floor, banner) of the canvas of ``view`` (:func:`controller.current_view`)
    under the view ``record`` for session ``sid``: what the canvas's callback sends, and an
    edit's response with it."""
    layers = layers_of(graph)
    record = views.record_for(record, ws.graph_key, graph, layers, view.groups)
    canvas = services.canvas_for(sid, ws.graph_key, graph, view.groups, record, view.mode)
    salt = f"{ws.graph_key}|{view.mode}|{record.get('open')!r}|{record.get('nodes')!r}"
    elements = with_scoped_ids(canvas.elements, salt)
    banner = " · ".join(x for x in (view.banner, canvas.layout.note) if x)
    return elements, canvas.min_zoom, banner


def hover_text(graph, data: dict) -> str:
    """The line under the canvas about the element under the pointer: an op's text, group
    and layers; a group's size; a layer's path and size."""
    layers = layers_of(graph)
    node = data.get("node")
    if data.get("layer") and not data.get("gid") and not node:
        lid = str(data["layer"]).split(":", 1)[0]
        if lid not in layers.layers:
            return ""
        if data.get("inputs"):
            return f"inputs of {layers.path_text(lid) or layers.layers[lid].name}: " \
                   f"{plural(int(data['inputs']), 'input')} (click to open)"
        return (f"layer {layers.path_text(lid)}: {plural(layers.ops_in[lid], 'op')}"
                " (click a closed layer to open it)")
    if node is None or node not in graph:
        name = f" ({data['name']})" if data.get("name") else ""
        return (f"group {data.get('gid')}{name} ({data.get('kind')}, "
                f"{plural(data.get('n_ops') or 0, 'op')})")
    where = f" — group {data['gid']} ({data['kind']})" if data.get("gid") else ""
    scope = graph.node(node).meta.get("scope")
    at = f" — {scope}" if scope else (f" — in {layers.path_text(layers.node_layer[node])}"
                                      if node in layers.node_layer and layers.has_layers
                                      else "")
    return graph.node(node).text() + where + at

"""Callbacks of the graph view: draw, highlight, search, fit, collapse and expand groups."""

from __future__ import annotations

from dash import ClientsideFunction, Input, Output, Patch, State, ctx, no_update
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids
from workbench.app.drawing import vertex_ids
from workbench.app.graph_figure import (HIGHLIGHT_SLOTS, default_collapsed, generation,
                                        graph_elements, group_node_id, highlight_rules,
                                        stylesheet, with_prefix)
from workbench.errors import WorkbenchError


def collapsed_ids(stored, graph_key: str, graph, groups) -> list[str]:
    """The ids of the groups to draw collapsed.

    ``stored`` is the browser's record, ``{"graph": key, "nodes": [...]}``: a group is collapsed
    when one of the recorded nodes (each collapsed group's first member) is in it. For a new
    graph (or none recorded) big graphs start with every group collapsed.
    """
    if not stored or stored.get("graph") != graph_key:
        return default_collapsed(graph, groups)
    reps = set(stored.get("nodes", ()))
    return [g["id"] for g in groups if len(g["nodes"]) > 1 and reps.intersection(g["nodes"])]


def collapsed_record(graph_key: str, groups, collapsed) -> dict:
    """The browser's record of which groups are collapsed (see :func:`collapsed_ids`)."""
    col = set(collapsed)
    return {"graph": graph_key, "nodes": [g["nodes"][0] for g in groups if g["id"] in col]}


def triggered_ids() -> set:
    """The ids of every input that triggered the running callback (several can at once)."""
    return {t["prop_id"].split(".")[0] for t in ctx.triggered if t.get("prop_id") != "."}


def find_node(graph, query: str) -> str | None:
    """The node named ``query``: an exact id, else the first (topological) id containing it."""
    q = (query or "").strip()
    if not q:
        return None
    if q in graph:
        return q
    ql = q.lower()
    return next((n for n in graph.topo_order if ql in n.lower()), None)


def register(app, services) -> None:
    """Attach the graph view's callbacks to ``app``."""

    def view_of(version, step, xla):
        s = services.session((version or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        ws, graph = s
        view = controller.current_view(ws, graph, step, bool(xla))
        return ws, graph, view

    @app.callback(Output(ids.CYTO, "elements"), Output(ids.CYTO, "layout"),
                  Output(ids.BANNER, "children"), Output(ids.STEP_SLIDER, "max"),
                  Output(ids.STEP_SLIDER, "value"),
                  Input(ids.VERSION, "data"), Input(ids.COLLAPSED, "data"),
                  Input(ids.STEP_SLIDER, "value"), Input(ids.XLA_TOGGLE, "value"))
    def draw(version, stored, step, xla):
        s = services.session((version or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        ws, graph = s
        n = len(ws.plan.decisions)
        triggers = triggered_ids()
        if not triggers or ids.VERSION in triggers:
            step = n  # a new plan: show it, not an old replay step
        try:
            view = controller.current_view(ws, graph, step, bool(xla))
        except WorkbenchError as exc:
            return no_update, no_update, controller.error_text(exc), n, step
        collapsed = collapsed_ids(stored, ws.graph_key, graph, view.groups)
        drawing, layout = services.drawing_for(ws, graph, view.groups, collapsed,
                                               own_layout=view.mode == "xla")
        elements = with_prefix(graph_elements(graph, view.groups, drawing, layout),
                               generation(view.groups, collapsed))
        banner = " · ".join(x for x in (view.banner, layout.note) if x)
        fit = not triggers or bool({ids.COLLAPSED, ids.XLA_TOGGLE} & triggers) or (
            ids.VERSION in triggers and bool(version.get("graph")))
        return elements, {"name": "preset", "fit": fit, "padding": 20}, banner, n, step

    @app.callback(Output(ids.COLLAPSED, "data"),
                  Input(ids.COLLAPSE_ALL, "n_clicks"), Input(ids.EXPAND_ALL, "n_clicks"),
                  Input(ids.TOGGLE_GROUP, "n_clicks"), State(ids.VERSION, "data"),
                  State(ids.COLLAPSED, "data"), State(ids.SELECTED, "data"),
                  State(ids.STEP_SLIDER, "value"), State(ids.XLA_TOGGLE, "value"),
                  prevent_initial_call=True)
    def collapse(_a, _b, _c, version, stored, selected, step, xla):
        ws, graph, view = view_of(version, step, xla)
        current = set(collapsed_ids(stored, ws.graph_key, graph, view.groups))
        if ctx.triggered_id == ids.COLLAPSE_ALL:
            current = {g["id"] for g in view.groups if len(g["nodes"]) > 1}
        elif ctx.triggered_id == ids.EXPAND_ALL:
            current = set()
        elif selected:
            current ^= {selected}
        return collapsed_record(ws.graph_key, view.groups, current)

    @app.callback(Output(ids.CYTO, "stylesheet"), Input(ids.SELECTED, "data"),
                  Input(ids.FOUND, "data"), Input(ids.VERSION, "data"),
                  Input(ids.STEP_SLIDER, "value"), Input(ids.XLA_TOGGLE, "value"))
    def highlight(selected, found, version, step, xla):
        try:
            _, _, view = view_of(version, step, xla)
            group = controller.group_of_node(view.groups, selected)
        except WorkbenchError:
            group = None
        patch = Patch()  # only the highlight rules change
        for k, rule in enumerate(highlight_rules(group["id"] if group else None, found)):
            patch[len(stylesheet()) - HIGHLIGHT_SLOTS + k] = rule
        return patch

    @app.callback(Output(ids.FOUND, "data"), Output(ids.SELECTED, "data", allow_duplicate=True),
                  Output(ids.SEARCH_MSG, "children"), Input(ids.SEARCH, "value"),
                  State(ids.VERSION, "data"), State(ids.COLLAPSED, "data"),
                  State(ids.STEP_SLIDER, "value"), State(ids.XLA_TOGGLE, "value"),
                  prevent_initial_call=True)
    def search(query, version, stored, step, xla):
        ws, graph, view = view_of(version, step, xla)
        node = find_node(graph, query)
        if node is None:
            return None, no_update, f"no node matches {query!r}" if query else ""
        owner = next((g["id"] for g in view.groups if node in g["nodes"]), None)
        collapsed = collapsed_ids(stored, ws.graph_key, graph, view.groups)
        target = group_node_id(owner) if owner in collapsed else vertex_ids(graph)[node]
        return generation(view.groups, collapsed) + target, node, f"found {node}"

    @app.callback(Output(ids.HOVER_INFO, "children"), Input(ids.CYTO, "mouseoverNodeData"),
                  State(ids.VERSION, "data"), prevent_initial_call=True)
    def hover(data, version):
        s = services.session((version or {}).get("sid"))
        if s is None or not data:
            raise PreventUpdate
        _, graph = s
        node = data.get("node")
        if node is None or node not in graph:
            return f"group {data.get('gid')} ({data.get('kind')}, {data.get('n_ops')} ops)"
        where = f" — group {data['gid']} ({data['kind']})" if data.get("gid") else ""
        return graph.node(node).text() + where

    app.clientside_callback(ClientsideFunction("workbench", "fit"),
                            Output(ids.FIT, "title"), Input(ids.FIT, "n_clicks"),
                            State(ids.CYTO, "id"), prevent_initial_call=True)
    app.clientside_callback(ClientsideFunction("workbench", "center"),
                            Output(ids.SEARCH, "title"), Input(ids.FOUND, "data"),
                            State(ids.CYTO, "id"), prevent_initial_call=True)

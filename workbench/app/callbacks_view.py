"""Callbacks of the graph view: draw, highlight, search, fit, collapse and expand groups."""

from __future__ import annotations

from dash import ClientsideFunction, Input, Output, Patch, State, ctx, no_update
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids
from workbench.app.drawing import vertex_ids
from workbench.app.fmt import plural
from workbench.app.graph_figure import (HIGHLIGHT_SLOTS, default_collapsed, generation,
                                        graph_elements, group_node_id, highlight_rules,
                                        layout_tag, stylesheet, with_prefix)
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


def next_collapsed(action: str, current, groups, selected: str | None) -> set | None:
    """The groups to draw collapsed after a toolbar button: ``all`` (every multi-op group),
    ``none``, or ``toggle`` (the group holding the selected node ``selected``); None when
    there is nothing to toggle (no selection, or a one-op kernel)."""
    if action == "all":
        return {g["id"] for g in groups if len(g["nodes"]) > 1}
    if action == "none":
        return set()
    group = controller.group_of_node(groups, selected)
    if group is None or len(group["nodes"]) < 2:
        return None
    return set(current) ^ {group["id"]}


def triggered_ids() -> set:
    """The ids of every input that triggered the running callback (several can at once)."""
    return {t["prop_id"].split(".")[0] for t in ctx.triggered if t.get("prop_id") != "."}


def find_nodes(graph, query: str) -> list[str]:
    """The ops and inputs ``query`` names, best first: the node with that exact id, then those
    whose id contains it, then those whose op does (``layer_norm`` finds ``ln1``, ``ln2``);
    each group in topological order, ignoring case."""
    q = (query or "").strip().lower()
    if not q:
        return []
    exact = [n for n in graph.topo_order if n.lower() == q]
    by_id = [n for n in graph.topo_order if q in n.lower() and n not in exact]
    seen = set(exact + by_id)
    by_op = [n for n in graph.topo_order if n not in seen and q in graph.node(n).op.lower()]
    return exact + by_id + by_op


def next_match(matches: list[str], current: str | None) -> str | None:
    """The match after ``current`` (wrapping round), or the first: pressing Enter again in the
    search box steps through the matches."""
    if not matches:
        return None
    if current in matches:
        return matches[(matches.index(current) + 1) % len(matches)]
    return matches[0]


def search_text(query: str, matches: list[str], node: str | None) -> str:
    """The line beside the search box."""
    if node is None:
        return f"no node id or op matches {query!r}" if query else ""
    if len(matches) == 1:
        return f"found {node}"
    return f"found {node} ({matches.index(node) + 1} of {len(matches)}; Enter for the next)"


def register(app, services) -> None:
    """Attach the graph view's callbacks to ``app``."""

    def view_of(version, step, xla):
        s = services.session((version or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        ws, graph = s
        view = controller.current_view(ws, graph, step, bool(xla))
        return ws, graph, view

    @app.callback(Output(ids.XLA_TOGGLE, "value"), Output(ids.XLA_TOGGLE, "options"),
                  Output(ids.HOVER_INFO, "children"),
                  Output(ids.SEARCH_MSG, "children", allow_duplicate=True),
                  Output(ids.SELECTED, "data", allow_duplicate=True),
                  Output(ids.FOUND, "data", allow_duplicate=True),
                  Output(ids.SEARCH, "value"),
                  Input(ids.VERSION, "data"), prevent_initial_call=True)
    def new_graph(version):
        """Another graph (or a reload): the view starts afresh. XLA's grouping is unticked
        (and offered only for a graph that has one), the hover line, search and selection
        are cleared; ``draw`` waits for this (its inputs include the toggle)."""
        s = services.session((version or {}).get("sid"))
        if s is None or not version.get("graph"):
            raise PreventUpdate
        options = ([{"label": " Show XLA's own grouping", "value": "xla"}]
                   if controller.has_xla_grouping(s[1]) else [])
        return [], options, "", "", None, None, ""

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
        view = controller.current_view(ws, graph, step, bool(xla))
        collapsed = collapsed_ids(stored, ws.graph_key, graph, view.groups)
        drawing, layout = services.drawing_for(ws, graph, view.groups, collapsed)
        salt = f"{ws.graph_key}|{view.mode}|{layout_tag(layout)}"
        elements = with_prefix(graph_elements(graph, view.groups, drawing, layout),
                               generation(view.groups, collapsed, salt))
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
        current = collapsed_ids(stored, ws.graph_key, graph, view.groups)
        action = {ids.COLLAPSE_ALL: "all", ids.EXPAND_ALL: "none"}.get(ctx.triggered_id,
                                                                       "toggle")
        new = next_collapsed(action, current, view.groups, selected)
        if new is None:
            raise PreventUpdate
        return collapsed_record(ws.graph_key, view.groups, new)

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
                  Output(ids.SEARCH_MSG, "children"), Input(ids.SEARCH, "n_submit"),
                  Input(ids.SEARCH, "value"), State(ids.VERSION, "data"),
                  State(ids.COLLAPSED, "data"), State(ids.STEP_SLIDER, "value"),
                  State(ids.XLA_TOGGLE, "value"), State(ids.SELECTED, "data"),
                  prevent_initial_call=True)
    def search(_n, query, version, stored, step, xla, selected):
        ws, graph, view = view_of(version, step, xla)
        matches = find_nodes(graph, query)
        again = f"{ids.SEARCH}.value" not in ctx.triggered_prop_ids  # Enter on the same text
        node = next_match(matches, selected if again else None)
        if node is None:
            return None, no_update, search_text(query, matches, None)
        owner = next((g["id"] for g in view.groups if node in g["nodes"]), None)
        collapsed = collapsed_ids(stored, ws.graph_key, graph, view.groups)
        target = group_node_id(owner) if owner in collapsed else vertex_ids(graph)[node]
        return target, node, search_text(query, matches, node)

    @app.callback(Output(ids.HOVER_INFO, "children", allow_duplicate=True),
                  Input(ids.CYTO, "mouseoverNodeData"), State(ids.VERSION, "data"),
                  prevent_initial_call=True)
    def hover(data, version):
        s = services.session((version or {}).get("sid"))
        if s is None or not data:
            raise PreventUpdate
        _, graph = s
        node = data.get("node")
        if node is None or node not in graph:
            return (f"group {data.get('gid')} ({data.get('kind')}, "
                    f"{plural(data.get('n_ops') or 0, 'op')})")
        where = f" — group {data['gid']} ({data['kind']})" if data.get("gid") else ""
        return graph.node(node).text() + where

    app.clientside_callback(ClientsideFunction("workbench", "fit"),
                            Output(ids.FIT, "title"), Input(ids.FIT, "n_clicks"),
                            State(ids.CYTO, "id"), prevent_initial_call=True)
    app.clientside_callback(ClientsideFunction("workbench", "center"),
                            Output(ids.SEARCH, "title"), Input(ids.FOUND, "data"),
                            State(ids.CYTO, "id"), prevent_initial_call=True)

"""The graph view as data: cytoscape elements and stylesheet (pure functions, no Dash).

Ops are nodes labelled with their op and result type; tensors are edges whose width grows with
their size in bytes (and whose label, shown when zoomed in, is that size). Each fusion group of two
or more drawn ops is a compound node coloured by its fusion kind; a one-op group is the op alone,
its border in the kind's colour. A duplicated producer is drawn in every group that recomputes it
(dashed border). Opaque ops are dark octagons. A collapsed group is one box.

Groups come in as plain dicts (``id``, ``kind``, ``nodes``, optional ``pinned``, ``pattern``):
:meth:`FusionGroup.to_json` gives them for a plan, :func:`grouping_from_sets` for a replay step.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from workbench.app.drawing import Drawing, build_drawing
from workbench.app.fmt import fmt_bytes
from workbench.app.graph_layout import OP_SIZE, Layout
from workbench.ir.graph import Graph
from workbench.ir.ops import Category, get_op
from workbench.planner.plan import group_kind

#: fill colour of each fusion kind (Tableau 10 palette, colour-blind safer than defaults)
KIND_COLORS = {
    "loop": "#4C78A8",
    "input": "#54A24B",
    "output": "#F58518",
    "multi-output": "#B279A2",
    "opaque": "#7F7F7F",
}
KIND_HELP = {
    "loop": "elementwise and data movement",
    "input": "a reduction with what feeds it",
    "output": "a matmul or convolution with its epilogue",
    "multi-output": "writes several values",
    "opaque": "an op the workbench cannot look inside",
}
#: groups larger than this many ops start collapsed on big graphs
COLLAPSE_ABOVE_OPS = 300


def group_node_id(gid: str) -> str:
    """The cytoscape id of a group's compound (or collapsed) node."""
    return f"grp-{gid}"


def grouping_from_plan(plan) -> list[dict]:
    """The plan's groups as the dicts this module draws."""
    return [g.to_json() for g in plan.groups]


def grouping_from_sets(graph: Graph, sets: Sequence[Iterable[str]], prefix: str = "s") -> list[dict]:
    """Member sets (a replay step) as drawable groups, with kinds by :func:`group_kind`."""
    pos = {n: k for k, n in enumerate(graph.topo_order)}
    out = []
    for i, s in enumerate(sets):
        nodes = sorted(s, key=pos.__getitem__)
        out.append({"id": f"{prefix}{i}", "kind": group_kind(graph, nodes), "nodes": nodes})
    return out


def edge_width(nbytes: int) -> float:
    """Edge width in pixels: 1 px up to 100 B, then +0.9 px per decade, at most 7 px."""
    if nbytes <= 100:
        return 1.0
    return round(min(7.0, 1.0 + 0.9 * (math.log10(nbytes) - 2.0)), 2)


def _op_label(graph: Graph, node_id: str) -> str:
    node = graph.node(node_id)
    if node.op == "parameter":
        return f"{node_id}\n{node.type}"
    if node.op == "constant":
        v = node.attrs.get("value")
        return f"{v:g}" if isinstance(v, (int, float)) else f"const {node.type}"
    return f"{node.op}\n{node.type}"


def _vertex_classes(graph: Graph, node_id: str, copy: bool, dup: bool) -> list[str]:
    node = graph.node(node_id)
    cat = get_op(node.op).category
    if node.op == "parameter":
        classes = ["source", "param"]
    elif node.op == "constant":
        classes = ["source", "const"]
    else:
        classes = ["op", f"cat-{cat}"]
    if cat == Category.OPAQUE:
        classes.append("opaque")
    if copy or dup:
        classes.append("dup")
    if graph.is_output(node_id):
        classes.append("graph-output")
    return classes


def _centroid(points: list) -> dict:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return {"x": round((min(xs) + max(xs)) / 2, 1), "y": round((min(ys) + max(ys)) / 2, 1)}


def _position(layout: Layout, drawing: Drawing, vid: str, fallback: dict) -> dict:
    p = layout.positions.get(vid)
    if p is None and "@" in vid:  # a copy the layout has not seen: beside its home vertex
        base = layout.positions.get(vid.split("@", 1)[0])
        if base is not None:
            p = (base[0] + OP_SIZE[0] * 0.6, base[1] + OP_SIZE[1] * 0.6)
    if p is None:
        return fallback
    return {"x": p[0], "y": p[1]}


def graph_elements(graph: Graph, groups: Sequence[dict], layout: Layout,
                   collapsed: Iterable[str] = (), drawing: Drawing | None = None) -> list[dict]:
    """Cytoscape elements for ``graph`` under ``groups``, placed by ``layout``.

    Parameters
    ----------
    graph : Graph
    groups : sequence of dict
        ``id``, ``kind``, ``nodes`` (and optional ``pinned``, ``pattern``), in plan order.
    layout : Layout
        Positions by drawing vertex id; vertices it lacks (a copy made by an edit after the
        layout was computed) are put beside their home vertex.
    collapsed : iterable of str
        Ids of groups to draw as a single box.
    drawing : Drawing, optional
        ``build_drawing(graph, [g["nodes"] for g in groups])``, if already built.

    Returns
    -------
    list of dict
        Group nodes first (cytoscape needs parents before children), then ops, then edges.
    """
    drawing = drawing or build_drawing(graph, [g["nodes"] for g in groups])
    collapsed = set(collapsed)
    group_vertices: dict[int, list] = {}
    for v in drawing.vertices:
        if v.group is not None:
            group_vertices.setdefault(v.group, []).append(v)
    dup_nodes = {v.node for v in drawing.vertices if v.copy}
    elements: list[dict] = []
    drawn_as: dict[str, str] = {}
    origin = {"x": 0.0, "y": 0.0}
    for gi, g in enumerate(groups):
        members = group_vertices.get(gi, [])
        gid, kind = g["id"], g["kind"]
        n_ops = len(g["nodes"])
        label = f"{gid} · {kind}" + (f" · {g['pattern']}" if g.get("pattern") else "")
        classes = ["group", f"kind-{kind}"] + (["pinned"] if g.get("pinned") else [])
        data = {"id": group_node_id(gid), "gid": gid, "kind": kind, "n_ops": n_ops,
                "rep": g["nodes"][0]}
        if gid in collapsed:
            pts = [tuple(_position(layout, drawing, v.id, origin).values()) for v in members]
            elements.append({"data": {**data, "label": f"{label}\n{n_ops} ops"},
                             "position": _centroid(pts) if pts else origin,
                             "classes": " ".join(classes + ["collapsed"])})
            for v in members:
                drawn_as[v.id] = group_node_id(gid)
        elif len(members) > 1:
            elements.append({"data": {**data, "label": label}, "classes": " ".join(classes)})
    for v in drawing.vertices:
        if v.id in drawn_as:
            continue
        data = {"id": v.id, "node": v.node, "label": _op_label(graph, v.node)}
        classes = _vertex_classes(graph, v.node, v.copy, v.node in dup_nodes)
        if v.group is not None:
            g = groups[v.group]
            data.update(gid=g["id"], kind=g["kind"])
            if len(group_vertices[v.group]) > 1:
                data["parent"] = group_node_id(g["id"])
            else:
                classes += ["single", f"kind-{g['kind']}"]
        drawn_as[v.id] = v.id
        elements.append({"data": data, "position": _position(layout, drawing, v.id, origin),
                         "classes": " ".join(classes)})
    elements.extend(_edges(drawing, drawn_as))
    return elements


def _edges(drawing: Drawing, drawn_as: dict) -> list[dict]:
    seen: dict[tuple, int] = {}
    out: list[dict] = []
    for e in drawing.edges:
        s, t = drawn_as[e.source], drawn_as[e.target]
        if s == t:
            continue  # inside a collapsed group
        key = (s, t, e.value)
        if key in seen:
            continue
        seen[key] = len(out)
        out.append({"data": {"id": f"e{len(out)}", "source": s, "target": t, "value": e.value,
                             "bytes": e.nbytes, "label": fmt_bytes(e.nbytes),
                             "width": edge_width(e.nbytes)}})
    return out


def default_collapsed(graph: Graph, groups: Sequence[dict],
                      threshold: int = COLLAPSE_ABOVE_OPS) -> list[str]:
    """Groups to collapse when a graph is first shown: every multi-op group above ``threshold`` ops."""
    n_ops = sum(1 for n in graph.nodes if n.op not in ("parameter", "constant"))
    if n_ops <= threshold:
        return []
    return [g["id"] for g in groups if len(g["nodes"]) > 1]


def stylesheet(selected_gid: str | None = None, found: str | None = None) -> list[dict]:
    """The cytoscape stylesheet; highlights group ``selected_gid`` and vertex ``found``.

    Both are ids made by the workbench (group ids, drawing ids), safe inside a selector.
    """
    rules = [
        {"selector": "node", "style": {
            "label": "data(label)", "text-wrap": "wrap", "text-valign": "center",
            "text-halign": "center", "font-size": 12, "font-family": "Inter, Helvetica, sans-serif",
            "width": OP_SIZE[0] - 8, "height": OP_SIZE[1] - 8, "shape": "round-rectangle",
            "background-color": "#ffffff", "border-width": 1, "border-color": "#8a8f98",
            "color": "#1f2328", "min-zoomed-font-size": 5}},
        {"selector": "node.source", "style": {
            "shape": "ellipse", "width": 80, "height": 24, "background-color": "#eef1f4",
            "font-size": 10, "color": "#57606a", "border-color": "#c5cad1"}},
        {"selector": "node.const", "style": {"width": 40, "height": 18, "border-style": "dotted"}},
        {"selector": "node.opaque", "style": {
            "shape": "octagon", "background-color": "#3b3f45", "color": "#ffffff",
            "border-color": "#000000", "border-width": 2}},
        {"selector": "node.dup", "style": {"border-style": "dashed", "border-width": 2,
                                           "border-color": "#c0392b"}},
        {"selector": "node.graph-output", "style": {"border-width": 3, "border-color": "#1f2328"}},
        {"selector": "node.group", "style": {
            "shape": "round-rectangle", "background-opacity": 0.12, "border-width": 2,
            "text-valign": "top", "text-halign": "center", "font-size": 14, "font-weight": "bold",
            "padding": 10, "min-zoomed-font-size": 4}},
        {"selector": "node.group.collapsed", "style": {
            "width": 150, "height": 50, "background-opacity": 0.85, "color": "#ffffff",
            "text-valign": "center"}},
        {"selector": "node.pinned", "style": {"border-style": "double", "border-width": 5}},
        {"selector": "edge", "style": {
            "width": "data(width)", "curve-style": "bezier", "target-arrow-shape": "triangle",
            "arrow-scale": 0.8, "line-color": "#9aa3ad", "target-arrow-color": "#9aa3ad",
            "label": "data(label)", "font-size": 9, "color": "#57606a",
            "text-background-color": "#ffffff", "text-background-opacity": 0.8,
            "min-zoomed-font-size": 9}},
        {"selector": ":selected", "style": {"overlay-color": "#0969da", "overlay-opacity": 0.25}},
    ]
    for kind, color in KIND_COLORS.items():
        rules.append({"selector": f"node.group.kind-{kind}",
                      "style": {"background-color": color, "border-color": color,
                                "color": color}})
        rules.append({"selector": f"node.single.kind-{kind}",
                      "style": {"border-color": color, "border-width": 3}})
    rules.append({"selector": "node.group.collapsed", "style": {"color": "#ffffff"}})
    if selected_gid:
        rules.append({"selector": f'node[gid = "{selected_gid}"]', "style": {
            "border-width": 4, "border-color": "#d73a49", "background-opacity": 0.3}})
    if found:
        rules.append({"selector": f'node[id = "{found}"]', "style": {
            "border-width": 5, "border-color": "#d73a49", "overlay-color": "#d73a49",
            "overlay-opacity": 0.2}})
    return rules

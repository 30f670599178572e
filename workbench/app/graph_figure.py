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

import hashlib
import math
from collections.abc import Iterable, Sequence

from workbench.app.drawing import Drawing, scalar_constant
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
#: how groups that are not per-call kernels are drawn (legend text)
ROLE_HELP = {
    "offline": "dashed box: folds weights once, when they are loaded",
    "dead": "faded: no graph output depends on it",
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


def _constant_text(graph: Graph, node_id: str) -> str:
    v = graph.node(node_id).attrs.get("value")
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)[:12]
    return f"{v:.4g}"


def _op_label(graph: Graph, node_id: str) -> str:
    """``op`` (with the values of scalar constant operands) over the result type."""
    node = graph.node(node_id)
    if node.op == "parameter":
        return f"{node_id}\n{node.type}"
    if node.op == "constant":
        return f"constant\n{node.type}"
    consts = [_constant_text(graph, o) for o in node.operands if scalar_constant(graph, o)]
    head = f"{node.op}({', '.join(consts)})" if consts else node.op
    return f"{head}\n{node.type}"


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


def _position(layout: Layout, vid: str) -> dict:
    """The vertex's position; a copy the layout has not seen goes beside its home vertex."""
    p = layout.positions.get(vid)
    if p is None and "@" in vid:
        base = layout.positions.get(vid.split("@", 1)[0])
        if base is not None:
            p = (base[0] + OP_SIZE[0] * 0.6, base[1] + OP_SIZE[1] * 0.6)
    return {"x": p[0], "y": p[1]} if p is not None else {"x": 0.0, "y": 0.0}


def _group_data(g: dict) -> tuple[dict, list[str]]:
    gid, kind = g["id"], g["kind"]
    label = f"{gid} · {kind}" + (f" · {g['pattern']}" if g.get("pattern") else "")
    classes = ["group", f"kind-{kind}"] + (["pinned"] if g.get("pinned") else [])
    if g.get("role"):
        classes.append(f"role-{g['role']}")  # offline (folded weights) or dead
    data = {"id": group_node_id(gid), "gid": gid, "kind": kind, "n_ops": len(g["nodes"]),
            "rep": g["nodes"][0], "label": label}
    return data, classes


def graph_elements(graph: Graph, groups: Sequence[dict], drawing: Drawing,
                   layout: Layout) -> list[dict]:
    """Cytoscape elements for ``graph`` drawn as ``drawing`` under ``groups``, placed by ``layout``.

    Parameters
    ----------
    graph : Graph
    groups : sequence of dict
        ``id``, ``kind``, ``nodes`` (and optional ``pinned``, ``pattern``), in plan order: the
        groups ``drawing`` was built for.
    drawing : Drawing
        From :func:`~workbench.app.drawing.build_drawing`, possibly with some groups collapsed
        (:func:`~workbench.app.drawing.collapse`).
    layout : Layout
        Positions by drawing vertex id.

    Returns
    -------
    list of dict
        Group nodes first (cytoscape needs parents before children), then ops, then edges.
    """
    counts: dict[int, int] = {}
    for v in drawing.vertices:
        if v.group is not None:
            counts[v.group] = counts.get(v.group, 0) + 1
    dup_nodes = {v.node for v in drawing.vertices if v.copy}
    elements: list[dict] = []
    ops: list[dict] = []
    rename: dict[str, str] = {}
    for v in drawing.vertices:
        g = groups[v.group] if v.group is not None else None
        if v.box:
            data, classes = _group_data(g)
            rename[v.id] = data["id"]
            data["label"] += f"\n{data['n_ops']} ops"
            elements.append({"data": data, "position": _position(layout, v.id),
                             "classes": " ".join(classes + ["collapsed"])})
            continue
        data = {"id": v.id, "node": v.node, "label": _op_label(graph, v.node)}
        classes = _vertex_classes(graph, v.node, v.copy, v.node in dup_nodes)
        if g is not None:
            data.update(gid=g["id"], kind=g["kind"])
            if g.get("role"):
                classes.append(f"role-{g['role']}")
            if counts[v.group] > 1:
                data["parent"] = group_node_id(g["id"])
            else:
                classes += ["single", f"kind-{g['kind']}"]
        ops.append({"data": data, "position": _position(layout, v.id),
                    "classes": " ".join(classes)})
    for gi, n in sorted(counts.items()):
        if n > 1:
            data, classes = _group_data(groups[gi])
            elements.append({"data": data, "classes": " ".join(classes)})
    return elements + ops + _edges(drawing, rename)


def generation(groups: Sequence[dict], collapsed: Iterable[str]) -> str:
    """A short tag of a grouping and its collapsed groups, prefixed to every element id.

    dash-cytoscape updates the canvas by element id; removing a compound node removes its
    children with it, and an op that stays (same id) would then be lost. Giving every element
    of a different grouping a different id makes cytoscape replace the drawing whole, while
    redrawing the same grouping (a new highlight, a search) changes no id.
    """
    key = repr((sorted(tuple(sorted(g["nodes"])) for g in groups), sorted(collapsed)))
    return hashlib.sha256(key.encode()).hexdigest()[:6] + ":"


def with_prefix(elements: list[dict], prefix: str) -> list[dict]:
    """The elements with ``prefix`` in front of every id and every reference to one."""
    out = []
    for e in elements:
        data = dict(e["data"])
        for key in ("id", "parent", "source", "target"):
            if key in data:
                data[key] = prefix + data[key]
        out.append({**e, "data": data})
    return out


def _edges(drawing: Drawing, rename: dict) -> list[dict]:
    """Edge elements; an edge's id names its ends and its value's producer vertex, so an id
    is never reused for other ends when the drawing changes (cytoscape cannot move an edge)."""
    out = []
    for e in drawing.edges:
        s, t = rename.get(e.source, e.source), rename.get(e.target, e.target)
        out.append({"data": {"id": f"{s}>{t}>{e.producer}", "source": s, "target": t,
                             "value": e.value, "bytes": e.nbytes, "label": fmt_bytes(e.nbytes),
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
            "padding": 10, "min-zoomed-font-size": 4, "text-background-color": "#ffffff",
            "text-background-opacity": 0.85, "text-background-padding": 2}},
        {"selector": "node.group.collapsed", "style": {
            "width": 150, "height": 50, "background-opacity": 0.85, "color": "#ffffff",
            "text-valign": "center", "text-background-opacity": 0}},
        {"selector": "node.pinned", "style": {"border-style": "double", "border-width": 5}},
        {"selector": "edge", "style": {
            "width": "data(width)", "curve-style": "bezier", "target-arrow-shape": "triangle",
            "arrow-scale": 0.8, "line-color": "#9aa3ad", "target-arrow-color": "#9aa3ad",
            "label": "data(label)", "font-size": 9, "color": "#57606a",
            "text-background-color": "#ffffff", "text-background-opacity": 0.8,
            "min-zoomed-font-size": 9}},
        {"selector": ":selected", "style": {"overlay-color": "#0969da", "overlay-opacity": 0.25}},
        {"selector": ".role-dead", "style": {"opacity": 0.45}},
        {"selector": "node.group.role-offline", "style": {"border-style": "dashed"}},
    ]
    for kind, color in KIND_COLORS.items():
        rules.append({"selector": f"node.group.kind-{kind}",
                      "style": {"background-color": color, "border-color": color,
                                "color": color}})
        rules.append({"selector": f"node.single.kind-{kind}",
                      "style": {"border-color": color, "border-width": 3}})
    rules.append({"selector": "node.group.collapsed", "style": {"color": "#ffffff"}})
    return rules + highlight_rules(selected_gid, found)


#: the highlight rules are the stylesheet's last two entries (patched in place by the app)
HIGHLIGHT_SLOTS = 2


def highlight_rules(selected_gid: str | None, found: str | None) -> list[dict]:
    """The two highlight rules: the selected group, the vertex found by search.

    An unused slot gets a selector that matches nothing, so the stylesheet keeps its length and
    the app can replace just these entries (``dash.Patch``).
    """
    return [
        {"selector": f'node[gid = "{selected_gid}"]' if selected_gid else "node.none",
         "style": {"border-width": 4, "border-color": "#d73a49", "background-opacity": 0.3}},
        {"selector": f'node[id = "{found}"]' if found else "node.none",
         "style": {"border-width": 5, "border-color": "#d73a49", "overlay-color": "#d73a49",
                   "overlay-opacity": 0.2}},
    ]

"""The graph view as data: cytoscape elements and stylesheet (pure functions, no Dash).

Ops are nodes labelled with their id, op and result type; tensors are edges whose width grows with
their size in bytes (and whose label, shown when zoomed in, is that size). Each fusion group of two
or more drawn ops is a compound node coloured by its fusion kind; a one-op group is the op alone,
its border in the kind's colour. A duplicated producer is drawn in every group that recomputes it
(dashed border). Opaque ops are dark octagons. A collapsed group is one box.

Groups come in as plain dicts (``id``, ``kind``, ``nodes``, optional ``pinned``, ``pattern``,
``role``, ``mark``):
:meth:`FusionGroup.to_json` gives them for a plan, :func:`grouping_from_sets` for a replay step.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence

from workbench.app.drawing import Drawing, scalar_constant
from workbench.app.fmt import fmt_bytes, plural
from workbench.app.graph_layout import (DRAWN_BOX, DRAWN_OP, DRAWN_SOURCE, GROUP_PADDING, Layout,
                                        position_of)
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
#: the longest id or pattern name a label shows whole (the hover line and tables show all)
LABEL_CHARS = 20
#: the selected group's colour and the colour of the node found by search (neither is a
#: fusion kind's colour, nor the red of a duplicated producer)
SELECT_COLOR = "#0969da"
FOUND_COLOR = "#bf8700"


def group_node_id(gid: str) -> str:
    """The cytoscape id of a group's compound (or collapsed) node."""
    return f"grp-{gid}"


def grouping_from_plan(plan, marks: dict | None = None) -> list[dict]:
    """The plan's groups as the dicts this module draws; ``marks`` (group id -> ``pinned``,
    ``rejected`` or ``kept apart``) is added to them as ``mark``."""
    out = []
    for g in plan.groups:
        d = g.to_json()
        if (marks or {}).get(g.id):
            d["mark"] = marks[g.id]
        out.append(d)
    return out


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


def short(text: str, limit: int = LABEL_CHARS) -> str:
    """``text``, cut to ``limit`` characters with an ellipsis when longer."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _op_label(graph: Graph, node_id: str) -> str:
    """The node's id, its op (with the values of scalar constant operands), its result type.

    The op line is left out when it would only repeat the id (``exp`` called ``exp``, or an
    HLO name such as ``multiply.3`` for a multiply without constant operands).
    """
    node = graph.node(node_id)
    if node.op in ("parameter", "constant"):
        return f"{short(node_id)}\n{node.type}"
    consts = [_constant_text(graph, o) for o in node.operands if scalar_constant(graph, o)]
    head = f"{node.op}({', '.join(consts)})" if consts else node.op
    lines = [short(node_id)]
    if not (node_id == head or (not consts and node_id.startswith(node.op + "."))):
        lines.append(short(head))
    return "\n".join(lines + [str(node.type)])


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
    """The vertex's position (:func:`~workbench.app.graph_layout.position_of`) for cytoscape."""
    x, y = position_of(layout, vid)
    return {"x": x, "y": y}


def _mark_classes(g: dict) -> list[str]:
    """Classes for a group's edit state: ``pinned``, ``rejected`` (``mark``), its ``role``."""
    classes = ["pinned"] if g.get("pinned") or g.get("mark") == "pinned" else []
    if g.get("mark") == "rejected":
        classes.append("rejected")
    if g.get("role"):
        classes.append(f"role-{g['role']}")  # offline (folded weights) or dead
    return classes


def _group_data(g: dict, collapsed: bool = False) -> tuple[dict, list[str]]:
    """A group node's data and classes; a collapsed group's label has its size, on lines of
    their own so that the box's width does not cut its id off."""
    gid, kind = g["id"], g["kind"]
    pattern = short(g["pattern"]) if g.get("pattern") else ""
    if collapsed:
        label = "\n".join([f"{gid} · {kind}"] + ([pattern] if pattern else [])
                          + [plural(len(g["nodes"]), "op")])
    else:
        label = f"{gid} · {kind}" + (f" · {pattern}" if pattern else "")
    classes = ["group", f"kind-{kind}"] + _mark_classes(g)
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
            data, classes = _group_data(g, collapsed=True)
            rename[v.id] = data["id"]
            elements.append({"data": data, "position": _position(layout, v.id),
                             "classes": " ".join(classes + ["collapsed"])})
            continue
        data = {"id": v.id, "node": v.node, "label": _op_label(graph, v.node)}
        classes = _vertex_classes(graph, v.node, v.copy, v.node in dup_nodes)
        if g is not None:
            data.update(gid=g["id"], kind=g["kind"])
            if counts[v.group] > 1:
                data["parent"] = group_node_id(g["id"])
                classes += [f"role-{g['role']}"] if g.get("role") else []
            else:
                classes += ["single", f"kind-{g['kind']}"] + _mark_classes(g)
        ops.append({"data": data, "position": _position(layout, v.id),
                    "classes": " ".join(classes)})
    titles = []
    for gi, n in sorted(counts.items()):
        if n > 1:
            data, classes = _group_data(groups[gi])
            elements.append({"data": data, "classes": " ".join(classes)})
            titles.append(_title(groups[gi], data["label"], [
                position_of(layout, v.id) for v in drawing.vertices if v.group == gi]))
    return elements + ops + titles + _edges(drawing, rename)


#: a group title's distance above its box's top edge (pixels, to the label's centre line)
TITLE_RISE = 10.0


def _title(g: dict, label: str, member_xy) -> dict:
    """The title of an expanded group: a label-only node just above the group's box.

    A compound node's own label is drawn beneath the edges that cross it (cytoscape draws a
    parent before its children and their edges); a separate node drawn on top keeps the id and
    kind readable. It takes no pointer events (clicks reach the box beneath), carries no
    ``gid`` (the selection highlight is for the box and its ops) and sits where cytoscape puts
    the box: the members' bounding box plus the compound padding.
    """
    xs = [x for x, _ in member_xy]
    top = min(y for _, y in member_xy) - DRAWN_OP[1] / 2 - GROUP_PADDING
    return {"data": {"id": f"ttl-{g['id']}", "title_of": g["id"], "label": label},
            "position": {"x": (min(xs) + max(xs)) / 2, "y": top - TITLE_RISE},
            "classes": " ".join(["title", f"kind-{g['kind']}"] + (
                [f"role-{g['role']}"] if g.get("role") else []))}


def generation(groups: Sequence[dict], collapsed: Iterable[str], salt: str = "") -> str:
    """A short tag of a drawing, prefixed to every element id: its grouping (members, ids,
    kinds, marks), its collapsed groups, and ``salt`` (the app passes the graph's key, the view
    and a tag of the layout).

    dash-cytoscape updates the canvas by element id; removing a compound node removes its
    children with it, and an op that stays (same id) would then be lost. Giving every element
    of another drawing (another graph, grouping, view or layout) another id makes cytoscape
    replace the drawing whole, so the canvas cannot keep a stale part of an earlier one, while
    redrawing the same drawing (a new highlight, a search) changes no id.
    """
    key = repr((salt, [(g["id"], g["kind"], tuple(g["nodes"]), g.get("mark"), g.get("pinned"),
                        g.get("role"), g.get("pattern")) for g in groups], sorted(collapsed)))
    return hashlib.sha256(key.encode()).hexdigest()[:8] + ":"


def layout_tag(layout: Layout) -> str:
    """A short tag of a layout's positions (for :func:`generation`'s ``salt``)."""
    return hashlib.sha256(repr(sorted(layout.positions.items())).encode()).hexdigest()[:8]


def with_prefix(elements: list[dict], prefix: str) -> list[dict]:
    """The elements with ``prefix`` in front of every id and every reference to one; each
    node keeps its unprefixed id as ``vid`` (search and highlights find it by that)."""
    out = []
    for e in elements:
        data = dict(e["data"])
        if "source" not in data:
            data["vid"] = data["id"]
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
            "text-halign": "center", "font-size": 11, "font-family": "Inter, Helvetica, sans-serif",
            "width": DRAWN_OP[0], "height": DRAWN_OP[1], "shape": "round-rectangle",
            "text-max-width": DRAWN_OP[0] - 4, "background-color": "#ffffff",
            "border-width": 1, "border-color": "#8a8f98", "color": "#1f2328",
            "min-zoomed-font-size": 5}},
        {"selector": "node.source", "style": {
            "shape": "ellipse", "width": DRAWN_SOURCE[0], "height": DRAWN_SOURCE[1],
            "background-color": "#eef1f4", "font-size": 9, "color": "#57606a",
            "border-color": "#c5cad1"}},
        {"selector": "node.const", "style": {"border-style": "dotted"}},
        {"selector": "node.opaque", "style": {
            "shape": "octagon", "background-color": "#3b3f45", "color": "#ffffff",
            "border-color": "#000000", "border-width": 2}},
        {"selector": "node.dup", "style": {"border-style": "dashed", "border-width": 2,
                                           "border-color": "#c0392b"}},
        {"selector": "node.graph-output", "style": {"border-width": 3, "border-color": "#1f2328"}},
        {"selector": "node.group", "style": {
            "shape": "round-rectangle", "background-opacity": 0.12, "border-width": 2,
            "label": "", "padding": GROUP_PADDING}},  # titled by a node of its own (_title)
        {"selector": "node.group.collapsed", "style": {
            "label": "data(label)", "width": DRAWN_BOX[0], "height": DRAWN_BOX[1],
            "background-opacity": 0.85, "font-size": 12, "font-weight": "bold",
            "text-valign": "center", "text-max-width": DRAWN_BOX[0] - 6}},
        {"selector": "node.title", "style": {
            "width": 1, "height": 1, "background-opacity": 0, "border-width": 0,
            "font-size": 14, "font-weight": "bold", "text-max-width": 600,
            "text-background-color": "#ffffff", "text-background-opacity": 0.9,
            "text-background-padding": 2, "min-zoomed-font-size": 4, "events": "no",
            "z-compound-depth": "top", "z-index": 10}},
        {"selector": "edge", "style": {
            "width": "data(width)", "curve-style": "bezier", "target-arrow-shape": "triangle",
            "arrow-scale": 0.8, "line-color": "#9aa3ad", "target-arrow-color": "#9aa3ad",
            "label": "data(label)", "font-size": 9,
            "color": "#57606a", "text-background-color": "#ffffff",
            "text-background-opacity": 0.8, "min-zoomed-font-size": 9}},
        {"selector": ":selected", "style": {"overlay-color": SELECT_COLOR,
                                            "overlay-opacity": 0.25}},
        {"selector": ".role-dead", "style": {"opacity": 0.45}},
        {"selector": "node.group.role-offline", "style": {"border-style": "dashed"}},
    ]
    for kind, color in KIND_COLORS.items():
        rules.append({"selector": f"node.group.kind-{kind}",
                      "style": {"background-color": color, "border-color": color,
                                "color": color}})
        rules.append({"selector": f"node.single.kind-{kind}",
                      "style": {"border-color": color, "border-width": 3}})
        rules.append({"selector": f"node.title.kind-{kind}", "style": {"color": color}})
    rules += [
        {"selector": "node.group.collapsed", "style": {"color": "#ffffff"}},
        {"selector": "node.pinned", "style": {"border-style": "double", "border-width": 6}},
        {"selector": "node.rejected", "style": {"border-style": "dotted", "border-width": 3,
                                                "border-color": "#57606a"}},
    ]
    return rules + highlight_rules(selected_gid, found)


#: the highlight rules are the stylesheet's last two entries (patched in place by the app)
HIGHLIGHT_SLOTS = 2


def highlight_rules(selected_gid: str | None, found: str | None) -> list[dict]:
    """The two highlight rules: the selected group (a solid blue border on its box and ops),
    the vertex found by search (an amber glow); neither looks like the red dashes of a
    duplicated producer.

    ``found`` is an unprefixed drawing id (``v12``, ``grp-g3``: the elements' ``vid``). An
    unused slot gets a selector that matches nothing, so the stylesheet keeps its length and
    the app can replace just these entries (``dash.Patch``).
    """
    return [
        {"selector": f'node[gid = "{selected_gid}"]' if selected_gid else "node.none",
         "style": {"border-width": 4, "border-color": SELECT_COLOR, "border-style": "solid"}},
        {"selector": f'node[vid = "{found}"]' if found else "node.none",
         "style": {"underlay-color": FOUND_COLOR, "underlay-opacity": 0.45,
                   "underlay-padding": 10}},
    ]

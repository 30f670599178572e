"""The graph view as data: cytoscape elements and stylesheet (pure functions, no Dash).

Ops are nodes labelled with their id, op and result type; tensors are edges whose width grows with
their size in bytes (and whose label, shown when zoomed in, is that size). Layers of the name
stack are light boxes titled with their name, or, closed, one grey box with its size. Each fusion
group of two or more drawn ops is a compound node coloured by its fusion kind; a one-op group is
the op alone, its border in the kind's colour. A duplicated producer is drawn in every group that
recomputes it (dashed border). Opaque ops are dark octagons. A collapsed group is one box.

Groups come in as plain dicts (``id``, ``kind``, ``nodes``, optional ``pinned``, ``pattern``,
``role``, ``mark``, ``name`` (XLA's fusion name), ``xla`` (``both``, ``ours``, ``xla``)):
:meth:`FusionGroup.to_json` gives them for a plan, :func:`grouping_from_sets` for a replay step.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence

from workbench.app.drawing import scalar_constant
from workbench.app.fmt import fmt_bytes, fmt_count, plural
from workbench.app.hierarchy import ROOT, Layers
from workbench.app.scene import (GROUP_BOX, GROUP_PAD, LAYER_BOX, LAYER_PAD, OP_SIZE,
                                 SOURCE_SIZE, Scene)
from workbench.app.scene_layout import SceneLayout
from workbench.ir.graph import Graph
from workbench.ir.ops import Category, get_op
from workbench.planner.plan import group_kind

#: fill colour of each fusion kind (Tableau 10 palette, colour-blind safer than defaults)
KIND_COLORS = {
    "loop": "#4C78A8",
    "input": "#2E9C9C",
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
    "input": "XLA's name for a reduction fusion: a reduction with what feeds it (not a graph "
             "input)",
    "output": "a matmul or convolution with its epilogue",
    "multi-output": "writes several values",
    "opaque": "an op the workbench cannot look inside",
}
#: what the legend calls each kind (XLA's "input" fusion is a reduction, not a graph input)
KIND_LABELS = {"loop": "loop", "input": "input (reduction)", "output": "output (matmul/conv)",
               "multi-output": "multi-output", "opaque": "opaque"}
#: with more ops than this a graph opens with its layers closed and its groups collapsed
COLLAPSE_ABOVE_OPS = 300
#: the longest id or pattern name a label shows whole (the hover line and tables show all)
LABEL_CHARS = 20
#: the selected group's colour and the colour of the node found by search (neither is a
#: fusion kind's colour, nor the red of a duplicated producer)
SELECT_COLOR = "#0969da"
#: a one-op group's border (pixels; a group's box has 2, the selection 4) and the share of its
#: kind's colour in its fill (a group's box: 0.12 of it over the canvas)
SINGLE_BORDER, SINGLE_TINT = 2, 0.12


def tint(color: str, share: float) -> str:
    """``color`` (``#rrggbb``) mixed with white, ``share`` of it kept: an opaque fill that
    looks like a group box's translucent one."""
    rgb = [int(color[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 - (255 - c) * share):02x}" for c in rgb)
FOUND_COLOR = "#bf8700"


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


def _mark_classes(g: dict) -> list[str]:
    """Classes for a group's edit state: ``pinned``, ``rejected`` (``mark``), its ``role``,
    and ``xla-<status>`` (``both``, ``ours``, ``xla``) when compared with XLA."""
    classes = ["pinned"] if g.get("pinned") or g.get("mark") == "pinned" else []
    if g.get("mark") == "rejected":
        classes.append("rejected")
    if g.get("role"):
        classes.append(f"role-{g['role']}")  # offline (folded weights) or dead
    if g.get("xla"):
        classes.append(f"xla-{g['xla']}")
    return classes


def group_title(g: dict) -> str:
    """A group's title: its id (or XLA's fusion name), kind and pattern."""
    name = short(g.get("name") or g["id"], 40)
    pattern = short(g["pattern"]) if g.get("pattern") else ""
    return f"{name} · {g['kind']}" + (f" · {pattern}" if pattern else "")


def _group_data(g: dict, item, collapsed: bool, rep: str | None = None
                ) -> tuple[dict, list[str]]:
    """A group node's data and classes; a collapsed group's label has its size, on lines of
    their own so that the box's width does not cut its id off. ``rep``: the member a click
    on the box selects (one that no earlier group holds: a duplicated producer would select
    the first group that recomputes it)."""
    kind = g["kind"]
    if collapsed:
        pattern = short(g["pattern"]) if g.get("pattern") else ""
        label = "\n".join([f"{short(g.get('name') or g['id'])} · {kind}"]
                          + ([pattern] if pattern else []) + [plural(len(g["nodes"]), "op")])
    else:
        label = group_title(g)
    classes = ["group", f"kind-{kind}"] + _mark_classes(g)
    data = {"id": item.key, "gid": g["id"], "kind": kind, "n_ops": len(g["nodes"]),
            "rep": rep or g["nodes"][0], "label": label}
    if g.get("name"):
        data["name"] = g["name"]
    return data, classes


def _layer_data(item, layers: Layers, scene: Scene) -> tuple[dict, list[str]]:
    """A layer's (or a layer's inputs box's) data and classes."""
    lid = item.ref
    if item.kind == "inputs":
        label = f"inputs · {plural(item.n_vertices, 'input')}"
        return ({"id": item.key, "layer": lid, "inputs": item.n_vertices, "label": label},
                ["layer", "inputs"] + (["closed"] if item.box else []))
    name = short(layers.layers[lid].name, 40)
    kernels = _kernels_in(item)
    if item.box:
        label = "\n".join([name, f"{fmt_count(layers.ops_in[lid])} ops"
                           + (f" · {plural(kernels, 'kernel')}" if kernels else "")])
    else:
        label = name
    return ({"id": item.key, "layer": lid, "n_ops": layers.ops_in[lid], "label": label},
            ["layer"] + (["closed"] if item.box else []))


def _kernels_in(item) -> int:
    """Multi-op groups drawn inside an open layer (for a closed one: unknown here, 0)."""
    return sum(1 for it in item.walk() if it.kind == "group")


def scene_elements(graph: Graph, groups: Sequence[dict], scene: Scene, layout: SceneLayout,
                   layers: Layers) -> list[dict]:
    """Cytoscape elements for a scene (:mod:`.scene`) placed by ``layout``.

    Parameters
    ----------
    groups : sequence of dict
        ``id``, ``kind``, ``nodes`` (optional ``pinned``, ``pattern``, ``role``, ``mark``,
        ``name``, ``xla``), in the order the scene's drawing was built for.

    Returns
    -------
    list of dict
        Containers first, parents before children (cytoscape needs them so), then leaves,
        then titles, then edges.
    """
    dup_nodes = {it.ref.node for it in scene.items.values()
                 if it.kind == "vertex" and it.ref.copy}
    owner: dict = {}      # node -> the first group holding it (as controller.group_of_node)
    for gi, g in enumerate(groups):
        for n in g["nodes"]:
            owner.setdefault(n, gi)
    containers, leaves, titles = [], [], []
    for it in scene.root.walk():
        if it.key == ROOT:
            continue
        parent = it.parent.key if it.parent is not None and it.parent.key != ROOT else None
        if it.kind == "vertex":
            el = _vertex_element(graph, groups, it, dup_nodes)
        elif it.kind == "group":
            g = groups[it.ref]
            rep = next((n for n in g["nodes"] if owner.get(n) == it.ref), None)
            data, classes = _group_data(g, it, it.box, rep)
            el = {"data": data, "classes": " ".join(classes + (["collapsed"] if it.box else []))}
        else:
            data, classes = _layer_data(it, layers, scene)
            el = {"data": data, "classes": " ".join(classes)}
        if parent:
            el["data"]["parent"] = parent
        if it.leaf:
            x, y = layout.positions.get(it.key, (0.0, 0.0))
            el["position"] = {"x": x, "y": y}
            leaves.append(el)
        else:
            containers.append(el)
            titles.append(_title(it, el, layout, parent))
    return containers + leaves + titles + _edges(scene)


def _vertex_element(graph: Graph, groups, it, dup_nodes) -> dict:
    v = it.ref
    data = {"id": v.id, "node": v.node, "label": _op_label(graph, v.node)}
    classes = _vertex_classes(graph, v.node, v.copy, v.node in dup_nodes)
    g = groups[v.group] if v.group is not None else None
    if g is not None:
        data.update(gid=g["id"], kind=g["kind"])
        if it.parent is not None and it.parent.kind == "group":
            classes += [f"role-{g['role']}"] if g.get("role") else []
        else:
            classes += ["single", f"kind-{g['kind']}"] + _mark_classes(g)
    return {"data": data, "classes": " ".join(classes)}


#: a title's distance from the top of its container's rectangle (pixels, to its centre line)
TITLE_DROP = {"group": 10.0, "layer": 12.0, "inputs": 12.0}


def _title(it, el: dict, layout: SceneLayout, parent: str | None) -> dict:
    """The title of an open container: a label-only node in the band above its box.

    A compound node's own label is drawn beneath the edges that cross it (cytoscape draws a
    parent before its children and their edges); a separate node drawn on top keeps the name
    readable. It takes no pointer events (clicks reach the box beneath) and carries no
    ``gid`` (the selection highlight is for the box and its ops). A layer's title starts at
    its box's left edge; a group's is centred.
    """
    x0, y0, x1, _ = layout.rects.get(it.key, (0.0, 0.0, 0.0, 0.0))
    data = {"id": f"ttl-{it.key}", "title_of": it.key, "label": el["data"]["label"]}
    if parent:
        data["parent"] = parent
    kind = el["data"].get("kind")
    left = it.kind != "group"
    classes = ["title"] + ([f"kind-{kind}"] if kind else []) + (["left"] if left else [])
    classes += [c for c in el["classes"].split() if c.startswith(("role-", "xla-"))]
    x = x0 + 6.0 if left else (x0 + x1) / 2.0
    return {"data": data, "position": {"x": x, "y": y0 + TITLE_DROP[it.kind]},
            "classes": " ".join(classes)}


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


def layout_tag(layout: SceneLayout) -> str:
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


def with_scoped_ids(elements: list[dict], salt: str) -> list[dict]:
    """The elements with ids that name where each node sits: a node's id is a tag of
    ``salt`` and of the keys of the containers around it, then its own key (kept as ``vid``:
    search and highlights find it by that); an edge's names its ends' ids.

    dash-cytoscape updates the canvas by id: an element whose id is gone is removed (a
    compound with everything inside it), a new id is added, and an element that keeps its id
    is changed in place (its data, classes, position). A node whose container changed (an op
    split out of a group) gets another id, so removing its old box cannot take it along;
    everything else keeps its id after an edit, and the browser does not lay out, style and
    measure it again (drawing a whole training-step layer anew costs it a fraction of a
    second). ``salt`` (the app passes the graph's key, the view and the open layers) changes
    every id when the drawing is another one altogether.

    Parameters
    ----------
    elements : list of dict
        Cytoscape elements with unprefixed ids (:func:`scene_elements`).
    salt : str
        What makes every id new when it changes.

    Returns
    -------
    list of dict
        New element dicts (the input is not changed).
    """
    parent = {e["data"]["id"]: e["data"].get("parent") for e in elements
              if "source" not in e["data"]}
    tags: dict = {}

    def tag_of(pid):
        if pid not in tags:
            chain, p = [], pid
            while p is not None and len(chain) <= len(parent):
                chain.append(p)
                p = parent.get(p)
            key = salt + "|" + "/".join(reversed(chain))
            tags[pid] = hashlib.blake2b(key.encode(), digest_size=4).hexdigest()
        return tags[pid]

    new_id = {nid: f"{tag_of(pid)}:{nid}" for nid, pid in parent.items()}
    out = []
    for e in elements:
        data = dict(e["data"])
        if "source" in data:
            data["source"], data["target"] = new_id[data["source"]], new_id[data["target"]]
            data["id"] = f"{data['source']}>{data['target']}"
        else:
            data["vid"] = data["id"]
            data["id"] = new_id[data["id"]]
            if data.get("parent"):
                data["parent"] = new_id[data["parent"]]
        out.append({**e, "data": data})
    return out


#: a drawing with more edges than this draws them straight (class ``many``): cytoscape's
#: curved edges look for parallel edges between every pair of ends, which costs the browser
#: seconds on an opened layer of a training step (3,500 edges between 280 boxes)
MANY_EDGES = 600


def _edges(scene: Scene) -> list[dict]:
    """Edge elements, one per pair of visible leaves; an edge's id names its ends, so an id is
    never reused for other ends when the drawing changes (cytoscape cannot move an edge)."""
    out = []
    many = {"classes": "many"} if len(scene.edges) > MANY_EDGES else {}
    for s, t, nbytes, values in scene.edges:
        out.append({"data": {"id": f"{s}>{t}", "source": s, "target": t,
                             "value": ", ".join(values), "bytes": nbytes,
                             "label": fmt_bytes(nbytes), "width": edge_width(nbytes)}, **many})
    return out


def stylesheet() -> list[dict]:
    """The cytoscape stylesheet, the same for every drawing: highlights are classes
    (:data:`HIGHLIGHT_CLASSES`, put on elements by ``assets/workbench.js``), never new rules —
    cytoscape restyles and measures every element when its stylesheet changes (0.65-0.73 s
    for the 390 elements of an opened forward-module layer, load 3.4 on 2 CPUs), and only the
    elements whose classes change when a class does (1-2 ms)."""
    rules = [
        {"selector": "node", "style": {
            "label": "data(label)", "text-wrap": "wrap", "text-valign": "center",
            "text-halign": "center", "font-size": 11, "font-family": "Inter, Helvetica, sans-serif",
            "width": OP_SIZE[0], "height": OP_SIZE[1], "shape": "round-rectangle",
            "text-max-width": OP_SIZE[0] - 4, "background-color": "#ffffff",
            "border-width": 1, "border-color": "#8a8f98", "color": "#1f2328",
            "min-zoomed-font-size": 5, "compound-sizing-wrt-labels": "exclude"}},
        {"selector": "node.source", "style": {
            "shape": "ellipse", "width": SOURCE_SIZE[0], "height": SOURCE_SIZE[1],
            "background-color": "#eef1f4", "font-size": 9, "color": "#57606a",
            "border-color": "#c5cad1"}},
        {"selector": "node.const", "style": {"border-style": "dotted"}},
        {"selector": "node.opaque", "style": {
            "shape": "octagon", "background-color": "#3b3f45", "color": "#ffffff",
            "border-color": "#000000", "border-width": 2}},
        {"selector": "node.dup", "style": {"border-style": "dashed", "border-width": 2,
                                           "border-color": "#c0392b"}},
        {"selector": "node.graph-output", "style": {"border-width": 3, "border-color": "#1f2328"}},
        {"selector": "node.layer", "style": {
            "shape": "round-rectangle", "background-color": "#f3f4f6", "background-opacity": 0.6,
            "border-width": 1, "border-style": "dashed", "border-color": "#8c959f",
            "label": "", "padding": LAYER_PAD}},
        {"selector": "node.layer.closed", "style": {
            "label": "data(label)", "width": LAYER_BOX[0], "height": LAYER_BOX[1],
            "background-color": "#e6e9ee", "background-opacity": 1, "border-style": "solid",
            "border-width": 2, "font-size": 12, "font-weight": "bold",
            "text-max-width": LAYER_BOX[0] - 8, "padding": 0}},
        {"selector": "node.group", "style": {
            "shape": "round-rectangle", "background-opacity": 0.12, "border-width": 2,
            "label": "", "padding": GROUP_PAD}},  # titled by a node of its own (_title)
        {"selector": "node.group.collapsed", "style": {
            "label": "data(label)", "width": GROUP_BOX[0], "height": GROUP_BOX[1],
            "background-opacity": 0.85, "font-size": 12, "font-weight": "bold",
            "text-valign": "center", "text-max-width": GROUP_BOX[0] - 6, "padding": 0}},
        {"selector": "node.title", "style": {
            "width": 1, "height": 1, "background-opacity": 0, "border-width": 0,
            "font-size": 14, "font-weight": "bold", "text-max-width": 600,
            "text-background-color": "#ffffff", "text-background-opacity": 0.9,
            "text-background-padding": 2, "min-zoomed-font-size": 4, "events": "no",
            "z-compound-depth": "top", "z-index": 10, "color": "#57606a"}},
        {"selector": "node.title.left", "style": {"text-halign": "right", "font-size": 13}},
        {"selector": "edge", "style": {
            "width": "data(width)", "curve-style": "bezier", "target-arrow-shape": "triangle",
            "arrow-scale": 0.8, "line-color": "#9aa3ad", "target-arrow-color": "#9aa3ad",
            "label": "data(label)", "font-size": 9,
            "color": "#57606a", "text-background-color": "#ffffff",
            "text-background-opacity": 0.8, "min-zoomed-font-size": 9}},
        {"selector": "edge.many", "style": {"curve-style": "straight"}},
        {"selector": ":selected", "style": {"overlay-color": SELECT_COLOR,
                                            "overlay-opacity": 0.25}},
        {"selector": ".role-dead", "style": {"opacity": 0.45}},
        {"selector": "node.group.role-offline", "style": {"border-style": "dashed"}},
    ]
    for kind, color in KIND_COLORS.items():
        rules.append({"selector": f"node.group.kind-{kind}",
                      "style": {"background-color": color, "border-color": color,
                                "color": color}})
        # a one-op group looks like a group's box (the kind's colour, a thin border and a
        # light fill), not like the selected group's thick solid border (hl-sel)
        rules.append({"selector": f"node.single.kind-{kind}",
                      "style": {"border-color": color, "border-width": SINGLE_BORDER,
                                "background-color": tint(color, SINGLE_TINT)}})
        rules.append({"selector": f"node.title.kind-{kind}", "style": {"color": color}})
    for status, color in XLA_COLORS.items():
        rules.append({"selector": f"node.group.xla-{status}",
                      "style": {"background-color": color, "border-color": color,
                                "color": color, "border-width": 3}})
        rules.append({"selector": f"node.title.xla-{status}", "style": {"color": color}})
    rules += [
        {"selector": "node.group.collapsed", "style": {"color": "#ffffff"}},
        {"selector": "node.pinned", "style": {"border-style": "double", "border-width": 6}},
        {"selector": "node.rejected", "style": {"border-style": "dotted", "border-width": 3,
                                                "border-color": "#57606a"}},
    ]
    return rules + highlight_rules()


#: colours of the XLA comparison: a fusion both plans have, only ours, only XLA's
XLA_COLORS = {"both": "#1a7f37", "ours": "#bc4c00", "xla": "#8250df"}
XLA_HELP = {"both": "the same fusion in both plans", "ours": "only in our plan",
            "xla": "only in XLA's"}


#: colours of a replay step's marks: the decision's nodes, the groups before it, after it
STEP_COLOR, BEFORE_COLOR, AFTER_COLOR = "#cf222e", "#9a6700", "#1a7f37"
#: the highlight classes, in the order of :func:`highlight_rules`: the selected group's box and
#: ops, the vertex found by search, the groups a replay step replaced or made, its own ops
HIGHLIGHT_CLASSES = ("hl-sel", "hl-found", "hl-after", "hl-step")


def highlight_rules() -> list[dict]:
    """The highlight rules, one per class of :data:`HIGHLIGHT_CLASSES`: the selected group (a
    solid blue border on its box and ops), the vertex found by search (an amber glow), and a
    replay step's marks — the groups it replaced or made (a thick green border) and the
    decision's own nodes (filled light red, red border; also an illegal edit's path). Neither
    looks like the red dashes of a duplicated producer. Marks change colours and borders,
    never a node's size much: a compound's box is sized from its children's bounds, and a
    glow there would push it over its neighbours."""
    return [
        {"selector": "node.hl-sel",
         "style": {"border-width": 4, "border-color": SELECT_COLOR, "border-style": "solid"}},
        {"selector": "node.hl-found",
         "style": {"underlay-color": FOUND_COLOR, "underlay-opacity": 0.55,
                   "underlay-padding": 3}},
        {"selector": "node.hl-after",
         "style": {"border-width": 5, "border-color": AFTER_COLOR, "border-style": "solid"}},
        {"selector": "node.hl-step",
         "style": {"background-color": "#ffd8d3", "border-color": STEP_COLOR,
                   "border-width": 3}},
    ]


def highlight_targets(selected_gid: str | None, found: str | None,
                      marked: Sequence = ()) -> dict:
    """What ``assets/workbench.js`` (``highlight``) marks with :data:`HIGHLIGHT_CLASSES`: the
    nodes whose ``gid`` is ``selected_gid`` (``sel``), the node whose ``vid`` is ``found``,
    and a replay step's marks: ``marked`` is ``(step, before, after)``, three lists of drawn
    ids (``vid``) — ``after`` gets the groups before and after, ``step`` the decision's nodes.

    All are ids the workbench made (group ids, drawing ids); the browser compares them with
    element data, never splices them into a selector.
    """
    step, before, after = (list(marked) + [(), (), ()])[:3]
    return {"sel": selected_gid, "found": found, "after": list(before) + list(after),
            "step": list(step)}

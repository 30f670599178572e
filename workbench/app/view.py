"""The graph view's state and its canvas, without Dash (the callbacks call these).

The browser keeps a small *record* of what is open: ``{"graph": key, "open": [...],
"nodes": [...]}`` — the open layers (``L3``) and inputs boxes (``L3:in``), and one node of each
collapsed group (groups are renumbered by edits; a group is collapsed when it holds a recorded
node). :func:`view_state` turns it into a :class:`~workbench.app.scene.ViewState` for the
groups drawn now.

:func:`draw_canvas` builds the scene and its layout: after an edit (the same record as the
layout it starts from) everything that stayed keeps its place (:mod:`.scene_layout`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from workbench.app.drawing import Drawing
from workbench.app.graph_figure import COLLAPSE_ABOVE_OPS, scene_elements
from workbench.app.hierarchy import ROOT, Layers, Placement
from workbench.app.scene import Scene, ViewState, build_scene, default_state
from workbench.app.scene_layout import SceneLayout, layout_scene

#: opening a layer with at most this many ops opens everything inside it too
OPEN_WHOLE_BELOW = 300
#: the smallest zoom the canvas allows is at most this, lower for a bigger drawing
MIN_ZOOM_CAP = 0.05


def op_count(graph) -> int:
    """The graph's ops (nodes that are neither parameters nor constants)."""
    return sum(1 for n in graph.nodes if n.op not in ("parameter", "constant"))


def default_record(graph_key: str, graph, layers: Layers, groups: Sequence[dict]) -> dict:
    """The record of a graph shown for the first time (see :func:`~.scene.default_state`):
    a graph of at most 300 ops opens whole; a bigger one with its layers closed and every
    group collapsed."""
    open_, collapse_all = default_state(layers, [g["nodes"] for g in groups], op_count(graph),
                                        COLLAPSE_ABOVE_OPS)
    nodes = [g["nodes"][0] for g in groups if len(g["nodes"]) > 1] if collapse_all else []
    return {"graph": graph_key, "open": sorted(open_), "nodes": nodes}


def record_for(record, graph_key: str, graph, layers: Layers, groups) -> dict:
    """``record`` when it is for this graph, else the graph's default record."""
    if isinstance(record, dict) and record.get("graph") == graph_key:
        return record
    return default_record(graph_key, graph, layers, groups)


def view_state(record: dict, layers: Layers, groups: Sequence[dict]) -> ViewState:
    """The open layers and collapsed group indices a record says (unknown ids are ignored)."""
    valid = set(layers.layers)
    open_ = frozenset(x for x in record.get("open", ()) if x.split(":", 1)[0] in valid)
    reps = set(record.get("nodes", ()))
    collapsed = frozenset(i for i, g in enumerate(groups)
                          if len(g["nodes"]) > 1 and reps.intersection(g["nodes"]))
    return ViewState(open_, collapsed)


def _with(record: dict, open_=None, nodes=None) -> dict:
    out = dict(record)
    out.pop("fit", None)  # asked for by *Collapse all* / *Expand all* only (:func:`everything`)
    if open_ is not None:
        out["open"] = sorted(open_)
    if nodes is not None:
        out["nodes"] = sorted(nodes)
    return out


def toggle_layer(record: dict, key: str, layers: Layers, groups: Sequence[dict],
                 placement: Placement) -> dict:
    """Open a closed layer (or inputs box) or close an open one. Opening a layer of at most
    :data:`OPEN_WHOLE_BELOW` ops opens every layer inside it and expands its groups."""
    open_ = set(record.get("open", ()))
    if key in open_:
        inside = {x for x in open_ if x.split(":", 1)[0] in layers.layers
                  and layers.is_within(x.split(":", 1)[0], key.split(":", 1)[0])}
        if ":" in key:
            inside = {key}
        return _with(record, open_=open_ - inside)
    lid = key.split(":", 1)[0]
    open_.add(key)
    for x in layers.chain(lid)[1:]:
        open_.add(x)
    nodes = set(record.get("nodes", ()))
    if ":" not in key and layers.ops_in.get(lid, 0) <= OPEN_WHOLE_BELOW:
        open_ |= {x for x in layers.layers if x != ROOT and layers.is_within(x, lid)}
        open_ |= {f"{x}:in" for x in layers.layers if layers.is_within(x, lid)}
        inside = [g for g, where in zip(groups, placement.group_layer)
                  if layers.is_within(where, lid)]
        nodes -= {n for g in inside for n in g["nodes"]}
    return _with(record, open_=open_, nodes=nodes)


def reveal(record: dict, nodes: Iterable[str], layers: Layers, groups: Sequence[dict],
           placement: Placement) -> dict:
    """The record with ``nodes`` made visible: the layers (and inputs boxes) that hold them
    opened, the groups that hold them expanded."""
    nodes = set(nodes)
    open_ = set(record.get("open", ()))
    recorded = set(record.get("nodes", ()))
    for gi, g in enumerate(groups):
        if nodes.intersection(g["nodes"]):
            recorded -= set(g["nodes"])
            for x in layers.chain(placement.group_layer[gi])[1:]:
                open_.add(x)
    for n in nodes:
        lid = placement.source_layer.get(n)
        if lid is not None:
            open_.update(layers.chain(lid)[1:])
            open_.add(f"{lid}:in")
    return _with(record, open_=open_, nodes=recorded)


def everything(record: dict, layers: Layers, groups: Sequence[dict], open_all: bool) -> dict:
    """*Expand all* (every layer and inputs box open, no group collapsed) or *Collapse all*
    (only the root open, every group collapsed). The record's ``fit`` (a count, new at each
    press) asks the canvas to fit the new drawing: it is much smaller or bigger than the one
    the view was on (the collapsed drawing hung off the canvas's left edge); any other change
    of the record drops it."""
    fit = {"fit": int(record.get("fit") or 0) % 1_000_000 + 1}
    if open_all:
        keys = {x for x in layers.layers if x != ROOT} | {f"{x}:in" for x in layers.layers}
        return {**_with(record, open_=keys, nodes=[]), **fit}
    return {**_with(record, open_=[], nodes=[g["nodes"][0] for g in groups
                                            if len(g["nodes"]) > 1]), **fit}


def toggle_group(record: dict, group: dict) -> dict:
    """Collapse an expanded group or expand a collapsed one."""
    nodes = set(record.get("nodes", ()))
    if nodes.intersection(group["nodes"]):
        return _with(record, nodes=nodes - set(group["nodes"]))
    return _with(record, nodes=nodes | {group["nodes"][0]})


# ----- the canvas -----------------------------------------------------------------------------

@dataclass
class Canvas:
    """One drawn canvas: its elements, scene and layout, and the zoom floor that lets *Fit*
    show all of it."""

    elements: list
    scene: Scene
    layout: SceneLayout
    min_zoom: float


def extent(layout: SceneLayout) -> tuple:
    """(width, height) of everything drawn, in pixels."""
    rs = list(layout.rects.values())
    if not rs:
        return (0.0, 0.0)
    return (max(r[2] for r in rs) - min(r[0] for r in rs),
            max(r[3] for r in rs) - min(r[1] for r in rs))


def min_zoom(layout: SceneLayout, canvas_px: float = 400.0) -> float:
    """A zoom floor low enough to fit the whole drawing in a ``canvas_px`` canvas (Fit is
    bounded by it), and never above :data:`MIN_ZOOM_CAP`."""
    w, h = extent(layout)
    need = canvas_px / max(w, h, 1.0)
    return round(max(1e-4, min(MIN_ZOOM_CAP, need * 0.8)), 5)


def draw_canvas(graph, groups: Sequence[dict], drawing: Drawing, layers: Layers,
                placement: Placement, state: ViewState, prev: SceneLayout | None,
                edit: bool) -> Canvas:
    """The canvas of ``groups`` (dicts, the grouping ``drawing`` was built for) under
    ``state``, laid out from ``prev`` (kept in place when ``edit``)."""
    scene = build_scene(graph, drawing, layers, placement, state)
    layout = layout_scene(scene, prev, edit)
    elements = scene_elements(graph, groups, scene, layout, layers)
    return Canvas(elements, scene, layout, min_zoom(layout))

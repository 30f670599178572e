"""What the canvas shows of a drawing: a tree of layers, groups and ops, some collapsed (no Dash).

A :class:`~workbench.app.drawing.Drawing` has every op of the graph; the *scene* is what is
visible of it under the view's state: the open layers of the name stack
(:mod:`.hierarchy`), each holding its child layers (open, or closed as one box), the fusion
groups placed in it (expanded with their ops, or collapsed as one box), its one-op kernels and
its inputs. Edges between hidden vertices are drawn once between the boxes that hold them, with
their bytes summed.

Item keys are made here: ``L3`` (a layer), ``L3:in`` (the inputs box of a layer with many
inputs), ``G:1f0c2a9e`` (a group, by a tag of its members, so that it keeps its key when the
plan is renumbered), and the drawing's vertex ids (``v12``, ``v12@1f0c2a9e``).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from workbench.app.drawing import Drawing, group_tag, vertex_ids
from workbench.app.hierarchy import ROOT, Layers, Placement

#: drawn sizes (pixels, width x height) of an op, an input, a collapsed group, a closed layer
OP_SIZE = (122.0, 48.0)
SOURCE_SIZE = (80.0, 24.0)
GROUP_BOX = (172.0, 58.0)
LAYER_BOX = (190.0, 62.0)
#: a box's padding around its contents (cytoscape's compound padding) and the band above it
#: that holds its title (pixels), for groups and for layers
GROUP_PAD, GROUP_TITLE = 10.0, 22.0
LAYER_PAD, LAYER_TITLE = 16.0, 26.0
#: a layer with more inputs than this gathers them in a box of their own
INPUTS_BOX_ABOVE = 24


@dataclass(eq=False)
class Item:
    """One thing drawn on the canvas.

    Parameters
    ----------
    key : str
        Its key (see the module docstring).
    kind : str
        ``vertex`` (an op or input), ``group`` (a fusion group of two or more ops), ``layer``
        or ``inputs`` (a layer's inputs gathered).
    box : bool
        Drawn as one box (a closed layer, a collapsed group; a vertex is always a leaf).
    ref : object
        The :class:`~workbench.app.drawing.Vertex`, the group's index, or the layer's id.
    children : list of Item
        What an open container holds.
    order : float
        The smallest topological index of the ops it draws.
    """

    key: str
    kind: str
    box: bool
    ref: object
    children: list = field(default_factory=list)
    order: float = 0.0
    parent: "Item | None" = None
    n_vertices: int = 0

    @property
    def leaf(self) -> bool:
        return self.kind == "vertex" or self.box

    def size(self) -> tuple:
        """The drawn size of a leaf."""
        if self.kind == "vertex":
            return SOURCE_SIZE if self.ref.group is None else OP_SIZE
        return GROUP_BOX if self.kind == "group" else LAYER_BOX

    def pads(self) -> tuple:
        """(padding, title band) of an open container; the root has none."""
        if self.kind == "group":
            return GROUP_PAD, GROUP_TITLE
        if self.key == ROOT:
            return 0.0, 0.0
        return LAYER_PAD, LAYER_TITLE

    def walk(self):
        """This item and everything below it, parents first."""
        stack = [self]
        while stack:
            it = stack.pop()
            yield it
            stack.extend(reversed(it.children))


class DrawingIndex:
    """A drawing arranged by *unit* for building scenes fast: a fusion group of two or more
    ops is one unit (its index in the grouping), every other vertex (a one-op kernel, an input)
    is its own (its drawing id). Edges are summed per pair of units once, so that a scene is
    built in time proportional to the units and to what is drawn, not to the ops (a training
    step has 50,000 vertices and 70,000 edges).

    Built once per drawing (:func:`drawing_index`).
    """

    def __init__(self, graph, drawing: Drawing):
        vid = vertex_ids(graph)
        topo = {nid: k for k, nid in enumerate(graph.topo_order)}
        self.drawing = drawing
        self.keys = [group_key(s, vid) for s in drawing.groups]
        self.members: list[list] = [[] for _ in drawing.groups]
        self.singles: list = []        # (vertex, group index)
        self.sources: list = []        # vertices of parameters and constants
        self.order: dict = {}          # unit -> smallest topological index
        for v in drawing.vertices:
            if v.group is not None:
                self.members[v.group].append(v)
        self.multi = [len(m) > 1 for m in self.members]
        self.unit_of: dict = {}
        for v in drawing.vertices:
            if v.group is not None and self.multi[v.group]:
                unit = v.group
            else:
                unit = v.id
                if v.group is None:
                    self.sources.append(v)
                else:
                    self.singles.append((v, v.group))
            self.unit_of[v.id] = unit
            k = topo[v.node]
            if self.order.get(unit, k) >= k:
                self.order[unit] = k
        self.unit_edges: dict = {}
        self.group_edges: list[list] = [[] for _ in drawing.groups]
        for e in drawing.edges:
            us, ut = self.unit_of[e.source], self.unit_of[e.target]
            for u in {us, ut}:
                if isinstance(u, int):
                    self.group_edges[u].append(e)
            if us == ut:
                continue
            cur = self.unit_edges.get((us, ut))
            if cur is None:
                self.unit_edges[(us, ut)] = [e.nbytes, [e.value]]
            else:
                cur[0] += e.nbytes
                if len(cur[1]) < 4 and e.value not in cur[1]:
                    cur[1].append(e.value)


_INDEXES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_INDEX_LOCK = threading.Lock()


def drawing_index(graph, drawing: Drawing) -> DrawingIndex:
    """The :class:`DrawingIndex` of ``drawing``, made once per drawing object."""
    with _INDEX_LOCK:
        hit = _INDEXES.get(drawing)
    if hit is None:
        hit = DrawingIndex(graph, drawing)
        with _INDEX_LOCK:
            _INDEXES[drawing] = hit
    return hit


@dataclass(eq=False)
class Scene:
    """The visible tree of one drawing, with its edges between visible leaves.

    Attributes
    ----------
    root : Item
        The root layer (always open).
    items : dict
        Key -> Item, every item of the tree.
    edges : list of tuple
        (source key, target key, bytes, values) once per pair of visible leaves, values being
        the first few value names the edge carries.
    group_keys : list of str
        Group index -> its item key (``G:<tag>``).
    index : DrawingIndex
    unit_leaf : dict
        Unit (a group's index or a vertex's id) -> the key of the leaf that draws it; an
        expanded group's vertices draw themselves (not listed).
    """

    root: Item
    items: dict
    edges: list
    group_keys: list
    index: DrawingIndex = None
    unit_leaf: dict = field(default_factory=dict)

    def leaf_of(self, vid: str) -> str | None:
        """The key of the visible leaf that draws vertex ``vid`` (itself or a box)."""
        unit = self.index.unit_of.get(vid)
        if unit is None:
            return None
        return self.unit_leaf.get(unit, vid if vid in self.items else None)

    def vertices_in(self, item: Item, limit: int = 400) -> list[str]:
        """Drawing ids of (up to ``limit`` of) the vertices ``item`` draws or holds."""
        out: list[str] = []
        for it in item.walk():
            if it.kind == "vertex":
                out.append(it.key)
            elif it.box:
                for unit, leaf in self.unit_leaf.items():
                    if leaf == it.key:
                        out += ([v.id for v in self.index.members[unit]]
                                if isinstance(unit, int) else [unit])
                        if len(out) >= limit:
                            break
            if len(out) >= limit:
                break
        return out[:limit]


def group_key(members, vid: dict) -> str:
    """The item key of a group with these members (a tag of their drawing ids)."""
    return "G:" + group_tag(members, vid)


@dataclass(frozen=True)
class ViewState:
    """What is open: layers (ids; the root is always open), inputs boxes (``L3:in``), and the
    groups drawn collapsed (by index in the grouping)."""

    open_layers: frozenset = frozenset()
    collapsed: frozenset = frozenset()

    def is_open(self, key: str) -> bool:
        return key == ROOT or key in self.open_layers


def build_scene(graph, drawing: Drawing, layers: Layers, placement: Placement,
                state: ViewState) -> Scene:
    """The scene of ``drawing`` (built for ``placement``'s grouping) under ``state``."""
    index = drawing_index(graph, drawing)
    root = Item(ROOT, "layer", False, ROOT)
    items = {ROOT: root}
    unit_leaf: dict = {}
    shown_cache: dict = {}

    def visible_layer(lid: str) -> tuple[str, bool]:
        """The innermost layer on the chain to ``lid`` that is drawn, and whether it is open."""
        hit = shown_cache.get(lid)
        if hit is None:
            hit = (lid, True)
            for x in layers.chain(lid)[1:]:
                if not state.is_open(x):
                    hit = (x, False)
                    break
            shown_cache[lid] = hit
        return hit

    def layer_item(lid: str) -> Item:
        it = items.get(lid)
        if it is None:
            parent = layer_item(layers.layers[lid].parent)
            it = Item(lid, "layer", not state.is_open(lid), lid, parent=parent)
            items[lid] = it
            parent.children.append(it)
        return it

    for gi, multi in enumerate(index.multi):
        if not multi:
            continue
        shown, is_open = visible_layer(placement.group_layer[gi])
        holder = layer_item(shown)
        members = index.members[gi]
        if not is_open:
            unit_leaf[gi] = holder.key
            _count(holder, index.order[gi], len(members))
            continue
        g = Item(index.keys[gi], "group", gi in state.collapsed, gi, parent=holder)
        items[g.key] = g
        holder.children.append(g)
        if g.box:
            unit_leaf[gi] = g.key
            _count(g, index.order[gi], len(members))
        else:
            for v in members:
                _count(_vertex(items, v, g), index.order[gi], 1)
    for v, gi in index.singles:
        shown, is_open = visible_layer(placement.group_layer[gi])
        holder = layer_item(shown)
        leaf = holder if not is_open else _vertex(items, v, holder)
        unit_leaf[v.id] = leaf.key
        _count(leaf, index.order[v.id], 1)
    _add_sources(index, placement, state, visible_layer, layer_item, items, unit_leaf)
    _sort(root)
    scene = Scene(root, items, [], index.keys, index, unit_leaf)
    scene.edges = _edges(index, scene, state)
    return scene


def _add_sources(index, placement, state, visible_layer, layer_item, items, unit_leaf):
    """Inputs in their layers; a layer with many gathers them in an inputs box."""
    sources: dict[str, list] = {}
    for v in index.sources:
        shown, is_open = visible_layer(placement.source_layer.get(v.node, ROOT))
        if not is_open:
            holder = layer_item(shown)
            unit_leaf[v.id] = holder.key
            _count(holder, index.order[v.id], 1)
        else:
            sources.setdefault(shown, []).append(v)
    for lid, vs in sources.items():
        holder = layer_item(lid)
        if len(vs) > INPUTS_BOX_ABOVE:
            key = f"{lid}:in"
            box = Item(key, "inputs", key not in state.open_layers, lid, parent=holder)
            items[key] = box
            holder.children.append(box)
            holder = box
        for v in vs:
            leaf = holder if holder.box else _vertex(items, v, holder)
            unit_leaf[v.id] = leaf.key
            _count(leaf, index.order[v.id], 1)


def _vertex(items: dict, v, parent: Item) -> Item:
    it = Item(v.id, "vertex", False, v, parent=parent)
    items[v.id] = it
    parent.children.append(it)
    return it


def _count(leaf: Item, order: float, n: int = 1) -> None:
    """Count ``n`` drawn vertices in ``leaf`` and its ancestors, keeping the smallest order."""
    it = leaf
    while it is not None:
        if it.n_vertices == 0 or order < it.order:
            it.order = order
        it.n_vertices += n
        it = it.parent


def _sort(root: Item) -> None:
    for it in root.walk():
        it.children.sort(key=lambda c: (c.order, c.key))


def _edges(index: DrawingIndex, scene: Scene, state: ViewState) -> list:
    """One edge per (source leaf, target leaf): bytes summed, first values kept. Edges between
    units come summed from the index; an expanded group's own edges are drawn op by op."""
    agg: dict[tuple, list] = {}
    leaf = scene.unit_leaf
    expanded = {gi for gi, multi in enumerate(index.multi)
                if multi and gi not in leaf and index.keys[gi] in scene.items}

    def add(s, t, nbytes, values):
        if s is None or t is None or s == t:
            return
        cur = agg.get((s, t))
        if cur is None:
            agg[(s, t)] = [nbytes, list(values)]
        else:
            cur[0] += nbytes
            for v in values:
                if len(cur[1]) < 4 and v not in cur[1]:
                    cur[1].append(v)

    for (us, ut), (nbytes, values) in index.unit_edges.items():
        if us in expanded or ut in expanded:
            continue
        add(leaf.get(us), leaf.get(ut), nbytes, values)
    seen = set()
    for gi in expanded:
        for e in index.group_edges[gi]:
            if id(e) in seen:
                continue
            seen.add(id(e))
            s = e.source if index.unit_of[e.source] in expanded else leaf.get(
                index.unit_of[e.source])
            t = e.target if index.unit_of[e.target] in expanded else leaf.get(
                index.unit_of[e.target])
            add(s, t, e.nbytes, (e.value,))
    return [(s, t, nb, tuple(vals)) for (s, t), (nb, vals) in agg.items()]


def child_edges(scene: Scene) -> dict:
    """For each open container's key, the edges between its direct children (pairs of keys):
    an edge between two leaves is an edge between the children of their deepest common
    container that hold them."""
    out: dict[str, set] = {}
    depth_cache: dict[str, list] = {}

    def chain(key):
        c = depth_cache.get(key)
        if c is None:
            c, it = [], scene.items[key]
            while it is not None:
                c.append(it.key)
                it = it.parent
            c.reverse()
            depth_cache[key] = c
        return c

    for s, t, _, _ in scene.edges:
        a, b = chain(s), chain(t)
        k = 0
        while k < len(a) and k < len(b) and a[k] == b[k]:
            k += 1
        if k < len(a) and k < len(b):
            out.setdefault(a[k - 1], set()).add((a[k], b[k]))
    return out


def default_state(layers: Layers, groups: Sequence[Iterable[str]], n_ops: int,
                  threshold: int = 300) -> tuple[frozenset, bool]:
    """A new graph's view: on a graph of at most ``threshold`` ops every layer is open and no
    group collapsed; on a bigger one only the root is open and every group is collapsed.
    Returns (open layer ids, collapse every group)."""
    if n_ops <= threshold:
        return (frozenset(layers.layers) - {ROOT}) | {f"{x}:in" for x in layers.layers}, False
    return frozenset(), True

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


@dataclass
class Scene:
    """The visible tree of one drawing, with its edges between visible leaves.

    Attributes
    ----------
    root : Item
        The root layer (always open).
    items : dict
        Key -> Item, every item of the tree.
    rep : dict
        Drawing vertex id -> key of the visible leaf that draws it (itself or a box).
    edges : list of tuple
        (source key, target key, bytes, values) once per pair of visible leaves, values being
        the first few value names the edge carries.
    group_keys : list of str
        Group index -> its item key (``G:<tag>``).
    """

    root: Item
    items: dict
    rep: dict
    edges: list
    group_keys: list


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
    vid = vertex_ids(graph)
    topo = {nid: k for k, nid in enumerate(graph.topo_order)}
    gkeys = [group_key(s, vid) for s in drawing.groups]
    counts: dict[int, int] = {}
    for v in drawing.vertices:
        if v.group is not None:
            counts[v.group] = counts.get(v.group, 0) + 1
    root = Item(ROOT, "layer", False, ROOT)
    items = {ROOT: root}
    rep: dict[str, str] = {}

    def visible_layer(lid: str) -> tuple[str, bool]:
        """The innermost layer on the chain to ``lid`` that is drawn, and whether it is open."""
        for x in layers.chain(lid)[1:]:
            if not state.is_open(x):
                return x, False
        return lid, True

    def layer_item(lid: str) -> Item:
        it = items.get(lid)
        if it is None:
            parent = layer_item(layers.layers[lid].parent)
            it = Item(lid, "layer", not state.is_open(lid), lid, parent=parent)
            items[lid] = it
            parent.children.append(it)
        return it

    sources: dict[str, list] = {}
    for v in drawing.vertices:
        order = topo[v.node]
        if v.group is None:
            lid = placement.source_layer.get(v.node, ROOT)
        else:
            lid = placement.group_layer[v.group]
        shown, is_open = visible_layer(lid)
        holder = layer_item(shown)
        if not is_open:
            leaf = holder
        elif v.group is not None and counts[v.group] > 1:
            key = gkeys[v.group]
            g = items.get(key)
            if g is None:
                g = Item(key, "group", v.group in state.collapsed, v.group, parent=holder)
                items[key] = g
                holder.children.append(g)
            leaf = g if g.box else _vertex(items, v, g)
        elif v.group is None:
            sources.setdefault(shown, []).append(v)
            continue
        else:
            leaf = _vertex(items, v, holder)
        rep[v.id] = leaf.key
        _count(leaf, order)
    for lid, vs in sources.items():
        holder = items[lid]
        if len(vs) > INPUTS_BOX_ABOVE:
            key = f"{lid}:in"
            box = Item(key, "inputs", key not in state.open_layers, lid, parent=holder)
            items[key] = box
            holder.children.append(box)
            holder = box
        for v in vs:
            leaf = holder if holder.box else _vertex(items, v, holder)
            rep[v.id] = leaf.key
            _count(leaf, topo[v.node])
    _sort(root)
    return Scene(root, items, rep, _edges(drawing, rep), gkeys)


def _vertex(items: dict, v, parent: Item) -> Item:
    it = Item(v.id, "vertex", False, v, parent=parent)
    items[v.id] = it
    parent.children.append(it)
    return it


def _count(leaf: Item, order: float) -> None:
    """Count one drawn vertex in ``leaf`` and its ancestors, keeping the smallest order."""
    it = leaf
    while it is not None:
        if it.n_vertices == 0 or order < it.order:
            it.order = order
        it.n_vertices += 1
        it = it.parent


def _sort(root: Item) -> None:
    for it in root.walk():
        it.children.sort(key=lambda c: (c.order, c.key))


def _edges(drawing: Drawing, rep: dict) -> list:
    """One edge per (source leaf, target leaf): bytes summed, first values kept."""
    agg: dict[tuple, list] = {}
    for e in drawing.edges:
        s, t = rep.get(e.source), rep.get(e.target)
        if s is None or t is None or s == t:
            continue
        cur = agg.get((s, t))
        if cur is None:
            agg[(s, t)] = [e.nbytes, [e.value]]
        else:
            cur[0] += e.nbytes
            if len(cur[1]) < 4 and e.value not in cur[1]:
                cur[1].append(e.value)
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

"""What the graph view draws: a plan's groups and ops as vertices and edges (no Dash here).

A *drawing* is the graph as the canvas shows it under one grouping. Every op is a vertex; a
producer that several groups recompute (a *duplicated* producer) gets one vertex per group that
computes it, so that each group shows everything it computes. Parameters and constants are
vertices outside every group. Edges run from the vertex that provides a value to the vertex that
reads it: inside a group from the group's own copy, across groups from the value's home group
(the one that writes it).

Scalar constants are not drawn: kernels take them as immediates, and the op that reads one shows
its value in its label (see :func:`scalar_constant`). Array constants are drawn like parameters.

Vertex ids are made here (``v12``, ``v12@1f0c2a9e``), never taken from the input file, so that they can
be passed to Graphviz and used as cytoscape ids without escaping.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from workbench.ir.graph import Graph


@dataclass(frozen=True)
class Vertex:
    """One drawn node: an op (or a source) as computed by one group.

    Parameters
    ----------
    id : str
        Drawing id: ``v12`` for the op's home copy; ``v12@<tag>`` for its copy in another group
        (:func:`group_tag`); ``c3`` for group 3 drawn collapsed, as one box.
    node : str
        The graph node's id (from the input file: text, never code).
    group : int or None
        Index of the group (in the grouping) that draws it; None for parameters and constants.
    copy : bool
        True for a duplicated producer's extra copy.
    box : bool
        True for a collapsed group (``node`` is then its first member).
    """

    id: str
    node: str
    group: int | None
    copy: bool = False
    box: bool = False


@dataclass(frozen=True)
class Edge:
    """A tensor flowing from one drawn vertex to another; ``nbytes`` is its size in bytes.

    ``producer`` is the drawing id of the vertex that computes the value (``source`` too, unless
    that vertex was collapsed into a box).
    """

    source: str
    target: str
    value: str
    nbytes: int
    producer: str = ""


@dataclass(frozen=True)
class Drawing:
    """The vertices and edges of one graph under one grouping (see the module docstring)."""

    vertices: tuple[Vertex, ...]
    edges: tuple[Edge, ...]
    groups: tuple[frozenset, ...]

    def members_of(self, group: int) -> list[Vertex]:
        """The vertices drawn inside group number ``group``."""
        return [v for v in self.vertices if v.group == group]


def scalar_constant(graph: Graph, node_id: str) -> bool:
    """True for a constant with one element (drawn inside its readers' labels, not as a node)."""
    node = graph.node(node_id)
    return node.op == "constant" and getattr(node.type, "size", 2) <= 1


def vertex_ids(graph: Graph) -> dict[str, str]:
    """The drawing id of each node's home vertex: ``v<k>`` with k its topological position."""
    return {nid: f"v{k}" for k, nid in enumerate(graph.topo_order)}


def group_tag(members, vid: dict) -> str:
    """A short tag naming a group by its members (stable when the plan is renumbered)."""
    key = ",".join(sorted(vid[n] for n in members))
    return hashlib.sha256(key.encode()).hexdigest()[:8]


def home_groups(graph: Graph, groups: Sequence[Iterable[str]]) -> dict[str, int]:
    """For each grouped node, the index of the group that provides its value to others.

    The first group (in the given order) that computes the node; like
    :meth:`~workbench.planner.plan.Plan.group_of` for plans, but for bare member sets (the
    replay steps of the explain view have no plan).
    """
    home: dict[str, int] = {}
    for i, members in enumerate(groups):
        for n in members:
            home.setdefault(n, i)
    return home


def build_drawing(graph: Graph, groups: Sequence[Iterable[str]]) -> Drawing:
    """The drawing of ``graph`` with these groups (member sets, in plan order).

    Parameters
    ----------
    graph : Graph
    groups : sequence of iterables of node ids
        One member set per group; a node in several sets is a duplicated producer.

    Returns
    -------
    Drawing
    """
    sets = tuple(frozenset(g) for g in groups)
    vid = vertex_ids(graph)
    home = home_groups(graph, sets)
    pos = {nid: k for k, nid in enumerate(graph.topo_order)}
    vertices: list[Vertex] = []
    for nid in graph.topo_order:
        if scalar_constant(graph, nid):
            continue
        vertices.append(Vertex(vid[nid], nid, home.get(nid)))  # None: a source
    tag = [group_tag(s, vid) for s in sets]
    for gi, members in enumerate(sets):
        for nid in sorted(members, key=pos.__getitem__):
            if home.get(nid) != gi:
                vertices.append(Vertex(f"{vid[nid]}@{tag[gi]}", nid, gi, copy=True))

    def provider(value: str, reader_group: int | None) -> str:
        if reader_group is not None and value in sets[reader_group]:
            if home[value] != reader_group:
                return f"{vid[value]}@{tag[reader_group]}"
        return vid[value]

    edges: list[Edge] = []
    for v in vertices:
        node = graph.node(v.node)
        for o in dict.fromkeys(node.operands):
            if scalar_constant(graph, o):
                continue
            t = graph.node(o).type
            src = provider(o, v.group)
            edges.append(Edge(src, v.id, o, int(getattr(t, "nbytes", 0)), src))
    return Drawing(tuple(vertices), tuple(edges), sets)


def _sole_reader_group(drawing: Drawing) -> dict[str, int | None]:
    """For each source vertex: the group of its readers if they are all in one group."""
    groups_of = {v.id: v.group for v in drawing.vertices}
    readers: dict[str, set] = {}
    for e in drawing.edges:
        if groups_of.get(e.source, 0) is None:
            readers.setdefault(e.source, set()).add(groups_of[e.target])
    return {s: next(iter(g)) if len(g) == 1 else None for s, g in readers.items()}


def collapse(drawing: Drawing, collapsed: Iterable[int]) -> Drawing:
    """The drawing with each group in ``collapsed`` (indices) replaced by one box vertex.

    Edges into and out of a box are kept once per (source, target, value); edges inside it go.
    A parameter (or array constant) read only by one collapsed group goes into its box too.
    """
    collapsed = set(collapsed)
    if not collapsed:
        return drawing
    sole = _sole_reader_group(drawing)
    first: dict[int, str] = {}
    for v in drawing.vertices:
        if v.group is not None:
            first.setdefault(v.group, v.node)
    drawn_as: dict[str, str] = {}
    vertices: list[Vertex] = []
    boxes: set[str] = set()
    for v in drawing.vertices:
        group = v.group if v.group is not None else sole.get(v.id)
        if group in collapsed:
            box = f"c{group}"
            if box not in boxes:
                boxes.add(box)
                vertices.append(Vertex(box, first[group], group, box=True))
            drawn_as[v.id] = box
        else:
            vertices.append(v)
            drawn_as[v.id] = v.id
    edges, seen = [], set()
    for e in drawing.edges:
        s, t = drawn_as[e.source], drawn_as[e.target]
        if s != t and (s, t, e.value) not in seen:
            seen.add((s, t, e.value))
            edges.append(Edge(s, t, e.value, e.nbytes, e.producer))
    return Drawing(tuple(vertices), tuple(edges), drawing.groups)

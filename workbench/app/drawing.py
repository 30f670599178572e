"""What the graph view draws: a plan's groups and ops as vertices and edges (no Dash here).

A *drawing* is the graph as the canvas shows it under one grouping. Every op is a vertex; a
producer that several groups recompute (a *duplicated* producer) gets one vertex per group that
computes it, so that each group shows everything it computes. Parameters and constants are
vertices outside every group. Edges run from the vertex that provides a value to the vertex that
reads it: inside a group from the group's own copy, across groups from the value's home group
(the one that writes it).

Scalar constants are not drawn: kernels take them as immediates, and the op that reads one shows
its value in its label (see :func:`scalar_constant`). Array constants are drawn like parameters.

Vertex ids are made here (``v12``, ``v12@1f0c2a9e``), never taken from the input file, so that they
can be used as cytoscape ids and in selectors without escaping. What of a drawing is visible
(layers and groups open or closed) is :mod:`.scene`'s business.
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from workbench.ir.graph import Graph


class Vertex(NamedTuple):
    """One drawn node: an op (or a source) as computed by one group.

    Parameters
    ----------
    id : str
        Drawing id: ``v12`` for the op's home copy; ``v12@<tag>`` for its copy in another group
        (:func:`group_tag`).
    node : str
        The graph node's id (from the input file: text, never code).
    group : int or None
        Index of the group (in the grouping) that draws it; None for parameters and constants.
    copy : bool
        True for a duplicated producer's extra copy.
    """

    id: str
    node: str
    group: int | None
    copy: bool = False


class Edge(NamedTuple):
    """A tensor flowing from one drawn vertex to another; ``nbytes`` is its size in bytes.

    ``producer`` is the drawing id of the vertex that computes the value.
    """

    source: str
    target: str
    value: str
    nbytes: int
    producer: str = ""


@dataclass(frozen=True, eq=False)
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


_VIDS: "weakref.WeakKeyDictionary[Graph, dict]" = weakref.WeakKeyDictionary()
_VIDS_LOCK = threading.Lock()


def vertex_ids(graph: Graph) -> dict[str, str]:
    """The drawing id of each node's home vertex: ``v<k>`` with k its topological position
    (made once per graph; do not change the dict)."""
    with _VIDS_LOCK:
        hit = _VIDS.get(graph)
    if hit is None:
        hit = {nid: f"v{k}" for k, nid in enumerate(graph.topo_order)}
        with _VIDS_LOCK:
            _VIDS[graph] = hit
    return hit


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
    from workbench.ir.index import graph_index

    ix = graph_index(graph)
    ids, operands, nbytes = ix.ids, ix.operands, ix.nbytes
    scalar = [op == "constant" and ix.elements[i] <= 1 for i, op in enumerate(ix.ops)]
    sets = tuple(frozenset(g) for g in groups)
    vid = vertex_ids(graph)
    home = home_groups(graph, sets)
    pos = ix.pos
    vertices: list[Vertex] = [Vertex(vid[nid], nid, home.get(nid), False)  # None: a source
                              for i, nid in enumerate(ids) if not scalar[i]]
    tag = [group_tag(s, vid) for s in sets]
    for gi, members in enumerate(sets):
        for nid in sorted(members, key=pos.__getitem__):
            if home.get(nid) != gi:
                vertices.append(Vertex(f"{vid[nid]}@{tag[gi]}", nid, gi, True))
    edges: list[Edge] = []
    for v in vertices:
        group = v.group
        members = sets[group] if group is not None else ()
        for oi in operands[pos[v.node]]:
            if scalar[oi]:
                continue
            o = ids[oi]
            src = (f"{vid[o]}@{tag[group]}" if o in members and home[o] != group
                   else vid[o])
            edges.append(Edge(src, v.id, o, nbytes[oi], src))
    return Drawing(tuple(vertices), tuple(edges), sets)

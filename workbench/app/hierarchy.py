"""Layers from the name stack: the hierarchy the graph view draws (no Dash here).

JAX writes the name stack of every op into the HLO (``metadata={op_name="jit(f)/block_3/attn/
dot_general"}``); the importers keep it as ``meta['scope']`` (a JSON node may give ``scope``).
Every component of a scope but the last (the op's own name) is a *layer*: ``jit(f)`` >
``block_3`` > ``attn``. The layers form a tree; the graph view draws each one as a box that
can be collapsed, with the fusion groups inside it.

- The prefix every scoped op shares (``jit(f)``) is the root's name, not a layer of its own.
- An op without a scope (XLA names some ops of an optimised module only ``reduce_sum``) is put
  in the deepest layer that holds all its consumers (or, for an op nobody reads, all its
  operands): *inferred*, and :attr:`Layers.inferred` says which.
- Under a grouping, a fusion group sits in the layer that holds most of its members, and a
  parameter or constant in the deepest layer holding more than half of the groups that read
  it (:func:`place`).

Layer ids (``L0`` the root, ``L1`` ...) are made here, numbered in topological order of their
first op; names from the input file are text for labels and search, never ids or code.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from workbench.ir.graph import Graph

#: the root layer's id
ROOT = "L0"
#: the longest layer name kept whole (scopes are capped at 200 characters by the importers)
NAME_CHARS = 80
SOURCE_OPS = ("parameter", "constant")


def scope_layers(scope: str | None) -> tuple[str, ...]:
    """The layer path of a scope string: every ``/``-separated component but the last.

    XLA joins the names of ops it merged with ``;`` (``jit(f)/transpose;jit(f)/transpose``):
    the first name is used. Empty components are dropped.

    Examples
    --------
    >>> scope_layers("jit(f)/block_3/attn/dot_general")
    ('jit(f)', 'block_3', 'attn')
    >>> scope_layers("reduce_sum")
    ()
    """
    if not scope:
        return ()
    first = scope.split(";", 1)[0]
    parts = [p[:NAME_CHARS] for p in first.split("/") if p]
    return tuple(parts[:-1])


def common_prefix(paths: Iterable[tuple]) -> tuple:
    """The longest tuple prefix shared by all ``paths`` (``()`` for none)."""
    prefix = None
    for p in paths:
        if prefix is None:
            prefix = p
            continue
        k = 0
        while k < len(prefix) and k < len(p) and prefix[k] == p[k]:
            k += 1
        prefix = prefix[:k]
        if not prefix:
            break
    return prefix or ()


@dataclass(frozen=True)
class Layer:
    """One layer of the name stack.

    Parameters
    ----------
    id : str
        ``L0`` (the root), ``L1`` ...: made by the app.
    name : str
        The last component of its path (``block_3``); the root's is the shared prefix or the
        graph's name.
    path : tuple of str
        The components from the root's child down to this layer (``()`` for the root).
    parent : str or None
        The enclosing layer's id.
    """

    id: str
    name: str
    path: tuple
    parent: str | None

    @property
    def depth(self) -> int:
        return len(self.path)


@dataclass
class Layers:
    """The layer tree of a graph and each op's layer (see the module docstring).

    Attributes
    ----------
    layers : dict
        Layer id -> :class:`Layer`, the root first, then in topological order.
    children : dict
        Layer id -> ids of its child layers, in order.
    node_layer : dict
        Every op (non-source node) -> the id of the layer it sits in.
    inferred : frozenset
        The ops whose layer was inferred from their neighbours (they had no scope).
    ops_in : dict
        Layer id -> number of ops in it and in every layer below it.
    prefix : tuple of str
        The scope prefix every scoped op shares (the root's name when not empty).
    """

    layers: dict
    children: dict
    node_layer: dict
    inferred: frozenset
    ops_in: dict
    prefix: tuple = ()
    _by_path: dict = field(default_factory=dict, repr=False)

    @property
    def has_layers(self) -> bool:
        """True when there is a layer besides the root."""
        return len(self.layers) > 1

    def chain(self, lid: str) -> list[str]:
        """The ids from the root down to ``lid`` (both included)."""
        out = []
        while lid is not None:
            out.append(lid)
            lid = self.layers[lid].parent
        return out[::-1]

    def lca(self, lids: Iterable[str]) -> str:
        """The deepest layer that holds every layer in ``lids`` (the root for none)."""
        path = common_prefix(self.layers[x].path for x in lids)
        return self._by_path.get(path, ROOT)

    def is_within(self, lid: str, ancestor: str) -> bool:
        """True when ``lid`` is ``ancestor`` or a layer below it."""
        a = self.layers[ancestor].path
        return self.layers[lid].path[:len(a)] == a

    def path_text(self, lid: str, sep: str = " › ") -> str:
        """The layer's names from the root's child down, joined (``block_3 › attn``)."""
        return sep.join(self.layers[x].name for x in self.chain(lid)[1:])

    def scope_text(self, node_id: str) -> str:
        """The full layer path of an op, root name first (for search and the hover line)."""
        lid = self.node_layer.get(node_id, ROOT)
        return "/".join(self.layers[x].name for x in self.chain(lid))


def build_layers(graph: Graph) -> Layers:
    """The layer tree of ``graph`` (see the module docstring); cached per graph by
    :func:`layers_of`."""
    order = [n for n in graph.topo_order]
    ops = [n for n in order if graph.node(n).op not in SOURCE_OPS]
    raw = {n: scope_layers(graph.node(n).meta.get("scope")) for n in ops}
    scoped = [p for p in raw.values() if p]
    prefix = common_prefix(scoped)
    # an op whose whole path is the shared prefix sits in the root, as do unscoped ops
    paths = {n: (p[len(prefix):] if p else None) for n, p in raw.items()}
    if not scoped:
        paths = {n: () for n in ops}
    inferred = _infer(graph, ops, paths)
    by_path: dict[tuple, str] = {(): ROOT}
    root_name = "/".join(prefix) if prefix else graph.name
    layers = {ROOT: Layer(ROOT, root_name[:NAME_CHARS], (), None)}
    children: dict[str, list] = {ROOT: []}
    for n in ops:
        p = paths[n]
        for k in range(1, len(p) + 1):
            sub = p[:k]
            if sub not in by_path:
                lid = f"L{len(layers)}"
                parent = by_path[sub[:-1]]
                by_path[sub] = lid
                layers[lid] = Layer(lid, sub[-1], sub, parent)
                children[lid] = []
                children[parent].append(lid)
    node_layer = {n: by_path[paths[n]] for n in ops}
    ops_in = {lid: 0 for lid in layers}
    for n in ops:
        lid = node_layer[n]
        while lid is not None:
            ops_in[lid] += 1
            lid = layers[lid].parent
    return Layers(layers, children, node_layer, frozenset(inferred), ops_in, prefix, by_path)


def _infer(graph: Graph, ops: list, paths: dict) -> set:
    """Fill in the paths of unscoped ops (``None``) in place: the common prefix of their
    consumers' paths (a backward pass), then of their operands' (forward); else the root."""
    missing = {n for n, p in paths.items() if p is None}
    for n in reversed(ops):
        if paths[n] is None:
            users = [paths[u] for u in graph.users(n) if paths.get(u) is not None]
            if users:
                paths[n] = common_prefix(users)
    for n in ops:
        if paths[n] is None:
            operands = [paths[o] for o in graph.node(n).operands if paths.get(o) is not None]
            paths[n] = common_prefix(operands) if operands else ()
    return missing


_CACHE: "weakref.WeakKeyDictionary[Graph, Layers]" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def layers_of(graph: Graph) -> Layers:
    """:func:`build_layers`, computed once per graph object (graphs are immutable)."""
    with _LOCK:
        hit = _CACHE.get(graph)
    if hit is None:
        hit = build_layers(graph)
        with _LOCK:
            _CACHE[graph] = hit
    return hit


# ----- a grouping placed in the layers ---------------------------------------------------------

@dataclass(frozen=True)
class Placement:
    """Where a grouping's groups and the sources sit in the layer tree.

    Attributes
    ----------
    group_layer : tuple of str
        For group ``i`` (in the grouping's order): the layer it is drawn in (:func:`place`).
    source_layer : dict
        Parameter or constant node id -> the layer it is drawn in (the root for one nobody
        reads).
    """

    group_layer: tuple
    source_layer: dict


def majority_layer(layers: Layers, lids: Sequence[str]) -> str:
    """The deepest layer holding more than half of ``lids`` (each counted once per entry):
    the layer a fusion group that spans layers is drawn in (the root for none)."""
    if not lids:
        return ROOT
    counts: dict[str, int] = {}
    for lid in lids:
        for x in layers.chain(lid):
            counts[x] = counts.get(x, 0) + 1
    half = len(lids) / 2.0
    best = ROOT
    for x, c in counts.items():
        if c > half and layers.layers[x].depth > layers.layers[best].depth:
            best = x
    return best


def plurality_layer(layers: Layers, lids: Sequence[str]) -> str:
    """The layer a group of ops in layers ``lids`` is drawn in: from the root down, into the
    child layer that holds the most of them while it holds more than any other child and more
    than the layer itself does directly (a tie stays above)."""
    if not lids:
        return ROOT
    counts: dict[str, int] = {}
    for lid in lids:
        for x in layers.chain(lid):
            counts[x] = counts.get(x, 0) + 1
    here = ROOT
    while True:
        kids = [c for c in layers.children[here] if c in counts]
        if not kids:
            return here
        ranked = sorted(kids, key=lambda c: -counts[c])
        best = ranked[0]
        direct = counts[here] - sum(counts[c] for c in kids)
        runner = counts[ranked[1]] if len(ranked) > 1 else 0
        if counts[best] <= max(direct, runner):
            return here
        here = best


def place(layers: Layers, graph: Graph, groups: Sequence[Iterable[str]],
          readers: dict | None = None) -> Placement:
    """Place ``groups`` (member sets, in order) and the graph's sources in ``layers``.

    A group sits where most of its ops are (:func:`plurality_layer`: XLA's fusions and ours
    cross layer boundaries, a residual add of one block with the next block's layer norm, a
    forward op with its gradient); a source in the deepest layer holding more than half of
    the groups that read it (:func:`majority_layer`: a weight the forward pass, the backward
    pass and the update all read stays outside them).

    Parameters
    ----------
    readers : dict, optional
        Source node id -> indices of the groups that read it; by default worked out from the
        graph (a group reads a source when one of its members has it as an operand).
    """
    nl = layers.node_layer
    group_layer = tuple(plurality_layer(layers, [nl[n] for n in members if n in nl])
                        for members in groups)
    if readers is None:
        readers = {}
        for gi, members in enumerate(groups):
            for n in members:
                for o in graph.node(n).operands:
                    if o not in nl:
                        readers.setdefault(o, set()).add(gi)
    source_layer = {}
    for n in graph.topo_order:
        if n in nl:
            continue
        gis = sorted(readers.get(n, ()))
        source_layer[n] = majority_layer(layers, [group_layer[g] for g in gis])
    return Placement(group_layer, source_layer)


# ----- search over names, ops and scopes -------------------------------------------------------

def find_nodes(graph: Graph, query: str, layers: Layers | None = None) -> list[str]:
    """The nodes ``query`` names, best first, ignoring case: the node with that exact id,
    then those whose id contains it, then those whose op does (``layer_norm`` finds ``ln1``),
    then those whose scope does (``softmax`` finds the ops JAX wrote under
    ``jit(f)/block_3/attn/softmax/...``); each kind in topological order."""
    q = (query or "").strip().lower()
    if not q:
        return []
    order = graph.topo_order
    exact = [n for n in order if n.lower() == q]
    seen = set(exact)
    by_id = [n for n in order if n not in seen and q in n.lower()]
    seen.update(by_id)
    by_op = [n for n in order if n not in seen and q in graph.node(n).op.lower()]
    seen.update(by_op)
    by_scope = [n for n in order if n not in seen
                and q in (graph.node(n).meta.get("scope") or "").lower()]
    seen.update(by_scope)
    by_layer = []
    if layers is not None and layers.has_layers:
        hits = {lid for lid, lay in layers.layers.items() if q in lay.name.lower()}
        if hits:
            by_layer = [n for n in order if n not in seen
                        and any(x in hits for x in layers.chain(layers.node_layer.get(n, ROOT)))]
    return exact + by_id + by_op + by_scope + by_layer


def find_layers(layers: Layers, query: str) -> list[str]:
    """The layers whose name contains ``query`` (ignoring case), in order."""
    q = (query or "").strip().lower()
    if not q:
        return []
    return [lid for lid, lay in layers.layers.items() if lid != ROOT and q in lay.name.lower()]

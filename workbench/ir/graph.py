"""The graph IR: immutable :class:`Node` and :class:`Graph` values.

A graph is a dataflow graph of tensor ops, in the manner of an HLO entry computation: parameters
(graph inputs, numbered), constants, ops, and a tuple of outputs. Every node produces one value
named by the node's id. Nothing edits a graph in place; :meth:`Graph.replace` and friends return
new graphs. Derived facts (the id index, users, topological order, the networkx view) are
computed once per graph, on first use.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

import networkx as nx

from workbench.errors import (CycleError, DanglingReferenceError, DuplicateIdError, GraphError)
from workbench.ir.attrs import EMPTY, Attrs
from workbench.ir.types import TensorType, TupleType, Type


@dataclass(frozen=True)
class Node:
    """One op of a graph and the value it produces.

    Parameters
    ----------
    id : str
        Unique name of the node (and of its value) within its graph. Taken from the input file;
        used as a key and a label, never as code.
    op : str
        Op name, a key of the op registry (:mod:`workbench.ir.ops`), e.g. ``"add"``, ``"dot"``.
    operands : tuple of str
        Ids of the operand nodes, in order.
    type : TensorType or TupleType
        The type of the value the node produces.
    attrs : Attrs
        The op's attributes (``dimensions``, ``direction``, ``value`` ...); part of semantics.
    meta : Attrs
        Facts that do not change what the node computes: where it came from in the input
        (``line``), the XLA fusion it belonged to in an optimised module (``xla_fusion``,
        ``xla_fusion_kind``), the composite it was expanded from (``expanded_from``).
    """

    id: str
    op: str
    operands: tuple[str, ...] = ()
    type: Type = field(default=None)
    attrs: Attrs = EMPTY
    meta: Attrs = EMPTY

    def __post_init__(self):
        if not isinstance(self.operands, tuple):
            object.__setattr__(self, "operands", tuple(self.operands))
        if not isinstance(self.attrs, Attrs):
            object.__setattr__(self, "attrs", Attrs(self.attrs))
        if not isinstance(self.meta, Attrs):
            object.__setattr__(self, "meta", Attrs(self.meta))

    @property
    def tensor_type(self) -> TensorType:
        """The node's type when it is a tensor; raises :class:`GraphError` for a tuple."""
        if not isinstance(self.type, TensorType):
            raise GraphError(f"value is a tuple {self.type}, not a tensor", node=self.id)
        return self.type

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of the node's tensor value."""
        return self.tensor_type.shape

    @property
    def dtype(self) -> str:
        """Dtype of the node's tensor value."""
        return self.tensor_type.dtype

    def replace(self, **changes) -> "Node":
        """A copy with some fields changed."""
        d = dict(id=self.id, op=self.op, operands=self.operands, type=self.type,
                 attrs=self.attrs, meta=self.meta)
        d.update(changes)
        return Node(**d)

    def text(self) -> str:
        """One line in the IR's text form: ``add.3: f32[4] = add(x, y)``."""
        args = ", ".join(self.operands)
        attrs = ", ".join(f"{k}={_attr_text(v)}" for k, v in self.attrs.items())
        sep = ", " if args and attrs else ""
        return f"{self.id}: {self.type} = {self.op}({args}{sep}{attrs})"


def _attr_text(v) -> str:
    if isinstance(v, Graph):
        return "%" + v.name
    if isinstance(v, tuple):
        if len(v) > 8:
            return "[" + ",".join(_attr_text(x) for x in v[:8]) + f",...({len(v)})]"
        return "[" + ",".join(_attr_text(x) for x in v) + "]"
    if isinstance(v, Attrs):
        return "{" + ",".join(f"{k}={_attr_text(x)}" for k, x in v.items()) + "}"
    if isinstance(v, str):
        return repr(v)
    return str(v)


@dataclass(frozen=True)
class Graph:
    """An immutable dataflow graph of tensor ops.

    Parameters
    ----------
    name : str
        The graph's name (an HLO module's name, or the JSON file's).
    nodes : tuple of Node
        All nodes, parameters and constants included, in any order (a topological order is
        computed; construct from a topological order to keep the text form in source order).
    outputs : tuple of str
        Ids of the nodes whose values the graph returns, in order (a tuple result when several).
    meta : Attrs
        Facts about the source: ``source`` (file path), ``format`` (``hlo``/``json``),
        ``description``, ``hlo_stage`` (``before``/``after``).

    Notes
    -----
    Construction does not check the graph; call :func:`workbench.ir.verify.verify` (the
    importers do). Derived data is cached on first use.
    """

    name: str
    nodes: tuple[Node, ...]
    outputs: tuple[str, ...]
    meta: Attrs = EMPTY

    #: a graph may be an attribute value (a nested computation: a while's body)
    __frozen_attr_value__ = True

    def __post_init__(self):
        if not isinstance(self.nodes, tuple):
            object.__setattr__(self, "nodes", tuple(self.nodes))
        if not isinstance(self.outputs, tuple):
            object.__setattr__(self, "outputs", tuple(self.outputs))
        if not isinstance(self.meta, Attrs):
            object.__setattr__(self, "meta", Attrs(self.meta))

    # ----- lookups ---------------------------------------------------------------------------

    @cached_property
    def _index(self) -> dict[str, Node]:
        index: dict[str, Node] = {}
        for n in self.nodes:
            if n.id in index:
                raise DuplicateIdError("two nodes share this id", node=n.id)
            index[n.id] = n
        return index

    def node(self, node_id: str) -> Node:
        """The node with this id; raises :class:`DanglingReferenceError` if there is none."""
        try:
            return self._index[node_id]
        except KeyError:
            raise DanglingReferenceError("no node with this id in the graph",
                                         node=node_id) from None

    def __contains__(self, node_id) -> bool:
        return node_id in self._index

    def __len__(self) -> int:
        return len(self.nodes)

    @cached_property
    def parameters(self) -> tuple[Node, ...]:
        """Parameter nodes ordered by their ``index`` attribute (the graph's inputs)."""
        params = [n for n in self.nodes if n.op == "parameter"]
        return tuple(sorted(params, key=lambda n: n.attrs.get("index", 0)))

    @cached_property
    def _users(self) -> dict[str, tuple[str, ...]]:
        users: dict[str, list[str]] = {n.id: [] for n in self.nodes}
        for n in self.topo_nodes():
            for o in dict.fromkeys(n.operands):
                users[o].append(n.id)
        return {k: tuple(v) for k, v in users.items()}

    def users(self, node_id: str) -> tuple[str, ...]:
        """Ids of the nodes that read ``node_id`` (each once, in topological order)."""
        self.node(node_id)
        return self._users[node_id]

    def is_output(self, node_id: str) -> bool:
        """True if ``node_id``'s value is one of the graph's outputs."""
        return node_id in self._output_set

    @cached_property
    def _output_set(self) -> frozenset:
        return frozenset(self.outputs)

    # ----- order and algorithms (networkx) ---------------------------------------------------

    @cached_property
    def nx(self) -> nx.DiGraph:
        """The graph as a networkx DiGraph (edges producer -> consumer); do not modify it."""
        g = nx.DiGraph()
        for n in self.nodes:
            g.add_node(n.id)
        for n in self.nodes:
            for o in n.operands:
                if o not in self._index:
                    raise DanglingReferenceError(f"operand {o!r} does not exist", node=n.id)
                g.add_edge(o, n.id)
        return g

    @cached_property
    def topo_order(self) -> tuple[str, ...]:
        """Node ids in a topological order (producers first), stable with respect to file order.

        Raises
        ------
        CycleError
            If the graph has a cycle; the message lists it.
        """
        position = {n.id: i for i, n in enumerate(self.nodes)}
        if len(position) == len(self.nodes) and all(
                position.get(o, i) < i for i, n in enumerate(self.nodes) for o in n.operands):
            # already in topological order (as importers make them): that order is the
            # lexicographic one below, found in one pass
            return tuple(n.id for n in self.nodes)
        try:
            order = list(nx.lexicographical_topological_sort(self.nx, key=position.__getitem__))
        except nx.NetworkXUnfeasible:
            cycle = nx.find_cycle(self.nx)
            path = " -> ".join([a for a, _ in cycle] + [cycle[0][0]])
            raise CycleError(f"the graph has a cycle: {path}", node=cycle[0][0]) from None
        return tuple(order)

    def topo_nodes(self) -> Iterable[Node]:
        """Nodes in :attr:`topo_order`."""
        return (self._index[i] for i in self.topo_order)

    def ancestors(self, node_id: str) -> set[str]:
        """All nodes ``node_id`` depends on (transitively), not including itself."""
        return nx.ancestors(self.nx, node_id)

    def descendants(self, node_id: str) -> set[str]:
        """All nodes that depend on ``node_id`` (transitively), not including itself."""
        return nx.descendants(self.nx, node_id)

    # ----- new graphs from old ---------------------------------------------------------------

    def replace(self, **changes) -> "Graph":
        """A copy with some fields changed (``nodes``, ``outputs``, ``name``, ``meta``)."""
        d = dict(name=self.name, nodes=self.nodes, outputs=self.outputs, meta=self.meta)
        d.update(changes)
        return Graph(**d)

    # ----- text ------------------------------------------------------------------------------

    def text(self) -> str:
        """The readable text form, in the manner of a jaxpr::

            graph chain(x: f32[4], y: f32[4]) -> (mul.1) {
              mul.1: f32[4] = multiply(x, y)
            }
        """
        params = ", ".join(f"{p.id}: {p.type}" for p in self.parameters)
        lines = [f"graph {self.name}({params}) -> ({', '.join(self.outputs)}) {{"]
        for n in self.topo_nodes():
            if n.op != "parameter":
                lines.append("  " + n.text())
        lines.append("}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        # short and semantic: a nested computation's repr is part of its user's fingerprint
        return f"Graph({self.name!r}, {len(self.nodes)} nodes, {self.fingerprint})"

    @cached_property
    def fingerprint(self) -> str:
        """A stable hash of the graph's semantics (ids, ops, operands, types, attrs, outputs)."""
        import hashlib

        # one update of the joined texts hashes the same bytes as one update per node; each
        # distinct type is printed once
        types: dict = {}
        parts = []
        append = parts.append
        for n in self.nodes:
            t = n.type
            # a tensor type by its fields (hashed in C), any other type by itself
            tk = (t.shape, t.dtype) if t.__class__ is TensorType else t
            ts = types.get(tk)
            if ts is None:
                ts = types[tk] = str(t)
            append(repr((n.id, n.op, n.operands, ts, tuple(n.attrs._d.items()))))
        parts.append(repr(self.outputs))
        return hashlib.sha256("".join(parts).encode()).hexdigest()[:16]


def tensor_types(graph: Graph, ids: Iterable[str]) -> tuple:
    """The types of the nodes ``ids``, in order."""
    return tuple(graph.node(i).type for i in ids)


__all__ = ["Node", "Graph", "TensorType", "TupleType", "tensor_types"]

"""verify(): check that a graph is well formed.

Checks, in order: duplicate ids; operands and outputs that name no node; for each node, that its
op exists, its arity, and that the op's shape/dtype rule gives the declared type; parameter
numbering; cycles. The first problem found is raised with the node's id and, when the graph came
from a file, the file and line of the node.
"""

from __future__ import annotations

from workbench.errors import (ArityError, AttributeError_, CycleError, DanglingReferenceError,
                              DuplicateIdError, GraphError, ShapeError)
from workbench.ir.graph import Graph, Node
from workbench.ir.ops import get_op


def _place(graph: Graph, node: Node | None) -> dict:
    where = {}
    src = graph.meta.get("source")
    if src:
        where["file"] = src
    if node is not None:
        where["node"] = node.id
        if node.meta.get("line") is not None:
            where["line"] = node.meta["line"]
            if graph.meta.get("lines_of"):      # StableHLO: a line of the converted HLO text
                where["file"] = graph.meta["lines_of"]
    return where


def _raise(cls, message: str, graph: Graph, node: Node | None):
    raise cls(message, **_place(graph, node))


def check_node(graph: Graph, node: Node, types: dict):
    """Check one node against its op's rules, given the types of its operands.

    Returns
    -------
    Type
        The type the op's rule gives (equal to the declared one when that is set).

    Raises
    ------
    GraphError
        (a subclass) naming the node, with file and line when known.
    """
    try:
        opdef = get_op(node.op)
    except GraphError as exc:
        _raise(type(exc), exc.message, graph, node)
    if opdef.attributes is not None:
        unknown = sorted(set(node.attrs) - set(opdef.attributes))
        if unknown:
            allowed = ", ".join(opdef.attributes) or "none"
            _raise(AttributeError_, f"unknown attribute(s) {', '.join(unknown)} for {node.op} "
                   f"(allowed: {allowed})", graph, node)
    lo, hi = opdef.arity
    n = len(node.operands)
    if n < lo or (hi is not None and n > hi):
        want = f"{lo}" if lo == hi else (f"at least {lo}" if hi is None else f"{lo} to {hi}")
        _raise(ArityError, f"{node.op} takes {want} operand(s), got {n}", graph, node)
    try:
        inferred = opdef.infer(tuple(types[o] for o in node.operands), node.attrs, node.type)
    except GraphError as exc:
        _raise(type(exc), exc.message, graph, node)
    if node.type is not None and inferred != node.type:
        _raise(ShapeError, f"declared type {node.type} but {node.op} of "
               f"({', '.join(str(types[o]) for o in node.operands)}) gives {inferred}",
               graph, node)
    return inferred


def verify_types(graph: Graph) -> dict:
    """:func:`verify` ``graph`` and return every node's type as its op's rule gives it
    (node id -> Type): what the JSON importer fills in where a node's type was left out."""
    types: dict = {}
    verify(graph, _types=types)
    return types


def verify(graph: Graph, nodes_checked: bool = False, _types: dict | None = None) -> Graph:
    """Check that ``graph`` is well formed; return it unchanged.

    Parameters
    ----------
    graph : Graph
    nodes_checked : bool
        The nodes were checked one by one (:func:`check_node`) as they were made, in this
        order (the HLO importer does): the per-node check is not run twice; ids, operands,
        outputs, cycles and parameter numbers still are.

    Returns
    -------
    Graph
        The same graph, so that ``g = verify(load(...))`` reads naturally.

    Raises
    ------
    DuplicateIdError, DanglingReferenceError, UnknownOpError, ArityError, ShapeError,
    AttributeError_, CycleError
        The first problem found; the message names the node (and file and line when known).
    """
    seen: dict[str, Node] = {}
    for node in graph.nodes:
        if node.id in seen:
            other = seen[node.id]
            extra = f" (first defined at line {other.meta['line']})" if other.meta.get(
                "line") is not None else ""
            _raise(DuplicateIdError, f"two nodes share the id {node.id!r}{extra}", graph, node)
        seen[node.id] = node
    for node in graph.nodes:
        for o in node.operands:
            if o not in seen:
                _raise(DanglingReferenceError, f"operand {o!r} names no node", graph, node)
    if not graph.outputs:
        _raise(GraphError, "the graph has no outputs", graph, None)
    for o in graph.outputs:
        if o not in seen:
            _raise(DanglingReferenceError, f"output {o!r} names no node", graph, None)
    try:
        order = graph.topo_order
    except CycleError as exc:
        _raise(CycleError, exc.message, graph, seen.get(exc.node))
    if not nodes_checked:
        types = {} if _types is None else _types
        for nid in order:
            types[nid] = check_node(graph, seen[nid], types)
    by_index: dict[int, Node] = {}
    for p in graph.parameters:
        idx = p.attrs["index"]
        if idx in by_index:
            _raise(GraphError, f"parameter index {idx} is used twice (also by "
                   f"{by_index[idx].id!r})", graph, p)
        by_index[idx] = p
    for expected, p in enumerate(graph.parameters):
        if p.attrs["index"] != expected:
            _raise(GraphError, f"parameter indices must be 0..{len(by_index) - 1} without gaps; "
                   f"parameter {expected} is missing (next is {p.attrs['index']})", graph, p)
    return graph

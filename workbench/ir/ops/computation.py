"""Running nested computations: the ``body`` of a ``while``, a ``sort``'s comparator, a general
``reduce``'s reducer.

A nested computation is an immutable :class:`~workbench.ir.Graph` held as an attribute of the
node that calls it (the HLO importer builds them from the module's computations). Its
parameters are its arguments in ``index`` order, its outputs its results. Two ways to run one:

- :func:`run_computation`: on arrays of the parameters' own shapes, op by op with the ops'
  numpy references (a while loop's body, a conditional's branch);
- :func:`map_scalar`: a computation over scalars (a comparator, a reducer) applied
  elementwise to whole arrays at once, so that a sort or a reduction over n elements runs the
  computation O(log n) or O(window) times on arrays rather than n times on scalars.

This module uses the registry (:mod:`workbench.ir.ops.base`) directly, not the interpreter,
so that op references can call it without an import cycle.
"""

from __future__ import annotations

import numpy as np

from workbench.errors import EvaluationError, WorkbenchError
from workbench.ir.ops.base import REGISTRY, Category
from workbench.ir.types import TensorType, TupleType

#: ops a scalar computation may hold for :func:`map_scalar`'s whole-array path
_MAPPABLE = frozenset({Category.ELEMENTWISE, Category.CONSTANT, Category.PARAMETER})

#: data movement that is the identity on scalars (a bitcast may reinterpret the bits)
_SCALAR_MOVES = frozenset({"reshape", "copy", "bitcast", "broadcast", "transpose"})


def _scalar_move(node, x):
    dtype = node.attrs.get("dtype")
    if node.op == "bitcast" and dtype is not None:
        return np.ascontiguousarray(x).view(node.type.np_dtype)
    return x


def _cast(value, t):
    if isinstance(t, TensorType):
        arr = np.asarray(value)
        want = t.np_dtype
        return arr if arr.dtype == want else arr.astype(want)
    return tuple(value)


def run_computation(graph, args, *, where: str = "") -> list:
    """Evaluate a nested computation on ``args`` (arrays of its parameters' types, in order).

    Parameters
    ----------
    graph : Graph
        The computation.
    args : sequence of numpy.ndarray
        One per parameter, in ``index`` order, with the parameter's shape and dtype.
    where : str
        Prefix for error messages (the calling node's op).

    Returns
    -------
    list of numpy.ndarray
        The computation's outputs in order.

    Raises
    ------
    EvaluationError
        If an op inside cannot be evaluated (named with the computation).
    """
    env = {}
    params = graph.parameters
    if len(args) != len(params):
        raise EvaluationError(f"{where}computation {graph.name!r} takes {len(params)} "
                              f"arguments, got {len(args)}")
    for p, a in zip(params, args):
        env[p.id] = _cast(a, p.type)
    for node in graph.topo_nodes():
        if node.op == "parameter":
            continue
        opdef = REGISTRY[node.op]
        if opdef.reference is None or opdef.category == Category.OPAQUE:
            what = node.attrs.get("hlo_opcode", node.op)
            raise EvaluationError(f"{where}computation {graph.name!r} holds {what!r} "
                                  f"({node.id}), which cannot be evaluated")
        try:
            value = opdef.reference([env[o] for o in node.operands], node.attrs, node.type)
        except WorkbenchError as exc:
            raise EvaluationError(f"{where}in computation {graph.name!r}, {node.op} "
                                  f"{node.id}: {exc.message}") from None
        env[node.id] = _cast(value, node.type)
    return [env[o] for o in graph.outputs]


def is_scalar_map(graph) -> bool:
    """True if every value of ``graph`` is a scalar and every op elementwise (or a constant):
    the computation can then run on whole arrays elementwise (:func:`map_scalar`)."""
    for n in graph.nodes:
        if not isinstance(n.type, TensorType) or n.type.shape != ():
            return False
        if REGISTRY[n.op].category not in _MAPPABLE and n.op not in _SCALAR_MOVES:
            return False
    return True


def map_scalar(graph, args, *, where: str = "") -> list:
    """Apply a computation over scalars elementwise to arrays.

    Parameters
    ----------
    graph : Graph
        A computation whose parameters and results are scalars (``f32[]``...).
    args : sequence of array_like
        One per parameter; broadcast together (numpy rules).

    Returns
    -------
    list of numpy.ndarray
        One per output, of the broadcast shape, each in its output's dtype.

    Notes
    -----
    When every op of the computation is elementwise (the usual reducer, comparator or select
    function), each op's reference runs once on the whole arrays. Otherwise the computation is
    run element by element with :func:`run_computation` (slow; correct).
    """
    arrays = [np.asarray(a) for a in args]
    shape = np.broadcast_shapes(*[a.shape for a in arrays]) if arrays else ()
    if is_scalar_map(graph):
        env = {}
        for p, a in zip(graph.parameters, arrays):
            env[p.id] = _cast(a, p.type)
        for node in graph.topo_nodes():
            if node.op == "parameter":
                continue
            if node.op in _SCALAR_MOVES:
                env[node.id] = _scalar_move(node, env[node.operands[0]])
                continue
            opdef = REGISTRY[node.op]
            try:
                value = opdef.reference([env[o] for o in node.operands], node.attrs, node.type)
            except WorkbenchError as exc:
                raise EvaluationError(f"{where}in computation {graph.name!r}, {node.op} "
                                      f"{node.id}: {exc.message}") from None
            env[node.id] = _cast(value, node.type)
        return [np.broadcast_to(env[o], shape) for o in graph.outputs]
    flat = [np.broadcast_to(a, shape).reshape(-1) for a in arrays]
    outs = [np.empty(int(np.prod(shape)), dtype=graph.node(o).type.np_dtype)
            for o in graph.outputs]
    for i in range(outs[0].size if outs else 0):
        res = run_computation(graph, [f[i] for f in flat], where=where)
        for o, r in zip(outs, res):
            o[i] = r
    return [o.reshape(shape) for o in outs]


def simple_binary(graph) -> str | None:
    """The op name when ``graph`` is one binary op of its two parameters, in order or swapped
    (``add``, ``maximum`` ...); ``"assign"`` when it returns its second parameter (a scatter
    that overwrites); else None."""
    params = graph.parameters
    if len(params) != 2 or len(graph.outputs) != 1:
        return None
    root = graph.node(graph.outputs[0])
    if root.id == params[1].id:
        return "assign"
    if root.op in ("parameter",) or len(root.operands) != 2:
        return None
    if sorted(root.operands) != sorted(p.id for p in params):
        return None
    others = [n for n in graph.nodes if n.op != "parameter" and n.id != root.id]
    if others:
        return None
    return root.op


def tuple_leaves(t) -> tuple:
    """The tensor types of a type (itself for a tensor; the flattened elements of a tuple)."""
    return t.leaves() if isinstance(t, TupleType) else (t,)

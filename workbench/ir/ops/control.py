"""Control flow: ``while``, ``conditional``, and ``map`` (a computation applied elementwise).

The HLO importer flattens the tuple a ``while`` carries: the node's operands are the state's
tensors, its ``condition`` and ``body`` computations take them as separate parameters, the body
returns them as separate outputs, and the node's value is the tuple of the final state (read
with ``get-tuple-element``). A ``conditional``'s operands are the branch index (``pred``: true
selects branch 0, false branch 1, as HLO's ``true_computation`` / ``false_computation``; ``s32``:
that branch, the last one when out of range) followed by every branch's flattened operands
(``branch_operands=`` says how many each branch takes).

The references run the nested computations with
:func:`workbench.ir.ops.computation.run_computation`. A while loop is capped at
:data:`MAX_TRIP_COUNT` iterations so that a loop that never ends is an error, not a hang.
"""

from __future__ import annotations

import numpy as np

from workbench.errors import AttributeError_, EvaluationError, ShapeError
from workbench.ir.ops.base import Category, OpDef, register
from workbench.ir.ops.computation import is_scalar_map, map_scalar, run_computation
from workbench.ir.ops.elementwise import _require_tensors
from workbench.ir.types import TensorType, TupleType

#: iterations after which a while loop's reference gives up
MAX_TRIP_COUNT = 1_000_000


def _computation(attrs, key, what):
    comp = attrs.get(key)
    if comp is None or not getattr(type(comp), "__frozen_attr_value__", False):
        raise AttributeError_(f"{what} needs {key}= a computation")
    return comp


def _param_types(comp):
    return [p.type for p in comp.parameters]


def _out_types(comp):
    return [comp.node(o).type for o in comp.outputs]


def _while_infer(types, attrs, declared):
    _require_tensors(types)
    cond = _computation(attrs, "condition", "while")
    body = _computation(attrs, "body", "while")
    state = list(types)
    for name, comp in (("condition", cond), ("body", body)):
        if _param_types(comp) != state:
            raise ShapeError(f"while {name} {comp.name!r} takes "
                             f"({', '.join(map(str, _param_types(comp)))}), the loop state is "
                             f"({', '.join(map(str, state))})")
    if _out_types(body) != state:
        raise ShapeError(f"while body {body.name!r} returns "
                         f"({', '.join(map(str, _out_types(body)))}), not the loop state")
    if _out_types(cond) != [TensorType((), "pred")]:
        raise ShapeError(f"while condition {cond.name!r} must return one pred[]")
    return TupleType(tuple(types))


def _while_ref(xs, attrs, t):
    cond, body = attrs["condition"], attrs["body"]
    state = list(xs)
    for _ in range(MAX_TRIP_COUNT):
        (go,) = run_computation(cond, state, where="while condition: ")
        if not bool(go):
            return tuple(state)
        state = run_computation(body, state, where="while body: ")
    raise EvaluationError(f"while loop still running after {MAX_TRIP_COUNT} iterations")


def _while_flops(types, out, attrs):
    # one pass of the body (the trip count is not known before running); the report says so
    from workbench.ir.ops.base import REGISTRY

    body = attrs["body"]
    total = 0
    for n in body.nodes:
        if n.op in ("parameter", "constant"):
            continue
        ins = [body.node(o).type for o in n.operands]
        total += REGISTRY[n.op].flops(ins, n.type, n.attrs)
    return total * max(1, attrs.get("trip_count", 1) or 1)


register(OpDef("while", Category.CONTROL, (0, None), _while_infer, reference=_while_ref,
               flops_fn=_while_flops,
               doc="run body= on the state while condition= holds (trip_count= when XLA "
                   "knows it)",
               attributes=("condition", "body", "trip_count")))


def _conditional_infer(types, attrs, declared):
    _require_tensors(types)
    branches = attrs.get("branches")
    counts = attrs.get("branch_operands")
    if not isinstance(branches, tuple) or not branches or not isinstance(counts, tuple) \
            or len(counts) != len(branches):
        raise AttributeError_("conditional needs branches= computations and branch_operands= "
                              "their operand counts")
    index = types[0]
    if index.shape != () or index.dtype not in ("pred", "s32"):
        raise ShapeError(f"conditional's branch index must be pred[] or s32[], got {index}")
    if index.dtype == "pred" and len(branches) != 2:
        raise ShapeError("a conditional on a pred needs two branches")
    if sum(counts) != len(types) - 1:
        raise ShapeError(f"conditional branches take {sum(counts)} operands, got "
                         f"{len(types) - 1}")
    pos, result = 1, None
    for comp, n in zip(branches, counts):
        args = list(types[pos:pos + n])
        pos += n
        if _param_types(comp) != args:
            raise ShapeError(f"conditional branch {comp.name!r} takes "
                             f"({', '.join(map(str, _param_types(comp)))}), given "
                             f"({', '.join(map(str, args))})")
        outs = _out_types(comp)
        if result is None:
            result = outs
        elif outs != result:
            raise ShapeError(f"conditional branch {comp.name!r} returns "
                             f"({', '.join(map(str, outs))}), another branch "
                             f"({', '.join(map(str, result))})")
    if attrs.get("tuple_result", len(result) != 1):
        return TupleType(tuple(result))
    return result[0]


def _conditional_ref(xs, attrs, t):
    branches, counts = attrs["branches"], attrs["branch_operands"]
    index = xs[0][()]
    if xs[0].dtype == np.bool_:
        b = 0 if index else 1
    else:
        b = int(index)
        b = b if 0 <= b < len(branches) else len(branches) - 1
    pos = 1 + sum(counts[:b])
    outs = run_computation(branches[b], list(xs[pos:pos + counts[b]]),
                           where=f"conditional branch {b}: ")
    return tuple(outs) if isinstance(t, TupleType) else outs[0]


register(OpDef("conditional", Category.CONTROL, (1, None), _conditional_infer,
               reference=_conditional_ref,
               doc="run one of branches= chosen by the first operand (pred: true -> 0)",
               attributes=("branches", "branch_operands", "tuple_result")))


def _map_infer(types, attrs, declared):
    _require_tensors(types)
    comp = _computation(attrs, "computation", "map")
    first = types[0]
    for i, t in enumerate(types):
        if t.shape != first.shape:
            raise ShapeError(f"map operands must have one shape: operand {i} is {t}")
    if [p.dtype for p in _param_types(comp)] != [t.dtype for t in types] or any(
            p.shape != () for p in _param_types(comp)):
        raise ShapeError(f"map computation {comp.name!r} must take one scalar per operand")
    outs = _out_types(comp)
    if len(outs) != 1 or outs[0].shape != ():
        raise ShapeError(f"map computation {comp.name!r} must return one scalar")
    return first.with_dtype(outs[0].dtype)


register(OpDef("map", Category.CONTROL, (1, None), _map_infer,
               reference=lambda xs, a, t: map_scalar(a["computation"], xs, where="map: ")[0],
               flops_per_element=1.0,
               doc="apply a scalar computation= elementwise",
               attributes=("computation", "dimensions")))

__all__ = ["MAX_TRIP_COUNT", "is_scalar_map"]

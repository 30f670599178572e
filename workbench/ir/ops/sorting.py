"""Sorting: ``sort`` (with a comparator computation) and ``topk``.

``sort`` follows XLA's Sort: N operands of one shape are sorted together along ``dimension``
by a comparator computation over 2N scalars (``p0 < p1`` for the first operand's ascending
order; JAX's comparators canonicalise NaN and -0 and compare with ``type=TOTALORDER``). The
reference runs the comparator on whole arrays in a bitonic sorting network (Batcher, 1968):
O(log^2 n) comparator evaluations over every row at once; ties are broken by the original
position, which makes the result that of a stable sort (XLA's ``is_stable=true``; an unstable
sort may return any order of equal keys, and this one is among them).

``topk`` follows XLA's TopK (``k=``, ``largest=``): the k largest (or smallest) elements of
the last dimension and their s32 indices, lower index first among equal values; XLA:CPU's
optimised modules call it as ``custom-call(...), custom_call_target="TopK"``, which the HLO
importer reads as this op.
"""

from __future__ import annotations

import numpy as np

from workbench.errors import AttributeError_, ShapeError
from workbench.ir.ops.base import Category, OpDef, register
from workbench.ir.ops.computation import map_scalar
from workbench.ir.ops.elementwise import _require_tensors, total_order_key
from workbench.ir.types import TensorType, TupleType


def _sort_infer(types, attrs, declared):
    _require_tensors(types)
    first = types[0]
    for i, t in enumerate(types):
        if t.shape != first.shape:
            raise ShapeError(f"sort operands must have one shape: operand 0 is {first}, "
                             f"operand {i} is {t}")
    dim = attrs.get("dimension")
    if not isinstance(dim, int) or not 0 <= dim < max(first.rank, 1):
        raise AttributeError_(f"sort needs dimension= a dimension of {first}, got {dim!r}")
    comp = attrs.get("comparator")
    if comp is None or len(comp.parameters) != 2 * len(types) or len(comp.outputs) != 1:
        raise AttributeError_(f"sort needs comparator= a computation of {2 * len(types)} "
                              "scalars returning pred")
    return first if len(types) == 1 else TupleType(tuple(types))


def sort_permutation(keys: list, comparator, axis: int) -> np.ndarray:
    """The permutation (along ``axis``) that sorts ``keys`` by ``comparator``, stably.

    Parameters
    ----------
    keys : list of numpy.ndarray
        The sort's operands (one shape).
    comparator : Graph
        Computation of 2N scalars (``a0, b0, a1, b1, ...``) returning whether a sorts before b.
    axis : int

    Returns
    -------
    numpy.ndarray of int64
        Indices along ``axis``, the operands' shape.
    """
    moved = [np.moveaxis(k, axis, -1) for k in keys]
    n = moved[0].shape[-1]
    rows = moved[0].shape[:-1]
    size = 1
    while size < n:
        size *= 2
    perm = np.broadcast_to(np.arange(size), rows + (size,)).copy()
    valid_pos = np.arange(size) < n

    def less(i_pos, j_pos):
        """Whether the elements now at positions i sort strictly before those at j."""
        pi = np.take_along_axis(perm, i_pos, -1)
        pj = np.take_along_axis(perm, j_pos, -1)
        vi, vj = pi < n, pj < n
        ci, cj = np.minimum(pi, n - 1), np.minimum(pj, n - 1)
        args_ij, args_ji = [], []
        for k in moved:
            a = np.take_along_axis(k, ci, -1)
            b = np.take_along_axis(k, cj, -1)
            args_ij += [a, b]
            args_ji += [b, a]
        (lt,) = map_scalar(comparator, args_ij, where="sort: ")
        (gt,) = map_scalar(comparator, args_ji, where="sort: ")
        tie = ~lt & ~gt
        return (vi & ~vj) | (vi & vj & (lt | (tie & (pi < pj))))

    del valid_pos
    k = 2
    while k <= size:
        j = k // 2
        while j >= 1:
            i = np.arange(size)
            partner = i ^ j
            lo = i[partner > i]
            hi = lo ^ j
            ascending = (lo & k) == 0
            lo_b = np.broadcast_to(lo, rows + lo.shape)
            hi_b = np.broadcast_to(hi, rows + hi.shape)
            hi_first = less(hi_b, lo_b)
            lo_first = less(lo_b, hi_b)
            swap = np.where(ascending, hi_first, lo_first)
            a = np.take_along_axis(perm, lo_b, -1)
            b = np.take_along_axis(perm, hi_b, -1)
            np.put_along_axis(perm, lo_b, np.where(swap, b, a), -1)
            np.put_along_axis(perm, hi_b, np.where(swap, a, b), -1)
            j //= 2
        k *= 2
    return np.moveaxis(perm[..., :n], -1, axis)


def _sort_ref(xs, attrs, t):
    axis = attrs["dimension"]
    if xs[0].ndim == 0 or xs[0].shape[axis] <= 1:
        return xs[0].copy() if len(xs) == 1 else tuple(x.copy() for x in xs)
    perm = sort_permutation(list(xs), attrs["comparator"], axis)
    outs = [np.take_along_axis(x, perm, axis) for x in xs]
    return outs[0] if len(xs) == 1 else tuple(outs)


def _sort_flops(types, out, attrs):
    # comparisons of a comparison sort: n log2 n per row (XLA's HloCostAnalysis charges the
    # comparator computation n log n times as well)
    t = types[0]
    if not t.shape:
        return 0
    n = t.shape[attrs["dimension"]]
    return int(t.size * max(np.log2(max(n, 1)), 1))


register(OpDef("sort", Category.SORT, (1, None), _sort_infer, reference=_sort_ref,
               flops_fn=_sort_flops,
               doc="sort operands together along dimension= by a comparator computation",
               attributes=("dimension", "is_stable", "comparator")))


def _topk_infer(types, attrs, declared):
    _require_tensors(types)
    (x,) = types
    k = attrs.get("k")
    if x.rank < 1 or not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= x.shape[-1]:
        raise AttributeError_(f"topk needs k= between 0 and the last dimension of {x}, got "
                              f"{k!r}")
    shape = x.shape[:-1] + (k,)
    return TupleType((TensorType(shape, x.dtype), TensorType(shape, "s32")))


def topk_indices(x: np.ndarray, k: int, largest: bool = True) -> np.ndarray:
    """Indices of the k largest (smallest) elements of the last dimension, lower index first
    among equal values; NaN counts as larger than every number (the total order)."""
    if x.dtype.kind in "biu":
        key = x.astype(np.int64) if x.dtype.kind != "u" else x.astype(np.uint64)
        order = np.argsort(-key if largest and x.dtype.kind != "u" else key, axis=-1,
                           kind="stable")
        if largest and x.dtype.kind == "u":
            order = np.argsort(~key, axis=-1, kind="stable")
    else:
        key = total_order_key(x.astype(np.float32) if x.dtype.itemsize < 4 else x)
        order = np.argsort(~key if largest else key, axis=-1, kind="stable")
    return order[..., :k]


def _topk_ref(xs, attrs, t):
    x = xs[0]
    idx = topk_indices(x, attrs["k"], attrs.get("largest", True))
    return np.take_along_axis(x, idx, -1), idx.astype(np.int32)


register(OpDef("topk", Category.SORT, (1, 1), _topk_infer, reference=_topk_ref,
               flops_fn=lambda types, out, attrs: _sort_flops(types, out, dict(
                   dimension=max(types[0].rank - 1, 0))),
               doc="the k largest (largest=true) or smallest elements of the last dimension, "
                   "and their indices",
               attributes=("k", "largest")))

"""Indexing ops: ``gather``, ``scatter``, ``dynamic-slice``, ``dynamic-update-slice``.

Semantics follow XLA's operation semantics (https://openxla.org/xla/operation_semantics,
"Gather", "Scatter", "DynamicSlice", "DynamicUpdateSlice"), including the batching dimensions
StableHLO added (``operand_batching_dims`` / ``start_indices_batching_dims`` of gather,
``input_batching_dims`` / ``scatter_indices_batching_dims`` of scatter). Start indices are
clamped so that the slice stays inside the operand (gather, dynamic-slice, dynamic-update-slice);
a scatter skips every update window that would not fit (XLA's behaviour, which JAX's
``mode="drop"`` relies on).

Costs follow HloCostAnalysis (``HandleGather``, ``HandleDynamicSlice`` ...): these ops move data
and do no arithmetic; a gather or dynamic-slice reads only the elements it returns (plus the
indices), not its whole operand.
"""

from __future__ import annotations

import numpy as np

from workbench.errors import AttributeError_, ShapeError
from workbench.ir.ops.base import Category, OpDef, register
from workbench.ir.ops.computation import map_scalar, run_computation
from workbench.ir.ops.elementwise import _require_tensors
from workbench.ir.ops.shape_ops import _int_tuple
from workbench.ir.types import INT_DTYPES, TensorType, TupleType

_INDEX_DTYPES = INT_DTYPES


def _ints(attrs, key, what):
    return _int_tuple(attrs, key, what, default=())


def _index_vectors(idx: np.ndarray, ivd: int) -> np.ndarray:
    """Indices with the index vector as the last dimension (``batch... , K``)."""
    if ivd == idx.ndim:
        idx = idx[..., None]
    return np.moveaxis(idx, ivd, -1).astype(np.int64)


def _batch_pos(dim: int, ivd: int) -> int:
    """Position among the batch dimensions of an indices dimension (index_vector_dim removed)."""
    return dim if dim < ivd else dim - 1


# ----- gather ----------------------------------------------------------------------------------

def gather_geometry(operand: TensorType, indices: TensorType, attrs):
    """A gather's dimension numbers checked against its operand and indices, and its result
    shape (``shape``), window dimensions (``window``) and ``index_vector_dim`` (``ivd``)."""
    what = "gather"
    offset_dims = _ints(attrs, "offset_dims", what)
    collapsed = _ints(attrs, "collapsed_slice_dims", what)
    start_map = _ints(attrs, "start_index_map", what)
    op_batch = _ints(attrs, "operand_batching_dims", what)
    idx_batch = _ints(attrs, "start_indices_batching_dims", what)
    sizes = _ints(attrs, "slice_sizes", what)
    ivd = attrs.get("index_vector_dim", indices.rank)
    if not isinstance(ivd, int) or not 0 <= ivd <= indices.rank:
        raise AttributeError_(f"gather index_vector_dim={ivd!r} is out of range for {indices}")
    if indices.dtype not in _INDEX_DTYPES:
        raise ShapeError(f"gather indices must be integers, got {indices}")
    if len(sizes) != operand.rank:
        raise AttributeError_(f"gather needs {operand.rank} slice_sizes for {operand}, got "
                              f"{list(sizes)}")
    k = indices.shape[ivd] if ivd < indices.rank else 1
    if len(start_map) != k:
        raise AttributeError_(f"gather start_index_map {list(start_map)} must have one entry "
                              f"per index component ({k})")
    if len(op_batch) != len(idx_batch):
        raise AttributeError_("gather needs as many operand_batching_dims as "
                              "start_indices_batching_dims")
    for d in start_map + collapsed + op_batch:
        if not 0 <= d < operand.rank:
            raise AttributeError_(f"gather dimension {d} is out of range for {operand}")
    for d, s in enumerate(sizes):
        if not 0 <= s <= operand.shape[d]:
            raise AttributeError_(f"gather slice size {s} does not fit dimension {d} of "
                                  f"{operand}")
    for d in collapsed + op_batch:
        if sizes[d] != 1:
            raise AttributeError_(f"gather collapses dimension {d}, whose slice size is "
                                  f"{sizes[d]}, not 1")
    window = [d for d in range(operand.rank) if d not in collapsed and d not in op_batch]
    batch_shape = [s for d, s in enumerate(indices.shape) if d != ivd]
    out_rank = len(batch_shape) + len(window)
    if len(offset_dims) != len(window) or any(not 0 <= d < out_rank for d in offset_dims) \
            or list(offset_dims) != sorted(set(offset_dims)):
        raise AttributeError_(f"gather offset_dims {list(offset_dims)} must be {len(window)} "
                              f"increasing dimensions of the rank-{out_rank} result")
    for od, ib in zip(op_batch, idx_batch):
        if ib == ivd or not 0 <= ib < indices.rank or indices.shape[ib] != operand.shape[od]:
            raise AttributeError_(f"gather batching dimension {ib} of the indices does not "
                                  f"match dimension {od} of the operand")
    shape, wi, bi = [], iter(window), iter(batch_shape)
    for d in range(out_rank):
        shape.append(sizes[next(wi)] if d in offset_dims else next(bi))
    return dict(offset_dims=offset_dims, collapsed=collapsed, start_map=start_map,
                op_batch=op_batch, idx_batch=idx_batch, sizes=sizes, ivd=ivd, window=window,
                shape=tuple(shape))


def _gather_infer(types, attrs, declared):
    _require_tensors(types)
    operand, indices = types
    return TensorType(gather_geometry(operand, indices, attrs)["shape"], operand.dtype)


def _starts(operand_shape, sizes, idx, g, start_map, op_batch, idx_batch):
    """Clamped start positions ``batch..., rank`` of each slice."""
    batch_shape = idx.shape[:-1]
    rank = len(operand_shape)
    starts = np.zeros(batch_shape + (rank,), np.int64)
    for k, d in enumerate(start_map):
        starts[..., d] = idx[..., k]
    for od, ib in zip(op_batch, idx_batch):
        pos = _batch_pos(ib, g)
        view = [1] * len(batch_shape)
        view[pos] = batch_shape[pos]
        starts[..., od] = np.arange(batch_shape[pos]).reshape(view)
    hi = np.array([operand_shape[d] - sizes[d] for d in range(rank)], np.int64)
    return np.clip(starts, 0, np.maximum(hi, 0))


def _gather_ref(xs, attrs, t):
    operand, indices = xs
    g = gather_geometry(TensorType(operand.shape, "f32"), TensorType(indices.shape, "s32"),
                         attrs)
    idx = _index_vectors(indices, g["ivd"])
    nb = idx.ndim - 1
    starts = _starts(operand.shape, g["sizes"], idx, g["ivd"], g["start_map"], g["op_batch"],
                     g["idx_batch"])
    rank = operand.ndim
    index = []
    for d in range(rank):
        view = [1] * (nb + rank)
        view[nb + d] = g["sizes"][d]
        index.append(starts[..., d].reshape(starts.shape[:-1] + (1,) * rank)
                     + np.arange(g["sizes"][d]).reshape(view))
    res = operand[tuple(index)]                       # batch..., sizes...
    drop = tuple(nb + d for d in sorted(g["collapsed"] + g["op_batch"]))
    res = res.reshape([s for i, s in enumerate(res.shape) if i not in drop])
    out_rank = len(t.shape)
    perm, w, b = [], nb, 0
    for d in range(out_rank):
        if d in g["offset_dims"]:
            perm.append(w)
            w += 1
        else:
            perm.append(b)
            b += 1
    return np.ascontiguousarray(np.transpose(res, perm))


def _gather_bytes_read(types, out, attrs):
    return out.nbytes + types[1].nbytes


register(OpDef("gather", Category.INJECTIVE, (2, 2), _gather_infer, reference=_gather_ref,
               bytes_read_fn=_gather_bytes_read,
               doc="slices of the operand at positions read from start indices (an embedding "
                   "lookup, take_along_axis)",
               attributes=("offset_dims", "collapsed_slice_dims", "start_index_map",
                           "operand_batching_dims", "start_indices_batching_dims",
                           "index_vector_dim", "slice_sizes", "indices_are_sorted")))


# ----- dynamic-slice, dynamic-update-slice ----------------------------------------------------

def _scalar_indices(types, first, what, rank):
    idx = types[first:]
    if len(idx) != rank:
        raise ShapeError(f"{what} needs {rank} start indices (one per dimension), got {len(idx)}")
    for i, t in enumerate(idx):
        if t.shape != () or t.dtype not in _INDEX_DTYPES:
            raise ShapeError(f"{what} start index {i} must be an integer scalar, got {t}")


def _dynamic_slice_infer(types, attrs, declared):
    _require_tensors(types)
    x = types[0]
    _scalar_indices(types, 1, "dynamic-slice", x.rank)
    sizes = _int_tuple(attrs, "slice_sizes", "dynamic-slice")
    if len(sizes) != x.rank or any(not 0 <= s <= n for s, n in zip(sizes, x.shape)):
        raise AttributeError_(f"dynamic-slice slice_sizes {list(sizes)} do not fit {x}")
    return TensorType(tuple(sizes), x.dtype)


def _clamped(starts, shape, sizes):
    return tuple(int(min(max(int(s), 0), n - k)) for s, n, k in zip(starts, shape, sizes))


def _dynamic_slice_ref(xs, attrs, t):
    x = xs[0]
    sizes = attrs["slice_sizes"]
    st = _clamped([np.asarray(v)[()] for v in xs[1:]], x.shape, sizes)
    return x[tuple(slice(s, s + k) for s, k in zip(st, sizes))].copy()


register(OpDef("dynamic-slice", Category.INJECTIVE, (1, None), _dynamic_slice_infer,
               reference=_dynamic_slice_ref,
               bytes_read_fn=lambda types, out, attrs: out.nbytes + sum(
                   t.nbytes for t in types[1:]),
               doc="a box of slice_sizes= at runtime start indices (clamped to fit)",
               attributes=("slice_sizes",)))


def _dus_infer(types, attrs, declared):
    _require_tensors(types)
    x, upd = types[0], types[1]
    if upd.dtype != x.dtype or upd.rank != x.rank or any(u > n for u, n in zip(upd.shape,
                                                                             x.shape)):
        raise ShapeError(f"dynamic-update-slice: update {upd} does not fit operand {x}")
    _scalar_indices(types, 2, "dynamic-update-slice", x.rank)
    return x


def _dus_ref(xs, attrs, t):
    x, upd = xs[0], xs[1]
    st = _clamped([np.asarray(v)[()] for v in xs[2:]], x.shape, upd.shape)
    out = x.copy()
    out[tuple(slice(s, s + k) for s, k in zip(st, upd.shape))] = upd
    return out


register(OpDef("dynamic-update-slice", Category.INJECTIVE, (2, None), _dus_infer,
               reference=_dus_ref,
               bytes_read_fn=lambda types, out, attrs: 2 * types[1].nbytes + sum(
                   t.nbytes for t in types[2:]),
               bytes_written_fn=lambda types, out, attrs: types[1].nbytes,
               doc="the operand with a box overwritten by the update at runtime start indices "
                   "(clamped to fit); in place in XLA",
               attributes=()))


# ----- scatter ---------------------------------------------------------------------------------

#: combiners a scatter recognises (its computation is one of these binary ops, or returns the
#: update: ``assign``) -> numpy ufunc for ``ufunc.at``
SCATTER_COMBINERS = {"add": np.add, "multiply": np.multiply, "maximum": np.maximum,
                     "minimum": np.minimum, "and": np.logical_and, "or": np.logical_or,
                     "assign": None}


def _scatter_geometry(operand: TensorType, indices: TensorType, updates: TensorType, attrs):
    what = "scatter"
    uwd = _ints(attrs, "update_window_dims", what)
    inserted = _ints(attrs, "inserted_window_dims", what)
    to_operand = _ints(attrs, "scatter_dims_to_operand_dims", what)
    in_batch = _ints(attrs, "input_batching_dims", what)
    idx_batch = _ints(attrs, "scatter_indices_batching_dims", what)
    ivd = attrs.get("index_vector_dim", indices.rank)
    if not isinstance(ivd, int) or not 0 <= ivd <= indices.rank:
        raise AttributeError_(f"scatter index_vector_dim={ivd!r} is out of range for {indices}")
    if indices.dtype not in _INDEX_DTYPES:
        raise ShapeError(f"scatter indices must be integers, got {indices}")
    k = indices.shape[ivd] if ivd < indices.rank else 1
    if len(to_operand) != k:
        raise AttributeError_(f"scatter_dims_to_operand_dims {list(to_operand)} must have one "
                              f"entry per index component ({k})")
    for d in inserted + to_operand + in_batch:
        if not 0 <= d < operand.rank:
            raise AttributeError_(f"scatter dimension {d} is out of range for {operand}")
    window_operand = [d for d in range(operand.rank) if d not in inserted and d not in in_batch]
    if len(uwd) != len(window_operand):
        raise AttributeError_(f"scatter update_window_dims {list(uwd)} must name "
                              f"{len(window_operand)} dimensions of the updates")
    scatter_dims = [d for d in range(updates.rank) if d not in uwd]
    batch_shape = [s for d, s in enumerate(indices.shape) if d != ivd]
    if [updates.shape[d] for d in scatter_dims] != batch_shape:
        raise ShapeError(f"scatter updates {updates}: their scatter dimensions must have the "
                         f"indices' batch shape {batch_shape}")
    for wd, od in zip(uwd, window_operand):
        if updates.shape[wd] > operand.shape[od]:
            raise ShapeError(f"scatter update window dimension {wd} ({updates.shape[wd]}) is "
                             f"larger than operand dimension {od} ({operand.shape[od]})")
    return dict(uwd=uwd, inserted=inserted, to_operand=to_operand, in_batch=in_batch,
                idx_batch=idx_batch, ivd=ivd, window_operand=window_operand,
                scatter_dims=scatter_dims)


def _scatter_infer(types, attrs, declared):
    _require_tensors(types)
    if len(types) % 2 != 1:
        raise ShapeError("scatter takes N operands, the indices and N updates")
    n = len(types) // 2
    operands, indices, updates = types[:n], types[n], types[n + 1:]
    for o, u in zip(operands, updates):
        _scatter_geometry(o, indices, u, attrs)
        if o.shape != operands[0].shape:
            raise ShapeError("scatter operands must have one shape")
    comb = attrs.get("combiner")
    comp = attrs.get("computation")
    if comb is None and comp is None:
        raise AttributeError_("scatter needs combiner= (add, multiply, maximum, minimum, and, "
                              "or, assign) or computation=")
    if comb is not None and comb not in SCATTER_COMBINERS:
        raise AttributeError_(f"scatter combiner= {comb!r} is not one of "
                              f"{', '.join(SCATTER_COMBINERS)}")
    if comb is not None and n != 1:
        raise AttributeError_("a variadic scatter needs computation=")
    return operands[0] if n == 1 else TupleType(tuple(operands))


def _scatter_targets(shape, indices, updates_shape, g):
    """(flat operand positions, flat update positions) of every update element that lands."""
    rank = len(shape)
    idx = _index_vectors(indices, g["ivd"])
    batch_shape = idx.shape[:-1]
    starts = np.zeros(batch_shape + (rank,), np.int64)
    for k, d in enumerate(g["to_operand"]):
        starts[..., d] = idx[..., k]
    for od, ib in zip(g["in_batch"], g["idx_batch"]):
        pos = _batch_pos(ib, g["ivd"])
        view = [1] * len(batch_shape)
        view[pos] = batch_shape[pos]
        starts[..., od] = np.arange(batch_shape[pos]).reshape(view)
    wsize = [1] * rank
    for wd, od in zip(g["uwd"], g["window_operand"]):
        wsize[od] = updates_shape[wd]
    fits = np.all((starts >= 0) & (starts <= np.array(shape) - np.array(wsize)), axis=-1)
    wshape = [updates_shape[d] for d in g["uwd"]]
    nb, nw = len(batch_shape), len(wshape)
    full = []
    for d in range(rank):
        pos = starts[..., d].reshape(batch_shape + (1,) * nw)
        if d in g["window_operand"]:
            j = g["window_operand"].index(d)
            view = [1] * (nb + nw)
            view[nb + j] = wshape[j]
            pos = pos + np.arange(wshape[j]).reshape(view)
        full.append(np.broadcast_to(pos, batch_shape + tuple(wshape)))
    mask = np.broadcast_to(fits.reshape(batch_shape + (1,) * nw), batch_shape + tuple(wshape))
    target = np.ravel_multi_index(tuple(f[mask] for f in full), shape) if rank else \
        np.zeros(int(mask.sum()), np.int64)
    # the update element at each (batch, window) position, in the same order
    order = list(g["scatter_dims"]) + list(g["uwd"])
    upos = np.arange(int(np.prod(updates_shape))).reshape(updates_shape).transpose(order)
    return target, upos[mask]


def _scatter_ref(xs, attrs, t):
    n = len(xs) // 2
    operands, indices, updates = xs[:n], xs[n], xs[n + 1:]
    g = _scatter_geometry(TensorType(operands[0].shape, "f32"),
                          TensorType(indices.shape, "s32"),
                          TensorType(updates[0].shape, "f32"), attrs)
    target, source = _scatter_targets(operands[0].shape, indices, updates[0].shape, g)
    outs = [o.copy().reshape(-1) for o in operands]
    vals = [u.reshape(-1)[source] for u in updates]
    comb = attrs.get("combiner")
    if comb == "assign":
        outs[0][target] = vals[0]
    elif comb is not None:
        ufunc = SCATTER_COMBINERS[comb]
        if comb in ("and", "or") and outs[0].dtype != np.bool_:
            ufunc = np.bitwise_and if comb == "and" else np.bitwise_or
        with np.errstate(all="ignore"):
            ufunc.at(outs[0], target, vals[0])
    else:
        comp = attrs["computation"]
        if len(np.unique(target)) == target.size:        # no two updates hit one element
            res = map_scalar(comp, [o[target] for o in outs] + vals, where="scatter: ")
            for o, r in zip(outs, res):
                o[target] = r
        else:                                            # in order, one element at a time
            for i, pos in enumerate(target):
                res = run_computation(comp, [o[pos] for o in outs] + [v[i] for v in vals],
                                      where="scatter: ")
                for o, r in zip(outs, res):
                    o[pos] = r
    outs = [o.reshape(operands[0].shape) for o in outs]
    return outs[0] if n == 1 else tuple(outs)


def _scatter_flops(types, out, attrs):
    n = len(types) // 2
    return 0 if attrs.get("combiner") == "assign" else types[n + 1].size


def _scatter_bytes_read(types, out, attrs):
    n = len(types) // 2
    # operand (read and written in place), indices, updates
    return sum(t.nbytes for t in types[:n]) + types[n].nbytes + sum(t.nbytes
                                                                    for t in types[n + 1:])


register(OpDef("scatter", Category.SCATTER, (3, None), _scatter_infer, reference=_scatter_ref,
               flops_fn=_scatter_flops, bytes_read_fn=_scatter_bytes_read,
               doc="the operand with update windows combined in at positions read from "
                   "indices (combiner= add/multiply/maximum/minimum/assign, or computation=)",
               attributes=("update_window_dims", "inserted_window_dims",
                           "scatter_dims_to_operand_dims", "input_batching_dims",
                           "scatter_indices_batching_dims", "index_vector_dim", "combiner",
                           "computation", "indices_are_sorted", "unique_indices")))

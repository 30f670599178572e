"""Sources (parameter, constant, iota), broadcast, and data-movement ops.

Semantics follow XLA's operation semantics (https://openxla.org/xla/operation_semantics). Ops
whose result shape cannot be derived from their operands carry it as an attribute (``shape`` for
broadcast, reshape, bitcast and iota), so that a graph's types are always re-derivable.
"""

from __future__ import annotations

import numpy as np

from workbench.errors import AttributeError_, ShapeError
from workbench.ir.ops.base import Category, OpDef, register
from workbench.ir.ops.elementwise import _require_tensors, _same_shapes
from workbench.ir.literals import literal_array
from workbench.ir.types import DTYPES, TensorType, TupleType


def _int_tuple(attrs, key, what, *, default=None):
    v = attrs.get(key, default)
    if v is None:
        raise AttributeError_(f"{what} needs the attribute {key}=")
    if isinstance(v, (int,)) and not isinstance(v, bool):
        v = (v,)
    if not isinstance(v, tuple) or not all(isinstance(x, int) and not isinstance(x, bool)
                                           for x in v):
        raise AttributeError_(f"{what}: {key}= must be a list of integers, got {v!r}"[:200])
    return v


def _shape_attr(attrs, what):
    shape = _int_tuple(attrs, "shape", what)
    if any(d < 0 for d in shape):
        raise AttributeError_(f"{what}: shape= has a negative dimension {list(shape)}")
    return shape


def _declared(declared, what):
    if declared is None:
        raise ShapeError(f"{what} needs a declared type")
    return declared


# ----- parameter, constant, iota --------------------------------------------------------------

def _parameter_infer(types, attrs, declared):
    idx = attrs.get("index")
    if not isinstance(idx, int) or isinstance(idx, bool) or idx < 0:
        raise AttributeError_(f"parameter needs index= a non-negative integer, got {idx!r}")
    return _declared(declared, "a parameter")


register(OpDef("parameter", Category.PARAMETER, (0, 0), _parameter_infer,
               doc="a graph input, numbered by index=",
               attributes=('index',)))


def constant_array(attrs, t: TensorType) -> np.ndarray:
    """The value of a constant node as an array of type ``t``.

    ``attrs['value']`` is a number (a splat: every element equal), or a nested or flat list with
    ``t.size`` numbers; the strings ``"inf"``, ``"-inf"``, ``"nan"`` stand for non-finite floats.
    Values must fit the dtype (:mod:`workbench.ir.literals`: no float in an integer type, no
    integer past its range, no float past its type's largest value).

    Raises
    ------
    AttributeError_
        If the value is missing, does not fit, or has the wrong number of elements.
    """
    arr = literal_array(attrs.get("value"), t)
    if arr.size == 1:
        return np.full(t.shape, arr[0], dtype=t.np_dtype)
    return arr.reshape(t.shape)


def _constant_infer(types, attrs, declared):
    t = _declared(declared, "a constant")
    if not isinstance(t, TensorType):
        raise ShapeError("a constant must be a tensor")
    try:
        literal_array(attrs.get("value"), t)   # checked, not yet spread to its shape
    except ShapeError as exc:
        raise AttributeError_(f"constant: {exc.message}") from None
    return t


register(OpDef("constant", Category.CONSTANT, (0, 0), _constant_infer,
               reference=lambda xs, a, t: constant_array(a, t),
               doc="a literal tensor (value= a number or a list)",
               attributes=('value',)))


def _iota_infer(types, attrs, declared):
    shape = _shape_attr(attrs, "iota")
    dtype = attrs.get("dtype")
    if dtype not in DTYPES:
        raise AttributeError_(f"iota needs dtype= a known dtype, got {dtype!r}")
    dim = attrs.get("iota_dimension")
    if not isinstance(dim, int) or not 0 <= dim < max(len(shape), 1):
        raise AttributeError_(f"iota_dimension={dim!r} is out of range for shape {list(shape)}")
    return TensorType(shape, dtype)


def _iota_ref(xs, attrs, t):
    shape = t.shape
    dim = attrs["iota_dimension"]
    ar = np.arange(shape[dim], dtype=t.np_dtype)
    view = [1] * len(shape)
    view[dim] = shape[dim]
    return np.broadcast_to(ar.reshape(view), shape).copy()


register(OpDef("iota", Category.INJECTIVE, (0, 0), _iota_infer, reference=_iota_ref,
               flops_per_element=0.0, doc="0, 1, 2, ... along iota_dimension",
               attributes=('shape', 'dtype', 'iota_dimension')))

# ----- broadcast ------------------------------------------------------------------------------


def _broadcast_infer(types, attrs, declared):
    _require_tensors(types)
    (x,) = types
    shape = _shape_attr(attrs, "broadcast")
    dims = _int_tuple(attrs, "dimensions", "broadcast", default=())
    if len(dims) != x.rank:
        raise AttributeError_(f"broadcast of {x} needs {x.rank} dimensions=, got {list(dims)}")
    if len(set(dims)) != len(dims):
        raise AttributeError_(f"broadcast dimensions= {list(dims)} repeats a dimension")
    for i, d in enumerate(dims):
        if not 0 <= d < len(shape):
            raise AttributeError_(f"broadcast dimension {d} is outside the result shape "
                                  f"{list(shape)}")
        if x.shape[i] not in (shape[d], 1):
            raise ShapeError(f"broadcast: operand dimension {i} has size {x.shape[i]}, result "
                             f"dimension {d} has {shape[d]}")
    return TensorType(shape, x.dtype)


def _broadcast_ref(xs, attrs, t):
    x = xs[0]
    dims = tuple(attrs.get("dimensions", ()))
    order = np.argsort(dims)
    x = np.transpose(x, order) if x.ndim > 1 else x
    sorted_dims = [dims[i] for i in order]
    view = [1] * len(t.shape)
    for k, d in enumerate(sorted_dims):
        view[d] = x.shape[k]
    return np.broadcast_to(x.reshape(view), t.shape).copy()


register(OpDef("broadcast", Category.BROADCAST, (1, 1), _broadcast_infer,
               reference=_broadcast_ref,
               doc="replicate the operand: its dimension i becomes result dimension dimensions[i]",
               attributes=('shape', 'dimensions')))

# ----- reshape, bitcast, copy, transpose, reverse ---------------------------------------------


def _reshape_infer(types, attrs, declared):
    _require_tensors(types)
    (x,) = types
    shape = _shape_attr(attrs, "reshape")
    out = TensorType(shape, x.dtype)
    if out.size != x.size:
        raise ShapeError(f"cannot reshape {x} ({x.size} elements) to {list(shape)} "
                         f"({out.size} elements)")
    return out


register(OpDef("reshape", Category.INJECTIVE, (1, 1), _reshape_infer,
               reference=lambda xs, a, t: np.reshape(xs[0], t.shape),
               doc="the same elements in row-major order, another shape",
               attributes=('shape',)))


def _layout_order(layout, rank):
    """Major-to-minor dimension order from an HLO minor_to_major layout (default: row-major)."""
    if layout is None or len(layout) != rank:
        return list(range(rank))
    return list(reversed(layout))


def _bitcast_infer(types, attrs, declared):
    out = _reshape_infer(types, attrs, declared)
    dtype = attrs.get("dtype")
    if dtype is None:
        return out
    if dtype not in DTYPES:
        raise AttributeError_(f"bitcast needs dtype= a known dtype, got {dtype!r}")
    new = out.with_dtype(dtype)
    if new.itemsize != out.itemsize:
        raise ShapeError(f"bitcast cannot change {out.dtype} to {dtype}: element sizes differ")
    return new


def _bitcast_ref(xs, attrs, t):
    x = xs[0]
    if attrs.get("dtype") is not None:
        x = np.ascontiguousarray(x).view(t.np_dtype)
    src = _layout_order(attrs.get("operand_layout"), x.ndim)
    dst = _layout_order(attrs.get("layout"), len(t.shape))
    physical = np.transpose(x, src).reshape(-1)
    out_physical = physical.reshape([t.shape[d] for d in dst])
    return np.transpose(out_physical, np.argsort(dst))


register(OpDef("bitcast", Category.INJECTIVE, (1, 1), _bitcast_infer, reference=_bitcast_ref,
               doc="reinterpret the operand's memory with another shape and layout (and, "
                   "with dtype=, its bits as another element type of the same size)",
               attributes=('shape', 'operand_layout', 'layout', 'dtype'),
               # free when the row-major order is kept: the same buffer, another shape (a
               # bitcast that changes the layout is a transpose of the row-major values)
               free_fn=lambda attrs, types, out: "layout" not in attrs))

register(OpDef("copy", Category.INJECTIVE, (1, 1),
               lambda types, a, d: _same_shapes(types),
               reference=lambda xs, a, t: xs[0].copy(),
               doc="a copy (in XLA, a layout change)"))


def _transpose_infer(types, attrs, declared):
    _require_tensors(types)
    (x,) = types
    perm = _int_tuple(attrs, "dimensions", "transpose")
    if sorted(perm) != list(range(x.rank)):
        raise AttributeError_(f"transpose dimensions= {list(perm)} is not a permutation of "
                              f"0..{x.rank - 1}")
    return TensorType(tuple(x.shape[p] for p in perm), x.dtype)


register(OpDef("transpose", Category.INJECTIVE, (1, 1), _transpose_infer,
               reference=lambda xs, a, t: np.transpose(xs[0], a["dimensions"]).copy(),
               doc="permute dimensions: result dimension i is operand dimension dimensions[i]",
               attributes=('dimensions',)))


def _reverse_infer(types, attrs, declared):
    _require_tensors(types)
    (x,) = types
    dims = _int_tuple(attrs, "dimensions", "reverse")
    if any(not 0 <= d < x.rank for d in dims):
        raise AttributeError_(f"reverse dimensions= {list(dims)} out of range for {x}")
    return x


register(OpDef("reverse", Category.INJECTIVE, (1, 1), _reverse_infer,
               reference=lambda xs, a, t: np.flip(xs[0], a["dimensions"]).copy(),
               doc="reverse the order of elements along dimensions",
               attributes=('dimensions',)))

# ----- slice, concatenate, pad ----------------------------------------------------------------


def _slice_infer(types, attrs, declared):
    _require_tensors(types)
    (x,) = types
    start = _int_tuple(attrs, "start_indices", "slice")
    limit = _int_tuple(attrs, "limit_indices", "slice")
    strides = _int_tuple(attrs, "strides", "slice", default=(1,) * x.rank)
    if not len(start) == len(limit) == len(strides) == x.rank:
        raise AttributeError_(f"slice of {x} needs {x.rank} start, limit and stride values")
    out = []
    for d, (s, e, st) in enumerate(zip(start, limit, strides)):
        if not (0 <= s <= e <= x.shape[d]) or st < 1:
            raise AttributeError_(f"slice [{s}:{e}:{st}] is out of range for dimension {d} of "
                                  f"{x}")
        out.append((e - s + st - 1) // st)
    return TensorType(tuple(out), x.dtype)


def _slice_ref(xs, attrs, t):
    x = xs[0]
    strides = attrs.get("strides", (1,) * x.ndim)
    idx = tuple(slice(s, e, st) for s, e, st in zip(attrs["start_indices"],
                                                   attrs["limit_indices"], strides))
    return x[idx].copy()


register(OpDef("slice", Category.INJECTIVE, (1, 1), _slice_infer, reference=_slice_ref,
               doc="a strided box of the operand",
               attributes=('start_indices', 'limit_indices', 'strides')))


def _concat_infer(types, attrs, declared):
    _require_tensors(types)
    dim = attrs.get("dimension")
    first = types[0]
    if not isinstance(dim, int) or not 0 <= dim < first.rank:
        raise AttributeError_(f"concatenate needs dimension= in 0..{first.rank - 1}, got {dim!r}")
    total = 0
    for i, t in enumerate(types):
        if t.dtype != first.dtype or t.rank != first.rank or any(
                a != b for k, (a, b) in enumerate(zip(t.shape, first.shape)) if k != dim):
            raise ShapeError(f"concatenate operand {i} {t} does not match operand 0 {first} "
                             f"outside dimension {dim}")
        total += t.shape[dim]
    shape = list(first.shape)
    shape[dim] = total
    return TensorType(tuple(shape), first.dtype)


register(OpDef("concatenate", Category.INJECTIVE, (1, None), _concat_infer,
               reference=lambda xs, a, t: np.concatenate(xs, axis=a["dimension"]),
               doc="join operands along dimension",
               attributes=('dimension',)))


def _padding(attrs, rank):
    pad = attrs.get("padding")
    if not isinstance(pad, tuple) or len(pad) != rank or not all(
            isinstance(p, tuple) and len(p) == 3 and all(isinstance(v, int) for v in p)
            for p in pad):
        raise AttributeError_(f"pad needs padding= {rank} [low, high, interior] triples, "
                              f"got {pad!r}"[:200])
    return pad


def _pad_infer(types, attrs, declared):
    _require_tensors(types)
    x, value = types
    if value.shape != () or value.dtype != x.dtype:
        raise ShapeError(f"pad's padding value must be a {x.dtype} scalar, got {value}")
    out = []
    for d, (lo, hi, interior) in enumerate(_padding(attrs, x.rank)):
        if interior < 0:
            raise AttributeError_(f"pad: negative interior padding in dimension {d}")
        n = x.shape[d]
        size = lo + hi + n + max(n - 1, 0) * interior
        if size < 0:
            raise ShapeError(f"pad: dimension {d} would have negative size {size}")
        out.append(size)
    return TensorType(tuple(out), x.dtype)


def _pad_ref(xs, attrs, t):
    x, value = xs
    pad = attrs["padding"]
    # interior and non-negative edges first, then crop negative edges
    grown = [max(lo, 0) + max(hi, 0) + n + max(n - 1, 0) * it
             for (lo, hi, it), n in zip(pad, x.shape)]
    out = np.full(grown, value, dtype=x.dtype)
    idx = tuple(slice(max(lo, 0), max(lo, 0) + n + max(n - 1, 0) * it, it + 1)
                for (lo, hi, it), n in zip(pad, x.shape))
    out[idx] = x
    crop = tuple(slice(-min(lo, 0), g + min(hi, 0)) for (lo, hi, _), g in zip(pad, grown))
    return out[crop].copy()


register(OpDef("pad", Category.INJECTIVE, (2, 2), _pad_infer, reference=_pad_ref,
               doc="edge (low, high; negative crops) and interior padding with a scalar value",
               attributes=('padding',)))

# ----- tuples and opaque ops ------------------------------------------------------------------


def _gte_infer(types, attrs, declared):
    (t,) = types
    idx = attrs.get("index")
    if not isinstance(t, TupleType):
        raise ShapeError(f"get-tuple-element needs a tuple operand, got {t}")
    if not isinstance(idx, int) or not 0 <= idx < len(t.elements):
        raise AttributeError_(f"get-tuple-element index={idx!r} out of range for {t}")
    return t.elements[idx]


register(OpDef("get-tuple-element", Category.INJECTIVE, (1, 1), _gte_infer,
               reference=lambda xs, a, t: xs[0][a["index"]],
               doc="element index= of a tuple value",
               attributes=('index',), free_fn=lambda attrs, types, out: True,
               never_fused=True))


register(OpDef("tuple", Category.INJECTIVE, (0, None),
               lambda types, a, d: TupleType(tuple(types)),
               reference=lambda xs, a, t: tuple(xs),
               doc="a tuple of its operands (kept only where an opaque op needs one)",
               free_fn=lambda attrs, types, out: True, never_fused=True))


def _opaque_infer(types, attrs, declared):
    return _declared(declared, "an opaque op")


register(OpDef("opaque", Category.OPAQUE, (0, None), _opaque_infer, reference=None,
               doc="an op the workbench cannot look inside (hlo_opcode= names it): drawn, "
                   "costed by its bytes, never fused",
               attributes=None))

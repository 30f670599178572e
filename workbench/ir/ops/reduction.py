"""Reductions: ``reduce``, ``reduce-window`` and ``select-and-scatter``.

HLO's reduce takes a ``to_apply`` computation; the importer recognises the computations that are
one binary op of their two parameters and records it as ``reducer=`` (``add``, ``multiply``,
``maximum``, ``minimum``, ``and``, ``or``). Any other computation (an argmax's comparator over a
value and an index, a max that rounds to bf16) is kept as ``computation=``, with N operands and
N init values and a tuple result when N > 1 (XLA's variadic reduce); the reference then folds
it over the reduced elements, on whole arrays at once (a pairwise tree for ``reduce``, in window
order for ``reduce-window``; XLA leaves the order of a reduction unspecified).

Narrow floats (bf16, f16, f8): an ``add`` or ``multiply`` reduction accumulates in f32 and
rounds once to the dtype, as XLA:CPU does after float normalization (its optimised modules
convert the operand to f32, reduce, and convert back).

``reduce-window`` has every attribute XLA's has: ``window_size``, ``window_stride``,
``window_padding`` (low, high), ``base_dilation`` (holes between input elements, filled with
the init value) and ``window_dilation`` (gaps between the window's taps).
"""

from __future__ import annotations

import numpy as np

from workbench.errors import AttributeError_, ShapeError
from workbench.ir.ops.base import Category, OpDef, narrow_float, register
from workbench.ir.ops.computation import map_scalar
from workbench.ir.ops.elementwise import _require_tensors
from workbench.ir.ops.shape_ops import _int_tuple
from workbench.ir.types import TensorType, TupleType

#: reducer name -> numpy ufunc (used with ``ufunc.reduce(..., initial=init)``)
REDUCERS = {
    "add": np.add,
    "multiply": np.multiply,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "and": np.logical_and,
    "or": np.logical_or,
}


def _reducer(attrs, what, n=1):
    """The reducer name, or None for a ``computation=`` (checked against n operands)."""
    r = attrs.get("reducer")
    comp = attrs.get("computation")
    if comp is not None:
        if r is not None:
            raise AttributeError_(f"{what} takes reducer= or computation=, not both")
        if len(comp.parameters) != 2 * n or len(comp.outputs) != n:
            raise AttributeError_(f"{what}'s computation {comp.name!r} must take {2 * n} "
                                  f"scalars and return {n}")
        return None
    if r not in REDUCERS:
        raise AttributeError_(f"{what} needs reducer= one of {', '.join(REDUCERS)}, got {r!r}")
    if n != 1:
        raise AttributeError_(f"a {what} of {n} operands needs computation=")
    return r


def _init_check(x, init, what):
    if init.shape != () or init.dtype != x.dtype:
        raise ShapeError(f"{what}'s init value must be a {x.dtype} scalar, got {init}")


def _split(types, what):
    if len(types) % 2:
        raise ShapeError(f"{what} takes N operands and N init values")
    n = len(types) // 2
    xs, inits = types[:n], types[n:]
    for x, init in zip(xs, inits):
        _init_check(x, init, what)
        if x.shape != xs[0].shape:
            raise ShapeError(f"{what} operands must have one shape: {xs[0]} and {x}")
    return n, xs, inits


def _result(types):
    return types[0] if len(types) == 1 else TupleType(tuple(types))


def reduced_dims(attrs) -> tuple[int, ...]:
    """The dimensions a ``reduce`` node reduces (its ``dimensions`` attribute)."""
    return tuple(attrs.get("dimensions", ()))


def _reduce_infer(types, attrs, declared):
    _require_tensors(types)
    n, xs, inits = _split(types, "reduce")
    if attrs.get("computation") is not None:
        comp = attrs["computation"]
        want = [TensorType((), t.dtype) for t in xs] * 2
        got = [p.type for p in comp.parameters]
        if got and [t.dtype for t in got] != [t.dtype for t in want]:
            raise ShapeError(f"reduce computation {comp.name!r} takes "
                             f"({', '.join(map(str, got))}), the operands need "
                             f"({', '.join(map(str, want))})")
    _reducer(attrs, "reduce", n)
    x = xs[0]
    dims = _int_tuple(attrs, "dimensions", "reduce")
    if len(set(dims)) != len(dims) or any(not 0 <= d < x.rank for d in dims):
        raise AttributeError_(f"reduce dimensions= {list(dims)} are not distinct dimensions "
                              f"of {x}")
    shape = tuple(s for d, s in enumerate(x.shape) if d not in dims)
    return _result([TensorType(shape, t.dtype) for t in xs])


#: bitwise forms of the logical reducers, for integer operands
_BITWISE = {"and": np.bitwise_and, "or": np.bitwise_or}


def _ufunc_reduce(ufunc, reducer, x, axis, init):
    if reducer in _BITWISE and x.dtype != np.bool_:
        ufunc = _BITWISE[reducer]
    wide = narrow_float(x.dtype) and reducer in ("add", "multiply")
    dtype = np.float32 if wide else x.dtype
    with np.errstate(all="ignore"):
        out = ufunc.reduce(x.astype(dtype) if wide else x, axis=axis,
                           initial=np.asarray(init).astype(dtype)[()], dtype=dtype)
    return np.asarray(out).astype(x.dtype)


def _fold_tree(comp, values, axis, inits, where):
    """Reduce ``values`` (N arrays) along ``axis`` with a scalar computation, pairwise."""
    vals = [np.moveaxis(v, axis, -1) for v in values]
    if vals[0].shape[-1] == 0:
        shape = vals[0].shape[:-1]
        return [np.broadcast_to(np.asarray(i), shape).copy() for i in inits]
    while vals[0].shape[-1] > 1:
        m = vals[0].shape[-1]
        half = m // 2
        a = [v[..., :half] for v in vals]
        b = [v[..., half:2 * half] for v in vals]
        rest = [v[..., 2 * half:] for v in vals]
        comb = map_scalar(comp, a + b, where=where)
        vals = [np.concatenate([c, r], axis=-1) for c, r in zip(comb, rest)]
    last = [v[..., 0] for v in vals]
    out = map_scalar(comp, [np.asarray(i) for i in inits] + last, where=where)
    return [np.array(o) for o in out]


def _reduce_ref(xs, attrs, t):
    n = len(xs) // 2
    values, inits = xs[:n], xs[n:]
    dims = tuple(attrs["dimensions"])
    r = attrs.get("reducer")
    if r is not None:
        return _ufunc_reduce(REDUCERS[r], r, values[0], dims, inits[0][()])
    keep = [d for d in range(values[0].ndim) if d not in dims]
    flat = [np.transpose(v, keep + list(dims)).reshape(
        [v.shape[d] for d in keep] + [-1]) for v in values]
    if not dims:
        flat = [v[..., None] for v in flat]
    out = _fold_tree(attrs["computation"], flat, -1, [i[()] for i in inits], "reduce: ")
    out = [np.asarray(o).reshape([values[0].shape[d] for d in keep]) for o in out]
    return out[0] if n == 1 else tuple(out)


def _reduce_flops(types, out, attrs):
    # one application of the reducer per input element (XLA's HloCostAnalysis::HandleReduce
    # charges the to_apply computation once per reduced element).
    return types[0].size


register(OpDef("reduce", Category.REDUCTION, (2, None), _reduce_infer, reference=_reduce_ref,
               flops_fn=_reduce_flops,
               doc="combine elements along dimensions= with reducer= (or a computation=), "
                   "starting from init",
               attributes=('dimensions', 'reducer', 'computation')))


def _window(attrs, rank, what):
    size = _int_tuple(attrs, "window_size", what)
    if len(size) != rank:
        raise AttributeError_(f"{what} needs {rank} window sizes, got {list(size)}")
    stride = _int_tuple(attrs, "window_stride", what, default=(1,) * rank)
    pad = attrs.get("window_padding", ((0, 0),) * rank)
    base = _int_tuple(attrs, "base_dilation", what, default=(1,) * rank)
    wdil = _int_tuple(attrs, "window_dilation", what, default=(1,) * rank)
    if len(stride) != rank or len(pad) != rank or len(base) != rank or len(wdil) != rank:
        raise AttributeError_(f"{what}: window stride, padding and dilations need {rank} "
                              "entries")
    if any(v < 1 for v in stride + base + wdil):
        raise AttributeError_(f"{what}: strides and dilations must be >= 1")
    return size, stride, pad, base, wdil


def window_out_shape(shape, attrs, what="reduce-window"):
    """The result shape of a window op over ``shape`` (XLA's ShapeInference::InferWindow...)."""
    size, stride, pad, base, wdil = _window(attrs, len(shape), what)
    out = []
    for d, n in enumerate(shape):
        padded = (max(n - 1, 0) * base[d] + 1 if n else 0) + pad[d][0] + pad[d][1]
        span = (size[d] - 1) * wdil[d] + 1
        if size[d] < 1 or padded < span:
            raise ShapeError(f"{what}: window {size[d]} (dilated to {span}) does not fit "
                             f"dimension {d} of size {padded} after padding and dilation")
        out.append((padded - span) // stride[d] + 1)
    return tuple(out)


def _reduce_window_infer(types, attrs, declared):
    _require_tensors(types)
    n, xs, inits = _split(types, "reduce-window")
    _reducer(attrs, "reduce-window", n)
    shape = window_out_shape(xs[0].shape, attrs)
    return _result([TensorType(shape, t.dtype) for t in xs])


def _dilate_pad(x, base, pad, fill):
    """``x`` with base-dilation holes and edge padding (negative edges crop), filled."""
    grown = [max(n - 1, 0) * b + 1 if n else 0 for n, b in zip(x.shape, base)]
    big = np.full([g + max(lo, 0) + max(hi, 0) for g, (lo, hi) in zip(grown, pad)], fill,
                  dtype=x.dtype)
    big[tuple(slice(max(lo, 0), max(lo, 0) + g, b) for g, b, (lo, hi)
              in zip(grown, base, pad))] = x
    return big[tuple(slice(-min(lo, 0), big.shape[d] + min(hi, 0))
                     for d, (lo, hi) in enumerate(pad))]


def window_taps(x, attrs, fill):
    """Every tap of every window: an array ``out_shape + (window elements,)``."""
    size, stride, pad, base, wdil = _window(attrs, x.ndim, "reduce-window")
    big = _dilate_pad(x, base, pad, fill)
    span = [(k - 1) * d + 1 for k, d in zip(size, wdil)]
    win = np.lib.stride_tricks.sliding_window_view(big, span) if x.ndim else big[..., None]
    win = win[tuple(slice(None, None, s) for s in stride) + tuple(slice(None, None, d)
                                                                  for d in wdil)]
    return win.reshape(win.shape[:x.ndim] + (-1,))


def _reduce_window_ref(xs, attrs, t):
    n = len(xs) // 2
    values, inits = xs[:n], xs[n:]
    r = attrs.get("reducer")
    if r is not None:
        taps = window_taps(values[0], attrs, inits[0][()])
        return _ufunc_reduce(REDUCERS[r], r, taps, -1, inits[0][()])
    taps = [window_taps(v, attrs, i[()]) for v, i in zip(values, inits)]
    acc = [np.broadcast_to(i, taps[0].shape[:-1]).copy() for i in inits]
    comp = attrs["computation"]
    for k in range(taps[0].shape[-1]):
        acc = map_scalar(comp, acc + [tp[..., k] for tp in taps], where="reduce-window: ")
    acc = [np.array(a) for a in acc]
    return acc[0] if n == 1 else tuple(acc)


def _reduce_window_flops(types, out, attrs):
    n = 1
    for s in attrs.get("window_size", ()):
        n *= s
    return out.size * n


register(OpDef("reduce-window", Category.REDUCTION, (2, None), _reduce_window_infer,
               reference=_reduce_window_ref, flops_fn=_reduce_window_flops,
               doc="reduce each window (window_size=, window_stride=, window_padding=, "
                   "base_dilation=, window_dilation=)",
               attributes=('window_size', 'window_stride', 'window_padding', 'base_dilation',
                           'window_dilation', 'reducer', 'computation')))


# ----- select-and-scatter ---------------------------------------------------------------------

def _select_and_scatter_infer(types, attrs, declared):
    _require_tensors(types)
    x, source, init = types
    _init_check(source, init, "select-and-scatter")
    shape = window_out_shape(x.shape, attrs, "select-and-scatter")
    if source.shape != shape:
        raise ShapeError(f"select-and-scatter: source {source} must have the window output "
                         f"shape {list(shape)}")
    sel = attrs.get("select")
    if sel is None or len(sel.parameters) != 2:
        raise AttributeError_("select-and-scatter needs select= a computation of two scalars")
    if attrs.get("scatter") is None and attrs.get("reducer") is None:
        raise AttributeError_("select-and-scatter needs reducer= or scatter= a computation")
    return TensorType(x.shape, source.dtype)


def _select_and_scatter_ref(xs, attrs, t):
    """For each window, pick one element of the operand with ``select`` (keep the current pick
    where select(current, candidate) is true; padding is never picked), then combine the
    window's source value into the result at that element (XLA's SelectAndScatter)."""
    x, source, init = xs
    size = attrs["window_size"]
    pad = attrs.get("window_padding", ((0, 0),) * x.ndim)
    positions = np.arange(x.size, dtype=np.int64).reshape(x.shape)
    valid_attrs = attrs.without("base_dilation")
    taps = window_taps(x, valid_attrs, x.dtype.type(0))
    where = window_taps(positions, valid_attrs, np.int64(-1))
    del size, pad
    sel = attrs["select"]
    cur = taps[..., 0].copy()
    pick = where[..., 0].copy()
    for k in range(1, taps.shape[-1]):
        cand, cpos = taps[..., k], where[..., k]
        (keep,) = map_scalar(sel, [cur, cand], where="select-and-scatter select: ")
        take = (cpos >= 0) & ((pick < 0) | ~keep.astype(bool))
        cur = np.where(take, cand, cur)
        pick = np.where(take, cpos, pick)
    out = np.full(x.size, init[()], dtype=source.dtype)
    ok = pick >= 0
    r = attrs.get("reducer")
    if r is not None:
        ufunc = _BITWISE[r] if r in _BITWISE and out.dtype != np.bool_ else REDUCERS[r]
        with np.errstate(all="ignore"):
            ufunc.at(out, pick[ok], source[ok])
    else:
        comp = attrs["scatter"]
        for p, v in zip(pick[ok].reshape(-1), source[ok].reshape(-1)):
            (out[p],) = map_scalar(comp, [out[p], v], where="select-and-scatter scatter: ")
    return out.reshape(x.shape)


register(OpDef("select-and-scatter", Category.SCATTER, (3, 3), _select_and_scatter_infer,
               reference=_select_and_scatter_ref,
               flops_fn=lambda types, out, attrs: types[1].size * int(np.prod(
                   attrs.get("window_size", (1,)))),
               doc="per window, select one operand element (select=) and scatter the source "
                   "value into it (reducer= or scatter=); a max pool's gradient",
               attributes=('window_size', 'window_stride', 'window_padding', 'select',
                           'reducer', 'scatter')))

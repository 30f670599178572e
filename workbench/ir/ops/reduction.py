"""Reductions: ``reduce`` and ``reduce-window`` with a named reducer.

HLO's reduce takes a ``to_apply`` computation; the importer recognises the computations that are
one binary op of their two parameters and records it as ``reducer=`` (``add``, ``multiply``,
``maximum``, ``minimum``, ``and``, ``or``). Any other computation makes the reduce opaque.
"""

from __future__ import annotations

import numpy as np

from workbench.errors import AttributeError_, ShapeError
from workbench.ir.ops.base import Category, OpDef, register
from workbench.ir.ops.elementwise import _require_tensors
from workbench.ir.ops.shape_ops import _int_tuple
from workbench.ir.types import TensorType

#: reducer name -> numpy ufunc (used with ``ufunc.reduce(..., initial=init)``)
REDUCERS = {
    "add": np.add,
    "multiply": np.multiply,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "and": np.logical_and,
    "or": np.logical_or,
}


def _reducer(attrs, what):
    r = attrs.get("reducer")
    if r not in REDUCERS:
        raise AttributeError_(f"{what} needs reducer= one of {', '.join(REDUCERS)}, got {r!r}")
    return r


def _init_check(x, init, what):
    if init.shape != () or init.dtype != x.dtype:
        raise ShapeError(f"{what}'s init value must be a {x.dtype} scalar, got {init}")


def reduced_dims(attrs) -> tuple[int, ...]:
    """The dimensions a ``reduce`` node reduces (its ``dimensions`` attribute)."""
    return tuple(attrs.get("dimensions", ()))


def _reduce_infer(types, attrs, declared):
    _require_tensors(types)
    x, init = types
    _init_check(x, init, "reduce")
    _reducer(attrs, "reduce")
    dims = _int_tuple(attrs, "dimensions", "reduce")
    if len(set(dims)) != len(dims) or any(not 0 <= d < x.rank for d in dims):
        raise AttributeError_(f"reduce dimensions= {list(dims)} are not distinct dimensions "
                              f"of {x}")
    return TensorType(tuple(s for d, s in enumerate(x.shape) if d not in dims), x.dtype)


def _reduce_ref(xs, attrs, t):
    x, init = xs
    ufunc = REDUCERS[attrs["reducer"]]
    dims = tuple(attrs["dimensions"])
    with np.errstate(all="ignore"):
        out = ufunc.reduce(x, axis=dims, initial=init[()], dtype=x.dtype)
    return np.asarray(out, dtype=x.dtype)


def _reduce_flops(types, out, attrs):
    # one application of the reducer per input element (XLA's HloCostAnalysis::HandleReduce
    # charges the to_apply computation once per reduced element).
    return types[0].size


register(OpDef("reduce", Category.REDUCTION, (2, 2), _reduce_infer, reference=_reduce_ref,
               flops_fn=_reduce_flops,
               doc="combine elements along dimensions= with reducer=, starting from init",
               attributes=('dimensions', 'reducer')))


def _window(attrs, rank, what):
    size = _int_tuple(attrs, "window_size", what)
    if len(size) != rank:
        raise AttributeError_(f"{what} needs {rank} window sizes, got {list(size)}")
    stride = _int_tuple(attrs, "window_stride", what, default=(1,) * rank)
    pad = attrs.get("window_padding", ((0, 0),) * rank)
    if len(stride) != rank or len(pad) != rank:
        raise AttributeError_(f"{what}: window stride and padding need {rank} entries")
    for key in ("base_dilation", "window_dilation"):
        dil = attrs.get(key)
        if dil is not None and any(v != 1 for v in dil):
            raise AttributeError_(f"{what}: {key} other than 1 is not supported")
    return size, stride, pad


def _reduce_window_infer(types, attrs, declared):
    _require_tensors(types)
    x, init = types
    _init_check(x, init, "reduce-window")
    _reducer(attrs, "reduce-window")
    size, stride, pad = _window(attrs, x.rank, "reduce-window")
    out = []
    for d in range(x.rank):
        padded = x.shape[d] + pad[d][0] + pad[d][1]
        if size[d] < 1 or stride[d] < 1 or padded < size[d]:
            raise ShapeError(f"reduce-window: window {size[d]} (stride {stride[d]}) does not fit "
                             f"dimension {d} of size {padded} after padding")
        out.append((padded - size[d]) // stride[d] + 1)
    return TensorType(tuple(out), x.dtype)


def _reduce_window_ref(xs, attrs, t):
    x, init = xs
    size, stride, pad = _window(attrs, x.ndim, "reduce-window")
    if any(lo or hi for lo, hi in pad):
        x = np.pad(x, [tuple(p) for p in pad], constant_values=init[()])
    win = np.lib.stride_tricks.sliding_window_view(x, size)
    win = win[tuple(slice(None, None, s) for s in stride)]
    ufunc = REDUCERS[attrs["reducer"]]
    axes = tuple(range(x.ndim, 2 * x.ndim))
    with np.errstate(all="ignore"):
        out = ufunc.reduce(win, axis=axes, initial=init[()], dtype=x.dtype)
    return np.asarray(out, dtype=x.dtype)


def _reduce_window_flops(types, out, attrs):
    n = 1
    for s in attrs.get("window_size", ()):
        n *= s
    return out.size * n


register(OpDef("reduce-window", Category.REDUCTION, (2, 2), _reduce_window_infer,
               reference=_reduce_window_ref, flops_fn=_reduce_window_flops,
               doc="reduce each window (window_size=, window_stride=, window_padding=)",
               attributes=('window_size', 'window_stride', 'window_padding', 'base_dilation',
                           'window_dilation', 'reducer')))

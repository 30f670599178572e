"""The workbench's composite ops and their expansion into primitive HLO ops.

Sample graphs are written with these (``matmul``, ``bias_add``, ``relu``, ``gelu``,
``layer_norm``, ``softmax``, ``batch_norm_inference``, ``conv2d``) because they read like a
model. Each has a direct numpy reference and an ``expand`` that writes it as HLO ops, the way
JAX lowers it; its FLOP and transcendental counts are those of its expansion, so the cost model
charges a composite exactly what its primitives cost.

Formulas:

* GELU, tanh form: ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`` and exact form
  ``0.5 x (1 + erf(x / sqrt 2))`` (Hendrycks & Gimpel, "Gaussian Error Linear Units", 2016;
  ``jax.nn.gelu``).
* Layer norm over the last dimension: ``(x - mean) * rsqrt(var + eps) * gamma + beta`` with the
  biased variance (Ba, Kiros & Hinton, "Layer Normalization", 2016).
* Inference batch norm: ``(x - mean) * rsqrt(var + eps) * scale + offset`` per feature
  (Ioffe & Szegedy 2015; XLA's BatchNormInference).
* Softmax: ``exp(x - max x) / sum exp(x - max x)`` along the axis (the max makes it stable).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from workbench.errors import AttributeError_, ShapeError
from workbench.ir.attrs import Attrs
from workbench.ir.ops.base import Category, OpDef, register
from workbench.ir.ops.elementwise import _erf_ref, _require_tensors
from workbench.ir.types import FLOAT_DTYPES, TensorType

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
GELU_CUBIC = 0.044715


# ----- counting a composite by its expansion --------------------------------------------------

@lru_cache(maxsize=4096)
def expansion_counts(op: str, operand_types: tuple, attrs: Attrs) -> tuple[int, int]:
    """(FLOPs, transcendentals) of a composite, summed over its primitive expansion."""
    from workbench.ir.builder import GraphBuilder
    from workbench.ir.ops.base import get_op

    b = GraphBuilder("expansion", prefix="e/")
    ids = [b.extern(f"in{i}", t) for i, t in enumerate(operand_types)]
    opdef = get_op(op)
    out_t = opdef.infer(operand_types, attrs, None)
    opdef.expand(b, ids, attrs, out_t)
    flops = trans = 0
    for n in b.nodes:
        d = get_op(n.op)
        in_t = tuple(b.type(o) for o in n.operands)
        flops += d.flops(in_t, n.type, n.attrs)
        trans += d.transcendentals(in_t, n.type, n.attrs)
    return flops, trans


def _composite(name, category, arity, infer, reference, expand, doc,
           attributes=()):
    register(OpDef(
        name, category, arity, infer, reference=reference, expand=expand, composite=True,
        flops_fn=lambda ts, out, a: expansion_counts(name, tuple(ts), a)[0],
        transcendentals_fn=lambda ts, out, a: expansion_counts(name, tuple(ts), a)[1],
        doc=doc, attributes=attributes))


def _float_tensor(t, what):
    if t.dtype not in FLOAT_DTYPES:
        raise ShapeError(f"{what} needs a floating-point operand, got {t}")
    return t


def _axis(attrs, rank, what, default=-1):
    axis = attrs.get("axis", default)
    if not isinstance(axis, int) or not -rank <= axis < rank:
        raise AttributeError_(f"{what}: axis={axis!r} is out of range for rank {rank}")
    return axis % rank


def _eps(attrs, what, default=1e-5):
    eps = attrs.get("epsilon", default)
    if not isinstance(eps, (int, float)) or isinstance(eps, bool) or not eps >= 0:
        raise AttributeError_(f"{what}: epsilon= must be a non-negative number, got {eps!r}")
    return float(eps)


# ----- relu, gelu -----------------------------------------------------------------------------

def _unary_float_infer(what):
    def infer(types, attrs, declared):
        _require_tensors(types)
        approximate = attrs.get("approximate", True)
        if not isinstance(approximate, bool):
            raise AttributeError_(f"{what}: approximate= must be true or false, got "
                                  f"{approximate!r}")
        return _float_tensor(types[0], what)
    return infer


def _relu_expand(b, ops, attrs, t):
    (x,) = ops
    return b.op("maximum", [x, b.splat(0.0, t.shape, t.dtype)])


_composite("relu", Category.ELEMENTWISE, (1, 1), _unary_float_infer("relu"),
           lambda xs, a, t: np.maximum(xs[0], np.zeros((), xs[0].dtype)),
           _relu_expand, "max(x, 0)")


def _gelu_ref(xs, attrs, t):
    x = xs[0]
    dt = x.dtype
    if attrs.get("approximate", True):
        inner = dt.type(SQRT_2_OVER_PI) * (x + dt.type(GELU_CUBIC) * x * x * x)
        return dt.type(0.5) * x * (dt.type(1) + np.tanh(inner))
    return dt.type(0.5) * x * (dt.type(1) + _erf_ref(x / dt.type(math.sqrt(2.0))))


def _gelu_expand(b, ops, attrs, t):
    (x,) = ops
    s, d = t.shape, t.dtype

    def c(v):
        return b.splat(v, s, d)

    if attrs.get("approximate", True):
        x3 = b.op("multiply", [b.op("multiply", [x, x]), x])
        inner = b.op("add", [x, b.op("multiply", [c(GELU_CUBIC), x3])])
        th = b.op("tanh", [b.op("multiply", [c(SQRT_2_OVER_PI), inner])])
        one_plus = b.op("add", [c(1.0), th])
    else:
        er = b.op("erf", [b.op("multiply", [x, c(1.0 / math.sqrt(2.0))])])
        one_plus = b.op("add", [c(1.0), er])
    return b.op("multiply", [b.op("multiply", [c(0.5), x]), one_plus])


_composite("gelu", Category.ELEMENTWISE, (1, 1), _unary_float_infer("gelu"), _gelu_ref,
           _gelu_expand, "GELU (approximate=true: tanh form; false: erf form)",
           attributes=('approximate',))

# ----- bias_add -------------------------------------------------------------------------------


def _bias_add_infer(types, attrs, declared):
    _require_tensors(types)
    x, bias = types
    axis = _axis(attrs, x.rank, "bias_add")
    if bias.rank != 1 or bias.shape[0] != x.shape[axis] or bias.dtype != x.dtype:
        raise ShapeError(f"bias_add: bias {bias} must be {x.dtype}[{x.shape[axis]}] "
                         f"(dimension {axis} of {x})")
    return x


def _bias_shape(x_ndim, axis):
    view = [1] * x_ndim
    view[axis] = -1
    return view


def _bias_add_ref(xs, attrs, t):
    x, bias = xs
    axis = attrs.get("axis", -1) % x.ndim
    return x + bias.reshape(_bias_shape(x.ndim, axis))


def _bias_add_expand(b, ops, attrs, t):
    x, bias = ops
    axis = _axis(attrs, t.rank, "bias_add")
    return b.op("add", [x, b.broadcast_to(bias, t.shape, (axis,))])


_composite("bias_add", Category.ELEMENTWISE, (2, 2), _bias_add_infer, _bias_add_ref,
           _bias_add_expand, "x + bias broadcast along axis= (default: the last)",
           attributes=('axis',))

# ----- matmul ---------------------------------------------------------------------------------


def _matmul_dims(a: TensorType, w: TensorType):
    if a.rank < 2 or w.rank < 2:
        raise ShapeError(f"matmul needs operands of rank >= 2, got {a} and {w}")
    if w.rank == 2:
        return dict(lhs_contracting_dims=(a.rank - 1,), rhs_contracting_dims=(0,))
    if w.rank != a.rank or a.shape[:-2] != w.shape[:-2]:
        raise ShapeError(f"matmul: batch dimensions of {a} and {w} differ")
    batch = tuple(range(a.rank - 2))
    return dict(lhs_batch_dims=batch, rhs_batch_dims=batch,
                lhs_contracting_dims=(a.rank - 1,), rhs_contracting_dims=(a.rank - 2,))


def _matmul_infer(types, attrs, declared):
    _require_tensors(types)
    a, w = types
    _matmul_dims(a, w)
    k_w = w.shape[-2] if w.rank > 2 else w.shape[0]
    if a.shape[-1] != k_w or a.dtype != w.dtype:
        raise ShapeError(f"matmul: {a} @ {w}: inner dimensions {a.shape[-1]} and {k_w} differ "
                         "(or dtypes do)")
    return TensorType(a.shape[:-1] + (w.shape[-1],), a.dtype)


def _matmul_expand(b, ops, attrs, t):
    a, w = ops
    return b.op("dot", [a, w], **_matmul_dims(b.type(a), b.type(w)))


_composite("matmul", Category.CONTRACTION, (2, 2), _matmul_infer,
           lambda xs, a, t: np.matmul(xs[0], xs[1]), _matmul_expand,
           "a @ w: a[..., M, K] times w[K, N] or w[..., K, N]")

# ----- conv2d ---------------------------------------------------------------------------------


def _conv2d_attrs(x: TensorType, w: TensorType, attrs):
    """The HLO convolution attributes of conv2d (NHWC input, HWIO kernel)."""
    if x.rank != 4 or w.rank != 4:
        raise ShapeError(f"conv2d needs NHWC input and HWIO kernel of rank 4, got {x} and {w}")
    stride = tuple(attrs.get("strides", (1, 1)))
    padding = attrs.get("padding", "SAME")
    groups = attrs.get("feature_group_count", 1)
    if len(stride) != 2 or any(not isinstance(s, int) or s < 1 for s in stride):
        raise AttributeError_(f"conv2d: strides= must be two positive integers, got {stride!r}")
    kh, kw = w.shape[0], w.shape[1]
    if padding == "SAME":
        pads = []
        for n, k, s in zip(x.shape[1:3], (kh, kw), stride):
            out = -(-n // s)
            total = max((out - 1) * s + k - n, 0)
            pads.append((total // 2, total - total // 2))
        pads = tuple(pads)
    elif padding == "VALID":
        pads = ((0, 0), (0, 0))
    elif (isinstance(padding, tuple) and len(padding) == 2
          and all(isinstance(p, tuple) and len(p) == 2 for p in padding)):
        pads = padding
    else:
        raise AttributeError_(f"conv2d: padding= must be 'SAME', 'VALID' or [[lo, hi], [lo, hi]], "
                              f"got {padding!r}"[:200])
    return Attrs(dim_labels="b01f_01io->b01f", window_size=(kh, kw), window_stride=stride,
                 window_padding=pads, feature_group_count=groups)


def _conv2d_infer(types, attrs, declared):
    _require_tensors(types)
    from workbench.ir.ops.base import get_op

    x, w = types
    return get_op("convolution").infer(types, _conv2d_attrs(x, w, attrs), None)


def _conv2d_ref(xs, attrs, t):
    from workbench.ir.ops.base import get_op

    x, w = xs
    ca = _conv2d_attrs(TensorType(x.shape, "f32"), TensorType(w.shape, "f32"), attrs)
    return get_op("convolution").reference(xs, ca, t)


def _conv2d_expand(b, ops, attrs, t):
    x, w = ops
    ca = _conv2d_attrs(b.type(x), b.type(w), attrs)
    return b.op("convolution", [x, w], **dict(ca))


_composite("conv2d", Category.CONVOLUTION, (2, 2), _conv2d_infer, _conv2d_ref, _conv2d_expand,
           "2-D convolution, NHWC input, HWIO kernel, strides=, padding=SAME/VALID/[[lo,hi],..]",
           attributes=('strides', 'padding', 'feature_group_count'))

# ----- batch_norm_inference -------------------------------------------------------------------


def _bn_infer(types, attrs, declared):
    _require_tensors(types)
    x = _float_tensor(types[0], "batch_norm_inference")
    fi = attrs.get("feature_index", x.rank - 1)
    if not isinstance(fi, int) or not 0 <= fi < x.rank:
        raise AttributeError_(f"batch_norm_inference: feature_index={fi!r} out of range for {x}")
    _eps(attrs, "batch_norm_inference", 1e-3)
    for name, p in zip(("scale", "offset", "mean", "variance"), types[1:]):
        if p.shape != (x.shape[fi],) or p.dtype != x.dtype:
            raise ShapeError(f"batch_norm_inference: {name} {p} must be "
                             f"{x.dtype}[{x.shape[fi]}] (features of {x})")
    return x


def _bn_ref(xs, attrs, t):
    x, scale, offset, mean, var = xs
    fi = attrs.get("feature_index", x.ndim - 1)
    eps = x.dtype.type(attrs.get("epsilon", 1e-3))
    view = _bias_shape(x.ndim, fi)
    inv = (1 / np.sqrt(var + eps)).astype(x.dtype)
    return ((x - mean.reshape(view)) * (inv * scale).reshape(view) + offset.reshape(view))


def _bn_expand(b, ops, attrs, t):
    x, scale, offset, mean, var = ops
    fi = attrs.get("feature_index", t.rank - 1)
    eps = _eps(attrs, "batch_norm_inference", 1e-3)
    c = b.type(scale).shape
    inv = b.op("rsqrt", [b.op("add", [var, b.splat(eps, c, t.dtype)])])
    factor = b.op("multiply", [inv, scale])
    centered = b.op("subtract", [x, b.broadcast_to(mean, t.shape, (fi,))])
    scaled = b.op("multiply", [centered, b.broadcast_to(factor, t.shape, (fi,))])
    return b.op("add", [scaled, b.broadcast_to(offset, t.shape, (fi,))])


_composite("batch_norm_inference", Category.NORMALIZATION, (5, 5), _bn_infer, _bn_ref, _bn_expand,
           "inference batch norm: (x - mean) * rsqrt(variance + epsilon) * scale + offset",
           attributes=('epsilon', 'feature_index'))

# ----- layer_norm -----------------------------------------------------------------------------


def _ln_infer(types, attrs, declared):
    _require_tensors(types)
    x, gamma, beta = types
    _float_tensor(x, "layer_norm")
    _eps(attrs, "layer_norm")
    n = x.shape[-1] if x.rank else 0
    for name, p in (("gamma", gamma), ("beta", beta)):
        if p.shape != (n,) or p.dtype != x.dtype:
            raise ShapeError(f"layer_norm: {name} {p} must be {x.dtype}[{n}] (the last "
                             f"dimension of {x})")
    return x


def _ln_ref(xs, attrs, t):
    x, gamma, beta = xs
    eps = x.dtype.type(attrs.get("epsilon", 1e-5))
    mean = x.mean(axis=-1, keepdims=True, dtype=x.dtype)
    xc = x - mean
    var = (xc * xc).mean(axis=-1, keepdims=True, dtype=x.dtype)
    return xc * (1 / np.sqrt(var + eps)).astype(x.dtype) * gamma + beta


def _ln_expand(b, ops, attrs, t):
    x, gamma, beta = ops
    eps = _eps(attrs, "layer_norm")
    s, d, last = t.shape, t.dtype, t.rank - 1
    rows = s[:-1]
    keep = tuple(range(last))
    inv_n = b.splat(1.0 / s[-1], rows, d)
    mean = b.op("multiply", [b.reduce(x, (last,), "add", 0.0), inv_n])
    xc = b.op("subtract", [x, b.broadcast_to(mean, s, keep)])
    var = b.op("multiply", [b.reduce(b.op("multiply", [xc, xc]), (last,), "add", 0.0), inv_n])
    inv = b.op("rsqrt", [b.op("add", [var, b.splat(eps, rows, d)])])
    normed = b.op("multiply", [xc, b.broadcast_to(inv, s, keep)])
    scaled = b.op("multiply", [normed, b.broadcast_to(gamma, s, (last,))])
    return b.op("add", [scaled, b.broadcast_to(beta, s, (last,))])


_composite("layer_norm", Category.NORMALIZATION, (3, 3), _ln_infer, _ln_ref, _ln_expand,
           "layer norm over the last dimension with gamma, beta and epsilon=",
           attributes=('epsilon',))

# ----- softmax --------------------------------------------------------------------------------


def _softmax_infer(types, attrs, declared):
    _require_tensors(types)
    x = _float_tensor(types[0], "softmax")
    _axis(attrs, x.rank, "softmax")
    return x


def _softmax_ref(xs, attrs, t):
    x = xs[0]
    axis = attrs.get("axis", -1)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True, dtype=x.dtype)


def _softmax_expand(b, ops, attrs, t):
    (x,) = ops
    axis = _axis(attrs, t.rank, "softmax")
    keep = tuple(d for d in range(t.rank) if d != axis)
    m = b.reduce(x, (axis,), "maximum", -math.inf)
    e = b.op("exponential", [b.op("subtract", [x, b.broadcast_to(m, t.shape, keep)])])
    s = b.reduce(e, (axis,), "add", 0.0)
    return b.op("divide", [e, b.broadcast_to(s, t.shape, keep)])


_composite("softmax", Category.NORMALIZATION, (1, 1), _softmax_infer, _softmax_ref,
           _softmax_expand, "exp(x - max) / sum(exp(x - max)) along axis= (default: the last)",
           attributes=('axis',))

"""Contractions (``dot`` with dot_general dimension numbers) and ``convolution``.

``dot`` follows XLA's DotGeneral: the result's dimensions are the batch dimensions, then the lhs
free dimensions, then the rhs free dimensions. Either may produce another dtype than its
operands' (``preferred_element_type=``, as StableHLO and JAX name it: a bf16 x bf16 dot that
accumulates and returns f32; s8 x s8 -> s32). The references compute narrow floats (bf16, f16,
f8) in f32 and round the result once to the result dtype, as XLA:CPU does, and integers in 64
bits. ``convolution`` follows XLA's ConvGeneralDilated:
``dim_labels`` such as ``b01f_01io->b01f`` name where the batch (``b``), feature (``f``), input
and output feature (``i``, ``o``) and spatial (``0``, ``1``, ...) dimensions are in the lhs, the
kernel (rhs) and the result; ``window_*`` give strides, padding and dilations per spatial
dimension; ``feature_group_count`` splits features into groups (depthwise when it equals the
input features).
"""

from __future__ import annotations

import re

import numpy as np

from workbench.errors import AttributeError_, ShapeError
from workbench.ir.ops.base import Category, OpDef, narrow_float, register
from workbench.ir.ops.elementwise import _require_tensors
from workbench.ir.ops.shape_ops import _int_tuple
from workbench.ir.types import COMPLEX_DTYPES, DTYPES, FLOAT_DTYPES, INT_DTYPES, TensorType


def result_dtype(lhs: TensorType, rhs: TensorType, attrs, what: str) -> str:
    """The result dtype of a dot or convolution: ``preferred_element_type=`` when given (a
    float for float operands, an integer for integer ones), else the operands' dtype.

    Raises
    ------
    ShapeError, AttributeError_
        If the operands' dtypes differ without a preferred type, or the preferred type is of
        another kind.
    """
    pref = attrs.get("preferred_element_type")
    if pref is None:
        if lhs.dtype != rhs.dtype:
            raise ShapeError(f"{what} operands differ in dtype: {lhs} and {rhs}")
        return lhs.dtype
    if pref not in DTYPES:
        raise AttributeError_(f"{what}: preferred_element_type={pref!r} is not a dtype")
    kinds = [FLOAT_DTYPES, INT_DTYPES | {"pred"}, COMPLEX_DTYPES]
    kind = next((k for k in kinds if lhs.dtype in k), None)
    if kind is None or rhs.dtype not in kind or pref not in kind:
        raise ShapeError(f"{what} of {lhs} and {rhs} cannot produce {pref}")
    return pref


def compute_operands(a: np.ndarray, b: np.ndarray):
    """The operands in the dtype a contraction is computed in: f32 for narrow floats, 64-bit
    for integers, themselves otherwise (mixed floats: the wider)."""
    def wide(x):
        if narrow_float(x.dtype):
            return x.astype(np.float32)
        if x.dtype.kind in "iub":
            return x.astype(np.int64)
        return x
    a, b = wide(a), wide(b)
    if a.dtype != b.dtype:
        dt = np.result_type(a.dtype, b.dtype)
        a, b = a.astype(dt), b.astype(dt)
    return a, b

# ----- dot ------------------------------------------------------------------------------------


def dot_dims(attrs, lhs_rank: int, rhs_rank: int):
    """The dot's dimension numbers with the free dimensions made explicit.

    Returns
    -------
    (lb, lc, lf, rb, rc, rf) : tuples of int
        lhs batch, contracting and free dimensions; the same for rhs.
    """
    lb = tuple(attrs.get("lhs_batch_dims", ()))
    rb = tuple(attrs.get("rhs_batch_dims", ()))
    lc = tuple(attrs.get("lhs_contracting_dims", ()))
    rc = tuple(attrs.get("rhs_contracting_dims", ()))
    lf = tuple(d for d in range(lhs_rank) if d not in lb and d not in lc)
    rf = tuple(d for d in range(rhs_rank) if d not in rb and d not in rc)
    return lb, lc, lf, rb, rc, rf


def _dot_infer(types, attrs, declared):
    _require_tensors(types)
    lhs, rhs = types
    for key in ("lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims",
                "rhs_contracting_dims"):
        _int_tuple(attrs, key, "dot", default=())
    lb, lc, lf, rb, rc, rf = dot_dims(attrs, lhs.rank, rhs.rank)
    dtype = result_dtype(lhs, rhs, attrs, "dot")
    for name, dims, t in (("lhs", lb + lc, lhs), ("rhs", rb + rc, rhs)):
        if len(set(dims)) != len(dims) or any(not 0 <= d < t.rank for d in dims):
            raise AttributeError_(f"dot: {name} batch/contracting dimensions {list(dims)} are "
                                  f"not distinct dimensions of {t}")
    if len(lb) != len(rb) or len(lc) != len(rc):
        raise AttributeError_("dot: lhs and rhs need as many batch and contracting dimensions")
    for a, b in zip(lb, rb):
        if lhs.shape[a] != rhs.shape[b]:
            raise ShapeError(f"dot: batch dimension {a} of lhs {lhs} ({lhs.shape[a]}) differs "
                             f"from dimension {b} of rhs {rhs} ({rhs.shape[b]})")
    for a, b in zip(lc, rc):
        if lhs.shape[a] != rhs.shape[b]:
            raise ShapeError(f"dot: contracting dimension {a} of lhs {lhs} ({lhs.shape[a]}) "
                             f"differs from dimension {b} of rhs {rhs} ({rhs.shape[b]})")
    shape = ([lhs.shape[d] for d in lb] + [lhs.shape[d] for d in lf]
             + [rhs.shape[d] for d in rf])
    return TensorType(tuple(shape), dtype)


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def dot_mnk(lhs: TensorType, rhs: TensorType, attrs) -> tuple[int, int, int, int]:
    """(batch, M, N, K) of a dot: the sizes of its batch, lhs-free, rhs-free, contracting dims."""
    lb, lc, lf, rb, rc, rf = dot_dims(attrs, lhs.rank, rhs.rank)
    return (_prod(lhs.shape[d] for d in lb), _prod(lhs.shape[d] for d in lf),
            _prod(rhs.shape[d] for d in rf), _prod(lhs.shape[d] for d in lc))


def _dot_ref(xs, attrs, t):
    lhs, rhs = xs
    lb, lc, lf, rb, rc, rf = dot_dims(attrs, lhs.ndim, rhs.ndim)
    b, m, n, k = dot_mnk(TensorType(lhs.shape, "f32"), TensorType(rhs.shape, "f32"), attrs)
    lhs, rhs = compute_operands(lhs, rhs)
    a = np.transpose(lhs, lb + lf + lc).reshape(b, m, k)
    w = np.transpose(rhs, rb + rc + rf).reshape(b, k, n)
    return np.matmul(a, w).reshape(t.shape).astype(t.np_dtype)


def _dot_flops(types, out, attrs):
    b, m, n, k = dot_mnk(types[0], types[1], attrs)
    return 2 * b * m * n * k


register(OpDef("dot", Category.CONTRACTION, (2, 2), _dot_infer, reference=_dot_ref,
               flops_fn=_dot_flops,
               doc="dot_general: contract lhs_contracting_dims with rhs_contracting_dims, "
                   "batched over *_batch_dims (2*M*N*K FLOPs)",
               attributes=('lhs_batch_dims', 'rhs_batch_dims', 'lhs_contracting_dims',
                           'rhs_contracting_dims', 'preferred_element_type')))

# ----- convolution ----------------------------------------------------------------------------

_LABELS = re.compile(r"^([a-z0-9]+)_([a-z0-9]+)->([a-z0-9]+)$")


def parse_dim_labels(labels: str, rank: int):
    """Parse ``b01f_01io->b01f`` into index maps for lhs, rhs and output.

    Returns
    -------
    (lhs, rhs, out) : dicts from label ('b', 'f', 'i', 'o', or the spatial index as int) to the
        dimension that carries it.

    Raises
    ------
    AttributeError_
        If the labels are malformed or do not fit ``rank``.
    """
    m = _LABELS.match(labels or "")
    if not m:
        raise AttributeError_(f"convolution dim_labels= {labels!r} is not like 'b01f_01io->b01f'")
    maps = []
    for part, need in zip(m.groups(), ("bf", "io", "bf")):
        if len(part) != rank:
            raise AttributeError_(f"convolution dim_labels part {part!r} does not have "
                                  f"{rank} labels")
        d = {}
        for pos, ch in enumerate(part):
            key = int(ch) if ch.isdigit() else ch
            if key in d:
                raise AttributeError_(f"convolution dim_labels part {part!r} repeats {ch!r}")
            d[key] = pos
        if not set(need) <= set(d) or sorted(k for k in d if isinstance(k, int)) != list(
                range(rank - 2)):
            raise AttributeError_(f"convolution dim_labels part {part!r} needs {need[0]!r}, "
                                  f"{need[1]!r} and spatial labels 0..{rank - 3}")
        maps.append(d)
    return tuple(maps)


def conv_geometry(lhs: TensorType, rhs: TensorType, attrs):
    """The convolution's sizes, validated.

    Returns
    -------
    dict with keys ``lhs_map``, ``rhs_map``, ``out_map`` (from :func:`parse_dim_labels`),
    ``batch``, ``in_features``, ``out_features``, ``groups``, ``spatial_in``, ``kernel``,
    ``stride``, ``padding``, ``lhs_dilation``, ``rhs_dilation``, ``spatial_out``, ``out_shape``.
    """
    rank = lhs.rank
    if rhs.rank != rank or rank < 3:
        raise ShapeError(f"convolution operands need equal rank >= 3, got {lhs} and {rhs}")
    lmap, rmap, omap = parse_dim_labels(attrs.get("dim_labels"), rank)
    n = rank - 2
    stride = _int_tuple(attrs, "window_stride", "convolution", default=(1,) * n)
    lhs_dil = _int_tuple(attrs, "lhs_dilation", "convolution", default=(1,) * n)
    rhs_dil = _int_tuple(attrs, "rhs_dilation", "convolution", default=(1,) * n)
    padding = attrs.get("window_padding", ((0, 0),) * n)
    if not (len(stride) == len(lhs_dil) == len(rhs_dil) == len(padding) == n):
        raise AttributeError_(f"convolution: window attributes need {n} entries each")
    if any(v < 1 for v in stride + lhs_dil + rhs_dil):
        raise AttributeError_("convolution: strides and dilations must be >= 1")
    groups = attrs.get("feature_group_count", 1)
    if attrs.get("batch_group_count", 1) != 1:
        raise AttributeError_("convolution: batch_group_count other than 1 is not supported")
    batch, cin = lhs.shape[lmap["b"]], lhs.shape[lmap["f"]]
    kin, cout = rhs.shape[rmap["i"]], rhs.shape[rmap["o"]]
    if not isinstance(groups, int) or groups < 1 or cin != kin * groups or cout % groups:
        raise ShapeError(f"convolution: input features {cin} must equal kernel input features "
                         f"{kin} x feature_group_count {groups}, and output features {cout} "
                         f"must divide by it")
    spatial_in = tuple(lhs.shape[lmap[i]] for i in range(n))
    kernel = tuple(rhs.shape[rmap[i]] for i in range(n))
    window = attrs.get("window_size")
    if window is not None and tuple(window) != kernel:
        raise ShapeError(f"convolution: window size {list(window)} differs from the kernel's "
                         f"spatial size {list(kernel)}")
    spatial_out = []
    for i in range(n):
        size = (spatial_in[i] - 1) * lhs_dil[i] + 1 + padding[i][0] + padding[i][1]
        k = (kernel[i] - 1) * rhs_dil[i] + 1
        if size < k:
            raise ShapeError(f"convolution: spatial dimension {i} ({size} after padding) is "
                             f"smaller than the dilated kernel ({k})")
        spatial_out.append((size - k) // stride[i] + 1)
    out_shape = [0] * rank
    out_shape[omap["b"]] = batch
    out_shape[omap["f"]] = cout
    for i in range(n):
        out_shape[omap[i]] = spatial_out[i]
    return dict(lhs_map=lmap, rhs_map=rmap, out_map=omap, batch=batch, in_features=cin,
                out_features=cout, groups=groups, spatial_in=spatial_in, kernel=kernel,
                stride=stride, padding=tuple(tuple(p) for p in padding), lhs_dilation=lhs_dil,
                rhs_dilation=rhs_dil, spatial_out=tuple(spatial_out), out_shape=tuple(out_shape))


def _conv_infer(types, attrs, declared):
    _require_tensors(types)
    lhs, rhs = types
    dtype = result_dtype(lhs, rhs, attrs, "convolution")
    return TensorType(conv_geometry(lhs, rhs, attrs)["out_shape"], dtype)


def _conv_ref(xs, attrs, t):
    lhs, rhs = compute_operands(*xs)
    g = conv_geometry(TensorType(lhs.shape, "f32"), TensorType(rhs.shape, "f32"), attrs)
    n = len(g["kernel"])
    lm, rm, om = g["lhs_map"], g["rhs_map"], g["out_map"]
    x = np.transpose(lhs, [lm["b"], lm["f"]] + [lm[i] for i in range(n)])   # B C S..
    w = np.transpose(rhs, [rm["o"], rm["i"]] + [rm[i] for i in range(n)])   # O I K..
    if any(d > 1 for d in g["lhs_dilation"]):
        dil = np.zeros(x.shape[:2] + tuple((s - 1) * d + 1 for s, d in
                                           zip(x.shape[2:], g["lhs_dilation"])), x.dtype)
        dil[(slice(None), slice(None)) + tuple(slice(None, None, d)
                                               for d in g["lhs_dilation"])] = x
        x = dil
    pads = [(0, 0), (0, 0)] + [(max(lo, 0), max(hi, 0)) for lo, hi in g["padding"]]
    x = np.pad(x, pads)
    crop = (slice(None), slice(None)) + tuple(
        slice(-min(lo, 0), x.shape[2 + i] + min(hi, 0)) for i, (lo, hi) in enumerate(g["padding"]))
    x = x[crop]
    span = tuple((k - 1) * d + 1 for k, d in zip(g["kernel"], g["rhs_dilation"]))
    win = np.lib.stride_tricks.sliding_window_view(x, span, axis=tuple(range(2, 2 + n)))
    win = win[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in g["stride"])
              + tuple(slice(None, None, d) for d in g["rhs_dilation"])]
    # win: B C P1..Pn K1..Kn
    groups = g["groups"]
    b, c = win.shape[:2]
    p_shape = win.shape[2:2 + n]
    cg = c // groups
    og = g["out_features"] // groups
    win = win.reshape((b, groups, cg) + win.shape[2:])
    perm = [1, 0] + list(range(3, 3 + n)) + [2] + list(range(3 + n, 3 + 2 * n))
    patches = np.transpose(win, perm).reshape(groups, b * _prod(p_shape), cg * _prod(g["kernel"]))
    wk = w.reshape((groups, og, cg * _prod(g["kernel"])))
    out = np.matmul(patches, np.transpose(wk, (0, 2, 1)))             # G, B*P, Og
    out = out.reshape((groups, b) + p_shape + (og,))
    out = np.transpose(out, [1, 0, 2 + n] + list(range(2, 2 + n)))   # B G Og P..
    out = out.reshape((b, groups * og) + p_shape)                    # B O P..
    inv = [0] * (n + 2)
    inv[om["b"]], inv[om["f"]] = 0, 1
    for i in range(n):
        inv[om[i]] = 2 + i
    return np.ascontiguousarray(np.transpose(out, inv)).astype(t.np_dtype)


def _conv_flops(types, out, attrs):
    g = conv_geometry(types[0], types[1], attrs)
    per_output = (g["in_features"] // g["groups"]) * _prod(g["kernel"])
    return 2 * out.size * per_output


register(OpDef("convolution", Category.CONVOLUTION, (2, 2), _conv_infer, reference=_conv_ref,
               flops_fn=_conv_flops,
               doc="ConvGeneralDilated with dim_labels=, window_*=, feature_group_count= "
                   "(2 FLOPs per multiply-add)",
               attributes=('dim_labels', 'window_size', 'window_stride', 'window_padding',
                           'lhs_dilation', 'rhs_dilation', 'feature_group_count',
                           'batch_group_count', 'preferred_element_type')))

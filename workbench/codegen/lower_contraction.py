"""Lowering rules for contractions: a dot or convolution, block-wise or inline.

A contraction that is the root of its nest and used at the nest's own index is *armed*
(:func:`arm_contraction`): the backend computes it block-wise (CPU: ``np.dot`` on row blocks,
im2col for a convolution; CUDA: a tiled shared-memory dot) and applies the epilogue per block.
Anywhere else it is materialised into a scratch array first (when the backend has phases), or
lowered inline as a reduction over the contracting dimensions (XLA's DotGeneral and
ConvGeneralDilated semantics, see :mod:`workbench.ir.ops.contraction`).
"""

from __future__ import annotations

import math

from workbench.ir.types import NARROW_FLOAT_DTYPES
from workbench.codegen.kernel_ir import Contraction, Ix
from workbench.codegen.lower_base import NeedsMaterialize, alias_base, and_, in_range
from workbench.ir.ops.contraction import conv_geometry, dot_dims, dot_mnk


def _operand_buffer(b, oid):
    base = alias_base(b, oid)
    if base is None and b.caps.phases:
        raise NeedsMaterialize(oid)
    return base


def arm_contraction(b, nid):
    """A :class:`Contraction` for computing ``nid`` block-wise in the current nest, or None."""
    node = b.g.node(nid)
    if node.dtype not in ("f32", "f64") or any(b.type(o).dtype != node.dtype
                                               for o in node.operands):
        return None            # narrow or mixed operands: computed inline, in float32
    lt, rt = (b.type(o) for o in node.operands)
    if node.op == "dot" and (b.caps.blas_dot or b.caps.tiled_dot):
        lb, lc, lf, rb, rc, rf = dot_dims(node.attrs, lt.rank, rt.rank)
        geometry = {"lhs_perm": lb + lf + lc, "rhs_perm": rb + rc + rf,
                    "rhs_perm_t": rb + rf + rc, "dims": (lb, lc, lf, rb, rc, rf)}
        B, M, N, K = dot_mnk(lt, rt, node.attrs)
        nb, nf = len(lb), len(lf)
        batch, rows = tuple(range(nb)), tuple(range(nb, nb + nf))
        cols = tuple(range(nb + nf, node.type.rank))
    elif node.op == "convolution" and b.caps.blas_conv:
        geometry = conv_geometry(lt, rt, node.attrs)
        rank = node.type.rank
        if geometry["out_map"]["f"] != rank - 1 or any(v != 1 for v in geometry["lhs_dilation"]):
            return None
        batch, rows, cols = (), tuple(range(rank - 1)), (rank - 1,)
        B, N = 1, geometry["out_features"]
        M = node.type.size // max(N, 1)
        K = (geometry["in_features"] // geometry["groups"]) * math.prod(geometry["kernel"])
    else:
        return None
    lhs, rhs = (_operand_buffer(b, o) for o in node.operands)
    if lhs is None or rhs is None:
        return None
    return Contraction(node.op if node.op == "dot" else "conv", lhs, rhs, lt.shape, rt.shape,
                       batch, rows, cols, B, M, N, K, geometry, nid)


def rule_dot(b, node, idx):
    c = b.ctx.contraction
    if c is not None and c.node == node.id and tuple(idx) == b.ctx.idx:
        return b.contraction_value(node.dtype, node.id)
    if b.caps.phases and node.id != b.ctx.target and node.dtype in ("f32", "f64"):
        raise NeedsMaterialize(node.id)
    lhs, rhs = node.operands
    lt, rt = b.type(lhs), b.type(rhs)
    lb, lc, lf, rb, rc, rf = dot_dims(node.attrs, lt.rank, rt.rank)
    nb, nf = len(lb), len(lf)

    def body(r):
        li, ri = [None] * lt.rank, [None] * rt.rank
        for k, (dl, dr) in enumerate(zip(lb, rb)):
            li[dl] = ri[dr] = idx[k]
        for k, d in enumerate(lf):
            li[d] = idx[nb + k]
        for k, d in enumerate(rf):
            ri[d] = idx[nb + nf + k]
        for k, (dl, dr) in enumerate(zip(lc, rc)):
            li[dl] = ri[dr] = r[k]
        return b.let("multiply", cdt, (b.value(lhs, tuple(li)), b.value(rhs, tuple(ri))),
                     {"in": cdt}, node.id)

    cdt = compute_dtype(node.dtype)
    acc = b.reduction(cdt, "add", b.lit(0, cdt), [lt.shape[d] for d in lc], idx,
                      body, contiguous=bool(lc) and lc[-1] == lt.rank - 1, node=node.id)
    return _round_to(b, acc, cdt, node)


def compute_dtype(dtype: str) -> str:
    """The dtype a contraction or reduction accumulates in: f32 for bf16/f16 (rounded once at
    the end, as XLA:CPU and the reference do), else the result's own."""
    return "f32" if dtype in NARROW_FLOAT_DTYPES else dtype


def _round_to(b, value, cdt, node):
    if cdt == node.dtype:
        return value
    return b.let("convert", node.dtype, (value,), {"in": cdt}, node.id)


def rule_convolution(b, node, idx):
    c = b.ctx.contraction
    if c is not None and c.node == node.id and tuple(idx) == b.ctx.idx:
        return b.contraction_value(node.dtype, node.id)
    if (b.caps.phases and node.id != b.ctx.target and node.dtype in ("f32", "f64")
            and b.caps.blas_conv):
        raise NeedsMaterialize(node.id)
    return _conv_inline(b, node, idx)


def _conv_inline(b, node, idx):
    x, w = node.operands
    xt, wt = b.type(x), b.type(w)
    g = conv_geometry(xt, wt, node.attrs)
    n = len(g["kernel"])
    lm, rm, om = g["lhs_map"], g["rhs_map"], g["out_map"]
    cg = g["in_features"] // g["groups"]
    og = g["out_features"] // g["groups"]
    o = idx[om["f"]]
    grp = b.index_op("floordiv", o, og) if g["groups"] > 1 else Ix.of(0)
    cdt = compute_dtype(node.dtype)
    zero = b.lit(0, cdt)

    def body(r):
        xi, wi, valid = [None] * xt.rank, [None] * wt.rank, None
        xi[lm["b"]] = idx[om["b"]]
        xi[lm["f"]] = grp * cg + r[n]
        wi[rm["o"]], wi[rm["i"]] = o, r[n]
        for i in range(n):
            wi[rm[i]] = r[i]
            q = idx[om[i]] * g["stride"][i] - g["padding"][i][0] + r[i] * g["rhs_dilation"][i]
            dil = g["lhs_dilation"][i]
            size = (g["spatial_in"][i] - 1) * dil + 1
            q_hi = ((g["spatial_out"][i] - 1) * g["stride"][i] - g["padding"][i][0]
                    + (g["kernel"][i] - 1) * g["rhs_dilation"][i])
            if g["padding"][i][0] <= 0 and q_hi < size and dil == 1:
                xi[lm[i]] = q
                continue
            xi[lm[i]] = b.index_op("floordiv", b.index_op("clamp", q, 0, size - 1), dil)
            v = in_range(b, q, 0, size, node.id)
            if dil > 1:
                v = and_(b, v, b.let("divisible", "pred", (q, Ix.of(dil)), {}, node.id), node.id)
            valid = and_(b, valid, v, node.id)
        p = b.let("multiply", cdt, (b.value(x, tuple(xi)), b.value(w, tuple(wi))),
                  {"in": cdt}, node.id)
        return p if valid is None else b.let("select", cdt, (valid, p, zero), {}, node.id)

    acc = b.reduction(cdt, "add", zero, list(g["kernel"]) + [cg], idx, body, True, node.id)
    return _round_to(b, acc, cdt, node)

"""Lowering rules, one per op: how an op's value at an output index is built from its operands.

Each rule takes the builder (:class:`workbench.codegen.lower._Builder`), the node and the index
(a tuple of affine :class:`~workbench.codegen.kernel_ir.Ix`) and returns the scalar operand.
Index maps follow XLA's operation semantics (https://openxla.org/xla/operation_semantics) and
the backward index maps of XLA's elemental IR emitter (xla/service/elemental_ir_emitter.cc):
broadcast through its dimension map, transpose through the permutation, reshape through the
row-major linear index (kept affine where the reshape only splits or merges whole dimensions),
slice by offset and stride, pad and concatenate by clamped loads under a select.
"""

from __future__ import annotations

from workbench.codegen.kernel_ir import Ix
from workbench.codegen.lower_base import (NeedsMaterialize, Unsupported, default_layouts,
                                          layout_order, alias_base, and_, in_range, linear)
from workbench.codegen.lower_contraction import compute_dtype, rule_convolution, rule_dot
from workbench.ir.ops import Category, get_op

# ----- elementwise ------------------------------------------------------------------------------


def rule_elementwise(b, node, idx):
    if node.op == "bitcast-convert" and b.type(node.operands[0]).shape != node.type.shape:
        raise Unsupported("a bitcast-convert between element sizes (a new minor dimension) runs "
                          "through the numpy reference", node.id)
    args = []
    for o in node.operands:
        t = b.type(o)
        args.append(b.value(o, () if t.rank == 0 and node.type.rank > 0 else idx))
    attrs = {"in": b.type(node.operands[0]).dtype}
    if node.op == "compare":
        attrs["direction"] = node.attrs["direction"]
        if node.attrs.get("compare_type") == "TOTALORDER":  # NaN and -0 ordered (emitters)
            attrs["compare_type"] = "TOTALORDER"
    return b.let(node.op, node.dtype, tuple(args), attrs, node.id)


def rule_for(op: str):
    """The lowering rule of ``op``, or None if the code generator cannot lower it."""
    if op in RULES:
        return RULES[op]
    if op in ("dot", "convolution"):
        return rule_dot if op == "dot" else rule_convolution
    opdef = get_op(op)
    if opdef.category == Category.ELEMENTWISE and not opdef.composite:
        return rule_elementwise
    return None


# ----- broadcast and data movement ------------------------------------------------------------


def rule_broadcast(b, node, idx):
    (x,) = node.operands
    xs = b.type(x).shape
    dims = node.attrs.get("dimensions", ())
    xi = tuple(idx[d] if xs[k] != 1 else Ix.of(0) for k, d in enumerate(dims))
    return b.value(x, xi)


def rule_transpose(b, node, idx):
    (x,) = node.operands
    perm = node.attrs["dimensions"]
    xi = [None] * len(perm)
    for i, p in enumerate(perm):
        xi[p] = idx[i]
    return b.value(x, tuple(xi))


def rule_reshape(b, node, idx):
    (x,) = node.operands
    base = alias_base(b, x)
    if base is not None:
        return b.load(base, linear(idx, node.type.shape))
    return b.value(x, reshape_index(b, b.type(x).shape, node.type.shape, idx))


def rule_bitcast(b, node, idx):
    if "dtype" in node.attrs:            # the same bits as another element type
        x = node.operands[0]
        xt = b.type(x)
        v = b.value(x, reshape_index(b, xt.shape, node.type.shape, idx))
        return b.let("bitcast-convert", node.dtype, (v,), {"in": xt.dtype}, node.id)
    if default_layouts(b, node):
        return rule_reshape(b, node, idx)
    (x,) = node.operands
    xt = b.type(x)
    src = layout_order(node.attrs.get("operand_layout"), xt.rank)
    dst = layout_order(node.attrs.get("layout"), node.type.rank)
    u = reshape_index(b, [xt.shape[s] for s in src], [node.type.shape[d] for d in dst],
                      [idx[d] for d in dst])
    xi = [None] * xt.rank
    for k, s in enumerate(src):
        xi[s] = u[k]
    return b.value(x, tuple(xi))


def reshape_index(b, in_shape, out_shape, idx):
    """Operand index of a reshape from ``in_shape`` to ``out_shape`` at output index ``idx``.

    Dimensions are matched in groups of equal element count (size-1 dimensions skipped); a
    group of one input dimension gets the affine linear index of its output dimensions, a group
    of several gets floordiv/mod temporaries of it.
    """
    result = [Ix.of(0)] * len(in_shape)
    if any(n == 0 for n in in_shape):
        return tuple(result)
    ins = [d for d, n in enumerate(in_shape) if n != 1]
    outs = [d for d, n in enumerate(out_shape) if n != 1]
    a = c = 0
    while a < len(ins) and c < len(outs):
        gi, go = [ins[a]], [outs[c]]
        pi, po = in_shape[ins[a]], out_shape[outs[c]]
        a, c = a + 1, c + 1
        while pi != po:
            if pi < po:
                gi.append(ins[a])
                pi *= in_shape[ins[a]]
                a += 1
            else:
                go.append(outs[c])
                po *= out_shape[outs[c]]
                c += 1
        lin = linear([idx[d] for d in go], [out_shape[d] for d in go])
        stride = pi
        for k, d in enumerate(gi):
            stride //= in_shape[d]
            v = b.index_op("floordiv", lin, stride) if k > 0 or len(gi) > 1 else lin
            result[d] = b.index_op("mod", v, in_shape[d]) if k > 0 else v
    return tuple(result)


def rule_copy(b, node, idx):
    return b.value(node.operands[0], idx)


def rule_reverse(b, node, idx):
    (x,) = node.operands
    dims = set(node.attrs["dimensions"])
    shape = node.type.shape
    return b.value(x, tuple(Ix.of(shape[d] - 1) - i if d in dims else i
                            for d, i in enumerate(idx)))


def rule_slice(b, node, idx):
    (x,) = node.operands
    start = node.attrs["start_indices"]
    strides = node.attrs.get("strides", (1,) * len(start))
    return b.value(x, tuple(i * st + s for i, s, st in zip(idx, start, strides)))


def rule_iota(b, node, idx):
    return b.let("iota", node.dtype, (idx[node.attrs["iota_dimension"]],), {}, node.id)


def rule_pad(b, node, idx):
    x, pv = node.operands
    xs = b.type(x).shape
    xi, valid = [], None
    for d, (lo, hi, it) in enumerate(node.attrs["padding"]):
        n, q = xs[d], idx[d] - lo
        if it == 0 and lo <= 0 and hi <= 0:
            xi.append(q)
        elif it == 0:
            xi.append(b.index_op("clamp", q, 0, n - 1))
            valid = and_(b, valid, in_range(b, q, 0, n, node.id), node.id)
        else:
            s = it + 1
            xi.append(b.index_op("floordiv", b.index_op("clamp", q, 0, (n - 1) * s), s))
            v = and_(b, in_range(b, q, 0, (n - 1) * s + 1, node.id),
                     b.let("divisible", "pred", (q, Ix.of(s)), {}, node.id), node.id)
            valid = and_(b, valid, v, node.id)
    xv = b.value(x, tuple(xi))
    if valid is None:
        return xv
    return b.let("select", node.dtype, (valid, xv, b.value(pv, ())), {}, node.id)


def rule_concatenate(b, node, idx):
    dim = node.attrs["dimension"]
    pieces, off = [], 0
    for o in node.operands:
        n = b.type(o).shape[dim]
        pieces.append((o, off, n))
        off += n
    pieces = [p for p in pieces if p[2] > 0]

    def at(o, start, n):
        i = list(idx)
        i[dim] = b.index_op("clamp", idx[dim] - start, 0, n - 1)
        return b.value(o, tuple(i))

    v = at(*pieces[-1])
    for o, start, n in reversed(pieces[:-1]):
        cond = in_range(b, idx[dim], start, start + n, node.id)
        v = b.let("select", node.dtype, (cond, at(o, start, n), v), {}, node.id)
    return v


# ----- indexing: gather, dynamic slices ----------------------------------------------------------


def rule_gather(b, node, idx):
    """XLA's gather as an index map: the output index splits into batch positions (which pick
    the start indices) and window offsets; each start index is loaded and clamped in the kernel
    (XLA's elemental emitter, ``EmitElementalGather``)."""
    from workbench.ir.ops.indexing import gather_geometry

    x, ind = node.operands
    xt, it = b.type(x), b.type(ind)
    g = gather_geometry(xt, it, node.attrs)
    ivd = g["ivd"]
    offset = g["offset_dims"]
    batch_idx = [i for d, i in enumerate(idx) if d not in offset]

    def component(k):
        ii = list(batch_idx)
        if ivd < it.rank:
            ii.insert(ivd, Ix.of(k))
        return b.value(ind, tuple(ii))

    xi = [Ix.of(0)] * xt.rank
    for k, d in enumerate(g["start_map"]):
        xi[d] = b.index_value(component(k), 0, max(xt.shape[d] - g["sizes"][d], 0))
    for od, ib in zip(g["op_batch"], g["idx_batch"]):
        xi[od] = batch_idx[ib if ib < ivd else ib - 1]
    for j, d in enumerate(g["window"]):
        xi[d] = xi[d] + idx[offset[j]]
    return b.value(x, tuple(xi))


def _dynamic_starts(b, node, first, sizes):
    xs = b.type(node.operands[0]).shape
    return [b.index_value(b.value(o, ()), 0, max(n - k, 0))
            for o, n, k in zip(node.operands[first:], xs, sizes)]


def rule_dynamic_slice(b, node, idx):
    starts = _dynamic_starts(b, node, 1, node.attrs["slice_sizes"])
    return b.value(node.operands[0], tuple(i + s for i, s in zip(idx, starts)))


def rule_dynamic_update_slice(b, node, idx):
    x, upd = node.operands[:2]
    us = b.type(upd).shape
    starts = _dynamic_starts(b, node, 2, us)
    inside, ui = None, []
    for i, s, n in zip(idx, starts, us):
        q = i - s
        inside = and_(b, inside, in_range(b, q, 0, n, node.id), node.id)
        ui.append(b.index_op("clamp", q, 0, max(n - 1, 0)))
    xv = b.value(x, idx)
    if inside is None:                      # a rank-0 update replaces the value
        return b.value(upd, ())
    return b.let("select", node.dtype, (inside, b.value(upd, tuple(ui)), xv), {}, node.id)


# ----- reductions -------------------------------------------------------------------------------


def _check_reducer(b, node):
    r = node.attrs.get("reducer")
    if r is None:
        raise Unsupported(f"{node.op} with a computation= (a variadic reduction such as an "
                          "argmax, or a reducer that is not one binary op) runs through the "
                          "numpy reference", node.id)
    if r not in b.caps.ops:
        raise Unsupported(f"the {b.caps.name} backend has no emitter for reducer {r}", node.id)
    return r


def rule_reduce(b, node, idx):
    x, init = node.operands
    xs = b.type(x).shape
    dims = sorted(node.attrs["dimensions"])
    reducer = _check_reducer(b, node)
    n_reduced = 1
    for d in dims:
        n_reduced *= xs[d]
    if (b.caps.phases and node.id != b.ctx.target and n_reduced > 1
            and not b.is_nest_prefix(idx)):
        raise NeedsMaterialize(node.id)
    kept = [d for d in range(len(xs)) if d not in dims]

    def body(r):
        xi = [None] * len(xs)
        for k, d in enumerate(kept):
            xi[d] = idx[k]
        for k, d in enumerate(dims):
            xi[d] = r[k]
        return b.value(x, tuple(xi))

    cdt = compute_dtype(node.dtype)
    acc = b.reduction(cdt, reducer, b.value(init, ()), [xs[d] for d in dims], idx,
                      body, contiguous=bool(dims) and dims[-1] == len(xs) - 1, node=node.id)
    return _narrow(b, acc, cdt, node)


def _narrow(b, value, cdt, node):
    """A float32 accumulator rounded once to the node's bf16/f16 dtype."""
    if cdt == node.dtype:
        return value
    return b.let("convert", node.dtype, (value,), {"in": cdt}, node.id)


def rule_reduce_window(b, node, idx):
    """Each output element reduces its window's taps. A tap's position in the padded, base-
    dilated operand is ``out * stride + k * window_dilation - pad_low``; it reads the operand
    element ``position / base_dilation`` when that is a whole index inside the operand, and the
    init value otherwise (padding, the holes of base dilation, a window that overhangs): XLA's
    elemental emitter (``EmitElementalReduceWindow``)."""
    x, init = node.operands
    xs = b.type(x).shape
    reducer = _check_reducer(b, node)
    rank = len(xs)
    size = node.attrs["window_size"]
    stride = node.attrs.get("window_stride", (1,) * rank)
    pad = node.attrs.get("window_padding", ((0, 0),) * rank)
    base = node.attrs.get("base_dilation", (1,) * rank)
    wdil = node.attrs.get("window_dilation", (1,) * rank)
    initv = b.value(init, ())

    def body(r):
        xi, valid = [], None
        for d, n in enumerate(xs):
            q = idx[d] * stride[d] + r[d] * wdil[d] - pad[d][0]
            hi = (node.type.shape[d] - 1) * stride[d] + (size[d] - 1) * wdil[d] - pad[d][0]
            s = base[d]
            if s == 1:
                if pad[d][0] <= 0 and hi < n:
                    xi.append(q)
                    continue
                xi.append(b.index_op("clamp", q, 0, n - 1))
                valid = and_(b, valid, in_range(b, q, 0, n, node.id), node.id)
                continue
            span = (n - 1) * s + 1 if n else 0
            xi.append(b.index_op("floordiv", b.index_op("clamp", q, 0, max(span - 1, 0)), s))
            v = and_(b, in_range(b, q, 0, span, node.id),
                     b.let("divisible", "pred", (q, Ix.of(s)), {}, node.id), node.id)
            valid = and_(b, valid, v, node.id)
        v = b.value(x, tuple(xi))
        return v if valid is None else b.let("select", node.dtype, (valid, v, initv), {},
                                             node.id)

    cdt = compute_dtype(node.dtype)
    acc = b.reduction(cdt, reducer, initv, list(size), idx, body, True, node.id)
    return _narrow(b, acc, cdt, node)


RULES = {
    "broadcast": rule_broadcast,
    "transpose": rule_transpose,
    "reshape": rule_reshape,
    "bitcast": rule_bitcast,
    "copy": rule_copy,
    "reverse": rule_reverse,
    "slice": rule_slice,
    "pad": rule_pad,
    "concatenate": rule_concatenate,
    "iota": rule_iota,
    "reduce": rule_reduce,
    "reduce-window": rule_reduce_window,
    "gather": rule_gather,
    "dynamic-slice": rule_dynamic_slice,
    "dynamic-update-slice": rule_dynamic_update_slice,
}

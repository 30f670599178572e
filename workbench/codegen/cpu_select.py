"""The CPU backend's kernels for ``select-and-scatter`` (a max pool's gradient) and ``topk``.

Before these kernels both ran through their numpy references, called from Python between two
native runs of the plan: the corpus's ``maxpool_grad`` (a [2, 8, 8, 3] select-and-scatter)
spent ~0.5 ms a call in it (2.6-3.8x ``jax.jit``), ``topk_softmax`` (top 4 of [16, 64]) ~0.1 ms
(1.8x). Each is now a group of one op compiled as a kernel of its own, with the backend's
calling convention (one ``int64``: the address of its pointer table,
:mod:`workbench.codegen.native`), so the plan's driver calls it natively like any other kernel.
Neither is fused with its neighbours: XLA:CPU does not fuse them either (select-and-scatter has
an emitter of its own, top-k is a library call).

**select-and-scatter** (XLA's ``SelectAndScatter``; the semantics of the reference,
:func:`workbench.ir.ops.reduction._select_and_scatter_ref`): the output starts as the init
value; the windows of the operand (``window_size``, ``window_stride``, ``window_padding``) are
walked in row-major order of the source; in each, the taps are visited row-major, the first
tap inside the operand becomes the pick, and a later tap inside the operand replaces it when
``select(current, candidate)`` is false (padding is never picked); the window's source value is
then combined into the output at the pick (``reducer=`` named, or the ``scatter=``
computation), one window at a time, so windows that overlap combine in order. A window entirely
in padding scatters nothing. Serial (overlapping windows write the same elements).

**topk** (the k largest, ``largest=true``, or smallest elements of the last dimension, and
their s32 indices): the order is the total order of :func:`workbench.ir.ops.sorting.
topk_indices`: floats by their total-order keys (NaN larger than every number, -0 < +0),
integers by value (u64 left to the reference: its keys would not fit an int64), and among equal keys the lower index first. For k <= :data:`TOPK_INSERT_MAX`
each row keeps its best k in a sorted buffer (an element enters only when strictly better than
the buffer's last, so equal keys keep their index order); for larger k the row's positions are
sorted by a stable bottom-up merge sort and the first k taken. Rows run serially.

What is compiled (anything else raises :class:`~workbench.codegen.lower_base.Unsupported` and
the group runs through the numpy reference, with the reason): operands of ``pred``, integer,
``f32`` and ``f64`` dtypes (bf16 and f16 are held as bits and left to the reference); select and
scatter computations of scalar elementwise ops.
"""

from __future__ import annotations

import math

from workbench.codegen.cpu_scatter import _strides, _unravel
from workbench.codegen.cpu_sort import SORT_DTYPES, _total_order_key, scalar_function_lines
from workbench.codegen.emitters import CPU_TABLE, NUMPY_TYPES, EmitContext, render_let
from workbench.codegen.lower_base import Unsupported
from workbench.codegen.source import Writer, native_module_header

#: largest k for which top-k keeps a sorted buffer of k per row (a merge sort of the row above)
TOPK_INSERT_MAX = 16


def own_select_kernel(xgraph, members):
    """``"select-and-scatter"`` or ``"topk"`` if the group is one such node, else None."""
    if len(members) == 1 and xgraph.node(members[0]).op in ("select-and-scatter", "topk"):
        return xgraph.node(members[0]).op
    return None


def render_select_and_scatter(xgraph, nid: str):
    """Numba CPU source of a kernel computing the ``select-and-scatter`` node ``nid``.

    Parameters
    ----------
    xgraph : Graph
        The composite-expanded graph.
    nid : str
        The node: operand, source (the window output's shape), init (a scalar); its
        ``window_size``, ``window_stride``, ``window_padding``, ``select`` and ``reducer`` or
        ``scatter``.

    Returns
    -------
    (source, inputs, outputs, args) : (str, tuple of str, tuple of str, tuple)
        The module text; the kernel's input values (operand, source, init) and output value
        (the node); (dtype, elements) of each array of its pointer table.

    Raises
    ------
    Unsupported
        For a dtype outside :data:`~workbench.codegen.cpu_sort.SORT_DTYPES`, a dilation, or a
        computation op that is not compiled.
    """
    node = xgraph.node(nid)
    xt, st, it = (xgraph.node(o).type for o in node.operands)
    for t in (xt, st):
        if t.dtype not in SORT_DTYPES:
            raise Unsupported(f"select-and-scatter of {t.dtype} runs through the numpy "
                              "reference (the cpu kernel takes pred, integer, f32 and f64)", nid)
    rank = xt.rank
    for key in ("base_dilation", "window_dilation"):
        if any(v != 1 for v in node.attrs.get(key, (1,) * rank)):
            raise Unsupported(f"select-and-scatter with {key}=: not compiled", nid)
    size = tuple(node.attrs["window_size"])
    stride = tuple(node.attrs.get("window_stride", (1,) * rank))
    pad = tuple(node.attrs.get("window_padding", ((0, 0),) * rank))
    cx = EmitContext("cpu", None)
    sel = node.attrs["select"]
    names = {p.id: ("a", "b")[p.attrs["index"]] for p in sel.parameters}
    select = scalar_function_lines(sel, cx, nid, names, "the select computation")
    combine = _scatter_lines(node, st.dtype, cx, nid)
    xsize, ssize = math.prod(xt.shape), math.prod(st.shape)
    xstr = _strides(xt.shape)
    args = ((xt.dtype, xsize), (st.dtype, ssize), (it.dtype, 1), (st.dtype, xsize))
    w = Writer()
    native_module_header(w, "workbench.codegen.cpu_select",
                         f"select-and-scatter of {xt} with source {st}, window {list(size)}", cx)
    w.line(f"ARGS = {args!r}  # (dtype, elements) of each array in the table")
    w.line("")
    w.line("")
    w.line("@njit(cache=True, error_model='numpy')")
    w.line("def select(a, b):")
    w.line("    # whether the current pick a is kept against the candidate b")
    for ln in select:
        w.line("    " + ln)
    w.line("")
    w.line("")
    w.line("@njit(cache=True, error_model='numpy')")
    w.line("def combine(o0, u0):")
    w.line("    # the scatter: the output element from its current value and the source value")
    for ln in combine:
        w.line("    " + ln)
    w.line("")
    w.line("")
    w.line("@njit(SIGNATURE, cache=True, error_model='numpy', boundscheck=False, nogil=True)")
    w.line("def kernel(p_table):")
    w.line("    p_ptrs = carray(as_voidptr(p_table), 4, np.int64)")
    w.line(f"    x = carray(as_voidptr(p_ptrs[0]), {xsize}, {NUMPY_TYPES[xt.dtype]})")
    w.line(f"    src = carray(as_voidptr(p_ptrs[1]), {ssize}, {NUMPY_TYPES[st.dtype]})")
    w.line(f"    init = carray(as_voidptr(p_ptrs[2]), 1, {NUMPY_TYPES[it.dtype]})")
    w.line(f"    out = carray(as_voidptr(p_ptrs[3]), {xsize}, {NUMPY_TYPES[st.dtype]})")
    w.line(f"    for i in range({xsize}):")
    w.line("        out[i] = init[0]")
    w.line(f"    for o in range({ssize}):  # the windows, row-major over the source")
    oc = _unravel("c", "o", st.shape, w, "        ")
    w.line("        pick = -1")
    w.line(f"        cur = {NUMPY_TYPES[xt.dtype]}(0)")
    w.line(f"        for k in range({math.prod(size)}):  # the window's taps, row-major")
    kc = _unravel("k", "k", size, w, "            ")
    conds, terms = [], []
    for d in range(rank):
        q = f"q{d}"
        w.line(f"            {q} = {oc[d]} * {stride[d]} + {kc[d]} - {pad[d][0]}")
        if pad[d][0] > 0 or (st.shape[d] - 1) * stride[d] + size[d] - 1 - pad[d][0] >= xt.shape[d]:
            conds.append(f"{q} >= 0 and {q} < {xt.shape[d]}")
        terms.append(f"{q} * {xstr[d]}")
    if conds:
        w.line(f"            if not ({' and '.join(conds)}):")
        w.line("                continue  # padding is never picked")
    w.line(f"            p = {' + '.join(terms) or '0'}")
    w.line("            v = x[p]")
    w.line("            if pick < 0 or not select(cur, v):")
    w.line("                pick = p")
    w.line("                cur = v")
    w.line("        if pick >= 0:")
    w.line("            out[pick] = combine(out[pick], src[o])")
    return w.text(), tuple(node.operands), (nid,), args


def _scatter_lines(node, dtype, cx, nid) -> list[str]:
    r = node.attrs.get("reducer")
    if r is not None:
        if r not in CPU_TABLE:
            raise Unsupported(f"select-and-scatter reducer {r}: not compiled", nid)
        return [f"return {render_let(CPU_TABLE, r, ['o0', 'u0'], dtype, {}, cx)}"]
    comp = node.attrs["scatter"]
    names = {p.id: ("o0", "u0")[p.attrs["index"]] for p in comp.parameters}
    return scalar_function_lines(comp, cx, nid, names, "the scatter computation")


def render_topk(xgraph, nid: str):
    """Numba CPU source of a kernel computing the ``topk`` node ``nid``.

    Parameters
    ----------
    xgraph : Graph
        The composite-expanded graph.
    nid : str
        The node: one operand of rank >= 1, ``k`` (0 <= k <= the last dimension) and
        ``largest`` (default true).

    Returns
    -------
    (source, inputs, outputs, args) : (str, tuple of str, tuple of str, tuple)
        The module text; the input value and the output value (the node: values, then s32
        indices, shape ``operand.shape[:-1] + (k,)``); (dtype, elements) of each array of its
        pointer table.

    Raises
    ------
    Unsupported
        For an operand dtype outside :data:`~workbench.codegen.cpu_sort.SORT_DTYPES`.
    """
    node = xgraph.node(nid)
    xt = xgraph.node(node.operands[0]).type
    if xt.dtype not in SORT_DTYPES or xt.dtype == "u64":
        raise Unsupported(f"topk of {xt.dtype} runs through the numpy reference (the cpu topk "
                          "kernel takes pred, integer up to u32 and s64, f32 and f64 operands)",
                          nid)
    k, largest = node.attrs["k"], node.attrs.get("largest", True)
    length = xt.shape[-1]
    rows = math.prod(xt.shape[:-1])
    cx = EmitContext("cpu", None)
    if xt.dtype in ("f32", "f64"):
        key = _total_order_key("v", xt.dtype, cx)
    elif xt.dtype == "pred":
        key = "int64(v)"
    else:
        key = "v"
    args = ((xt.dtype, rows * length), (xt.dtype, rows * k), ("s32", rows * k))
    ty = NUMPY_TYPES[xt.dtype]
    w = Writer()
    native_module_header(w, "workbench.codegen.cpu_select",
                         f"topk k={k} largest={bool(largest)} of {xt}", cx)
    w.line(f"ARGS = {args!r}  # (dtype, elements) of each array in the table")
    w.line("")
    w.line("")
    w.line("@njit(cache=True, error_model='numpy')")
    w.line("def key(v):")
    w.line("    # the total-order key: larger keys come first for largest=true")
    w.line(f"    return {key}")
    w.line("")
    w.line("")
    w.line("@njit(cache=True, error_model='numpy')")
    w.line("def before(ka, kb):")
    w.line("    # whether key ka ranks strictly before key kb")
    w.line(f"    return ka {'>' if largest else '<'} kb")
    w.line("")
    w.line("")
    w.line("@njit(SIGNATURE, cache=True, error_model='numpy', boundscheck=False, nogil=True)")
    w.line("def kernel(p_table):")
    w.line("    p_ptrs = carray(as_voidptr(p_table), 3, np.int64)")
    w.line(f"    x = carray(as_voidptr(p_ptrs[0]), {rows * length}, {ty})")
    w.line(f"    vals = carray(as_voidptr(p_ptrs[1]), {rows * k}, {ty})")
    w.line(f"    idx = carray(as_voidptr(p_ptrs[2]), {rows * k}, np.int32)")
    if k == 0:
        w.line("    return")
        return w.text(), tuple(node.operands), (nid,), args
    n = k if k <= TOPK_INSERT_MAX else length
    for buf in ("pos", "keys", "tmp")[:2 if k <= TOPK_INSERT_MAX else 3]:
        w.line(f"    {buf} = np.empty({n}, np.int64)  # once per call, reused by every row")
    w.line(f"    for r in range({rows}):")
    w.line(f"        base = r * {length}")
    if k <= TOPK_INSERT_MAX:
        _topk_insert(w, k, length)
    else:
        _topk_merge(w, k, length)
    w.line(f"        for j in range({k}):")
    w.line(f"            idx[r * {k} + j] = int32(pos[j])")
    w.line(f"            vals[r * {k} + j] = x[base + pos[j]]")
    return w.text(), tuple(node.operands), (nid,), args


def _topk_insert(w, k, length):
    """The row's best k in a sorted buffer (``pos``, ``keys``): an element enters only when it
    ranks strictly before the buffer's last, and goes after every kept element it does not
    rank strictly before (equal keys keep their index order)."""
    w.line("        n = 0")
    w.line(f"        for i in range({length}):")
    w.line("            ki = int64(key(x[base + i]))")
    w.line(f"            if n == {k}:")
    w.line(f"                if not before(ki, keys[{k - 1}]):")
    w.line("                    continue")
    w.line(f"                j = {k - 1}")
    w.line("            else:")
    w.line("                j = n")
    w.line("                n += 1")
    w.line("            while j > 0 and before(ki, keys[j - 1]):")
    w.line("                keys[j] = keys[j - 1]")
    w.line("                pos[j] = pos[j - 1]")
    w.line("                j -= 1")
    w.line("            keys[j] = ki")
    w.line("            pos[j] = i")


def _topk_merge(w, k, length):
    """The row's positions sorted by a stable bottom-up merge sort of their keys."""
    w.line(f"        for i in range({length}):")
    w.line("            keys[i] = int64(key(x[base + i]))")
    w.line("            pos[i] = i")
    w.line("        width = 1")
    w.line(f"        while width < {length}:")
    w.line("            lo = 0")
    w.line(f"            while lo < {length}:")
    w.line(f"                mid = min(lo + width, {length})")
    w.line(f"                hi = min(lo + 2 * width, {length})")
    w.line("                i = lo")
    w.line("                j = mid")
    w.line("                for t in range(lo, hi):")
    w.line("                    if i < mid and (j >= hi or not before(keys[pos[j]], "
           "keys[pos[i]])):")
    w.line("                        tmp[t] = pos[i]")
    w.line("                        i += 1")
    w.line("                    else:")
    w.line("                        tmp[t] = pos[j]")
    w.line("                        j += 1")
    w.line("                lo = hi")
    w.line("            pos, tmp = tmp, pos")
    w.line("            width *= 2")


__all__ = ["TOPK_INSERT_MAX", "own_select_kernel", "render_select_and_scatter", "render_topk"]

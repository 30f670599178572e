"""The CPU backend's scatter kernel: XLA's ``scatter`` with its combiner compiled.

Before this kernel a ``scatter`` ran through its numpy reference (``ufunc.at``, or the
combiner computation evaluated op by op for each update when indices repeat), called from
Python between two native runs of the plan: on the corpus's small scatters (``x.at[idx].max``
of a [8, 6] operand) most of ``scatter_combiners``'s 33.9x against ``jax.jit``.

The kernel copies each operand into its output, then walks the update windows in the order
the reference applies them (the indices' batch positions row-major, then each window's
elements row-major) and combines each update element into the output element it lands on, one
at a time, so repeated indices combine in order exactly as the reference's ``ufunc.at`` and
its one-at-a-time loop do. The semantics are XLA's (and the reference's,
:func:`workbench.ir.ops.indexing._scatter_ref`):

- a window's start is its index vector placed at ``scatter_dims_to_operand_dims`` (and, for
  ``input_batching_dims``, the batch position itself); a window whose start is out of bounds
  for the full window on any dimension (negative, or start + window size > operand size) is
  skipped whole: XLA's scatter "skips" out-of-bounds updates, it never clamps them (unlike
  gather and dynamic-update-slice);
- the combiner is the named one of the importer (``add``, ``multiply``, ``maximum``,
  ``minimum``, ``and``, ``or``; ``assign`` keeps the update) rendered with the backend's
  scalar emitter table, or the ``computation`` (N current values, then N updates, returning
  N values) as a numba function, as the sort's comparator is (:mod:`workbench.codegen.cpu_sort`).
  ``maximum``/``minimum`` propagate NaN (LLVM's ``maximum``/``minimum``, numpy's ufuncs).

The kernel has the CPU backend's calling convention (one ``int64``: its pointer table,
:mod:`workbench.codegen.native`): operands, indices, updates, then the outputs. It runs
serially (the updates in order; a scatter's windows may overlap).

What is compiled (anything else raises :class:`~workbench.codegen.lower_base.Unsupported`
and the group runs through the numpy reference with the reason): operands of ``pred``,
integer, ``f32`` and ``f64`` dtypes; a combiner computation of scalar elementwise ops.
"""

from __future__ import annotations

import math

from workbench.codegen.cpu_sort import SORT_DTYPES, scalar_function_lines
from workbench.codegen.emitters import CPU_TABLE, NUMPY_TYPES, EmitContext, render_let
from workbench.codegen.lower_base import Unsupported
from workbench.codegen.source import Writer, native_module_header
from workbench.ir.ops.indexing import _batch_pos, _scatter_geometry

#: index dtypes the kernel reads (converted to int64)
INDEX_DTYPES = frozenset({"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"})


def is_scatter_group(xgraph, members) -> bool:
    """True if the group is one ``scatter`` node (what :func:`render_scatter` compiles)."""
    return len(members) == 1 and xgraph.node(members[0]).op == "scatter"


def _strides(shape) -> list[int]:
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= s
    return out[::-1]


def _unravel(var: str, flat: str, shape, w, indent: str) -> list[str]:
    """Write ``var{j} = (flat // stride_j) % shape_j`` for each dimension; returns the names."""
    names = []
    for j, (s, st) in enumerate(zip(shape, _strides(shape))):
        name = f"{var}{j}"
        w.line(f"{indent}{name} = ({flat} // {st}) % {s}")
        names.append(name)
    return names


def render_scatter(xgraph, nid: str):
    """Numba CPU source of a kernel computing the ``scatter`` node ``nid``.

    Parameters
    ----------
    xgraph : Graph
        The composite-expanded graph.
    nid : str
        The scatter node: N operands of one shape, the indices, N updates; its dimension
        numbers and ``combiner`` or ``computation``.

    Returns
    -------
    (source, inputs, outputs, args) : (str, tuple of str, tuple of str, tuple)
        The module text; the kernel's input values (the node's operands, in order) and
        output values (the node); (dtype, elements) of each array of its pointer table.

    Raises
    ------
    Unsupported
        For an operand dtype outside :data:`~workbench.codegen.cpu_sort.SORT_DTYPES`, an index
        dtype outside :data:`INDEX_DTYPES`, or a combiner op that is not compiled.
    """
    node = xgraph.node(nid)
    types = [xgraph.node(o).type for o in node.operands]
    n = len(types) // 2
    operands, itype, updates = types[:n], types[n], types[n + 1:]
    for t in operands + updates:
        if t.dtype not in SORT_DTYPES:
            raise Unsupported(f"scatter of {t.dtype} runs through the numpy reference (the cpu "
                              "scatter kernel takes pred, integer, f32 and f64 operands)", nid)
    if itype.dtype not in INDEX_DTYPES:
        raise Unsupported(f"scatter indices of {itype.dtype}: not compiled", nid)
    g = _scatter_geometry(operands[0], itype, updates[0], node.attrs)
    cx = EmitContext("cpu", None)
    dtypes = [t.dtype for t in operands]
    combine = _combiner(node, dtypes, cx, nid)
    shape, ushape, ishape = operands[0].shape, updates[0].shape, itype.shape
    size, usize, isize = math.prod(shape), math.prod(ushape), math.prod(ishape)
    ivd = g["ivd"]
    bdims = [d for d in range(len(ishape)) if d != ivd]
    bshape = [ishape[d] for d in bdims]
    wshape = [ushape[d] for d in g["uwd"]]
    wsize = [1] * len(shape)
    for wd, od in zip(g["uwd"], g["window_operand"]):
        wsize[od] = ushape[wd]
    ostr, ustr, istr = _strides(shape), _strides(ushape), _strides(ishape)
    args = (tuple((t.dtype, t.size) for t in operands) + ((itype.dtype, isize),)
            + tuple((t.dtype, t.size) for t in updates) + tuple((d, size) for d in dtypes))
    w = Writer()
    native_module_header(w, "workbench.codegen.cpu_scatter",
                         f"scatter of {n} operand(s) {operands[0]}, indices {itype}, updates "
                         f"{updates[0]}", cx)
    w.line(f"ARGS = {args!r}  # (dtype, elements) of each array in the table")
    w.line("")
    w.line("")
    w.line("@njit(cache=True, error_model='numpy')")
    params = [f"o{k}" for k in range(n)] + [f"u{k}" for k in range(n)]
    w.line(f"def combine({', '.join(params)}):")
    w.line("    # the scatter's combiner: the new values from the current ones and the updates")
    for ln in combine:
        w.line("    " + ln)
    w.line("")
    w.line("")
    w.line("@njit(SIGNATURE, cache=True, error_model='numpy', boundscheck=False, nogil=True)")
    w.line("def kernel(p_table):")
    w.line(f"    p_ptrs = carray(as_voidptr(p_table), {3 * n + 1}, np.int64)")
    for k, t in enumerate(operands):
        w.line(f"    in{k} = carray(as_voidptr(p_ptrs[{k}]), {size}, {NUMPY_TYPES[t.dtype]})")
        w.line(f"    upd{k} = carray(as_voidptr(p_ptrs[{n + 1 + k}]), {usize}, "
               f"{NUMPY_TYPES[t.dtype]})")
        w.line(f"    out{k} = carray(as_voidptr(p_ptrs[{2 * n + 1 + k}]), {size}, "
               f"{NUMPY_TYPES[t.dtype]})")
    w.line(f"    ind = carray(as_voidptr(p_ptrs[{n}]), {isize}, {NUMPY_TYPES[itype.dtype]})")
    w.line(f"    for i in range({size}):")
    for k in range(n):
        w.line(f"        out{k}[i] = in{k}[i]")
    nb, nw = math.prod(bshape), math.prod(wshape)
    w.line(f"    for b in range({nb}):  # the update windows, in the reference's order")
    bc = _unravel("c", "b", bshape, w, "        ")
    starts = ["0"] * len(shape)
    for k, d in enumerate(g["to_operand"]):
        terms = []
        for pos, idim in enumerate(bdims):
            terms.append(f"{bc[pos]} * {istr[idim]}")
        if ivd < len(ishape):
            terms.append(f"{k * istr[ivd]}")
        w.line(f"        s{d} = int64(ind[{' + '.join(terms) or '0'}])")
        starts[d] = f"s{d}"
    for od, ib in zip(g["in_batch"], g["idx_batch"]):
        starts[od] = bc[_batch_pos(ib, ivd)]
    conds = [f"{s} >= 0 and {s} <= {shape[d] - wsize[d]}" for d, s in enumerate(starts)
             if s != "0" or shape[d] - wsize[d] < 0]
    w.line(f"        if not ({' and '.join(conds) or 'True'}):")
    w.line("            continue  # out of bounds for the window: skipped, as XLA does")
    w.line(f"        for wi in range({nw}):")
    wc = _unravel("w", "wi", wshape, w, "            ")
    pos_terms, up_terms = [], []
    for d in range(len(shape)):
        e = starts[d]
        if d in g["window_operand"]:
            e = f"({e} + {wc[g['window_operand'].index(d)]})"
        pos_terms.append(f"{e} * {ostr[d]}")
    for pos, ud in enumerate(g["scatter_dims"]):
        up_terms.append(f"{bc[pos]} * {ustr[ud]}")
    for j, ud in enumerate(g["uwd"]):
        up_terms.append(f"{wc[j]} * {ustr[ud]}")
    w.line(f"            pos = {' + '.join(pos_terms) or '0'}")
    w.line(f"            up = {' + '.join(up_terms) or '0'}")
    cur = ", ".join([f"out{k}[pos]" for k in range(n)] + [f"upd{k}[up]" for k in range(n)])
    if n == 1:
        w.line(f"            out0[pos] = combine({cur})")
    else:
        w.line(f"            r = combine({cur})")
        for k in range(n):
            w.line(f"            out{k}[pos] = r[{k}]")
    return w.text(), tuple(node.operands), (nid,), args


def _combiner(node, dtypes, cx, nid) -> list[str]:
    """Lines of ``combine(o0, .., u0, ..)``: the named combiner, or the computation."""
    comb = node.attrs.get("combiner")
    if comb == "assign":
        return ["return u0"]
    if comb is not None:
        if comb not in CPU_TABLE:
            raise Unsupported(f"scatter combiner {comb}: not compiled", nid)
        return [f"return {render_let(CPU_TABLE, comb, ['o0', 'u0'], dtypes[0], {}, cx)}"]
    comp = node.attrs["computation"]
    n = len(dtypes)
    names = {}
    for p in comp.parameters:
        k = p.attrs["index"]
        names[p.id] = f"o{k}" if k < n else f"u{k - n}"
    return scalar_function_lines(comp, cx, nid, names, "the scatter's computation")


__all__ = ["INDEX_DTYPES", "is_scatter_group", "render_scatter"]

"""The CPU backend's sort kernel: XLA's ``sort`` with its comparator compiled, one row at a time.

Before this kernel a ``sort`` ran through its numpy reference, a bitonic network that
evaluates the comparator computation op by op on whole arrays: correct, but on the corpus's
small sorts (a [2, 17] argsort) 5-7 ms a call, against XLA:CPU's ~0.1 ms (``sort_argsort`` was
42x slower than ``jax.jit``). Here the comparator becomes a numba function of 2N scalars
(``a0, b0, a1, b1, ...``, XLA's parameter order), rendered with the backend's scalar emitter
table (:data:`~workbench.codegen.emitters.CPU_TABLE`), and the kernel sorts each row along
``dimension`` with a stable bottom-up merge sort of the row's positions: an element of the
right run is taken before one of the left run only when the comparator says it sorts strictly
first, so equal keys keep their order (XLA's ``is_stable=true``; an unstable sort may return
any order of equal keys, and this is one of them). Every operand is then gathered through the
row's permutation into its output (the sort's value, one array per operand).

The kernel has the CPU backend's calling convention (one ``int64``: the address of its pointer
table, :mod:`workbench.codegen.native`), so the plan's driver calls it natively like any other
kernel. Rows run serially for now: with the rows in a ``prange``, numba did not finish
compiling the kernel of a [64, 4096] sort within 4 minutes (left to do).

What is compiled (anything else raises :class:`~workbench.codegen.lower_base.Unsupported` and
the group runs through the numpy reference, as before, with the reason): operands of
``pred``, signed and unsigned integer, ``f32`` and ``f64`` dtypes (bf16 and f16 are held as
bits and are left to the reference); a comparator of scalar elementwise ops of the emitter
table, constants, parameters and the scalar moves (reshape, copy, broadcast, transpose).
``compare`` with ``type=TOTALORDER`` (what JAX's comparators use) compares the floats' total
order keys: the bits as a signed integer, the magnitude bits flipped for negative values, so
that -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN, as
:func:`workbench.ir.ops.elementwise.total_order_key`.
"""

from __future__ import annotations

import math

from workbench.codegen.emitters import (CPU_TABLE, NUMBA_TYPES, NUMPY_TYPES, EmitContext,
                                        literal_text, render_let)
from workbench.codegen.lower_base import Unsupported
from workbench.codegen.source import Writer, native_module_header
from workbench.ir.ops import constant_array, get_op
from workbench.ir.ops.base import Category
from workbench.ir.types import TupleType

#: dtypes whose buffers hold their values (not bits) and that the comparator's emitters read
SORT_DTYPES = frozenset({"pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f32",
                         "f64"})
#: scalar data movement that is the identity on a scalar
_MOVES = frozenset({"reshape", "copy", "broadcast", "transpose"})
#: signed integer of a float's width, and the mask of its magnitude bits (TOTALORDER keys)
_KEY = {"f32": ("int32", 0x7FFFFFFF), "f64": ("int64", 0x7FFFFFFFFFFFFFFF)}


def is_sort_group(xgraph, members) -> bool:
    """True if the group is one ``sort`` node (what :func:`render_sort` compiles)."""
    return len(members) == 1 and xgraph.node(members[0]).op == "sort"


def render_sort(xgraph, nid: str, parallel_min_work: int):
    """Numba CPU source of a kernel computing the ``sort`` node ``nid``.

    Parameters
    ----------
    xgraph : Graph
        The composite-expanded graph.
    nid : str
        The sort node: N operands of one shape, ``dimension``, ``comparator``.
    parallel_min_work : int
        Comparisons (rows x n log2 n) from which the rows run in a ``prange``.

    Returns
    -------
    (source, inputs, outputs, args) : (str, tuple of str, tuple of str, tuple)
        The module text; the kernel's input values (the operands, in order) and output values
        (the node); (dtype, elements) of each array of its pointer table (the operands, then
        one output per operand).

    Raises
    ------
    Unsupported
        For an operand dtype outside :data:`SORT_DTYPES` or a comparator op that is not
        compiled (the reason names the op).
    """
    node = xgraph.node(nid)
    types = [xgraph.node(o).type for o in node.operands]
    for t in types:
        if t.dtype not in SORT_DTYPES:
            raise Unsupported(f"sort of {t.dtype} runs through the numpy reference (the cpu "
                              "sort kernel takes pred, integer, f32 and f64 operands)", nid)
    shape, dim = types[0].shape, node.attrs["dimension"]
    length = shape[dim] if shape else 1
    inner = math.prod(shape[dim + 1:])
    rows = math.prod(shape) // max(length, 1) if shape else 1
    cx = EmitContext("cpu", None)
    comparator = _comparator(node.attrs["comparator"], cx, nid)
    work = rows * length * max(1, math.ceil(math.log2(max(length, 2))))
    # rows in a prange: numba's parfor pass did not finish compiling this loop (the run swaps
    # `perm` and `tmp`) within 4 minutes on a [64, 4096] sort; serial until that is solved
    parallel = False and rows > 1 and work >= parallel_min_work
    size = math.prod(shape) if shape else 1
    n = len(types)
    args = tuple((t.dtype, size) for t in types) * 2
    w = Writer()
    native_module_header(w, "workbench.codegen.cpu_sort",
                         f"sort of {n} operand(s) {types[0]} along dimension {dim}", cx,
                         prange=True)
    w.line(f"PARALLEL = {parallel!r}")
    w.line(f"ARGS = {args!r}  # (dtype, elements) of each array in the table")
    w.line("")
    w.line("")
    w.line("@njit(cache=True, error_model='numpy')")
    w.line(f"def less({', '.join(p for k in range(n) for p in (f'a{k}', f'b{k}'))}):")
    w.line("    # the sort's comparator: whether a sorts strictly before b")
    for ln in comparator:
        w.line("    " + ln)
    w.line("")
    w.line("")
    w.line("@njit(SIGNATURE, parallel=PARALLEL, cache=True, error_model='numpy', "
           "boundscheck=False, nogil=True)")
    w.line("def kernel(p_table):")
    w.line(f"    p_ptrs = carray(as_voidptr(p_table), {2 * n}, np.int64)")
    for k, t in enumerate(types):
        w.line(f"    in{k} = carray(as_voidptr(p_ptrs[{k}]), {size}, {NUMPY_TYPES[t.dtype]})")
        w.line(f"    out{k} = carray(as_voidptr(p_ptrs[{n + k}]), {size}, "
               f"{NUMPY_TYPES[t.dtype]})")
    w.line(f"    for r in {'prange' if parallel else 'range'}({rows}):")
    w.line(f"        base = (r // {inner}) * {length * inner} + r % {inner}")
    w.line(f"        perm = np.empty({length}, np.int64)")
    w.line(f"        tmp = np.empty({length}, np.int64)")
    w.line(f"        for i in range({length}):")
    w.line("            perm[i] = i")
    w.line("        width = 1")
    w.line(f"        while width < {length}:  # stable bottom-up merge of runs of `width`")
    w.line("            lo = 0")
    w.line(f"            while lo < {length}:")
    w.line(f"                mid = min(lo + width, {length})")
    w.line(f"                hi = min(lo + 2 * width, {length})")
    w.line("                i = lo")
    w.line("                j = mid")
    w.line("                for k in range(lo, hi):")
    w.line("                    take_right = False")
    w.line("                    if i >= mid:")
    w.line("                        take_right = True")
    w.line("                    elif j < hi:")
    w.line(f"                        pa = base + perm[j] * {inner}")
    w.line(f"                        pb = base + perm[i] * {inner}")
    cargs = ", ".join(p for k in range(n) for p in (f"in{k}[pa]", f"in{k}[pb]"))
    w.line(f"                        take_right = less({cargs})")
    w.line("                    if take_right:")
    w.line("                        tmp[k] = perm[j]")
    w.line("                        j += 1")
    w.line("                    else:")
    w.line("                        tmp[k] = perm[i]")
    w.line("                        i += 1")
    w.line("                lo = hi")
    w.line("            perm, tmp = tmp, perm")
    w.line("            width *= 2")
    w.line(f"        for i in range({length}):")
    w.line(f"            src = base + perm[i] * {inner}")
    w.line(f"            dst = base + i * {inner}")
    for k in range(n):
        w.line(f"            out{k}[dst] = in{k}[src]")
    return w.text(), tuple(node.operands), (nid,), args


def _comparator(comp, cx, nid: str) -> list[str]:
    """Lines of the comparator's body (``v0 = ...``, ``return ...``) over ``a0, b0, ...``."""
    names = {p.id: f"{'ab'[p.attrs['index'] % 2]}{p.attrs['index'] // 2}"
             for p in comp.parameters}
    return scalar_function_lines(comp, cx, nid, names, "the sort's comparator")


def scalar_function_lines(comp, cx, nid: str, names: dict, what: str) -> list[str]:
    """Lines of a numba function body computing the scalar computation ``comp``.

    Parameters
    ----------
    comp : Graph
        A computation of scalars (a comparator, a scatter's combiner): elementwise ops of
        :data:`~workbench.codegen.emitters.CPU_TABLE`, constants, parameters, scalar moves.
    cx : EmitContext
        Collects the intrinsics the lines call.
    nid : str
        The node that holds the computation (named in an :class:`Unsupported`).
    names : dict
        Parameter id -> the Python name it has in the function.
    what : str
        How the reason of an :class:`Unsupported` names the computation.

    Returns
    -------
    list of str
        ``v0 = ...`` lines, then ``return x`` (one output) or ``return (x, y)`` (several).

    Raises
    ------
    Unsupported
        For a value that is not a scalar of :data:`SORT_DTYPES`, or an op not compiled.
    """
    names = dict(names)
    lines = []
    for node in comp.topo_nodes():
        if node.op == "parameter":
            continue
        t = node.type
        if isinstance(t, TupleType) or t.rank != 0 or t.dtype not in SORT_DTYPES:
            raise Unsupported(f"{what} computes {t} ({node.op}): not compiled", nid)
        if node.op == "constant":
            value = constant_array(node.attrs, t).reshape(()).item()
            names[node.id] = literal_text(_number(value, t.dtype, nid), t.dtype)
            continue
        args = [names[o] for o in node.operands]
        if node.op in _MOVES:
            names[node.id] = args[0]
            continue
        if get_op(node.op).category != Category.ELEMENTWISE or node.op not in CPU_TABLE:
            raise Unsupported(f"{what} holds {node.op}: not compiled", nid)
        if node.op == "compare" and node.attrs.get("compare_type") == "TOTALORDER":
            dt = comp.node(node.operands[0]).type.dtype
            if dt in _KEY:
                args = [_total_order_key(a, dt, cx) for a in args]
        var = f"v{len(lines)}"
        lines.append(f"{var} = {render_let(CPU_TABLE, node.op, args, t.dtype, node.attrs, cx)}")
        names[node.id] = var
    outs = [names[o] for o in comp.outputs]
    lines.append(f"return {outs[0]}" if len(outs) == 1 else f"return ({', '.join(outs)})")
    return lines


def _total_order_key(x: str, dtype: str, cx) -> str:
    """A signed integer ordered as IEEE 754's totalOrder orders the float ``x``."""
    ity, mask = _KEY[dtype]
    cx.intrinsics.add("bitcast_like")
    bits = f"bitcast_like({x}, {ity}(0))"
    return f"({bits} ^ (({bits} >> {ity}({8 * (4 if dtype == 'f32' else 8) - 1})) & {ity}({mask})))"


def _number(value, dtype: str, nid: str):
    if dtype == "pred":
        return bool(value)
    if dtype[0] in "su":
        if isinstance(value, bool) or not isinstance(value, int):
            raise Unsupported(f"bad integer literal {value!r}"[:80], nid)
        return int(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Unsupported(f"bad float literal {value!r}"[:80], nid)
    return float(value)


__all__ = ["SORT_DTYPES", "is_sort_group", "render_sort", "scalar_function_lines"]

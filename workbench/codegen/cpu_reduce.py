"""The CPU backend's kernel for a group holding a ``reduce`` with a ``computation=``.

XLA's variadic reduce (N operands of one shape, N init values, a tuple of N results; an
argmax or argmin reduces (value, index) pairs) and a reduce whose computation is not one named
binary op cannot be lowered by the loop builder (:mod:`workbench.codegen.lower`: its values are
scalars, its reductions one accumulator of a named reducer). Before this kernel such a group ran
through the numpy reference: the corpus's ``argmax_accuracy`` (an argmax of [16, 10]) was 4.7x
``jax.jit`` at its minimum. Here the group becomes one kernel with the backend's calling
convention (one ``int64``: the address of its pointer table, :mod:`workbench.codegen.native`),
so the plan's driver calls it natively like any other kernel.

The group may hold, besides its reduces, the producers XLA fuses into a reduction's input
fusion: ``iota``, ``broadcast``, ``copy`` and elementwise ops of the backend's emitter table
(:data:`~workbench.codegen.emitters.CPU_TABLE`). Every reduce of the group reduces operands of
one shape over the same dimensions (a multi-output sibling fusion, e.g. an argmax beside the
row's max); their outputs are the group's outputs. For each output element (row-major over
the kept dimensions) every reduce starts from its init values and folds its operands' elements
in row-major order of the reduced dimensions: ``acc = computation(acc_0..acc_N-1, x_0..x_N-1)``
(XLA's parameter order, accumulators first), the sequential order of XLA:CPU's reduction loop.
The reference interpreter folds a pairwise tree; for a comparator-style computation (argmax:
larger value wins, NaN wins, on a tie the lower index wins) both give the same result, for a
float sum they may differ by rounding (checked against the reference with the dtype's
tolerance). The computation becomes a numba function through
:func:`~workbench.codegen.cpu_sort.scalar_function_lines`; only names this module makes and
numbers it formats reach the source.

What is compiled (anything else raises :class:`~workbench.codegen.lower_base.Unsupported` and
the group runs through the numpy reference, with the reason): values of ``pred``, integer,
``f32`` and ``f64`` dtypes (:data:`~workbench.codegen.cpu_sort.SORT_DTYPES`); a group whose
outputs are its reduces and whose reduces feed no other member. Output rows run serially.
"""

from __future__ import annotations

import math

from workbench.codegen.cpu_scatter import _strides
from workbench.codegen.cpu_sort import SORT_DTYPES, scalar_function_lines
from workbench.codegen.emitters import CPU_TABLE, NUMBA_TYPES, NUMPY_TYPES, EmitContext, render_let
from workbench.codegen.lower_base import Unsupported
from workbench.codegen.source import Writer, native_module_header
from workbench.ir.ops import get_op
from workbench.ir.ops.base import Category
from workbench.ir.types import TupleType

#: producers a reduce's input fusion may hold, besides elementwise ops
_INDEX_OPS = frozenset({"iota", "broadcast", "copy"})


def is_computation_reduce_group(xgraph, members) -> bool:
    """True if the group holds a ``reduce`` with a ``computation=`` (what
    :func:`render_reduce_group` compiles; the loop builder refuses it)."""
    return any(xgraph.node(m).op == "reduce" and xgraph.node(m).attrs.get("reducer") is None
               for m in members)


def _results(node):
    """The node's result types: one per tuple element, or the one tensor."""
    return list(node.type.elements) if isinstance(node.type, TupleType) else [node.type]


class _Values:
    """Scalar lines computing group members' values at coordinate texts (memoised)."""

    def __init__(self, xgraph, members, inputs, cx, nid):
        self.g, self.members, self.inputs, self.cx, self.nid = xgraph, members, inputs, cx, nid
        self.lines: list[str] = []
        self.memo: dict = {}
        self.count = 0

    def value(self, vid: str, coords: tuple) -> str:
        key = (vid, coords)
        if key in self.memo:
            return self.memo[key]
        node = self.g.node(vid)
        t = node.type
        if vid not in self.members:
            k = self.inputs.index(vid)
            addr = " + ".join(f"{c} * {s}" for c, s in zip(coords, _strides(t.shape))) or "0"
            text = f"in{k}[{addr}]"
        elif node.op == "iota":
            text = f"{NUMBA_TYPES[t.dtype]}({coords[node.attrs['iota_dimension']]})"
        elif node.op == "broadcast":
            dims = node.attrs["dimensions"]
            text = self.value(node.operands[0], tuple(coords[d] for d in dims))
        elif node.op == "copy":
            text = self.value(node.operands[0], coords)
        else:
            args = [self.value(o, coords) for o in node.operands]
            attrs = dict(node.attrs)
            if node.op == "convert":
                attrs["in"] = self.g.node(node.operands[0]).type.dtype
            text = render_let(CPU_TABLE, node.op, args, t.dtype, attrs, self.cx)
        if vid in self.members:
            name = f"t{self.count}"
            self.count += 1
            self.lines.append(f"{name} = {text}")
            text = name
        self.memo[key] = text
        return text


def _check(xgraph, members, outputs, nid):
    """The group's reduces, their operand shape and reduced dimensions; Unsupported if the
    group is not one this kernel computes."""
    reduces = [m for m in members if xgraph.node(m).op == "reduce"]
    shapes = {xgraph.node(xgraph.node(m).operands[0]).type.shape for m in reduces}
    dimsets = {tuple(sorted(xgraph.node(m).attrs["dimensions"])) for m in reduces}
    if len(shapes) != 1 or len(dimsets) != 1:
        raise Unsupported("a group of reduces over different shapes or dimensions with a "
                          "computation= runs through the numpy reference", nid)
    for m in members:
        node = xgraph.node(m)
        for t in _results(node) + [xgraph.node(o).type for o in node.operands]:
            if isinstance(t, TupleType) or t.dtype not in SORT_DTYPES:
                raise Unsupported(f"a reduce group with {t} ({node.op} {m}) runs through the "
                                  "numpy reference (the cpu reduce kernel takes pred, integer, "
                                  "f32 and f64)", m)
        if any(o in reduces for o in node.operands):
            raise Unsupported(f"{node.op} {m} reads a reduce of its group: not compiled by the "
                              "cpu reduce kernel", m)
        if node.op == "reduce":
            continue
        if node.op not in _INDEX_OPS and (get_op(node.op).category != Category.ELEMENTWISE
                                          or node.op not in CPU_TABLE):
            raise Unsupported(f"a reduce group holding {node.op} runs through the numpy "
                              "reference (the cpu reduce kernel takes iota, broadcast, copy "
                              "and elementwise producers)", m)
        if node.op == "compare" and node.attrs.get("compare_type") == "TOTALORDER":
            raise Unsupported("a TOTALORDER compare feeding a reduce: not compiled", m)
    if set(outputs) - set(reduces):
        raise Unsupported("a reduce group whose outputs are not its reduces runs through the "
                          "numpy reference", nid)
    return reduces, shapes.pop(), dimsets.pop()


def _combine_lines(node, cx):
    """The body of ``combine(a0.., b0..)``: the reduce's computation or named reducer."""
    n = len(node.operands) // 2
    r = node.attrs.get("reducer")
    if r is not None:
        if r not in CPU_TABLE:
            raise Unsupported(f"reducer {r}: not compiled", node.id)
        return [f"return {render_let(CPU_TABLE, r, ['a0', 'b0'], node.type.dtype, {}, cx)}"]
    comp = node.attrs["computation"]
    names = {p.id: (f"a{p.attrs['index']}" if p.attrs["index"] < n
                    else f"b{p.attrs['index'] - n}") for p in comp.parameters}
    return scalar_function_lines(comp, cx, node.id, names, "the reduce's computation")


def render_reduce_group(xgraph, members, outputs):
    """Numba CPU source of a kernel computing a group that holds a reduce with a computation=.

    Parameters
    ----------
    xgraph : Graph
        The composite-expanded graph.
    members : sequence of str
        The group's nodes in ``xgraph`` (topological order): reduces of operands of one shape
        over the same dimensions, and iota, broadcast, copy or elementwise producers.
    outputs : sequence of str
        The group's outputs: its reduces.

    Returns
    -------
    (source, inputs, outputs, args) : (str, tuple of str, tuple of str, tuple)
        The module text; the kernel's input values (the members' operands from outside the
        group, in order of first use) and output values; (dtype, elements) of each array of
        its pointer table (the inputs, then each output's results: N arrays for a variadic
        reduce, shape the operands' shape without the reduced dimensions).

    Raises
    ------
    Unsupported
        For a group, dtype or op this kernel does not compute (the reason says which).
    """
    members = tuple(members)
    nid = members[0]
    reduces, shape, dims = _check(xgraph, members, outputs, nid)
    kept = [d for d in range(len(shape)) if d not in dims]
    n_out = math.prod(shape[d] for d in kept)
    n_red = math.prod(shape[d] for d in dims)
    inputs = []
    for m in members:
        for o in xgraph.node(m).operands:
            if o not in members and o not in inputs:
                inputs.append(o)
    cx = EmitContext("cpu", None)
    combines = {m: _combine_lines(xgraph.node(m), cx) for m in reduces}
    outs = [o for o in members if o in outputs]
    args = [(xgraph.node(i).type.dtype, xgraph.node(i).type.size) for i in inputs]
    for o in outs:
        args += [(t.dtype, t.size) for t in _results(xgraph.node(o))]
    args = tuple(args)
    w = Writer()
    native_module_header(w, "workbench.codegen.cpu_reduce",
                         f"{len(reduces)} reduce(s) of {shape} over dimensions {list(dims)}", cx)
    w.line(f"ARGS = {args!r}  # (dtype, elements) of each array in the table")
    for j, m in enumerate(reduces):
        w.line("")
        w.line("")
        n = len(xgraph.node(m).operands) // 2
        params = [f"a{k}" for k in range(n)] + [f"b{k}" for k in range(n)]
        w.line("@njit(cache=True, error_model='numpy')")
        w.line(f"def combine{j}({', '.join(params)}):")
        w.line("    # the reduce's computation: accumulators a, then the element's values b")
        for ln in combines[m]:
            w.line("    " + ln)
    w.line("")
    w.line("")
    w.line("@njit(SIGNATURE, cache=True, error_model='numpy', boundscheck=False, nogil=True)")
    w.line("def kernel(p_table):")
    w.line(f"    p_ptrs = carray(as_voidptr(p_table), {len(args)}, np.int64)")
    slot = 0
    for k, _ in enumerate(inputs):
        dt, size = args[slot]
        w.line(f"    in{k} = carray(as_voidptr(p_ptrs[{slot}]), {size}, {NUMPY_TYPES[dt]})")
        slot += 1
    out_names = {}
    for o in outs:
        names = []
        for _ in _results(xgraph.node(o)):
            dt, size = args[slot]
            w.line(f"    out{slot} = carray(as_voidptr(p_ptrs[{slot}]), {size}, "
                   f"{NUMPY_TYPES[dt]})")
            names.append(f"out{slot}")
            slot += 1
        out_names[o] = names
    w.line(f"    for o in range({n_out}):  # the output elements, row-major")
    kstr = _strides([shape[d] for d in kept])
    coords = [None] * len(shape)
    for j, d in enumerate(kept):
        w.line(f"        k{j} = (o // {kstr[j]}) % {shape[d]}")
        coords[d] = f"k{j}"
    init_vals = _Values(xgraph, set(members), inputs, cx, nid)
    accs = {}
    for j, m in enumerate(reduces):
        node = xgraph.node(m)
        n = len(node.operands) // 2
        accs[m] = [f"acc{j}_{k}" for k in range(n)]
        for k in range(n):
            v = init_vals.value(node.operands[n + k], ())
            init_vals.lines.append(f"{accs[m][k]} = "
                                   f"{NUMBA_TYPES[_results(node)[k].dtype]}({v})")
    for ln in init_vals.lines:
        w.line("        " + ln)
    w.line(f"        for r in range({n_red}):  # the reduced elements, row-major")
    rstr = _strides([shape[d] for d in dims])
    for j, d in enumerate(dims):
        w.line(f"            q{j} = (r // {rstr[j]}) % {shape[d]}")
        coords[d] = f"q{j}"
    vals = _Values(xgraph, set(members), inputs, cx, nid)
    calls = []
    for j, m in enumerate(reduces):
        node = xgraph.node(m)
        n = len(node.operands) // 2
        xs = [vals.value(node.operands[k], tuple(coords)) for k in range(n)]
        calls.append(f"{', '.join(accs[m])} = "
                     f"combine{j}({', '.join(accs[m] + xs)})")
        for k in range(n):
            calls.append(f"{accs[m][k]} = {NUMBA_TYPES[_results(node)[k].dtype]}"
                         f"({accs[m][k]})")
    for ln in vals.lines + calls:
        w.line("            " + ln)
    for m in outs:
        for name, acc in zip(out_names[m], accs[m]):
            w.line(f"        {name}[o] = {acc}")
    return w.text(), tuple(inputs), tuple(outs), args


__all__ = ["is_computation_reduce_group", "render_reduce_group"]

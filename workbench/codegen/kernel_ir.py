"""The kernel IR: one fusion group as loop nests over index spaces, shared by every backend.

The model is XLA's loop emitter (xla/service/llvm_ir/loop_emitter.h and the elemental IR
emitter): a kernel computes its outputs by iterating over an *index space* (the shape of its
root output) and evaluating the fused expression DAG at each index; every member op is an
expression of the output index (a broadcast maps the index through its dimension map, a
transpose permutes it, a reshape goes through the linear index, a slice adds an offset), and a
reduction opens an inner loop. Values are SSA temporaries; each statement is *placed* in the
outermost loop that defines every index variable it uses (loop-invariant code motion done by the
generator), so a row-wise reduction lands once per row, before the loop over the row's elements.

The IR is backend-neutral. Backends (:mod:`workbench.codegen.cpu`, :mod:`workbench.codegen.cuda`)
render it to numba source with their own emitter tables keyed by op. Every name in the IR is
made by the generator (``i0``, ``t12``, ``in3``); node ids from the input never appear.

Statements
----------
``IndexLet``  an integer index temporary that is not affine (``floordiv``, ``mod``, ``clamp``).
``Load``      a scalar read from a flat buffer at an affine address.
``Let``       a scalar computed by one op from operands (temporaries, literals, index values).
``Reduce``    an accumulator over an inner loop space (reductions, inline dot/convolution).
``Store``     a scalar written to a flat buffer at an affine address.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

# ----- operands -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ix:
    """An affine integer index expression ``const + sum(coef * var)``.

    Parameters
    ----------
    const : int
    terms : tuple of (str, int)
        (variable name, coefficient) pairs, sorted by name, no zero coefficients.
    """

    const: int = 0
    terms: tuple[tuple[str, int], ...] = ()

    @staticmethod
    def var(name: str) -> "Ix":
        """The index variable ``name``."""
        return Ix(0, ((name, 1),))

    @staticmethod
    def of(value: int) -> "Ix":
        """The constant ``value``."""
        return Ix(int(value), ())

    def __add__(self, other) -> "Ix":
        if isinstance(other, int):
            return Ix(self.const + other, self.terms)
        coefs = dict(self.terms)
        for v, c in other.terms:
            coefs[v] = coefs.get(v, 0) + c
        return Ix(self.const + other.const,
                  tuple(sorted((v, c) for v, c in coefs.items() if c)))

    def __mul__(self, k: int) -> "Ix":
        k = int(k)
        if k == 0:
            return Ix()
        return Ix(self.const * k, tuple((v, c * k) for v, c in self.terms))

    def __sub__(self, other) -> "Ix":
        return self + (-other if isinstance(other, int) else other * -1)

    @property
    def is_const(self) -> bool:
        return not self.terms

    @property
    def vars(self) -> tuple[str, ...]:
        return tuple(v for v, _ in self.terms)

    def text(self) -> str:
        """Python source of the expression (the same in every backend)."""
        parts = []
        for v, c in self.terms:
            t = v if c == 1 else (f"-{v}" if c == -1 else f"{v} * {c}")
            parts.append(t)
        if self.const or not parts:
            parts.append(str(self.const))
        out = parts[0]
        for p in parts[1:]:
            out += f" - {p[1:]}" if p.startswith("-") else f" + {p}"
        return out

    def __str__(self) -> str:
        return self.text()


@dataclass(frozen=True)
class Ref:
    """A scalar temporary (``Let``, ``Load`` or ``Reduce`` result) of a dtype."""

    name: str
    dtype: str


@dataclass(frozen=True)
class Lit:
    """A literal: a module-level constant made from a validated number.

    Parameters
    ----------
    name : str
        Generated name of the module constant (``K0``).
    dtype : str
        XLA dtype name.
    value : bool, int or float
        The validated value (float may be inf or nan).
    """

    name: str
    dtype: str
    value: object


Operand = Ref | Lit | Ix


# ----- statements -----------------------------------------------------------------------------


@dataclass
class IndexLet:
    """``name = op(args)`` on integers: ``floordiv``/``mod`` (a, k), ``clamp`` (a, lo, hi),
    ``from_value`` (ref, lo, hi): an integer value computed by the kernel (a gather's or
    dynamic slice's start index, loaded from its indices), clamped to ``[lo, hi]``."""

    name: str
    op: str
    args: tuple


@dataclass
class Load:
    """``name = buffer[addr]``."""

    name: str
    dtype: str
    buffer: str
    addr: Ix


@dataclass
class Let:
    """``name = op(args)`` for one op, emitted by the backend's table.

    ``attrs`` holds what the emitter needs (``direction``, ``in_dtype``); ``node`` is the graph
    node it comes from, for error messages only (never emitted).
    """

    name: str
    dtype: str
    op: str
    args: tuple
    attrs: dict = field(default_factory=dict)
    node: str | None = None


@dataclass
class Reduce:
    """An accumulator over an inner loop space.

    ``name = init``; for each point of ``loops`` (``(var, extent)`` pairs, outermost first):
    run ``body``, then ``name = reducer(name, value)``. ``contiguous`` marks a reduction whose
    innermost loop walks the operand's last (contiguous) dimension: a row-wise reduction, which
    the CUDA backend does cooperatively with one thread block.
    """

    name: str
    dtype: str
    reducer: str
    init: Operand
    loops: tuple[tuple[str, int], ...]
    body: list
    value: Operand | None = None
    contiguous: bool = False
    node: str | None = None


@dataclass
class Store:
    """``buffer[addr] = value``."""

    buffer: str
    addr: Ix
    value: Operand


# ----- containers -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Buffer:
    """A kernel argument or scratch array, always flat (1-D, row-major contiguous).

    Parameters
    ----------
    name : str
        Generated name (``in0``, ``out1``, ``s0``).
    shape : tuple of int
        The logical shape of the value it holds.
    dtype : str
    role : str
        ``"in"``, ``"out"`` or ``"scratch"``.
    value : str
        The graph node whose value it holds (host-side bookkeeping; never emitted).
    """

    name: str
    shape: tuple[int, ...]
    dtype: str
    role: str
    value: str

    @property
    def size(self) -> int:
        return math.prod(self.shape)


@dataclass
class Contraction:
    """The dot or convolution that a nest computes block-wise (its *output fusion* root).

    The nest's index space is the contraction's output shape; its value at the nest's own
    index is the statement ``Let(op="contraction")``. Dimensions of the index space split into
    ``batch`` (dot batch dims), ``rows`` (lhs free dims; for a convolution every output dim but
    the feature dim) and ``cols`` (rhs free dims; the output feature dim).

    Parameters
    ----------
    kind : str
        ``"dot"`` or ``"conv"``.
    lhs, rhs : Buffer
        The operands, read from memory (a reshape of a buffer keeps its buffer: ``lhs_shape``).
    lhs_shape, rhs_shape : tuple of int
        The operands' logical shapes.
    batch, rows, cols : tuple of int
        Dimensions of the output index space.
    B, M, N, K : int
        Batch count, rows, columns, contraction length (for a convolution K is
        kernel-window size x input features per group).
    attrs : dict
        ``dot``: ``lhs_perm`` / ``rhs_perm`` (operand dims ordered batch, free, contracting) and
        the dims; ``conv``: the geometry from :func:`workbench.ir.ops.contraction.conv_geometry`.
    node : str
        The graph node (never emitted).
    """

    kind: str
    lhs: Buffer
    rhs: Buffer
    lhs_shape: tuple[int, ...]
    rhs_shape: tuple[int, ...]
    batch: tuple[int, ...]
    rows: tuple[int, ...]
    cols: tuple[int, ...]
    B: int
    M: int
    N: int
    K: int
    attrs: dict
    node: str


@dataclass
class Nest:
    """One loop nest over an index space.

    Parameters
    ----------
    shape : tuple of int
        The index space.
    vars : tuple of (str or None)
        The index variable of each dimension (None for a dimension of size 1: index 0).
    levels : list of list
        ``levels[d]`` holds the statements placed inside the loops over dimensions
        ``0..d-1`` and before the loop over dimension ``d`` (``levels[0]``: before any loop).
    contraction : Contraction or None
        Set when the nest computes a dot/convolution block-wise with its epilogue.
    target : str or None
        For a scratch nest: the member it materialises (host bookkeeping).
    rows : list of (Buffer, int)
        Row caches (CPU; see :mod:`workbench.codegen.lower`): a buffer of one row of the
        nest's last dimension, and the nest level of the reduction that fills it (0: before
        every loop, so one buffer per kernel; else inside the outermost loop, one per
        iteration of a parallel loop).
    """

    shape: tuple[int, ...]
    vars: tuple
    levels: list
    contraction: Contraction | None = None
    target: str | None = None
    rows: list = field(default_factory=list)

    @property
    def rank(self) -> int:
        return len(self.shape)


@dataclass
class KernelIR:
    """A fusion group lowered to loop nests: the unit a backend renders into one kernel.

    Parameters
    ----------
    inputs, outputs, scratch : list of Buffer
        Kernel arguments (inputs, then outputs) and scratch arrays local to the kernel (CPU).
    consts : list of Lit
        Literals, emitted as module constants.
    nests : list of Nest
        In execution order (scratch nests first).
    ops : tuple of str
        Registry names of the member ops, in order (for reports).
    """

    inputs: list
    outputs: list
    scratch: list
    consts: list
    nests: list
    ops: tuple = ()

    def text(self) -> str:
        """A readable listing of the kernel IR (what the app shows beside the source)."""
        lines = []
        for b in self.inputs + self.outputs + self.scratch:
            lines.append(f"{b.role} {b.name}: {b.dtype}[{','.join(map(str, b.shape))}]")
        for c in self.consts:
            lines.append(f"const {c.name}: {c.dtype} = {c.value!r}")
        for k, nest in enumerate(self.nests):
            head = f"nest {k} over [{','.join(map(str, nest.shape))}]"
            if nest.contraction is not None:
                head += f" ({nest.contraction.kind} block-wise, M={nest.contraction.M} " \
                        f"N={nest.contraction.N} K={nest.contraction.K})"
            lines.append(head)
            for b, level in nest.rows:
                lines.append(f"  row cache {b.name}: {b.dtype}[{b.shape[0]}] (filled at level "
                             f"{level})")
            for d, stmts in enumerate(nest.levels):
                if d > 0 and nest.vars[d - 1] is not None:
                    lines.append("  " * d + f"for {nest.vars[d - 1]} in 0..{nest.shape[d - 1]}:")
                for s in stmts:
                    lines.extend(_stmt_text(s, d + 1))
        return "\n".join(lines)


def nest_work(nest: Nest) -> int:
    """Statement executions of one run of the nest (inner loops of reductions included)."""
    def work(stmts, mult):
        total = 0
        for s in stmts:
            total += mult
            if isinstance(s, Reduce):
                inner = mult
                for _, n in s.loops:
                    inner *= n
                total += work(s.body, inner) + inner
        return total

    total, mult = 0, 1
    for d, stmts in enumerate(nest.levels):
        total += work(stmts, mult)
        if d < nest.rank:
            mult *= nest.shape[d]
    return total


def operand_text(a) -> str:
    """Short text of an operand for listings."""
    if isinstance(a, Ref):
        return a.name
    if isinstance(a, Lit):
        return a.name
    if isinstance(a, Ix):
        return f"[{a.text()}]"
    return repr(a)


def _stmt_text(s, depth: int) -> list[str]:
    pad = "  " * depth
    if isinstance(s, IndexLet):
        return [f"{pad}{s.name} = {s.op}({', '.join(operand_text(a) for a in s.args)})"]
    if isinstance(s, Load):
        return [f"{pad}{s.name}: {s.dtype} = {s.buffer}[{s.addr.text()}]"]
    if isinstance(s, Let):
        return [f"{pad}{s.name}: {s.dtype} = {s.op}({', '.join(operand_text(a) for a in s.args)})"]
    if isinstance(s, Store):
        return [f"{pad}{s.buffer}[{s.addr.text()}] = {operand_text(s.value)}"]
    if isinstance(s, Reduce):
        loops = ", ".join(f"{v} in 0..{n}" for v, n in s.loops)
        out = [f"{pad}{s.name}: {s.dtype} = reduce-{s.reducer} from {operand_text(s.init)} "
               f"over {loops or '()'}:"]
        for b in s.body:
            out.extend(_stmt_text(b, depth + 1))
        out.append(f"{pad}  -> {operand_text(s.value)}")
        return out
    return [f"{pad}{s!r}"]

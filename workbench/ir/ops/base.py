"""The op registry's record, :class:`OpDef`, and the registry itself.

Every fact about an op lives once, in its OpDef: its category, arity, shape and dtype rule, the
FLOPs, transcendentals and bytes it costs, its numpy reference implementation, and, for the
workbench's composite ops, its expansion into primitive HLO ops. Backends keep their own emitter
tables keyed by op name.

Counting conventions follow XLA's HloCostAnalysis (xla/service/hlo_cost_analysis.cc): an
elementwise op costs one FLOP per output element, except transcendental ops (exp, log, tanh,
logistic, power, sqrt, rsqrt, cbrt, sin, cos, tan, erf, atan2, expm1, log1p), which cost one
*transcendental* per element and no FLOPs; a reduction costs one FLOP per input element; a dot
costs 2*M*N*K FLOPs (a multiply and an add per term); bytes read are the operands' sizes and
bytes written the result's size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.errors import UnknownOpError
from workbench.ir.attrs import Attrs
from workbench.ir.types import TensorType, Type


class Category:
    """Op categories (strings), in the terms XLA's fusion passes use."""

    PARAMETER = "parameter"          #: a graph input
    CONSTANT = "constant"            #: a literal
    ELEMENTWISE = "elementwise"      #: out[i] = f(in0[i], in1[i], ...)
    BROADCAST = "broadcast"          #: replicates its operand along new dimensions
    INJECTIVE = "injective"          #: data movement: reshape, transpose, slice, concatenate ...
    REDUCTION = "reduction"          #: reduce, reduce-window
    CONTRACTION = "contraction"      #: dot / matmul
    CONVOLUTION = "convolution"      #: convolution / conv2d
    NORMALIZATION = "normalization"  #: composites with a reduction inside (softmax, layer norm)
    SCATTER = "scatter"              #: scatter, select-and-scatter: a kernel of their own
    SORT = "sort"                    #: sort, top-k: a kernel of their own
    CONTROL = "control"              #: while, conditional, map: run nested computations
    RANDOM = "random"                #: rng-bit-generator: random bits and the next state
    OPAQUE = "opaque"                #: anything the workbench cannot look inside

    ALL = (PARAMETER, CONSTANT, ELEMENTWISE, BROADCAST, INJECTIVE, REDUCTION, CONTRACTION,
           CONVOLUTION, NORMALIZATION, SCATTER, SORT, CONTROL, RANDOM, OPAQUE)

    #: categories the planner never fuses with anything (each op is a kernel of its own, as
    #: XLA:CPU leaves them: its fusion passes do not fuse scatter, sort, while or conditional)
    UNFUSIBLE = frozenset({SCATTER, SORT, CONTROL, RANDOM, OPAQUE})


InferFn = Callable[[Sequence[Type], Attrs, "Type | None"], Type]
RefFn = Callable[[list, Attrs, Type], object]
CountFn = Callable[[Sequence[Type], Type, Attrs], int]


@dataclass(frozen=True)
class OpDef:
    """Everything the workbench knows about one op.

    Parameters
    ----------
    name : str
        The op's name: the HLO opcode for primitives (``"add"``, ``"reduce-window"``), or the
        workbench's name for composites (``"layer_norm"``).
    category : str
        One of :class:`Category`.
    arity : (int, int or None)
        Minimum and maximum number of operands (``None``: any number).
    infer : callable(operand_types, attrs, declared) -> Type
        The shape and dtype rule. ``declared`` is the node's declared type (or ``None``); only
        ops whose type cannot be inferred (parameter, constant, opaque) use it. Raises
        :class:`~workbench.errors.ShapeError` or
        :class:`~workbench.errors.AttributeError_` with a message (the verifier adds the node).
    reference : callable(operands, attrs, out_type) -> numpy.ndarray, optional
        The numpy reference implementation; ``None`` when the op cannot be evaluated.
    flops_per_element : float
        FLOPs per output element for elementwise-like ops (see the module notes).
    transcendental : bool
        True if each output element costs one transcendental instead of a FLOP.
    flops_fn, transcendentals_fn : callable(operand_types, out_type, attrs) -> int, optional
        Overrides of the per-element counts (reductions, dot, convolution, composites).
    bytes_read_fn, bytes_written_fn : callable(operand_types, out_type, attrs) -> int, optional
        Overrides of the bytes an op moves when it runs alone (a gather reads the elements it
        returns, not its whole operand; a dynamic-update-slice writes only its update).
    expand : callable(builder, operands, attrs, out_type) -> str, optional
        For composites: emits the op as primitive HLO ops through a
        :class:`workbench.ir.builder.GraphBuilder` and returns the id of the result.
    composite : bool
        True for the workbench's composite ops (they have an ``expand``).
    doc : str
        One sentence for the op's tooltip.
    attributes : tuple of str, or None
        The attribute names the op accepts (the verifier refuses others); None: any.
    free_fn : callable(attrs, operand_types, out_type) -> bool, optional
        True when the op, standing alone, moves no data: its result is its operand's buffer
        read another way (a bitcast that keeps the layout, a get-tuple-element). Back ends
        alias it instead of launching a kernel; the cost model charges nothing for it.
    never_fused : bool
        True for structural ops the planner keeps out of fusions (get-tuple-element, tuple):
        they only name a part of a multi-output op's result.
    """

    name: str
    category: str
    arity: tuple[int, int | None]
    infer: InferFn
    reference: RefFn | None = None
    flops_per_element: float = 0.0
    transcendental: bool = False
    flops_fn: CountFn | None = None
    transcendentals_fn: CountFn | None = None
    bytes_read_fn: CountFn | None = None
    bytes_written_fn: CountFn | None = None
    expand: Callable | None = None
    composite: bool = False
    doc: str = ""
    attributes: tuple[str, ...] | None = ()
    free_fn: Callable | None = None
    never_fused: bool = False

    # ----- cost counts -----------------------------------------------------------------------

    def flops(self, operand_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
        """FLOPs to compute the op once (floating-point or integer operations; see module notes)."""
        if self.flops_fn is not None:
            return int(self.flops_fn(operand_types, out_type, attrs))
        if self.transcendental:
            return 0
        return int(round(self.flops_per_element * _size(out_type)))

    def transcendentals(self, operand_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
        """Transcendental function evaluations to compute the op once."""
        if self.transcendentals_fn is not None:
            return int(self.transcendentals_fn(operand_types, out_type, attrs))
        return _size(out_type) if self.transcendental else 0

    def bytes_read(self, operand_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
        """Bytes read when the op runs as its own kernel: each distinct operand's size once.

        A broadcast reads its operand's own size, not the broadcast size.
        """
        if self.bytes_read_fn is not None:
            return int(self.bytes_read_fn(operand_types, out_type, attrs))
        return sum(t.nbytes for t in operand_types)

    def bytes_written(self, operand_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
        """Bytes written when the op runs as its own kernel: the size of its result."""
        if self.bytes_written_fn is not None:
            return int(self.bytes_written_fn(operand_types, out_type, attrs))
        return out_type.nbytes

    @property
    def fusible(self) -> bool:
        """False for the ops the planner never fuses (:data:`Category.UNFUSIBLE`, and the
        structural ops marked ``never_fused``)."""
        return self.category not in Category.UNFUSIBLE and not self.never_fused

    def is_free(self, operand_types: Sequence[Type], out_type: Type, attrs: Attrs) -> bool:
        """True when the op alone moves no data (see ``free_fn``)."""
        return bool(self.free_fn is not None and self.free_fn(attrs, operand_types, out_type))


def _size(t: Type) -> int:
    return t.size


REGISTRY: dict[str, OpDef] = {}


def register(opdef: OpDef) -> OpDef:
    """Add an op to the registry (each name once)."""
    if opdef.name in REGISTRY:
        raise ValueError(f"op {opdef.name!r} registered twice")
    REGISTRY[opdef.name] = opdef
    return opdef


def get_op(name: str) -> OpDef:
    """The OpDef of ``name``.

    Raises
    ------
    UnknownOpError
        If no op has this name; the message lists near names.
    """
    try:
        return REGISTRY[name]
    except KeyError:
        import difflib

        near = [n for n in sorted(REGISTRY) if n.startswith(str(name))][:3]
        near += [n for n in difflib.get_close_matches(str(name), REGISTRY, n=3) if n not in near]
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise UnknownOpError(f"unknown op {name!r}{hint}") from None


def narrow_float(dtype) -> bool:
    """True for a numpy dtype narrower than f32 that XLA:CPU computes in f32 and rounds
    (float16, ml_dtypes' bfloat16 and float8 types)."""
    dtype = np.dtype(dtype)
    return dtype.itemsize < 4 and (dtype.kind == "f" or dtype.name.startswith(("bfloat",
                                                                             "float")))


def float_like(dtype) -> bool:
    """True for float numpy dtypes, ml_dtypes' (bfloat16, float8 ...) included."""
    dtype = np.dtype(dtype)
    return dtype.kind == "f" or dtype.name.startswith(("bfloat", "float"))


def np_out(value, out_type: Type):
    """Cast a reference result to the declared dtype and check its shape (internal helper)."""
    arr = np.asarray(value)
    if isinstance(out_type, TensorType):
        arr = arr.astype(out_type.np_dtype, copy=False)
        if arr.shape != out_type.shape:
            if arr.size != 1:
                from workbench.errors import EvaluationError

                raise EvaluationError(f"reference produced shape {arr.shape}, expected "
                                      f"{out_type.shape}")
            arr = np.broadcast_to(arr.reshape(()), out_type.shape).copy()
    return arr

"""Correctness: compare a compiled plan's outputs with the reference interpreter's.

The tolerance rule (per output, elementwise)::

    |got - ref| <= atol + rtol * |ref|,     atol = atol_scale * max|ref|   (finite elements)

with ``(rtol, atol_scale)`` = ``(1e-4, 1e-5)`` for f32, ``(1e-9, 1e-12)`` for f64, and
``(4 eps, 2 eps)`` of the dtype for bf16, f16 and the f8 types (:mod:`workbench.ir.tolerance`);
integers and pred must be equal. An output computed through a narrower float than its own dtype
(an f32 result of bf16 layers) is held to that narrower dtype's tolerance
(:func:`~workbench.ir.tolerance.tolerance_dtype`). Narrow floats are compared in their own
dtype: ``got`` and ``ref`` are both values of it (bf16 arrays via ml_dtypes), never promoted to
an "exact" wider computation, so a kernel that skips a rounding cannot hide behind a float64
reference. The absolute part scales with the
output's magnitude because fused kernels sum in another order than numpy (blocked BLAS, SIMD
partial sums, a tree reduction on the GPU): the rounding error of a sum of n terms is about
``n * eps * max|term|`` in the worst case (Higham, *Accuracy and Stability of Numerical
Algorithms*, 2nd ed., section 4.2), which is bounded by the output's scale rather than by each
element's own size (an element near zero after cancellation can be far off relatively and
still be right). Non-finite values must match exactly: NaN where the reference has NaN, the same
infinity where it has one.

Ill-conditioned outputs. Some graphs amplify rounding: a softmax of scores in the thousands
turns a relative error of 1e-7 in a score into 1e-3 in a probability, and any two f32
computations (numpy's reference, XLA, a fused kernel) then differ by more than the rule above
allows although none is worse than another. When an *exact* value is given (the graph evaluated
in float64, :func:`reference_outputs`), the check is made against it instead::

    |got - exact| <= atol + rtol * |ref| + 2 * max|ref - exact|

that is: the kernel may be off by the dtype tolerance, or by twice the worst error of the f32
reference itself (the problem's conditioning, measured), whichever is larger. For
well-conditioned outputs ``max|ref - exact|`` is tiny and this is the rule above. Only f32
computations are widened this way; graphs with narrow floats keep them (see above).

Reported per output: ``max_abs_error`` (max |got - ref| over elements finite in both),
``max_rel_error`` (max |got - ref| / (|ref| + atol), finite, comparable to ``rtol``), and, when
the exact value is known, ``reference_error`` (max |ref - exact|, the f32 reference's own
error) and ``exact_error`` (max |got - exact|).

Non-finite values are counted apart, never folded into an error size: ``nan_count`` elements are
NaN where the reference is not, ``inf_count`` are infinite where the reference is not that
infinity, ``finite_count`` are finite where the reference is NaN or infinite, and
``first_nonfinite`` is the index (row-major, one integer per dimension) of the first of them.
``max_abs_error`` is taken over the elements finite in both, so an output whose only wrong
elements are NaN has ``max_abs_error`` 0 *and* a ``nan_count``: :meth:`OutputCheck.summary`
says both.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from workbench.ir.ops.base import float_like
from workbench.ir.tolerance import tolerance, tolerance_dtype

__all__ = ["OutputCheck", "compare", "check_outputs", "promote_to_f64", "reference_outputs",
           "tolerance", "tolerance_dtype"]


@dataclass(frozen=True)
class OutputCheck:
    """One output compared with the reference.

    Attributes
    ----------
    index : int
        Output position.
    node : str
        The graph node of the output.
    dtype : str
    shape : tuple of int
    max_abs_error, max_rel_error : float
        See the module notes.
    atol, rtol : float
        The tolerance used (atol in the output's units).
    mismatches : int
        Elements outside the tolerance (non-finite mismatches included).
    ok : bool
    """

    index: int
    node: str
    dtype: str
    shape: tuple
    max_abs_error: float
    max_rel_error: float
    atol: float
    rtol: float
    mismatches: int
    ok: bool
    reference_error: float | None = None
    exact_error: float | None = None
    nan_count: int = 0
    inf_count: int = 0
    finite_count: int = 0
    first_nonfinite: tuple | None = None

    def nonfinite_text(self) -> str:
        """The non-finite mismatches in words (``""`` when there are none): ``NaN in 4
        elements, first at [0], where the reference is finite``."""
        parts = [text for n, text in (
            (self.nan_count, "NaN"), (self.inf_count, "inf"),
            (self.finite_count, "a finite value")) if n]
        if not parts:
            return ""
        counts = [n for n in (self.nan_count, self.inf_count, self.finite_count) if n]
        what = " and ".join(f"{t} in {n} element{'s' if n != 1 else ''}"
                            for t, n in zip(parts, counts))
        where = ("" if self.first_nonfinite is None else
                 f", first at [{', '.join(str(i) for i in self.first_nonfinite)}]")
        return f"{what}{where}, where the reference " + (
            "is finite" if not self.finite_count else
            "has NaN or inf" if not (self.nan_count or self.inf_count) else "differs")

    def summary(self) -> str:
        """``max abs error 0.0013 ...`` and the non-finite mismatches, as one phrase."""
        text = (f"max abs error {self.max_abs_error:.3g}  max rel error "
                f"{self.max_rel_error:.3g}")
        nonfinite = self.nonfinite_text()
        if nonfinite:
            text = f"{nonfinite}; over the finite elements: {text}"
        return text

    def to_json(self) -> dict:
        d = asdict(self)
        d["shape"] = list(self.shape)
        d["first_nonfinite"] = (None if self.first_nonfinite is None
                                else list(self.first_nonfinite))
        for k in ("max_abs_error", "max_rel_error", "atol", "rtol", "reference_error",
                  "exact_error"):
            if d[k] is not None and not np.isfinite(d[k]):
                d[k] = str(d[k])
        return d


def compare(got, ref, dtype: str, index: int = 0, node: str = "", exact=None) -> OutputCheck:
    """Compare one output with its reference value (see the module notes for the rule).

    Parameters
    ----------
    got, ref : array_like
        The compiled result and the reference interpreter's, same shape.
    dtype : str
        The output's dtype (chooses the tolerance).
    index : int
    node : str
    exact : array_like, optional
        The output computed in float64 (for float outputs), to account for conditioning.
    """
    got, ref = np.asarray(got), np.asarray(ref)
    rtol, scale = tolerance(dtype)
    if got.shape != ref.shape:
        return OutputCheck(index, node, dtype, tuple(ref.shape), float("inf"), float("inf"),
                           0.0, rtol, int(ref.size), False)
    if not float_like(ref.dtype) and ref.dtype.kind != "c":
        bad = int(np.count_nonzero(got != ref))
        diff = np.abs(got.astype(np.float64) - ref.astype(np.float64))
        worst = float(diff.max()) if diff.size else 0.0
        return OutputCheck(index, node, dtype, tuple(ref.shape), worst, worst, 0.0, 0.0, bad,
                           bad == 0)
    g, r = got.astype(np.float64), ref.astype(np.float64)
    fin_r = np.isfinite(r)
    both = fin_r & np.isfinite(g)
    nonfinite = _nonfinite(g, r)
    nonfinite_bad = sum(nonfinite[:3])
    atol = scale * (float(np.abs(r[fin_r]).max()) if fin_r.any() else 0.0)
    diff = np.abs(g[both] - r[both])
    bound = atol + rtol * np.abs(r[both])
    ref_err = exact_err = None
    if exact is not None:
        x = np.asarray(exact, np.float64)[both]
        ref_err = float(np.abs(r[both] - x).max()) if diff.size else 0.0
        exact_err = float(np.abs(g[both] - x).max()) if diff.size else 0.0
        bad = int(np.count_nonzero(np.abs(g[both] - x) > bound + 2 * ref_err))
    else:
        bad = int(np.count_nonzero(diff > bound))
    bad += nonfinite_bad
    max_abs = float(diff.max()) if diff.size else 0.0
    denom = np.abs(r[both]) + (atol if atol > 0 else np.finfo(np.float64).tiny)
    max_rel = float((diff / denom).max()) if diff.size else 0.0
    return OutputCheck(index, node, dtype, tuple(ref.shape), max_abs, max_rel, atol, rtol, bad,
                       bad == 0, ref_err, exact_err, *nonfinite)


def _nonfinite(g: np.ndarray, r: np.ndarray):
    """(NaN where ``r`` is not NaN, inf where ``r`` is not that inf, finite where ``r`` is not,
    the index of the first of them or None) for float arrays of one shape."""
    nan = np.isnan(g) & ~np.isnan(r)
    inf = np.isinf(g) & (g != r)
    finite = np.isfinite(g) & ~np.isfinite(r)
    wrong = nan | inf | finite
    first = None
    if wrong.any():
        flat = int(np.flatnonzero(wrong.ravel())[0])
        first = tuple(int(i) for i in np.unravel_index(flat, wrong.shape)) if wrong.ndim \
            else ()
    return (int(np.count_nonzero(nan)), int(np.count_nonzero(inf)),
            int(np.count_nonzero(finite)), first)


def check_outputs(graph, got, ref, exact=None) -> list[OutputCheck]:
    """Compare every output of ``graph`` (``got``, ``ref``, ``exact`` in graph output order),
    each with the tolerance of :func:`~workbench.ir.tolerance.tolerance_dtype`."""
    exact = exact if exact is not None else [None] * len(graph.outputs)
    return [compare(g, r, tolerance_dtype(graph, o), i, o, x)
            for i, (o, g, r, x) in enumerate(zip(graph.outputs, got, ref, exact))]


def _has_narrow_floats(graph) -> bool:
    from workbench.ir.types import NARROW_FLOAT_DTYPES

    return any(d in NARROW_FLOAT_DTYPES for o in graph.outputs
               for d in [tolerance_dtype(graph, o)])


def promote_to_f64(graph):
    """The same graph computing in float64 wherever it computes in f32 (narrow floats, f16 and
    bf16, are left as they are: their rounding is part of what the graph computes).

    Graphs with nested computations, bitcasts between element types or bit-level ops are not
    promoted (their bits are part of the result): the graph is returned unchanged."""
    from workbench.ir.types import TensorType

    bitwise = {"bitcast-convert", "shift-left", "shift-right-logical",
               "shift-right-arithmetic", "popcnt", "clz", "rng-bit-generator",
               "reduce-precision"}
    if any(n.op in bitwise or (n.op == "bitcast" and "dtype" in n.attrs) or any(
            getattr(type(v), "__frozen_attr_value__", False) or (isinstance(v, tuple) and any(
                getattr(type(x), "__frozen_attr_value__", False) for x in v))
            for v in n.attrs.values()) for n in graph.nodes):
        return graph
    nodes = []
    for n in graph.nodes:
        t, a = n.type, n.attrs
        if isinstance(t, TensorType) and t.dtype == "f32":
            t = TensorType(t.shape, "f64")
        for key in ("dtype", "preferred_element_type"):
            if a.get(key) == "f32":
                a = a.set(**{key: "f64"})
        nodes.append(n.replace(type=t, attrs=a))
    return graph.replace(nodes=tuple(nodes))


def reference_outputs(graph, inputs, max_bytes=None):
    """(ref, exact): the reference interpreter's outputs, and the same graph in float64.

    ``exact`` is None when the graph has no f32 values to promote, or computes in a narrow
    float (bf16, f16), or at the bit level (see :func:`promote_to_f64`).

    Raises
    ------
    EvaluationError, ResourceLimitError
        From :func:`workbench.ir.evaluate`.
    """
    from workbench.ir import evaluate
    from workbench.ir.interpreter import _coerce_inputs

    kw = {} if max_bytes is None else {"max_bytes": max_bytes}
    ref = evaluate(graph, inputs, **kw)
    g64 = promote_to_f64(graph)
    if g64.fingerprint == graph.fingerprint or _has_narrow_floats(graph):
        return ref, None
    env = _coerce_inputs(graph, inputs)
    wide = [env[p.id].astype(np.float64) if env[p.id].dtype.kind == "f" else env[p.id]
            for p in graph.parameters]
    exact = evaluate(g64, wide, **kw)
    return ref, exact

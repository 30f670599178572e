"""How close two computations of a value must be: the tolerance by dtype.

The rule, per element (``ref`` the reference value, ``got`` the other)::

    |got - ref| <= atol + rtol * |ref|,     atol = atol_scale * max|ref|

with ``(rtol, atol_scale)``:

- f32: ``(1e-4, 1e-5)``; f64: ``(1e-9, 1e-12)`` (fixed, as before);
- narrow floats (bf16, f16, f8): ``(4 eps, 2 eps)`` of the dtype, eps its machine epsilon
  (:func:`workbench.ir.types.epsilon`: 2**-7 for bf16, 2**-10 for f16). Two computations that
  both round to the dtype after every op, in different orders or with excess precision (XLA:CPU
  keeps f32 between the ops of one fusion), differ by a few units in the last place; these
  bounds allow four (relative) or two of the output's scale (absolute), and no more. The values
  are compared as they are, in their own dtype, never widened into an "exact" reference;
- integers and pred: exact.

A value computed *through* a narrow float (an f32 output of a bf16 MLP, whose hidden layer was
rounded to bf16) carries that dtype's error: :func:`tolerance_dtype` is the narrowest float
among the value's node and everything it depends on, nested computations included, and the
tolerance is that dtype's.

Two figures say how close two computations came, in the rule's own terms
(:func:`error_figures`):

- the *norm-wise relative error* ``max|got - ref| / max|ref|`` (the infinity-norm relative
  error, Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., section 1.2): one
  number per output that cancellation in a few elements near zero cannot inflate;
- the *share of the tolerance used*, ``max |got - ref| / (atol + rtol * |ref|)``: at most 1
  when every element passes the rule, and the worst element's distance from failing.

An elementwise relative error ``|got - ref| / |ref|`` alone is not such a figure: an element
that came out of cancellation (a sum of terms of size 1 that is 1e-4) carries the rounding
error of its terms, ``cond * u`` with ``cond = sum|terms| / |sum|`` (u = 2**-24 for f32), and
two correct f32 computations summing in different orders differ there by 1e-4 or more.
"""

from __future__ import annotations

import numpy as np

from workbench.ir.types import FLOAT_DTYPES, NARROW_FLOAT_DTYPES, TensorType, epsilon

#: multiples of the dtype's epsilon for narrow floats: (rtol, atol as a fraction of max|ref|)
NARROW_EPS_MULTIPLES = (4.0, 2.0)

_FIXED = {"f32": (1e-4, 1e-5), "f64": (1e-9, 1e-12)}


def tolerance(dtype: str) -> tuple[float, float]:
    """``(rtol, atol_scale)`` for values of ``dtype`` (see the module notes); (0, 0) for exact
    dtypes."""
    if dtype in _FIXED:
        return _FIXED[dtype]
    if dtype in NARROW_FLOAT_DTYPES:
        eps = epsilon(dtype)
        return NARROW_EPS_MULTIPLES[0] * eps, NARROW_EPS_MULTIPLES[1] * eps
    return 0.0, 0.0


def _dtypes_of(graph, ids) -> set:
    out = set()
    for nid in ids:
        node = graph.node(nid)
        types = node.type.leaves() if not isinstance(node.type, TensorType) else (node.type,)
        out.update(t.dtype for t in types)
        for v in node.attrs.values():
            subs = v if isinstance(v, tuple) else (v,)
            for sub in subs:
                if getattr(type(sub), "__frozen_attr_value__", False):
                    out |= _dtypes_of(sub, [n.id for n in sub.nodes])
    return out


def tolerance_dtype(graph, node_id: str) -> str:
    """The dtype whose tolerance applies to ``node_id``'s value: its own, or the narrowest
    float (largest epsilon) it was computed through, when that is narrower."""
    own = graph.node(node_id).dtype
    if own not in FLOAT_DTYPES:
        return own
    floats = [d for d in _dtypes_of(graph, {node_id} | graph.ancestors(node_id))
              if d in FLOAT_DTYPES]
    return max(floats + [own], key=epsilon)


def error_figures(got, ref, dtype: str) -> tuple[float, float]:
    """How close ``got`` came to ``ref`` (see the module notes), over the elements finite in both.

    Parameters
    ----------
    got, ref : array_like
        Two computations of one value, same shape (any numeric dtype; compared in float64,
        after both were computed in their own dtype).
    dtype : str
        The dtype whose tolerance applies (:func:`tolerance_dtype`).

    Returns
    -------
    normwise : float
        ``max|got - ref| / max|ref|``; 0.0 when both are all zero, inf when only ``ref`` is.
    share : float
        ``max |got - ref| / (atol + rtol * |ref|)``, ``atol = atol_scale * max|ref|``; for
        exact dtypes (integers, pred) 0.0 when equal, inf otherwise.

    Raises
    ------
    ValueError
        If the shapes differ.
    """
    g = np.asarray(got).astype(np.float64)
    r = np.asarray(ref).astype(np.float64)
    if g.shape != r.shape:
        raise ValueError(f"shapes differ: {g.shape} and {r.shape}")
    both = np.isfinite(g) & np.isfinite(r)
    g, r = g[both], r[both]
    if not g.size:
        return 0.0, 0.0
    diff, top = np.abs(g - r), float(np.abs(r).max())
    worst = float(diff.max())
    normwise = worst / top if top > 0 else (0.0 if worst == 0 else float("inf"))
    rtol, scale = tolerance(dtype)
    bound = scale * top + rtol * np.abs(r)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(diff == 0, 0.0, diff / bound)
    return normwise, float(share.max())

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
"""

from __future__ import annotations

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

"""A constant's literal must fit its type: the values of a ``constant`` node, checked strictly.

Whatever the input format, a constant's ``value`` attribute holds Python numbers (or the strings
``"inf"``, ``"-inf"``, ``"nan"`` for non-finite floats). :func:`literal_array` turns them into
a flat array of the node's dtype, refusing what does not fit rather than converting it:

- ``pred``: ``true``/``false`` (or 0/1);
- integers (``s8`` ... ``u64``, ``s4`` ...): whole numbers (no floats, no bools) within the
  type's range (``numpy.iinfo``, ``ml_dtypes.iinfo``);
- floats: numbers whose magnitude fits the type (``numpy.finfo``/``ml_dtypes.finfo`` ``max``;
  a value that rounds to infinity is refused: infinity is written ``inf``), and the non-finite
  strings;
- complex: numbers (real parts) within the float range.

and a literal of more than ``max_constant_elements`` values
(:mod:`workbench.importers.limits` states it; the IR takes the number) is refused by the
importers before it gets here.
"""

from __future__ import annotations

import math

import numpy as np

from workbench.errors import AttributeError_

_NONFINITE = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "nan": math.nan,
              "-nan": math.nan, "+nan": math.nan}


def flatten(value) -> list:
    """The values of a (nested) literal in order, without recursion."""
    if not isinstance(value, (tuple, list)):
        return [value]
    out, stack = [], [iter(value)]
    while stack:
        for v in stack[-1]:
            if isinstance(v, (tuple, list)):
                stack.append(iter(v))
                break
            out.append(v)
        else:
            stack.pop()
    return out


def _int_range(dtype: np.dtype) -> tuple[int, int]:
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
    else:
        import ml_dtypes

        info = ml_dtypes.iinfo(dtype)
    return int(info.min), int(info.max)


def _float_max(dtype: np.dtype) -> float:
    if dtype.kind in "fc":
        return float(np.finfo(dtype).max)
    import ml_dtypes

    return float(ml_dtypes.finfo(dtype).max)


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def check_literal(flat: list, dtype_name: str, dtype: np.dtype) -> str | None:
    """Why the values ``flat`` do not fit ``dtype`` (a sentence), or None when they do."""
    if dtype_name == "pred":
        for v in flat:
            if not (isinstance(v, (bool, np.bool_)) or (_is_int(v) and v in (0, 1))):
                return f"{str(v)[:40]!r} is not a pred (true or false)"
        return None
    integral = dtype.kind in "iu" or dtype_name in ("s4", "u4", "s2", "u2")
    if integral:
        low, high = _int_range(dtype)
        for v in flat:
            if not _is_int(v):
                return f"{str(v)[:40]!r} is not a whole number, as {dtype_name} needs"
            if not low <= v <= high:
                return (f"{str(v)[:40]} does not fit {dtype_name} (it holds {low} to "
                        f"{high})")
        return None
    top = _float_max(dtype)
    for v in flat:
        if isinstance(v, str):
            if v.lower() not in _NONFINITE:
                return f"{v[:40]!r} is not a number"
            continue
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)):
            return f"{str(v)[:40]!r} is not a number"
        try:
            f = float(v)
        except OverflowError:
            return f"{str(v)[:40]}... does not fit {dtype_name}"
        if math.isfinite(f) and abs(f) > top * (1 + 2**-8):
            return (f"{v!r} does not fit {dtype_name} (its largest finite value is "
                    f"{top:.4g}; infinity is written inf)")
        if not math.isfinite(f) and not isinstance(v, str) and isinstance(v, int):
            return f"{str(v)[:40]} does not fit {dtype_name}"
    return None


def literal_array(value, t) -> np.ndarray:
    """The values of a constant of type ``t`` (a TensorType) as a flat array of its dtype:
    one value (a splat) or ``t.size`` of them.

    Raises
    ------
    AttributeError_
        If the value is missing, does not fit the dtype (see the module docstring), or has
        neither 1 nor ``t.size`` values.
    """
    if value is None:
        raise AttributeError_("constant needs value=")
    flat = flatten(value)
    if len(flat) not in (1, t.size):
        raise AttributeError_(f"constant has {len(flat)} values, its type {t} needs {t.size}")
    dtype = t.np_dtype
    why = check_literal(flat, t.dtype, dtype)
    if why:
        raise AttributeError_(f"constant value does not fit its type {t}: {why}")
    values = [_NONFINITE[v.lower()] if isinstance(v, str) else v for v in flat]
    with np.errstate(over="ignore"):
        return np.array(values, dtype=dtype)

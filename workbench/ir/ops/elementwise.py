"""Elementwise ops: unary and binary arithmetic, compare, select, clamp, convert.

Semantics follow XLA's operation semantics (https://openxla.org/xla/operation_semantics):
operands of an elementwise op have equal shapes (a scalar ``pred`` of select and scalar bounds of
clamp excepted); integer division truncates toward zero; ``remainder`` takes the sign of the
dividend; ``maximum``/``minimum`` propagate NaN; ``convert`` from float to integer truncates
toward zero and saturates.
"""

from __future__ import annotations

import math

import numpy as np

from workbench.errors import AttributeError_, ShapeError
from workbench.ir.ops.base import Category, OpDef, register
from workbench.ir.types import DTYPES, FLOAT_DTYPES, INT_DTYPES, TensorType

_LOGICAL_DTYPES = INT_DTYPES | {"pred"}


def _require_tensors(types):
    for i, t in enumerate(types):
        if not isinstance(t, TensorType):
            raise ShapeError(f"operand {i} is a tuple {t}, expected a tensor")


def _same_shapes(types, what="operands"):
    _require_tensors(types)
    first = types[0]
    for i, t in enumerate(types[1:], 1):
        if t.shape != first.shape:
            raise ShapeError(f"{what} must have equal shapes: operand 0 is {first}, "
                             f"operand {i} is {t} (insert an explicit broadcast)")
        if t.dtype != first.dtype:
            raise ShapeError(f"{what} must have equal dtypes: operand 0 is {first}, "
                             f"operand {i} is {t} (insert a convert)")
    return first


def _elementwise_infer(allowed=None):
    def infer(types, attrs, declared):
        t = _same_shapes(types)
        if allowed is not None and t.dtype not in allowed:
            raise ShapeError(f"dtype {t.dtype} is not allowed here (allowed: "
                             f"{', '.join(sorted(allowed))})")
        return t
    return infer


def _errstate(fn):
    def wrapped(*args):
        with np.errstate(all="ignore"):
            return fn(*args)
    return wrapped


def _unary(name, fn, *, dtypes=None, transcendental=False, doc=""):
    register(OpDef(name, Category.ELEMENTWISE, (1, 1), _elementwise_infer(dtypes),
                   reference=_errstate(lambda xs, attrs, t: fn(xs[0])),
                   flops_per_element=1.0, transcendental=transcendental, doc=doc))


def _binary(name, fn, *, dtypes=None, transcendental=False, doc=""):
    register(OpDef(name, Category.ELEMENTWISE, (2, 2), _elementwise_infer(dtypes),
                   reference=_errstate(lambda xs, attrs, t: fn(xs[0], xs[1])),
                   flops_per_element=1.0, transcendental=transcendental, doc=doc))


def _logistic(x):
    # 1 / (1 + exp(-x)) without overflow: exp of a non-positive number only.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _erf_ref(x):
    return _erf(x.astype(np.float64)).astype(x.dtype)


def _round_afz(x):
    return (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(x.dtype)


def _divide(a, b):
    if a.dtype.kind in "iu":
        q = np.floor_divide(a, np.where(b == 0, 1, b))
        r = a - q * b
        fix = (r != 0) & ((a < 0) != (b < 0))
        q = np.where(fix, q + 1, q)
        # XLA: x / 0 = -1 for signed integers (all ones for unsigned).
        return np.where(b == 0, np.array(-1).astype(a.dtype), q).astype(a.dtype)
    return a / b


def _logical(np_bool, np_int):
    def fn(a, b):
        return np_bool(a, b) if a.dtype == np.bool_ else np_int(a, b)
    return fn


def _not(x):
    return np.logical_not(x) if x.dtype == np.bool_ else np.invert(x)


F = FLOAT_DTYPES
NUMERIC = FLOAT_DTYPES | INT_DTYPES

_unary("negate", np.negative, dtypes=NUMERIC, doc="-x")
_unary("abs", np.abs, dtypes=NUMERIC, doc="|x|")
_unary("sign", np.sign, dtypes=NUMERIC, doc="sign of x (-1, 0, 1; NaN stays NaN)")
_unary("exponential", np.exp, dtypes=F, transcendental=True, doc="e^x")
_unary("exponential-minus-one", np.expm1, dtypes=F, transcendental=True, doc="e^x - 1")
_unary("log", np.log, dtypes=F, transcendental=True, doc="natural logarithm")
_unary("log-plus-one", np.log1p, dtypes=F, transcendental=True, doc="log(1 + x)")
_unary("tanh", np.tanh, dtypes=F, transcendental=True, doc="hyperbolic tangent")
_unary("logistic", _logistic, dtypes=F, transcendental=True, doc="1 / (1 + e^-x)")
_unary("sqrt", np.sqrt, dtypes=F, transcendental=True, doc="square root")
_unary("rsqrt", lambda x: (1 / np.sqrt(x)).astype(x.dtype), dtypes=F, transcendental=True,
       doc="1 / sqrt(x)")
_unary("cbrt", np.cbrt, dtypes=F, transcendental=True, doc="cube root")
_unary("sine", np.sin, dtypes=F, transcendental=True, doc="sin x")
_unary("cosine", np.cos, dtypes=F, transcendental=True, doc="cos x")
_unary("tan", np.tan, dtypes=F, transcendental=True, doc="tan x")
_unary("erf", _erf_ref, dtypes=F, transcendental=True, doc="the error function")
_unary("floor", np.floor, dtypes=F, doc="round down")
_unary("ceil", np.ceil, dtypes=F, doc="round up")
_unary("round-nearest-even", np.rint, dtypes=F, doc="round half to even")
_unary("round-nearest-afz", _round_afz, dtypes=F, doc="round half away from zero")
_unary("not", _not, dtypes=_LOGICAL_DTYPES, doc="logical or bitwise not")

_binary("add", np.add, doc="x + y")
_binary("subtract", np.subtract, doc="x - y")
_binary("multiply", np.multiply, doc="x * y")
_binary("divide", _divide, doc="x / y (integers truncate toward zero)")
_binary("maximum", np.maximum, doc="max(x, y), NaN-propagating")
_binary("minimum", np.minimum, doc="min(x, y), NaN-propagating")
_binary("power", np.power, dtypes=NUMERIC, transcendental=True, doc="x ** y")
_binary("remainder", np.fmod, dtypes=NUMERIC, doc="x mod y with the sign of x")
_binary("atan2", np.arctan2, dtypes=F, transcendental=True, doc="atan(y / x) by quadrant")
_binary("and", _logical(np.logical_and, np.bitwise_and), dtypes=_LOGICAL_DTYPES, doc="x and y")
_binary("or", _logical(np.logical_or, np.bitwise_or), dtypes=_LOGICAL_DTYPES, doc="x or y")
_binary("xor", _logical(np.logical_xor, np.bitwise_xor), dtypes=_LOGICAL_DTYPES, doc="x xor y")


# ----- is-finite ------------------------------------------------------------------------------

def _is_finite_infer(types, attrs, declared):
    t = _elementwise_infer(F)(types, attrs, declared)
    return t.with_dtype("pred")


register(OpDef("is-finite", Category.ELEMENTWISE, (1, 1), _is_finite_infer,
               reference=lambda xs, a, t: np.isfinite(xs[0]), flops_per_element=1.0,
               doc="true where x is neither infinite nor NaN"))

# ----- compare --------------------------------------------------------------------------------

COMPARE_DIRECTIONS = {
    "EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
    "GT": np.greater, "GE": np.greater_equal,
}


def _compare_infer(types, attrs, declared):
    t = _same_shapes(types)
    direction = attrs.get("direction")
    if direction not in COMPARE_DIRECTIONS:
        raise AttributeError_(f"compare needs direction= one of {', '.join(COMPARE_DIRECTIONS)}, "
                              f"got {direction!r}")
    return t.with_dtype("pred")


register(OpDef("compare", Category.ELEMENTWISE, (2, 2), _compare_infer,
               reference=lambda xs, a, t: COMPARE_DIRECTIONS[a["direction"]](xs[0], xs[1]),
               flops_per_element=1.0, doc="elementwise comparison (direction=EQ/NE/LT/LE/GT/GE)",
               attributes=('direction',)))

# ----- select, clamp --------------------------------------------------------------------------


def _select_infer(types, attrs, declared):
    _require_tensors(types)
    pred, on_true, on_false = types
    t = _same_shapes([on_true, on_false], "select's branches")
    if pred.dtype != "pred":
        raise ShapeError(f"select's first operand must be pred, got {pred}")
    if pred.shape not in ((), t.shape):
        raise ShapeError(f"select's predicate {pred} must be a scalar or have the branches' "
                         f"shape {list(t.shape)}")
    return t


register(OpDef("select", Category.ELEMENTWISE, (3, 3), _select_infer,
               reference=lambda xs, a, t: np.where(xs[0], xs[1], xs[2]),
               flops_per_element=1.0, doc="pred ? on_true : on_false"))


def _clamp_infer(types, attrs, declared):
    _require_tensors(types)
    lo, x, hi = types
    for name, b in (("min", lo), ("max", hi)):
        if b.dtype != x.dtype or b.shape not in ((), x.shape):
            raise ShapeError(f"clamp's {name} {b} must be a scalar or match the operand {x}")
    return x


register(OpDef("clamp", Category.ELEMENTWISE, (3, 3), _clamp_infer,
               reference=_errstate(lambda xs, a, t: np.minimum(np.maximum(xs[1], xs[0]), xs[2])),
               flops_per_element=2.0, doc="min(max(x, lo), hi)"))

# ----- convert --------------------------------------------------------------------------------


def _convert_infer(types, attrs, declared):
    _require_tensors(types)
    dtype = attrs.get("dtype")
    if dtype not in DTYPES:
        raise AttributeError_(f"convert needs dtype= a known dtype, got {dtype!r}")
    return types[0].with_dtype(dtype)


def _convert_ref(xs, attrs, out_type):
    x = xs[0]
    target = out_type.np_dtype
    if target == np.bool_:
        return x != 0
    if x.dtype.kind == "f" and target.kind in "iu":
        info = np.iinfo(target)
        with np.errstate(invalid="ignore"):
            y = np.trunc(np.nan_to_num(x.astype(np.float64), nan=0.0))
            y = np.clip(y, info.min, info.max)
        return y.astype(target)
    return x.astype(target)


register(OpDef("convert", Category.ELEMENTWISE, (1, 1), _convert_infer, reference=_convert_ref,
               flops_per_element=1.0, doc="change dtype (float->int truncates and saturates)",
               attributes=('dtype',)))

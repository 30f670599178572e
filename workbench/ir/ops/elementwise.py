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


# ----- bit operations -------------------------------------------------------------------------


def _shift(kind):
    def fn(xs, attrs, t):
        a, b = xs
        bits = 8 * a.dtype.itemsize
        unsigned = np.dtype(f"u{a.dtype.itemsize}")
        big = (b.astype(np.int64) < 0) | (b.astype(np.int64) >= bits)   # XLA: out of range
        n = np.where(big, 0, b).astype(unsigned)
        if kind == "left":
            r = (a.view(unsigned) << n).view(a.dtype)
            return np.where(big, a.dtype.type(0), r)
        if kind == "logical":
            r = (a.view(unsigned) >> n).view(a.dtype)
            return np.where(big, a.dtype.type(0), r)
        signed = np.dtype(f"i{a.dtype.itemsize}")
        r = (a.view(signed) >> np.where(big, bits - 1, n).astype(signed)).view(a.dtype)
        return r
    return fn


for _name, _kind, _doc in (
        ("shift-left", "left", "x << y (0 when y is out of range)"),
        ("shift-right-logical", "logical", "x >> y filling with zeros (0 when y is out of range)"),
        ("shift-right-arithmetic", "arith", "x >> y filling with the sign bit")):
    register(OpDef(_name, Category.ELEMENTWISE, (2, 2), _elementwise_infer(INT_DTYPES),
                   reference=_shift(_kind), flops_per_element=1.0, doc=_doc))


def _popcnt(xs, attrs, t):
    x = xs[0]
    return np.bitwise_count(x.view(f"u{x.dtype.itemsize}")).astype(x.dtype)


def _clz(xs, attrs, t):
    x = xs[0]
    bits = 8 * x.dtype.itemsize
    u = x.view(f"u{x.dtype.itemsize}").astype(np.uint64)
    n = np.zeros(u.shape, np.int64)
    for k in range(bits):
        n = np.where((n == k) & ((u >> np.uint64(bits - 1 - k)) & np.uint64(1) == 0), k + 1, n)
    return n.astype(x.dtype)


register(OpDef("popcnt", Category.ELEMENTWISE, (1, 1), _elementwise_infer(INT_DTYPES),
               reference=_popcnt, flops_per_element=1.0, doc="number of set bits"))
register(OpDef("clz", Category.ELEMENTWISE, (1, 1), _elementwise_infer(INT_DTYPES),
               reference=_clz, flops_per_element=1.0, doc="number of leading zero bits"))


def _bitcast_convert_infer(types, attrs, declared):
    _require_tensors(types)
    (x,) = types
    dtype = attrs.get("dtype")
    if dtype not in DTYPES:
        raise AttributeError_(f"bitcast-convert needs dtype= a known dtype, got {dtype!r}")
    out = TensorType(x.shape, dtype)
    a, b = x.itemsize, out.itemsize
    if a == b:
        return out
    if a > b and a % b == 0:                      # a new minor dimension of a // b elements
        return TensorType(x.shape + (a // b,), dtype)
    if b > a and b % a == 0 and x.shape and x.shape[-1] == b // a:
        return TensorType(x.shape[:-1], dtype)
    raise ShapeError(f"bitcast-convert of {x} to {dtype}: element sizes {a} and {b} bytes do "
                     "not divide as XLA requires")


def _bitcast_convert_ref(xs, attrs, t):
    x = np.ascontiguousarray(xs[0])
    return x.view(t.np_dtype).reshape(t.shape)


register(OpDef("bitcast-convert", Category.ELEMENTWISE, (1, 1), _bitcast_convert_infer,
               reference=_bitcast_convert_ref, flops_per_element=0.0,
               doc="reinterpret each element's bits as dtype= (no conversion)",
               attributes=('dtype',)))


# ----- complex numbers --------------------------------------------------------------------------

_COMPLEX_PART = {"c64": "f32", "c128": "f64"}


def _part_infer(types, attrs, declared):
    _require_tensors(types)
    (x,) = types
    if x.dtype not in _COMPLEX_PART:
        return x
    return x.with_dtype(_COMPLEX_PART[x.dtype])


def _complex_infer(types, attrs, declared):
    t = _same_shapes(types)
    part = {v: k for k, v in _COMPLEX_PART.items()}
    if t.dtype not in part:
        raise ShapeError(f"complex needs f32 or f64 operands, got {t}")
    return t.with_dtype(part[t.dtype])


register(OpDef("real", Category.ELEMENTWISE, (1, 1), _part_infer,
               reference=lambda xs, a, t: np.real(xs[0]), doc="real part"))
register(OpDef("imag", Category.ELEMENTWISE, (1, 1), _part_infer,
               reference=lambda xs, a, t: np.imag(xs[0]) if np.iscomplexobj(xs[0])
               else np.zeros_like(xs[0]), doc="imaginary part"))
register(OpDef("complex", Category.ELEMENTWISE, (2, 2), _complex_infer,
               reference=lambda xs, a, t: xs[0] + 1j * xs[1].astype(t.np_dtype),
               flops_per_element=1.0, doc="real + i * imag"))


# ----- reduce-precision -------------------------------------------------------------------------

def _reduce_precision_infer(types, attrs, declared):
    t = _elementwise_infer(FLOAT_DTYPES)(types, attrs, declared)
    for key in ("exponent_bits", "mantissa_bits"):
        v = attrs.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or v < (1 if key[0] == "e" else 0):
            raise AttributeError_(f"reduce-precision needs {key}= a count of bits, got {v!r}")
    return t


def _reduce_precision_ref(xs, attrs, t):
    """XLA's ReducePrecision (elemental_ir_emitter.cc, EmitReducePrecisionIR): round to
    nearest even at ``mantissa_bits``, overflow to inf and underflow to zero at
    ``exponent_bits``, NaN kept."""
    x = xs[0]
    if x.dtype.itemsize < 4:
        return _reduce_precision_ref([x.astype(np.float32)], attrs, t).astype(x.dtype)
    width = 8 * x.dtype.itemsize
    src_m = {4: 23, 8: 52}[x.dtype.itemsize]
    src_e = width - 1 - src_m
    e_bits, m_bits = attrs["exponent_bits"], attrs["mantissa_bits"]
    bits = np.ascontiguousarray(x).view(f"u{x.dtype.itemsize}").astype(object)
    # exact Python integers: the masks below are XLA's, without fixed-width arithmetic
    if m_bits < src_m:
        last = 1 << (src_m - m_bits)
        bias = (last >> 1) - 1
        bits = np.array([((b + ((b & last) >> (src_m - m_bits)) + bias) & ~(last - 1))
                         & ((1 << width) - 1) for b in bits.reshape(-1)],
                        dtype=object).reshape(bits.shape)
    if e_bits < src_e:
        exp_mask = ((1 << src_e) - 1) << src_m
        sign_mask = 1 << (width - 1)
        src_bias = (1 << (src_e - 1)) - 1
        dst_bias = (1 << (e_bits - 1)) - 1
        hi, lo = (src_bias + dst_bias) << src_m, (src_bias - dst_bias) << src_m
        flat = []
        for b in bits.reshape(-1):
            e, sgn = b & exp_mask, b & sign_mask
            flat.append(sgn | exp_mask if e > hi else (sgn if e <= lo else b))
        bits = np.array(flat, dtype=object).reshape(bits.shape)
    out = bits.astype(np.dtype(f"u{x.dtype.itemsize}")).view(x.dtype)
    return np.where(np.isnan(x), x, out)


register(OpDef("reduce-precision", Category.ELEMENTWISE, (1, 1), _reduce_precision_infer,
               reference=_reduce_precision_ref, flops_per_element=1.0,
               doc="round to a float with exponent_bits= and mantissa_bits=",
               attributes=("exponent_bits", "mantissa_bits")))


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

#: XLA's comparison types (``Comparison::Type``); only TOTALORDER changes a float comparison
COMPARE_TYPES = ("FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED")

_UINT_OF_WIDTH = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def total_order_key(x: np.ndarray) -> np.ndarray:
    """Unsigned integers ordered as IEEE 754's totalOrder orders the floats ``x``:
    -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN (XLA's ``type=TOTALORDER`` comparisons,
    which JAX's sort comparators use)."""
    u = _UINT_OF_WIDTH[x.dtype.itemsize]
    bits = np.ascontiguousarray(x).view(u)
    sign = u(1) << u(8 * x.dtype.itemsize - 1)
    return np.where(bits & sign, ~bits, bits | sign)


def _compare_ref(xs, attrs, t):
    a, b = xs
    if attrs.get("compare_type") == "TOTALORDER" and a.dtype.kind not in "biu":
        a, b = total_order_key(a), total_order_key(b)
    return COMPARE_DIRECTIONS[attrs["direction"]](a, b)


def _compare_infer(types, attrs, declared):
    t = _same_shapes(types)
    direction = attrs.get("direction")
    if direction not in COMPARE_DIRECTIONS:
        raise AttributeError_(f"compare needs direction= one of {', '.join(COMPARE_DIRECTIONS)}, "
                              f"got {direction!r}")
    ct = attrs.get("compare_type", "FLOAT")
    if ct not in COMPARE_TYPES:
        raise AttributeError_(f"compare_type= must be one of {', '.join(COMPARE_TYPES)}, "
                              f"got {ct!r}")
    return t.with_dtype("pred")


register(OpDef("compare", Category.ELEMENTWISE, (2, 2), _compare_infer,
               reference=_compare_ref,
               flops_per_element=1.0, doc="elementwise comparison (direction=EQ/NE/LT/LE/GT/GE; "
                                          "compare_type=TOTALORDER orders NaNs and signed zeros)",
               attributes=('direction', 'compare_type')))

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

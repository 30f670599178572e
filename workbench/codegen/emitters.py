"""Scalar emitter tables: one entry per op, rendering numba-Python source for one scalar value.

Both backends compile Python source with numba, so most ops render the same; the tables differ
where the targets do (which math functions exist, the fast float32 approximations on the CPU).
Each emitter receives the operands as source text (generated names, never input text), the
result dtype and the Let's attributes, and returns an expression. The caller wraps it in the
result dtype's constructor, so that numba's integer widening (int32 + int32 -> int64) wraps like
XLA's fixed-width arithmetic.

Semantics follow the numpy references in :mod:`workbench.ir.ops.elementwise`: maximum/minimum
propagate NaN; integer division truncates toward zero and x / 0 = -1; remainder takes the
dividend's sign; float->int conversion truncates and saturates (NaN -> 0).
"""

from __future__ import annotations

from workbench.ir.types import FLOAT_DTYPES

#: XLA dtype -> numba type name of a scalar (imported by generated modules). bf16 and f16
#: values are float32 scalars in a kernel, rounded to their dtype after every op.
NUMBA_TYPES = {
    "pred": "boolean", "s8": "int8", "s16": "int16", "s32": "int32", "s64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "f32": "float32", "f64": "float64", "bf16": "float32", "f16": "float32",
}

#: XLA dtype -> numpy type name of a buffer element (scratch arrays; module constants use
#: :func:`literal_text`). bf16 and f16 buffers hold their bits (uint16): numba has no bf16, and
#: the bits travel unchanged between kernels, numpy (ml_dtypes) and the device.
NUMPY_TYPES = {
    "pred": "np.bool_", "s8": "np.int8", "s16": "np.int16", "s32": "np.int32", "s64": "np.int64",
    "u8": "np.uint8", "u16": "np.uint16", "u32": "np.uint32", "u64": "np.uint64",
    "f32": "np.float32", "f64": "np.float64", "bf16": "np.uint16", "f16": "np.uint16",
}

#: floats narrower than f32 that kernels hold as bits: dtype -> helper suffix
NARROW = {"bf16": "bf16", "f16": "f16"}


def buffer_type(dtype: str) -> str:
    """The numba element type of a kernel argument of ``dtype`` (bits for bf16 and f16)."""
    return "uint16" if dtype in NARROW else NUMBA_TYPES[dtype]

INT_RANGES = {
    "s8": (-2**7, 2**7 - 1), "s16": (-2**15, 2**15 - 1), "s32": (-2**31, 2**31 - 1),
    "s64": (-2**63, 2**63 - 1), "u8": (0, 2**8 - 1), "u16": (0, 2**16 - 1),
    "u32": (0, 2**32 - 1), "u64": (0, 2**64 - 1),
}

#: helper functions a kernel module may need (defined once per module, jitted per backend)
HELPERS = {
    "_idiv": '''def _idiv(a, b):
    # integer division truncating toward zero; x / 0 = -1 (XLA semantics)
    if b == 0:
        return -1
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q
''',
    "_irem": '''def _irem(a, b):
    # remainder with the dividend's sign (C fmod); x % 0 = x
    if b == 0:
        return a
    r = abs(a) % abs(b)
    return -r if a < 0 else r
''',
    # XLA's compare type=TOTALORDER on floats (IEEE 754 totalOrder, as the reference's
    # total_order_key): -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN; -1, 0 or 1. NaNs of
    # one sign compare equal (their payloads are not ordered; the reference's bits are).
    "_totcmp": '''def _totcmp(a, b):
    sa = math.copysign(1.0, a)
    sb = math.copysign(1.0, b)
    ka = 2.0 * sa if a != a else 0.0
    kb = 2.0 * sb if b != b else 0.0
    if ka != kb:
        return -1 if ka < kb else 1
    if ka != 0.0 or a == b and sa == sb:
        return 0
    if a < b or a == b and sa < sb:
        return -1
    return 1
''',
    "_popcnt": '''def _popcnt(u):
    n = 0
    while u:
        u &= u - 1
        n += 1
    return n
''',
    "_clz": '''def _clz(u, bits):
    n = 0
    b = bits - 1
    while b >= 0 and (u >> b) & 1 == 0:
        n += 1
        b -= 1
    return n
''',
    # bf16 (8 significant bits, f32's exponent range) and f16 (11 bits, 2**-14 .. 65504):
    # round a float32 to the dtype (nearest, ties to even; inf and nan kept), and decode and
    # encode the dtype's bits. Plain arithmetic (frexp/ldexp/floor), so that the CPU, CUDA and
    # the simulator run the same code.
    "_rnd_bf16": '''def _rnd_bf16(x):
    if x != x or x == 0.0 or abs(x) == math.inf:
        return x
    m, e = math.frexp(x * 1.0)
    q = max(e - 8, -133)
    v = math.ldexp(x * 1.0, -q)
    f = math.floor(v)
    r = v - f
    if r > 0.5 or (r == 0.5 and f - 2.0 * math.floor(f * 0.5) == 1.0):
        f += 1.0
    # copysign: a negative value that rounds to zero is -0 (ldexp(0.0) alone gave +0)
    return float32(math.copysign(math.ldexp(f, q), x))
''',
    "_rnd_f16": '''def _rnd_f16(x):
    if x != x or x == 0.0 or abs(x) == math.inf:
        return x
    m, e = math.frexp(x * 1.0)
    q = max(e - 11, -24)
    v = math.ldexp(x * 1.0, -q)
    f = math.floor(v)
    r = v - f
    if r > 0.5 or (r == 0.5 and f - 2.0 * math.floor(f * 0.5) == 1.0):
        f += 1.0
    y = math.copysign(math.ldexp(f, q), x)    # -0 for a negative value rounding to zero
    if abs(y) > 65504.0:
        return float32(math.copysign(math.inf, y))
    return float32(y)
''',
    "_dec_bf16": '''def _dec_bf16(bits):
    b = int64(bits)
    s = -1.0 if b & 32768 else 1.0
    ex = (b >> 7) & 255
    mant = b & 127
    if ex == 255:
        return float32(math.nan) if mant else float32(s * math.inf)
    if ex == 0:
        return float32(s * math.ldexp(mant * 1.0, -133))
    return float32(s * math.ldexp((128 + mant) * 1.0, ex - 134))
''',
    "_dec_f16": '''def _dec_f16(bits):
    b = int64(bits)
    s = -1.0 if b & 32768 else 1.0
    ex = (b >> 10) & 31
    mant = b & 1023
    if ex == 31:
        return float32(math.nan) if mant else float32(s * math.inf)
    if ex == 0:
        return float32(s * math.ldexp(mant * 1.0, -24))
    return float32(s * math.ldexp((1024 + mant) * 1.0, ex - 25))
''',
    "_enc_bf16": '''def _enc_bf16(x):
    if x != x:
        return uint16(32704)
    s = 32768 if math.copysign(1.0, x) < 0 else 0
    a = abs(x * 1.0)
    if a == math.inf:
        return uint16(s | 32640)
    if a == 0.0:
        return uint16(s)
    m, e = math.frexp(a)
    ex = e + 126
    if ex >= 1:
        mant = int(math.floor((m * 2.0 - 1.0) * 128.0 + 0.5))
        if mant == 128:
            mant = 0
            ex += 1
        if ex >= 255:
            return uint16(s | 32640)
        return uint16(s | (ex << 7) | mant)
    return uint16(s | int(math.floor(math.ldexp(a, 133) + 0.5)))
''',
    "_enc_f16": '''def _enc_f16(x):
    if x != x:
        return uint16(32256)
    s = 32768 if math.copysign(1.0, x) < 0 else 0
    a = abs(x * 1.0)
    if a == math.inf or a > 65504.0:
        return uint16(s | 31744)
    if a == 0.0:
        return uint16(s)
    m, e = math.frexp(a)
    ex = e + 14
    if ex >= 1:
        mant = int(math.floor((m * 2.0 - 1.0) * 1024.0 + 0.5))
        if mant == 1024:
            mant = 0
            ex += 1
        if ex >= 31:
            return uint16(s | 31744)
        return uint16(s | (ex << 10) | mant)
    return uint16(s | int(math.floor(math.ldexp(a, 24) + 0.5)))
''',
    "_f2i": '''def _f2i(a, lo, hi):
    # float -> integer: truncate toward zero, saturate, NaN -> 0
    if a != a:
        return 0
    if a <= lo:
        return lo
    if a >= hi:
        return hi
    return int(a)
''',
}

#: the CPU's bf16 helpers: the same values by bit operations on float32 (ties to even, NaN
#: encoded as 0x7fc0, overflow to inf), branch-free apart from the NaN test, so that LLVM
#: vectorises the loops that call them. The portable ones above (frexp/ldexp) cost 7-70 ns an
#: element on the 2-core VM: a [16, 64] bf16 broadcast of a constant took 7.7 us, a multiply
#: of two [16, 64] bf16 arrays 73 us. CUDA and the simulator keep the portable ones.
CPU_HELPERS = {
    "_rnd_bf16": '''def _rnd_bf16(x):
    y = float32(x)
    if y != y:
        return y
    u = int64(bitcast_like(y, uint32(0)))
    return bitcast_like(uint32((u + 32767 + ((u >> 16) & 1)) & 4294901760), float32(0))
''',
    "_dec_bf16": '''def _dec_bf16(bits):
    return bitcast_like(uint32(int64(bits) << 16), float32(0))
''',
    "_enc_bf16": '''def _enc_bf16(x):
    y = float32(x)
    if y != y:
        return uint16(32704)
    u = int64(bitcast_like(y, uint32(0)))
    return uint16((u + 32767 + ((u >> 16) & 1)) >> 16)
''',
}


class EmitContext:
    """Collects what a module needs while its kernel is rendered.

    Parameters
    ----------
    backend : str
        ``cpu``, ``cuda`` or ``cuda-sim``.
    fast_math : dict or None
        Op name -> name of the float32 function to call (the CPU's approximations); None for
        the plain ``math`` functions.
    """

    def __init__(self, backend: str, fast_math: dict | None = None):
        self.backend = backend
        self.fast_math = fast_math or {}
        #: fast-math names the kernel calls in two stages (see workbench.codegen.cpu): the
        #: operands to range-check after the statement being written, whether a nest used
        #: one, and whether the nest is being written again with the full-range reduction
        self.staged: set[str] = set()
        self.range_checks: list[str] = []
        self.used_staged = False
        self.full_range = False
        #: numba wraps negative signed subscripts (a[-1]); the check blocks LLVM's vectoriser
        #: when it cannot prove an address non-negative (in a prange body it cannot), so the
        #: CPU casts addresses, which are never negative, to uint64
        self.unsigned_index = backend == "cpu"
        #: merged loops of the nest being rendered (CPU): (loop variable, {index variable:
        #: its stride in the loop variable}); see ``source.merge_address``
        self.merged: list = []
        self.intrinsics: set[str] = set()
        self.helpers: set[str] = set()
        self.fast_used: set[str] = set()

    def helper(self, name: str) -> str:
        self.helpers.add(name)
        if self.backend == "cpu" and name in CPU_HELPERS:
            self.intrinsics.add("bitcast_like")
        return name

    def helper_source(self, name: str) -> str:
        """The helper's source for this backend (:data:`CPU_HELPERS` on the CPU)."""
        return (CPU_HELPERS.get(name) if self.backend == "cpu" else None) or HELPERS[name]

    def math(self, op: str, dtype: str, default: str) -> str:
        if dtype == "f32" and op in self.fast_math:
            self.fast_used.add(op)
            return self.fast_math[op]
        return default


def _bin(sym):
    return lambda a, d, at, cx: f"({a[0]} {sym} {a[1]})"


def _call(fn, op):
    def emit(a, d, at, cx):
        name = cx.math(op, d, fn)
        if name in cx.staged:                    # two calls: second(first(x), x)
            if cx.full_range:
                return f"{name}_2({name}_3({a[0]}), {a[0]})"
            cx.range_checks.append(a[0])
            cx.used_staged = True
            return f"{name}_2({name}_1({a[0]}), {a[0]})"
        return f"{name}({', '.join(a)})"
    return emit


def _float_or_int(float_fmt: str, int_fmt: str, helper: str | None = None):
    """An emitter choosing a format by the dtype's kind; ``{a}``/``{b}`` are the operands,
    ``{h}`` the integer helper's name (registered when used)."""
    def emit(a, d, at, cx):
        if d in FLOAT_DTYPES:
            return float_fmt.format(a=a[0], b=a[1])
        return int_fmt.format(a=a[0], b=a[1], h=cx.helper(helper) if helper else "")
    return emit


#: NaN-propagating on floats (numpy's maximum/minimum): a NaN first operand is kept, and a NaN
#: second operand fails the comparison
_maximum = _float_or_int("({a} if ({a} >= {b} or {a} != {a}) else {b})", "max({a}, {b})")
_minimum = _float_or_int("({a} if ({a} <= {b} or {a} != {a}) else {b})", "min({a}, {b})")
_divide = _float_or_int("({a} / {b})", "{h}({a}, {b})", "_idiv")
_remainder = _float_or_int("math.fmod({a}, {b})", "{h}({a}, {b})", "_irem")


def _sign(a, d, at, cx):
    t = NUMBA_TYPES[d]
    return f"({t}(1) if {a[0]} > 0 else ({t}(-1) if {a[0]} < 0 else {a[0]}))"


def _rsqrt(a, d, at, cx):
    return f"({NUMBA_TYPES[d]}(1.0) / math.sqrt({a[0]}))"


def _logistic(a, d, at, cx):
    fn = cx.math("logistic", d, "")
    if fn:
        return f"{fn}({a[0]})"
    t = NUMBA_TYPES[d]
    return f"({t}(1.0) / ({t}(1.0) + math.exp(-{a[0]})))"


def _logical(pred_sym, int_sym):
    def emit(a, d, at, cx):
        return f"({a[0]} {pred_sym if d == 'pred' else int_sym} {a[1]})"
    return emit


def _not(a, d, at, cx):
    return f"(not {a[0]})" if d == "pred" else f"(~{a[0]})"


_COMPARE = {"EQ": "==", "NE": "!=", "LT": "<", "LE": "<=", "GT": ">", "GE": ">="}


def _compare(a, d, at, cx):
    op = _COMPARE[at["direction"]]
    if at.get("compare_type") == "TOTALORDER" and at.get("in") in FLOAT_DTYPES:
        return f"({cx.helper('_totcmp')}({a[0]}, {a[1]}) {op} 0)"
    return f"({a[0]} {op} {a[1]})"


def _select(a, d, at, cx):
    return f"({a[1]} if {a[0]} else {a[2]})"


def _clamp_with(maximum, minimum):
    def emit(a, d, at, cx):
        lo, x, hi = a
        return minimum([maximum([x, lo], d, at, cx), hi], d, at, cx)
    return emit


_clamp = _clamp_with(_maximum, _minimum)


def _intrinsic_or(name: str, int_fmt: str):
    """CPU: floats through an LLVM intrinsic of :mod:`workbench.codegen.cpu_intrinsics`."""
    def emit(a, d, at, cx):
        if d in FLOAT_DTYPES:
            cx.intrinsics.add(name)
            return f"{name}({a[0]}, {a[1]})"
        return int_fmt.format(a=a[0], b=a[1])
    return emit


_cpu_maximum = _intrinsic_or("fmaximum", "max({a}, {b})")
_cpu_minimum = _intrinsic_or("fminimum", "min({a}, {b})")


def _convert(a, d, at, cx):
    src = at["in"]
    if d == "pred":
        return f"({a[0]} != 0)"
    if src in FLOAT_DTYPES and d in INT_RANGES:
        lo, hi = INT_RANGES[d]
        return f"{cx.helper('_f2i')}({a[0]}, {lo}, {hi})"
    return f"{NUMBA_TYPES[d]}({a[0]})"


_WIDTH = {"s8": 8, "s16": 16, "s32": 32, "s64": 64, "u8": 8, "u16": 16, "u32": 32, "u64": 64}


def _unsigned(d: str) -> str:
    return "uint" + str(_WIDTH[d])


def _shift(kind: str):
    """XLA's shifts: by a negative amount or the width or more, 0 (left, logical) or the sign
    (arithmetic). The amount is cast to the shifted value's own type: numba types a uint64
    shifted by an int64 as float64."""
    def emit(a, d, at, cx):
        bits = _WIDTH[d]
        out = f"({a[1]} < 0 or {a[1]} >= {bits})"
        if kind == "left":
            t = NUMBA_TYPES[d]
            return f"({t}(0) if {out} else ({a[0]} << {t}({a[1]})))"
        if kind == "logical":
            u = _unsigned(d)
            return f"({u}(0) if {out} else ({u}({a[0]}) >> {u}({a[1]})))"
        t = NUMBA_TYPES[d]
        return f"({a[0]} >> {t}({bits - 1} if {out} else {a[1]}))"
    return emit


def _popcnt(a, d, at, cx):
    return f"{cx.helper('_popcnt')}({_unsigned(d)}({a[0]}))"


def _clz(a, d, at, cx):
    return f"{cx.helper('_clz')}({_unsigned(d)}({a[0]}), {_WIDTH[d]})"


def _bitcast_convert(a, d, at, cx):
    """CPU: reinterpret the bits (an LLVM bitcast); an integer of the same width is a
    wrapping conversion."""
    src = at["in"]
    if src in INT_RANGES and d in INT_RANGES:
        return f"{NUMBA_TYPES[d]}({a[0]})"
    cx.intrinsics.add("bitcast_like")
    return f"bitcast_like({a[0]}, {NUMBA_TYPES[d]}(0))"


def _iota(a, d, at, cx):
    return f"{NUMBA_TYPES[d]}({a[0]})"


def _in_range(a, d, at, cx):
    return f"({a[0]} >= {a[1]} and {a[0]} < {a[2]})"


def _divisible(a, d, at, cx):
    return f"({a[0]} % {a[1]} == 0)"


#: ops rendered the same by every backend
COMMON = {
    "add": _bin("+"), "subtract": _bin("-"), "multiply": _bin("*"), "divide": _divide,
    "remainder": _remainder, "maximum": _maximum, "minimum": _minimum,
    "power": _call("math.pow", "power"), "atan2": _call("math.atan2", "atan2"),
    "and": _logical("&", "&"), "or": _logical("|", "|"), "xor": _logical("^", "^"),
    "negate": lambda a, d, at, cx: f"(-{a[0]})", "abs": lambda a, d, at, cx: f"abs({a[0]})",
    "sign": _sign, "not": _not, "is-finite": _call("math.isfinite", "is-finite"),
    "exponential": _call("math.exp", "exponential"), "log": _call("math.log", "log"),
    "tanh": _call("math.tanh", "tanh"), "erf": _call("math.erf", "erf"),
    "logistic": _logistic, "sqrt": _call("math.sqrt", "sqrt"), "rsqrt": _rsqrt,
    "exponential-minus-one": _call("math.expm1", "exponential-minus-one"),
    "log-plus-one": _call("math.log1p", "log-plus-one"),
    "sine": _call("math.sin", "sine"), "cosine": _call("math.cos", "cosine"),
    "tan": _call("math.tan", "tan"),
    "compare": _compare, "select": _select, "clamp": _clamp, "convert": _convert,
    "iota": _iota, "in_range": _in_range, "divisible": _divisible,
    "shift-left": _shift("left"), "shift-right-logical": _shift("logical"),
    "shift-right-arithmetic": _shift("arithmetic"), "popcnt": _popcnt, "clz": _clz,
}

#: the CPU adds numpy's float rounding functions (numba types them float -> float), and takes
#: float max/min from LLVM's maximum/minimum intrinsics (NaN-propagating, vectorisable)
CPU_ONLY = {
    "maximum": _cpu_maximum, "minimum": _cpu_minimum,
    "clamp": _clamp_with(_cpu_maximum, _cpu_minimum),
    "floor": _call("np.floor", "floor"), "ceil": _call("np.ceil", "ceil"),
    "round-nearest-even": _call("np.rint", "round-nearest-even"),
    "round-nearest-afz": lambda a, d, at, cx: f"np.copysign(np.floor(abs({a[0]}) + "
                                              f"{NUMBA_TYPES[d]}(0.5)), {a[0]})",
    "cbrt": _call("np.cbrt", "cbrt"),
    "bitcast-convert": _bitcast_convert,
}

CPU_TABLE = {**COMMON, **CPU_ONLY}
CUDA_TABLE = dict(COMMON)

#: reducers (a reduce's combine is the binary op of the same name)
REDUCERS = ("add", "multiply", "maximum", "minimum", "and", "or")


def render_let(table, op, args, dtype, attrs, cx) -> str:
    """The expression for ``op(args)`` of ``dtype``, cast to ``dtype`` (pred is not cast; a
    bf16 or f16 result is computed in float32 and rounded to its dtype, as XLA:CPU's float
    normalization does for every op)."""
    expr = table[op](list(args), dtype, attrs, cx)
    if dtype == "pred" or op in ("compare", "in_range", "divisible", "is-finite"):
        return expr
    if dtype in NARROW:
        if op == "convert" and attrs.get("in") == dtype:
            return f"float32({expr})"
        return f"{cx.helper('_rnd_' + NARROW[dtype])}(float32({expr}))"
    return f"{NUMBA_TYPES[dtype]}({expr})"


def load_expr(buffer: str, addr: str, dtype: str, cx) -> str:
    """``buffer[addr]``; a bf16/f16 element decoded from its bits to float32."""
    if dtype in NARROW:
        return f"{cx.helper('_dec_' + NARROW[dtype])}({buffer}[{addr}])"
    return f"{buffer}[{addr}]"


def store_value(value: str, dtype: str, cx) -> str:
    """The value to store into a buffer of ``dtype`` (bf16/f16: its bits)."""
    if dtype in NARROW:
        return f"{cx.helper('_enc_' + NARROW[dtype])}({value})"
    return value


def literal_text(value, dtype: str) -> str:
    """Source for a module constant from a validated number (inf/nan through ``math``)."""
    import math

    if dtype == "pred":
        return "True" if value else "False"
    if dtype in NARROW:
        dtype = "f32"                   # a bf16/f16 literal is its (exact) float32 value
    if isinstance(value, float):
        if math.isnan(value):
            body = "math.nan"
        elif math.isinf(value):
            body = "math.inf" if value > 0 else "-math.inf"
        else:
            body = repr(float(value))
    else:
        body = repr(int(value))
    return f"{NUMPY_TYPES[dtype]}({body})"

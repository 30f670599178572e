"""Accuracy, special-value and vectorisation tests for workbench.codegen.fastmath.

Errors are measured in ulp against the float64 C-library result rounded to
float32, with ulps counted as the distance between the integer-ordered
representations of two float32 values (so +0 and -0 are 0 ulp apart, the two
smallest denormals of opposite sign 2 ulp, FLT_MAX and inf 1 ulp, and denormal
results are counted on the denormal grid).  No absolute-error fallback is used
anywhere, not even near 0: the functions are accurate in ulp there too.

Samples: every 131st of all 2**32 bit patterns (about 32.8 million inputs, so
every binade of both signs), plus dense bit-pattern sweeps over the ranges
where each function is not trivially constant, plus the special values.  The
bounds below are the exhaustive (all 2**32 inputs) maxima from the module
docstring plus one ulp of slack for differences in the float64 reference libm.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from numba import njit

from workbench.codegen import fastmath as fm

F32 = np.float32
TINY_DENORM = F32(np.finfo(np.float32).smallest_subnormal)  # 2**-149
MAX_DENORM = np.nextafter(np.finfo(np.float32).tiny, F32(0))  # 2**-126 - 2**-149
MIN_NORMAL = F32(np.finfo(np.float32).tiny)  # 2**-126
FLT_MAX = F32(np.finfo(np.float32).max)
INF = F32(np.inf)
NAN = F32(np.nan)

# exp thresholds (float32 inputs, determined from the float64 reference):
EXP_LAST_FINITE = F32(88.72283)  # 0x42b17217: exp -> 3.4027985e38; next float -> inf
EXP_LAST_NONZERO = F32(-103.97208)  # exp -> 2**-149; next float down -> 0
EXP_LAST_NORMAL = F32(-87.33654)  # smallest x whose exp is a normal float


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def _loop(fn):
    """A jitted ``out[i] = fn(x[i])`` loop (what the code generator emits)."""

    @njit
    def apply(x, out):
        for i in range(x.size):
            out[i] = fn(x[i])

    return apply


_APPLY = {}


def evaluate(fn, x):
    """Apply a scalar njit function elementwise through a jitted loop."""
    if fn not in _APPLY:
        _APPLY[fn] = _loop(fn)
    x = np.ascontiguousarray(x, dtype=np.float32)
    out = np.empty_like(x)
    _APPLY[fn](x, out)
    return out


@njit
def _ref_exp(x):
    return math.exp(np.float64(x))


@njit
def _ref_log(x):
    if x > 0:
        return math.log(np.float64(x))
    return -np.inf if x == 0 else np.nan


@njit
def _ref_log1p(x):
    return math.log1p(np.float64(x))  # the C library's float64 log1p, as numpy's


@njit
def _ref_tanh(x):
    return math.tanh(np.float64(x))


@njit
def _ref_logistic(x):
    return 1.0 / (1.0 + math.exp(-np.float64(x)))


@njit
def _ref_erf(x):
    return math.erf(np.float64(x))


REF = {
    "exponential": _ref_exp,
    "log": _ref_log,
    "log-plus-one": _ref_log1p,
    "tanh": _ref_tanh,
    "logistic": _ref_logistic,
    "erf": _ref_erf,
}


def reference(op, x):
    """Float64 C-library result rounded to float32."""
    return evaluate(REF[op], x)  # the loop stores into a float32 array: one rounding


@njit
def _ordered(bits):
    # int32 bit pattern -> integer that is monotonic in the float value;
    # -0.0 (0x80000000) and +0.0 both map to 0.
    b = np.int64(bits)
    return b if b >= 0 else np.int64(-2147483648) - b


NAN_MISMATCH = 1 << 40  # "ulp" distance reported when exactly one side is NaN


@njit
def _ulp_stats(got, want):
    """(max ulp distance, index of the max, count > 0 ulp)."""
    worst = np.int64(-1)
    at = -1
    inexact = 0
    gb = got.view(np.int32)
    wb = want.view(np.int32)
    for i in range(got.size):
        g = got[i]
        w = want[i]
        if g != g or w != w:
            d = np.int64(0) if (g != g and w != w) else np.int64(NAN_MISMATCH)
        else:
            d = abs(_ordered(gb[i]) - _ordered(wb[i]))
        if d > 0:
            inexact += 1
        if d > worst:
            worst = d
            at = i
    return worst, at, inexact


def ulp_error(got, want):
    """Max ulp distance between two float32 arrays, and the index where it occurs."""
    worst, at, _ = _ulp_stats(np.ascontiguousarray(got, np.float32), np.ascontiguousarray(want, np.float32))
    return int(worst), int(at)


def bit_sweep(lo, hi, n):
    """About ``n`` float32 values evenly spaced in ulp (ordered-int) space on [lo, hi]."""

    def to_ord(v):
        b = np.array([v], np.float32).view(np.int32).astype(np.int64)[0]
        return b if b >= 0 else -2147483648 - b

    a, b = to_ord(F32(lo)), to_ord(F32(hi))
    step = max(1, (b - a) // n)
    o = np.arange(a, b + 1, step, dtype=np.int64)
    bits = np.where(o >= 0, o, -2147483648 - o).astype(np.int32)
    return bits.view(np.float32)


def strided_all_floats(stride=131):
    """Every ``stride``-th of all 2**32 float32 bit patterns (NaNs included)."""
    return np.arange(0, 1 << 32, stride, dtype=np.uint64).astype(np.uint32).view(np.float32)


# measured exhaustive maxima (see fastmath module docstring) + 1 ulp slack; log1p's is the
# exhaustive maximum itself (tools/exhaustive_ulp.py measured it against this very reference,
# the float64 C-library log1p that numpy's float64 log1p also calls)
# (tanh: 5 ulp with FMA, 7 without, tools/exhaustive_ulp.py)
BOUND = {"exponential": 2, "log": 2, "log-plus-one": 1, "tanh": 6 if fm.HAS_FMA else 8,
         "logistic": 3, "erf": 8}
TANH_ACCURATE_BOUND = 2

# the ranges where each function is not a constant or a trivial select
DENSE = {
    "exponential": [(-104.0, 89.0), (-1e-3, 1e-3), (-104.0, -87.0), (-200.0, -103.0)],
    "log": [(0.0, 1e-37), (0.5, 2.0), (1.0 - 2**-10, 1.0 + 2**-10), (1e-3, 1e6)],
    "log-plus-one": [(-1.0, 1.0), (-1e-3, 1e-3), (-1.0, -0.5), (0.4, 4.0), (1.0, 3e38),
                     (-2**-23, 2**-23)],
    "tanh": [(-9.0, 9.0), (-2e-3, 2e-3), (-1.0, 1.0)],
    "logistic": [(-105.0, 18.0), (-1e-3, 1e-3), (-104.0, -87.0)],
    "erf": [(-4.0, 4.0), (-2e-3, 2e-3), (1.5, 3.9)],
}


@pytest.fixture(scope="module")
def all_floats():
    return strided_all_floats()


# ---------------------------------------------------------------------------
# the ulp helper itself
# ---------------------------------------------------------------------------
def test_ulp_distance_counts_across_sign_and_specials():
    f = lambda *v: np.array(v, np.float32)  # noqa: E731
    assert ulp_error(f(0.0), f(-0.0))[0] == 0
    assert ulp_error(f(TINY_DENORM), f(-TINY_DENORM))[0] == 2
    assert ulp_error(f(1.0), f(np.nextafter(F32(1), F32(2))))[0] == 1
    assert ulp_error(f(-1.0), f(np.nextafter(F32(-1), F32(0))))[0] == 1
    assert ulp_error(f(FLT_MAX), f(INF))[0] == 1
    assert ulp_error(f(MAX_DENORM), f(MIN_NORMAL))[0] == 1
    assert ulp_error(f(NAN), f(NAN))[0] == 0
    assert ulp_error(f(NAN), f(1.0))[0] == NAN_MISMATCH
    assert ulp_error(f(1.0, 2.0), f(1.0, 4.0)) == (1 << 23, 1)


# ---------------------------------------------------------------------------
# accuracy
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("op", sorted(fm.FAST))
def test_accuracy_whole_float32_range(op, all_floats):
    got = evaluate(fm.FAST[op], all_floats)
    want = reference(op, all_floats)
    worst, at = ulp_error(got, want)
    assert worst <= BOUND[op], f"{op}: {worst} ulp at x={all_floats[at]!r}: got {got[at]!r}, want {want[at]!r}"


@pytest.mark.parametrize("op", sorted(fm.FAST))
def test_accuracy_dense_in_interesting_ranges(op):
    for lo, hi in DENSE[op]:
        x = bit_sweep(lo, hi, 1_000_000)
        got = evaluate(fm.FAST[op], x)
        want = reference(op, x)
        worst, at = ulp_error(got, want)
        assert worst <= BOUND[op], f"{op} on [{lo}, {hi}]: {worst} ulp at x={x[at]!r}"


def test_tanh_accurate_whole_range_and_dense(all_floats):
    for x in (all_floats, bit_sweep(-9.0, 9.0, 1_000_000), bit_sweep(-2e-3, 2e-3, 200_000)):
        worst, at = ulp_error(evaluate(fm.tanh_accurate_f32, x), reference("tanh", x))
        assert worst <= TANH_ACCURATE_BOUND, f"{worst} ulp at x={x[at]!r}"


def test_exp_denormal_results_are_gradual_not_flushed():
    x = bit_sweep(EXP_LAST_NONZERO, EXP_LAST_NORMAL, 200_000)
    got = evaluate(fm.exp_f32, x)
    assert np.all(got > 0) and np.all(got < MIN_NORMAL)
    # every denormal result is within 1 ulp of the denormal grid
    assert ulp_error(got, reference("exponential", x))[0] <= 1


def test_exp_of_mask_values_is_exactly_zero():
    """Below -103.97208 the result is +0, both through the normal path (-176 < x) and through
    the clamp at -176 that makes the scale factor 0 (attention masks' -1e9, -inf)."""
    x = np.concatenate([bit_sweep(-1e9, np.nextafter(EXP_LAST_NONZERO, F32(-1e9)), 200_000),
                        np.array([-176.0, -175.9, -150.0, -1e9, -3.4e38, -INF], np.float32)])
    got = evaluate(fm.exp_f32, x)
    assert np.all(got == 0) and not np.any(np.signbit(got))
    assert evaluate(fm.exp_f32, np.array([EXP_LAST_NONZERO], np.float32))[0] == TINY_DENORM
    assert np.array_equal(evaluate(fm.logistic_f32, np.array([-1e9, -200.0], np.float32)),
                          np.zeros(2, np.float32))


def test_log_denormal_inputs():
    x = bit_sweep(TINY_DENORM, MAX_DENORM, 200_000)
    assert ulp_error(evaluate(fm.log_f32, x), reference("log", x))[0] <= 1


@pytest.mark.parametrize("op", sorted(fm.EXACT))
def test_exact_table_is_libm_accurate(op, all_floats):
    x = all_floats[::7]
    worst, at = ulp_error(evaluate(fm.EXACT[op], x), reference(op, x))
    assert worst <= 3, f"EXACT[{op}]: {worst} ulp at x={x[at]!r}"


def test_odd_functions_are_exactly_odd(all_floats):
    x = all_floats[~np.isnan(all_floats)]
    for fn in (fm.tanh_f32, fm.tanh_accurate_f32, fm.erf_f32):
        a, b = evaluate(fn, x), evaluate(fn, -x)
        assert np.array_equal(a.view(np.int32), (-b).view(np.int32)), fn.__name__


# ---------------------------------------------------------------------------
# special values (exact results)
# ---------------------------------------------------------------------------
def _after(v, direction):
    return np.nextafter(F32(v), F32(direction))


SPECIAL = {
    "exponential": [
        (0.0, 1.0), (-0.0, 1.0), (INF, INF), (-INF, 0.0), (NAN, NAN),
        (FLT_MAX, INF), (-FLT_MAX, 0.0), (TINY_DENORM, 1.0), (-TINY_DENORM, 1.0),
        (MIN_NORMAL, 1.0), (_after(EXP_LAST_FINITE, INF), INF),
        (_after(EXP_LAST_NONZERO, -INF), 0.0), (EXP_LAST_NONZERO, TINY_DENORM),
        (89.0, INF), (-104.0, 0.0), (1000.0, INF), (-1000.0, 0.0),
    ],
    "log": [
        (0.0, -INF), (-0.0, -INF), (INF, INF), (-INF, NAN), (NAN, NAN), (-1.0, NAN),
        (-TINY_DENORM, NAN), (-FLT_MAX, NAN), (1.0, 0.0),
    ],
    "log-plus-one": [
        (0.0, 0.0), (-0.0, -0.0), (INF, INF), (-INF, NAN), (NAN, NAN), (-1.0, -INF),
        (_after(-1.0, -INF), NAN), (-2.0, NAN), (-FLT_MAX, NAN), (TINY_DENORM, TINY_DENORM),
        (-TINY_DENORM, -TINY_DENORM), (MAX_DENORM, MAX_DENORM), (-MAX_DENORM, -MAX_DENORM),
        (MIN_NORMAL, MIN_NORMAL), (F32(2**-25), F32(2**-25)), (1.0, F32(math.log(2.0))),
        (FLT_MAX, F32(math.log(float(FLT_MAX)))),
    ],
    "tanh": [
        (0.0, 0.0), (-0.0, -0.0), (INF, 1.0), (-INF, -1.0), (NAN, NAN),
        (FLT_MAX, 1.0), (-FLT_MAX, -1.0), (TINY_DENORM, TINY_DENORM),
        (-TINY_DENORM, -TINY_DENORM), (MAX_DENORM, MAX_DENORM), (MIN_NORMAL, MIN_NORMAL),
        (10.0, 1.0), (-20.0, -1.0),
    ],
    "logistic": [
        (0.0, 0.5), (-0.0, 0.5), (INF, 1.0), (-INF, 0.0), (NAN, NAN),
        (FLT_MAX, 1.0), (-FLT_MAX, 0.0), (TINY_DENORM, 0.5), (-TINY_DENORM, 0.5),
        (17.5, 1.0), (-104.0, 0.0), (EXP_LAST_NONZERO, TINY_DENORM),
    ],
    "erf": [
        (0.0, 0.0), (-0.0, -0.0), (INF, 1.0), (-INF, -1.0), (NAN, NAN),
        (FLT_MAX, 1.0), (-FLT_MAX, -1.0), (4.0, 1.0), (-4.0, -1.0),
        (TINY_DENORM, TINY_DENORM), (-TINY_DENORM, -TINY_DENORM),
    ],
}


def _same(a, b):
    a, b = F32(a), F32(b)
    if np.isnan(b):
        return bool(np.isnan(a))
    return a == b and np.signbit(a) == np.signbit(b)


@pytest.mark.parametrize("op", sorted(fm.FAST))
def test_special_values(op):
    xs = np.array([x for x, _ in SPECIAL[op]], np.float32)
    got = evaluate(fm.FAST[op], xs)
    bad = [(x, g, w) for x, g, (_, w) in zip(xs, got, SPECIAL[op]) if not _same(g, w)]
    assert not bad, f"{op}: (x, got, want) = {bad}"


def test_tanh_rational_is_exactly_one_from_the_clamp_on():
    # the clamp is Eigen's FMA one (7.9988...) on FMA hosts, else the non-FMA one (7.9053...)
    want = 7.99881172180175781 if fm.HAS_FMA else 7.90531110763549805
    assert fm._TANH_CLAMP == np.float32(want)
    x = np.array([want, 9.0, 100.0], np.float32)
    assert np.all(evaluate(fm.tanh_f32, x) == 1.0)
    assert np.all(evaluate(fm.tanh_f32, -x) == -1.0)


def test_tanh_rational_never_exceeds_one():
    # every float32 in [2, 9]: |tanh_f32| <= 1 (the clamp is late enough, the rational with
    # its fused multiply-adds does not overshoot below it)
    x = bit_sweep(2.0, 9.0, 1 << 22)
    got = evaluate(fm.tanh_f32, x)
    assert np.all(got <= 1.0) and np.all(evaluate(fm.tanh_f32, -x) >= -1.0)
    assert got[-1] == 1.0


def test_fma_is_one_rounding():
    # (1 + 2**-12)**2 - 1 - 2**-11 = 2**-24 exactly; a multiply then add gives 0
    from numba import njit

    @njit
    def f(a, b, c):
        return fm._fma(a, b, c)

    a = np.float32(1 + 2**-12)
    got = f(a, a, np.float32(-(1 + 2**-11)))
    assert got == (np.float32(2**-24) if fm.HAS_FMA else np.float32(0.0))


def test_tanh_accurate_special_values():
    xs = np.array([x for x, _ in SPECIAL["tanh"]], np.float32)
    got = evaluate(fm.tanh_accurate_f32, xs)
    bad = [(x, g, w) for x, g, (_, w) in zip(xs, got, SPECIAL["tanh"]) if not _same(g, w)]
    assert not bad


def test_exp_thresholds():
    got = evaluate(fm.exp_f32, np.array([EXP_LAST_FINITE, EXP_LAST_NORMAL], np.float32))
    assert np.isfinite(got[0]) and got[0] > F32(3.4e38)
    assert got[1] >= MIN_NORMAL


def test_tables_have_the_same_ops():
    assert set(fm.EXACT) == set(fm.FAST) == {"exponential", "log", "log-plus-one", "tanh",
                                             "logistic", "erf"}


# ---------------------------------------------------------------------------
# vectorisation and float32 discipline
# ---------------------------------------------------------------------------
VECTOR_FLOAT = re.compile(r"<(4|8|16) x float>")


def _loop_ir(fn, **jit_options):
    @njit(**jit_options)
    def apply(x, out):
        for i in range(x.size):
            out[i] = fn(x[i])

    x = np.ones(64, np.float32)
    apply(x, np.empty_like(x))
    return apply.inspect_llvm(apply.signatures[0])


@pytest.mark.parametrize("name", ["exp_f32", "log_f32", "log1p_f32", "tanh_f32", "tanh_accurate_f32", "logistic_f32", "erf_f32"])
def test_fast_loop_vectorises_in_float32(name):
    ir = _loop_ir(getattr(fm, name))
    assert VECTOR_FLOAT.search(ir), f"{name}: loop not vectorised"
    assert "double" not in ir, f"{name}: float64 arithmetic in the loop"
    # inlined: no call to the function or to libm remains
    assert not re.search(r"call [^\n]*@_ZN9workbench7codegen8fastmath", ir)
    assert not re.search(r"@(expf|logf|tanhf|erff|exp|log)\(", ir)


def test_libm_loop_calls_libm():
    # for contrast: the EXACT version goes through a libm call (not required to vectorise)
    ir = _loop_ir(fm.EXACT["exponential"])
    assert re.search(r"call [^\n]*(expf|llvm\.exp\.f32)", ir)


def test_fused_kernel_with_several_calls_vectorises():
    exp_f32, log_f32, tanh_f32, logistic_f32, erf_f32 = (
        fm.exp_f32, fm.log_f32, fm.tanh_f32, fm.logistic_f32, fm.erf_f32)
    half = F32(0.5)

    @njit
    def kernel(x, out):
        for i in range(x.size):
            v = x[i]
            out[i] = (half * v * (F32(1) + erf_f32(v)) + tanh_f32(v) + logistic_f32(v)
                      + exp_f32(v) * log_f32(abs(v)))

    x = np.linspace(-3, 3, 64).astype(np.float32)
    kernel(x, np.empty_like(x))
    ir = kernel.inspect_llvm(kernel.signatures[0])
    assert VECTOR_FLOAT.search(ir) and "double" not in ir


def test_fastmath_caller_keeps_exact_semantics():
    # LLVM-level inlining keeps the callee's strict flags: bitwise the same
    # results (special values included) inside a fastmath=True kernel.
    x = np.concatenate([bit_sweep(-120.0, 120.0, 100_000),
                        np.array([NAN, INF, -INF, 0.0, -0.0, TINY_DENORM, -TINY_DENORM], np.float32)])
    for name, fn in fm.FAST.items():
        @njit(fastmath=True)
        def fast_kernel(x, out):
            for i in range(x.size):
                out[i] = fn(x[i])

        out = np.empty_like(x)
        fast_kernel(x, out)
        assert np.array_equal(out.view(np.int32), evaluate(fn, x).view(np.int32)), name

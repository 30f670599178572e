"""Branch-free float32 sin, cos, pow and expm1 that LLVM can vectorise, computed in
float64 inside.

Like :mod:`workbench.codegen.fastmath` (read its notes on how these functions are compiled
and called), these replace scalar C-library calls that stop LLVM from vectorising a kernel's
loop. Here the work is done in float64, where a float32 result needs no extra-precision
tricks: the float64 arithmetic itself carries ~29 guard bits, so a plain polynomial or series
gives a float32 result within about one ulp. Every special case is a select, so the loop body
has no branch.

Accuracy (ulp = distance in the integer-ordered float32 representation, against numpy's
float64 function rounded to float32), as ``tests/codegen/test_fastmath_f64.py`` asserts it:
over every 131st float32 bit pattern (33 million values across the whole range, NaNs and
infinities among them), dense sweeps of [-100, 100] (sin, cos), of |x| from 4e8 to 3e38 (the
large-argument reduction), of [-1, 1] (expm1), pow over 2**20-value grids (positive
x over 60 decades with |y| <= 3.5, x in [0, 8] with |y| <= 40, negative x with integer y),
and every pair of special values:

==========  =================================================================  =======
function    method                                                             max ulp
==========  =================================================================  =======
sin_f32     |x| < 2**28 pi/2: Cody-Waite x - n pi/2 in float64 (musl             1
cos_f32     ``__rem_pio2f``); larger: Payne-Hanek with 96 bits of 2/pi            1
            (table below); musl ``__sindf``/``__cosdf`` polynomials
pow_f32     2**(y log2 x) in float64: log by ``atanh`` series, exp2 by Taylor       1
expm1_f32   |x| < 0.5: Taylor series in float64; else exp in float64, minus 1      1
==========  =================================================================  =======

Special values follow C99 (``sin(+-inf) = NaN``, ``pow(x, 0) = 1`` even for NaN x,
``pow(1, y) = 1``, ``pow(-1, +-inf) = 1``, ``pow(x<0, non-integer) = NaN``, ``pow(-0, odd
y<0) = -inf``, ``expm1(-inf) = -1``, NaN in ->
NaN out, signed zeros kept).

Sources: S. L. Moshier's Cephes and musl libc (``src/math/__rem_pio2f.c``,
``__sindf.c``, ``__cosdf.c``: the medium-range reduction constants and the sin/cos
polynomial coefficients); M. H. Payne and R. N. Hanek, "Radian reduction for trigonometric
functions", SIGNUM Newsletter 18(1), 1983 (the large-argument reduction; 2/pi computed here
from Machin's formula, pi = 16 atan(1/5) - 4 atan(1/239), in integer arithmetic); the
``atanh`` form of the logarithm, log(1 + f) = 2 atanh(f / (2 + f)) (e.g. fdlibm ``e_log.c``),
and the Taylor series of 2**f and of e**x - 1 (coefficients ln(2)**k / k! and 1 / k!).
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir as _llir
from numba import njit, types
from numba.extending import intrinsic

from workbench.codegen.fastmath import _as_i32

__all__ = ["sin_f32", "cos_f32", "sin_reduced", "cos_reduced", "STAGED", "MEDIUM_LIMIT", "pow_f32", "expm1_f32", "FAST", "EXACT"]

_JIT = dict(cache=True, error_model="numpy")
_D, _F, _L = np.float64, np.float32, np.int64


@intrinsic
def _as_i64(typingctx, x):
    """The bits of a float64 as an int64."""
    if x != types.float64:
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], _llir.IntType(64))
    return types.int64(types.float64), codegen


@intrinsic
def _as_f64(typingctx, i):
    """An int64's bits as a float64."""
    if i != types.int64:
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], _llir.DoubleType())
    return types.float64(types.int64), codegen


# ----- the bits of 2/pi for the large-argument reduction --------------------------------------

def _two_over_pi_bits(bits: int) -> int:
    """floor(2/pi * 2**bits), from Machin's formula in integer arithmetic."""
    def arctan_inv(x: int, prec: int) -> int:       # atan(1/x) * 2**prec
        term = (1 << prec) // x
        total, n, sign = term, 1, -1
        while term:
            term //= x * x
            total += sign * (term // (2 * n + 1))
            sign, n = -sign, n + 1
        return total
    guard = bits + 64
    pi = 16 * arctan_inv(5, guard) - 4 * arctan_inv(239, guard)
    return (2 << (2 * guard)) // pi >> (guard - bits)


def _payne_hanek_table() -> np.ndarray:
    """Row ``E - 155`` (``E``: the biased exponent of a float32 ``x = m * 2**(E - 150)`` with
    ``|x| >= 2**28 pi / 2``): ``(2**(E - 150) * 2/pi) mod 4`` as four float64 chunks of 24
    bits (weights 2**1..2**-22, 2**-23..2**-46, 2**-47..2**-70, 2**-71..2**-94), so that
    ``m * chunk`` is exact in float64."""
    t = _two_over_pi_bits(256 + 104)
    rows = []
    for e in range(5, 105):
        f = ((t << e) >> (256 + 104 - 94)) % (1 << 96)
        rows.append([((f >> s) & 0xFFFFFF) * 2.0 ** (s - 94) for s in (72, 48, 24, 0)])
    return np.array(rows, dtype=np.float64)


_PH = _payne_hanek_table()
_PH_LAST = _PH.shape[0] - 1

# musl __rem_pio2f.c: pio2_1 holds the first 25 bits of pi/2, so n * pio2_1 is exact for
# |n| < 2**28; pio2_1t = pi/2 - pio2_1
_INVPIO2 = 6.36619772367581382433e-01
_PIO2_1 = 1.57079631090164184570e+00
_PIO2_1T = 1.58932547735281966916e-08
_PIO2 = math.pi / 2
_SIN_TINY = 2.0 ** -12             # below it sin x rounds to x in float32 (x**3/6 < ulp/2)
_MEDIUM_BITS = 0x4DC90FDB          # |x| below this (2**28 pi/2): the medium-range reduction
_TOINT = 6755399441055744.0        # 1.5 * 2**52: x + TOINT - TOINT rounds x to an integer
# musl __sindf.c / __cosdf.c: |sin(x)/x - s(x)| < 2**-37.5, |cos(x) - c(x)| < 2**-34.1 on
# [-pi/4, pi/4]
_S1, _S2 = -0.166666666416265235595, 0.0083333293858894631756
_S3, _S4 = -0.000198393348360966317347, 0.0000027183114939898219064
_C0, _C1 = -0.499999997251031003120, 0.0416666233237390631894
_C2, _C3 = -0.00138867637746099294692, 0.0000243904487962774090654


#: the float32 magnitude from which :func:`_reduce_medium` is not accurate (2**28 pi/2)
MEDIUM_LIMIT = float(np.array([_MEDIUM_BITS], np.int32).view(np.float32)[0])


@njit("Tuple((float64, int64))(float32)", **_JIT)
def _reduce_medium(x):
    """(r, n): x = n pi/2 + r with |r| <= ~pi/4, in float64, for |x| < :data:`MEDIUM_LIMIT`
    (musl ``__rem_pio2f``: n pi/2 in two parts, the first exact in n * pio2_1)."""
    xd = _D(x)
    fn = (xd * _INVPIO2 + _TOINT) - _TOINT
    return (xd - fn * _PIO2_1) - fn * _PIO2_1T, _L(fn)


@njit("Tuple((float64, int64))(float32)", **_JIT)
def _reduce_pio2(x):
    """(r, n): x = n pi/2 + r with |r| <= ~pi/4, in float64 (any finite float32 x): the
    medium-range reduction, or Payne-Hanek from :data:`MEDIUM_LIMIT` on (both computed, one
    selected: branch-free, and about 4x the cost of the medium range alone)."""
    r_med, n_med = _reduce_medium(x)
    # Payne-Hanek for |x| >= 2**28 pi/2 (computed for every x, selected below)
    ix = np.bitwise_and(_as_i32(x), np.int32(0x7FFFFFFF))
    row = min(max(np.right_shift(ix, np.int32(23)) - 155, 0), _PH_LAST)
    m = _D(np.bitwise_or(np.bitwise_and(ix, np.int32(0x7FFFFF)), np.int32(0x800000)))
    p0 = m * _PH[row, 0]
    p0 = p0 - 4.0 * np.floor(p0 * 0.25)
    s = p0 + m * _PH[row, 1]                      # exact: < 8, a multiple of 2**-46
    q = (s + _TOINT) - _TOINT
    f = s - q
    p2, p3 = m * _PH[row, 2], m * _PH[row, 3]
    hi = f + p2                                   # TwoSum(f, p2)
    bb = hi - f
    lo = (f - (hi - bb)) + (p2 - bb) + p3
    r_big = (hi + lo) * _PIO2
    n_big = _L(q)
    neg = x < 0
    r_big = -r_big if neg else r_big
    n_big = -n_big if neg else n_big
    big = ix >= _MEDIUM_BITS
    return (r_big if big else r_med), (n_big if big else n_med)


@njit("float64(float64)", **_JIT)
def _sin_poly(r):
    z = r * r
    w = z * z
    s = z * r
    return (r + s * (_S1 + z * _S2)) + s * w * (_S3 + z * _S4)


@njit("float64(float64)", **_JIT)
def _cos_poly(r):
    z = r * r
    w = z * z
    return ((1.0 + z * _C0) + w * _C1) + (w * z) * (_C2 + z * _C3)


@njit("float32(Tuple((float64, int64)), float32)", **_JIT)
def sin_reduced(rn, x):
    """sin(x) from ``rn = _reduce_pio2(x)``: ``sin r``, ``cos r``, ``-sin r`` or ``-cos r`` by
    ``n mod 4``; NaN for an infinite ``x``. (A kernel calls the two stages itself: each is
    small enough for LLVM to inline into the kernel's loop, which it then vectorises; one
    function holding both was not inlined, and the loop stayed scalar.)"""
    r, n = rn
    odd = (n & 1) == 1
    v = _cos_poly(r) if odd else _sin_poly(r)
    v = -v if (n & 2) == 2 else v
    v = _D(x) if abs(x) < _SIN_TINY else v           # sin x = x to float32 (and -0 kept)
    return _F(v) if abs(x) < np.inf else x - x


@njit("float32(Tuple((float64, int64)), float32)", **_JIT)
def cos_reduced(rn, x):
    """cos(x) from ``rn = _reduce_pio2(x)`` (see :func:`sin_reduced`): ``cos r``, ``-sin r``,
    ``-cos r``, ``sin r``."""
    r, n = rn
    odd = (n & 1) == 1
    v = _sin_poly(r) if odd else _cos_poly(r)
    v = -v if ((n + 1) & 2) == 2 else v
    return _F(v) if abs(x) < np.inf else x - x


@njit("float32(float32)", **_JIT)
def sin_f32(x):
    """Sine of a float32 (max 1 ulp; see the module notes): ``x = n pi/2 + r``
    (:func:`_reduce_pio2`: the musl medium-range reduction, or Payne-Hanek for
    ``|x| >= 2**28 pi/2``), then :func:`sin_reduced` (musl's polynomials, in float64).
    ``sin(+-inf) = NaN``, ``sin(+-0) = +-0``, NaN -> NaN. Kernels call the two stages
    directly (:data:`STAGED`): this one-call form is for direct use."""
    return sin_reduced(_reduce_pio2(x), x)


@njit("float32(float32)", **_JIT)
def cos_f32(x):
    """Cosine of a float32 (max 1 ulp): :func:`cos_reduced` of :func:`_reduce_pio2`.
    ``cos(+-inf) = NaN``."""
    return cos_reduced(_reduce_pio2(x), x)


# ----- log and exp in float64 -----------------------------------------------------------------

_LN2 = math.log(2.0)
_SQRTHF_BITS64 = _L(0x3FE6A09E667F3BCD)   # float64 sqrt(1/2)


@njit("float64(float64)", **_JIT)
def _log_pos(u):
    """log(u) for a finite float64 u > 0 of normal range (relative error ~2**-40):
    ``u = 2**e m``, ``sqrt(1/2) <= m < sqrt(2)`` from the bits, ``s = f / (2 + f)`` with
    ``f = m - 1``, ``log m = 2 (s + s**3/3 + ... + s**15/15)`` (|s| <= 0.1716)."""
    iu = _as_i64(u)
    e = np.right_shift(np.subtract(iu, _SQRTHF_BITS64), _L(52))
    m = _as_f64(np.subtract(iu, np.left_shift(e, _L(52))))
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    p = ((((((z / 15.0 + 1.0 / 13.0) * z + 1.0 / 11.0) * z + 1.0 / 9.0) * z + 1.0 / 7.0) * z
          + 1.0 / 5.0) * z + 1.0 / 3.0) * z
    return _D(e) * _LN2 + 2.0 * (s + s * p)


@njit("float64(float64)", **_JIT)
def _exp2_clamped(t):
    """2**t in float64 for t in [-200, 200] (clamped): ``t = n + f``, ``|f| <= 1/2``, the
    Taylor series of ``2**f = e**(f ln 2)`` to degree 11 (relative error < 2**-42), times
    ``2**n`` from its exponent bits."""
    t = min(max(t, -200.0), 200.0)
    n = (t + _TOINT) - _TOINT
    g = (t - n) * _LN2
    p = 1.0 / 39916800.0
    for k in (3628800.0, 362880.0, 40320.0, 5040.0, 720.0, 120.0, 24.0, 6.0, 2.0, 1.0, 1.0):
        p = p * g + 1.0 / k
    return p * _as_f64(np.left_shift(_L(n) + _L(1023), _L(52)))


@njit("float32(float32, float32)", **_JIT)
def pow_f32(x, y):
    """``x ** y`` for float32, vectorisable (max 1 ulp): ``2**(y log2 |x|)`` in float64
    (:func:`_log_pos`, :func:`_exp2_clamped`; results beyond float32's range round to inf or
    to 0, denormal results round once), the sign from an odd integer ``y``; the C99 special
    cases as selects (module notes)."""
    ax = abs(_D(x))
    yd = _D(y)
    tiny = ax < 1e-300
    lg = _log_pos(ax if (~tiny) & (ax < np.inf) else 1.0)
    t = yd * lg / _LN2
    mag = _exp2_clamped(t)
    # |x| = 0 or inf: 0 ** y>0 = 0, 0 ** y<0 = inf, inf ** y>0 = inf, inf ** y<0 = 0
    zero_or_inf = tiny | (ax == np.inf)
    mag = ((0.0 if (yd > 0) == tiny else np.inf) if zero_or_inf else mag)
    y_int = np.floor(yd) == yd
    y_odd = y_int & (abs(yd) < 9007199254740992.0) & (np.floor(yd * 0.5) * 2.0 != yd)
    neg = _as_i32(x) < 0                                     # -0 included
    v = -mag if neg & y_odd else mag
    v = np.nan if (x < 0) & (x > -np.inf) & (~y_int) & (abs(yd) < np.inf) else v
    v = 1.0 if (ax == 1.0) & (abs(yd) == np.inf) else v      # (-1) ** +-inf = 1
    v = np.nan if (x != x) | (y != y) else v
    v = 1.0 if (y == 0) | (x == 1) else v
    return _F(v)


@njit("float32(float32)", **_JIT)
def expm1_f32(x):
    """``e**x - 1`` for float32, vectorisable (max 1 ulp): for ``|x| < 1/2`` the Taylor
    series to degree 13 in float64 (no cancellation), else ``e**x`` in float64
    (:func:`_exp2_clamped`) minus 1. ``expm1(x > 88.73) = inf``, ``expm1(-inf) = -1``,
    ``expm1(+-0) = +-0``, NaN -> NaN."""
    xd = _D(x)
    p = 1.0 / 6227020800.0
    for k in (479001600.0, 39916800.0, 3628800.0, 362880.0, 40320.0, 5040.0, 720.0, 120.0,
              24.0, 6.0, 2.0, 1.0):
        p = p * xd + 1.0 / k
    small = p * xd
    big = _exp2_clamped(xd / _LN2) - 1.0
    v = small if abs(xd) < 0.5 else big
    v = -1.0 if x == -np.inf else v
    return _F(v) if x == x else x


@njit("float32(float32)", **_JIT)
def _exact_sin(x):
    """``sinf`` from the C library."""
    return math.sin(x)


@njit("float32(float32)", **_JIT)
def _exact_cos(x):
    """``cosf`` from the C library."""
    return math.cos(x)


@njit("float32(float32, float32)", **_JIT)
def _exact_pow(x, y):
    """``powf`` from the C library."""
    return math.pow(x, y)


@njit("float32(float32)", **_JIT)
def _exact_expm1(x):
    """``expm1f`` from the C library."""
    return math.expm1(x)


#: ops a kernel computes in two calls, ``second(first(x), x)``, so that each inlines:
#: ``(first, second, first for any range)``. The CPU backend runs a loop with ``first`` (the
#: medium-range reduction, valid below :data:`MEDIUM_LIMIT`) and counts the arguments at or
#: beyond that limit; when there was one, it runs the loop again with the full-range
#: reduction (workbench.codegen.cpu), so the common case pays for no Payne-Hanek.
STAGED = {"sine": (_reduce_medium, sin_reduced, _reduce_pio2),
          "cosine": (_reduce_medium, cos_reduced, _reduce_pio2)}
#: HLO op name -> the vectorisable float32 function
FAST = {"sine": sin_f32, "cosine": cos_f32, "power": pow_f32, "exponential-minus-one": expm1_f32}
#: HLO op name -> the C library's float32 function (not vectorisable)
EXACT = {"sine": _exact_sin, "cosine": _exact_cos, "power": _exact_pow, "exponential-minus-one": _exact_expm1}

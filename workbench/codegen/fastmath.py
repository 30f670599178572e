"""Branch-free float32 math functions that LLVM can vectorise inside numba loops.

numba on the CPU lowers ``math.exp``/``math.log``/``math.tanh``/``math.erf`` to
calls into the scalar C library (PyPI's llvmlite ships no SVML), so a loop that
contains one of them is not vectorised.  XLA's CPU backend and Eigen instead emit
branch-free polynomial or rational approximations; this module does the same, as
numba-jittable scalar functions of one ``float32`` argument.  Called from a
simple ``for``/``prange`` loop over arrays, LLVM inlines them and vectorises the
loop (``<16 x float>`` vectors on the AVX-512 Zen 4 host they were measured on;
LLVM picks the width for the host CPU).

Accuracy
--------
Measured exhaustively over all 2**32 float32 inputs against the float64 C
library result rounded to float32 (ulp = distance in the integer-ordered
representation of float32, so denormal results are counted on the denormal
grid):

=================  ============================================  =======
function           method                                        max ulp
=================  ============================================  =======
exp_f32            Cody-Waite reduction + Cephes ``expf`` poly   1
log_f32            bit-level frexp + Cephes ``logf`` poly        1
log1p_f32          musl ``log1pf`` correction + ``logf`` poly    1
tanh_f32           Eigen/XLA 13/6 rational (clamp +-7.9988)      5
tanh_accurate_f32  Cephes ``tanhf``: poly / exp-based formula    1
logistic_f32       e/(1+e) or 1/(1+e), e = exp_f32(-abs(x))      2
erf_f32            Eigen 9/12 rational (clamp +-3.8325)          7
=================  ============================================  =======

Special values follow IEEE/C99 (``exp(-inf) = 0``, ``log(0) = -inf``,
``tanh(+-inf) = +-1``, NaN in -> NaN out, signed zeros preserved where the C
library preserves them; ``log1p(-1) = -inf``, ``log1p(x < -1) = NaN``).  Denormal inputs and results are handled (not flushed):
``exp_f32`` underflows gradually for -103.97 < x < -87.34, ``log_f32`` is exact
to 1 ulp for denormal inputs, ``log1p_f32`` returns them unchanged.  Results are bitwise reproducible between the
scalar and the vectorised code: no FMA contraction is enabled, and the fused
multiply-adds of the polynomials are explicit (``_fma``, ``llvm.fma.f32``).

Fused multiply-add
------------------
Every Horner step ``p * x + c`` (and the Cody-Waite products of ``exp``, ``log``) is one
``_fma``: a hardware FMA instruction where the host has one (``HAS_FMA``: x86 FMA3 as on the
Zen 3 development host, every AArch64), otherwise an ordinary multiply and add, i.e. the
pre-FMA functions exactly (and tanh's non-FMA clamp +-7.905, 7 ulp). The bounds above were
measured exhaustively with FMA; FMA halved the dependent-latency chain and the instruction
count of each polynomial. Measured on the 2-core development VM (loaded, load average 5-6,
serial loops over 2**22 elements, minimum CPU time, interleaved with the pre-FMA module):
exp 0.83 -> 0.68, log 1.21 -> 0.95, log1p 1.33 -> 1.03, tanh 0.74 -> 0.52, erf 0.73 -> 0.57,
logistic 1.17 -> 0.82 ns per element; the ``exp(tanh(x)*y) - log1p(|y|)`` chain 3.5 -> 2.7.
``log_f32`` and ``log1p_f32`` share the Cephes polynomial (``_log_poly``).

How to call them
----------------
The functions are plain ``numba.njit`` functions (numba's default
``inline="never"``), compiled with ``error_model="numpy"`` and no fast-math
flags; LLVM inlines them into the caller and vectorises the caller's loop.  We
deliberately do not use numba's IR-level ``inline="always"``: it re-compiles
the body with the *caller's* flags, so a ``fastmath=True`` kernel would let
LLVM delete the NaN/inf selects (``log_f32(inf)`` then returned 88.7) and the
caller's error model would re-insert a zero-division check that blocks
vectorisation.  With LLVM-level inlining the instructions keep their own
(strict) flags, so results are bitwise identical in ``fastmath=True`` callers.
Divisions use ``np.divide``, which never emits a ``ZeroDivisionError`` branch,
whatever error model the body ends up compiled with.

Integer arithmetic on the bit patterns uses numpy ufuncs (``np.add``,
``np.right_shift``, ...) because numba widens ``int32 op int32`` to int64,
which would double the vector registers needed.

``EXACT`` and ``FAST`` map HLO op names (``'exponential'``, ``'log'``,
``'log-plus-one'``, ``'tanh'``, ``'logistic'``, ``'erf'``) to jittable float32 functions: the C
library versions (``expf``, ``logf``, ``log1pf``, ``tanhf``, ``erff``; logistic in float64;
at most 1-2 ulp, not vectorised) and the approximations above, so a code
generator can offer an ``exact=True`` option.  ``tanh_accurate_f32`` is not in
``FAST`` (which follows XLA's choice of the rational); use it where 7 ulp near
+-1 matters.  (log1p was computed in float64 by workbench.codegen.fastmath_f64 before;
the float32 ``log1p_f32`` is as accurate, 1 ulp, and about 2.5x faster: 3.8 against 9.6 ns
per element in a 2-thread ``prange`` loop over 2**22 elements, interleaved runs on the
2-core development VM.)  On 2**22 elements the fast loops were 4.5-6x (exp, log), 8x
(logistic) and 35-60x (tanh, erf) faster than the ``EXACT`` loops; see
``bench/bench_fastmath.py``.

CUDA: these are CPU functions.  The CUDA backend should keep using
``math.exp``/``math.log``/``math.tanh``/``math.erf`` (or ``fastmath=True``,
which maps to the hardware ``__expf``-style approximations); the GPU has special
function units and gains nothing from these polynomials.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir as _llir
from numba import njit, types
from numba.extending import intrinsic

__all__ = [
    "exp_f32",
    "log_f32",
    "log1p_f32",
    "tanh_f32",
    "tanh_accurate_f32",
    "logistic_f32",
    "erf_f32",
    "EXACT",
    "FAST",
]

_F = np.float32
_I = np.int32

# See the module docstring for why this is not ``inline="always"``. The explicit signature
# compiles each function once, at import, with its own flags: called lazily from a kernel
# compiled with fastmath={'contract', ...}, numba would compile (and cache!) the callee with the
# caller's flags, and a later direct call would load that different code from the cache (seen:
# tanh_f32(9) gave 0.99999976 instead of 1 after a fused kernel had run). LLVM still inlines
# the precompiled body into kernels and vectorises it.
_SIG = "float32(float32)"
_JIT = dict(cache=True, error_model="numpy")


# ---------------------------------------------------------------------------
# Bit casts between float32 and int32 (an LLVM ``bitcast``: free in vector code)
# ---------------------------------------------------------------------------
@intrinsic
def _as_i32(typingctx, x):
    """Reinterpret the bits of a float32 as an int32."""
    if x != types.float32:
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], _llir.IntType(32))

    return types.int32(types.float32), codegen


@intrinsic
def _as_f32(typingctx, i):
    """Reinterpret the low 32 bits of an integer as a float32."""
    if not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        v = args[0]
        if v.type.width > 32:
            v = builder.trunc(v, _llir.IntType(32))
        elif v.type.width < 32:
            v = builder.sext(v, _llir.IntType(32))
        return builder.bitcast(v, _llir.FloatType())

    return types.float32(i), codegen


def _host_has_fma() -> bool:
    """Whether the CPU numba compiles for (the host) has fused multiply-add instructions."""
    try:
        import llvmlite.binding as llvm

        return bool(llvm.get_host_cpu_features().get("fma", False))
    except Exception:  # pragma: no cover - feature query unavailable: assume none
        return False


#: True when :func:`_fma` is a hardware fused multiply-add (x86 FMA3: Haswell, Zen and
#: later; AArch64 always); False: an ordinary multiply and add. The bounds in the module
#: docstring were measured with FMA (the development host, AMD EPYC Zen 3, has it); without
#: FMA the functions are the pre-FMA versions (same bounds, tanh with its non-FMA clamp).
HAS_FMA = _host_has_fma()


@intrinsic
def _fma(typingctx, a, b, c):
    """``a * b + c`` of three float32, rounded once (``llvm.fma.f32``) where the host has
    FMA, else a multiply and an add (rounded twice). Explicit, not left to LLVM's
    ``contract`` flag, so the scalar and the vectorised code round identically."""
    if not (a == b == c == types.float32):
        return None

    def codegen(context, builder, sig, args):
        x, y, z = args
        if not HAS_FMA:
            return builder.fadd(builder.fmul(x, y), z)
        fn = builder.module.globals.get("llvm.fma.f32")
        if fn is None:
            fn = _llir.Function(builder.module, _llir.FunctionType(x.type, [x.type] * 3),
                                "llvm.fma.f32")
        return builder.call(fn, [x, y, z])

    return types.float32(types.float32, types.float32, types.float32), codegen


_ZERO = _F(0.0)
_HALF = _F(0.5)
_ONE = _F(1.0)
_TWO = _F(2.0)
_INF = _F(np.inf)
_NEG_INF = _F(-np.inf)
_NAN = _F(np.nan)
_I1 = _I(1)
_I23 = _I(23)
_BIAS = _I(127)
_SIGN_MASK = _I(-0x80000000)  # 0x80000000

# ---------------------------------------------------------------------------
# exp
# ---------------------------------------------------------------------------
# Clamp: exp(89) overflows; exp(x) rounds to 0 for x < -103.97208. The low end is -176, not
# -104: there n = round(-176 * log2(e)) = -254, so n1 = n >> 1 = -127 and the scale factor
# 2**n1 is built from exponent bits 0, i.e. it is +0.0, and the result is y * 0 * 2**n2 = +0
# without an underflowing multiply. Clamped at -104 (n = -150), the last multiply produced 0
# by underflow, which the CPU handles with a slow microcode assist: exp of the -1e9 entries of
# an attention mask ran 2.1x slower than exp of ordinary inputs (1.02 ms against 0.49 ms per
# 2**20 elements on the 2-core AMD EPYC development machine; with -176: 0.40 ms for both).
# Inputs in (-176, -103.97) still underflow (slowly) to the correct 0, and results in the
# denormal range (-103.97, -87.34) are correct and slow, as any gradual underflow is.
_EXP_HI = _F(89.0)
_EXP_LO = _F(-176.0)
_LOG2E = _F(1.44269504088896341)
# Adding 1.5 * 2**23 rounds to an integer (round-half-even) and leaves that
# integer in the low mantissa bits.
_SHIFTER = _F(12582912.0)
_SHIFTER_BITS = _I(0x4B400000)
# Cody & Waite split of ln 2 (Cephes expf.c / logf.c): C1 has 9 significant bits,
# so n * C1 is exact for |n| <= 2**15 (here |n| <= 254); C1 + C2 = ln 2 to float32 precision.
_LN2_HI = _F(0.693359375)
_LN2_LO = _F(-2.12194440e-4)
# Cephes expf.c polynomial: exp(r) ~= 1 + r + r**2 * P(r) on [-ln2/2, ln2/2].
_EXP_P0 = _F(1.9875691500e-4)
_EXP_P1 = _F(1.3981999507e-3)
_EXP_P2 = _F(8.3334519073e-3)
_EXP_P3 = _F(4.1665795894e-2)
_EXP_P4 = _F(1.6666665459e-1)
_EXP_P5 = _F(5.0000001201e-1)


@njit(_SIG, **_JIT)
def exp_f32(x):
    """Exponential of a float32, branch-free and vectorisable.

    Formula: clamp ``x`` to [-176, 89] (at -176 the scale ``2**n1`` below is
    exactly 0, so the -1e9 entries of attention masks cost no underflow);
    ``n = round(x * log2(e))`` (by the 1.5*2**23 shifter trick, so no
    float->int conversion is needed);
    Cody-Waite reduction ``r = (x - n*C1) - n*C2`` with ``C1 + C2 = ln 2``;
    ``exp(r) = 1 + r + r**2 * P(r)`` with the degree-5 minimax ``P`` of
    Cephes ``expf.c``; result ``exp(r) * 2**n1 * 2**n2`` with
    ``n1 = n >> 1``, ``n2 = n - n1``, each ``2**k`` built from its exponent
    bits ``(k + 127) << 23``.  Splitting the scale keeps both factors normal,
    so results in the denormal range are rounded once (gradual underflow) and
    ``exp(88.72283)`` does not overflow prematurely.

    Sources: W. J. Cody & W. Waite, *Software Manual for the Elementary
    Functions* (1980) for the reduction; S. L. Moshier, Cephes Math Library
    ``single/expf.c`` for C1, C2 and the polynomial coefficients (also used
    by Eigen's older ``pexp_float``, Eigen/src/Core/arch/Default/
    GenericPacketMathFunctions.h).

    Parameters
    ----------
    x : float32

    Returns
    -------
    float32
        ``exp(x)``.  Max error over all float32 inputs: 1 ulp (measured
        exhaustively, including denormal results).

    Notes
    -----
    Special values: ``x > 88.72283`` (0x42B17217, the largest input with a
    finite result) -> ``+inf``, also ``+inf`` -> ``+inf``;
    ``x < -103.97208`` (0xC2CFF1B4, the smallest input with a nonzero result,
    2**-149) -> ``+0``, also ``-inf`` -> ``+0``; results for
    ``-103.97208 <= x < -87.33654`` are denormal and correct to 1 ulp of the
    denormal grid (gradual underflow, not flushed); ``exp(+-0) = 1``;
    NaN -> NaN.
    """
    xc = min(max(x, _EXP_LO), _EXP_HI)  # NaN passes through numba's min/max
    t = _fma(xc, _LOG2E, _SHIFTER)
    n_i = np.subtract(_as_i32(t), _SHIFTER_BITS)
    n = _F(n_i)
    r = _fma(n, -_LN2_HI, xc)  # exact: n * C1 is exact
    r = _fma(n, -_LN2_LO, r)
    r2 = r * r
    p = _fma(_fma(_fma(_fma(_fma(_EXP_P0, r, _EXP_P1), r, _EXP_P2), r, _EXP_P3), r, _EXP_P4),
             r, _EXP_P5)
    y = _fma(p, r2, r) + _ONE
    n1 = np.right_shift(n_i, _I1)
    n2 = np.subtract(n_i, n1)
    s1 = _as_f32(np.left_shift(np.add(n1, _BIAS), _I23))
    s2 = _as_f32(np.left_shift(np.add(n2, _BIAS), _I23))
    return (y * s1) * s2


# ---------------------------------------------------------------------------
# log
# ---------------------------------------------------------------------------
_FLT_MIN = _F(1.17549435e-38)  # smallest normal, 2**-126
_TWO23 = _F(8388608.0)
_MINUS23 = _F(-23.0)
_SQRTHF_BITS = _I(0x3F3504F3)  # bits of float32(sqrt(0.5))
# Cephes logf.c: log(1+f) ~= f - f**2/2 + f**3 * P(f), sqrt(1/2)-1 <= f < sqrt(2)-1.
_LOG_P0 = _F(7.0376836292e-2)
_LOG_P1 = _F(-1.1514610310e-1)
_LOG_P2 = _F(1.1676998740e-1)
_LOG_P3 = _F(-1.2420140846e-1)
_LOG_P4 = _F(1.4249322787e-1)
_LOG_P5 = _F(-1.6668057665e-1)
_LOG_P6 = _F(2.0000714765e-1)
_LOG_P7 = _F(-2.4999993993e-1)
_LOG_P8 = _F(3.3333331174e-1)


@njit("float32(float32, float32)", **_JIT)
def _log_poly(f, z):
    """``f**3 * P(f)`` of Cephes ``logf.c`` (degree-8 ``P``; ``z = f*f``), the part of
    ``log(1 + f) ~= f - f**2/2 + f**3 * P(f)`` shared by :func:`log_f32` and
    :func:`log1p_f32`, evaluated by Horner's rule with fused multiply-adds. Valid for
    ``sqrt(1/2) - 1 <= f < sqrt(2) - 1``."""
    p = _fma(_fma(_fma(_fma(_fma(_fma(_fma(_fma(_LOG_P0, f, _LOG_P1), f, _LOG_P2), f, _LOG_P3),
                                    f, _LOG_P4), f, _LOG_P5), f, _LOG_P6), f, _LOG_P7),
             f, _LOG_P8)
    return p * f * z


@njit(_SIG, **_JIT)
def log_f32(x):
    """Natural logarithm of a float32, branch-free and vectorisable.

    Formula: write ``x = 2**e * m`` with ``sqrt(1/2) <= m < sqrt(2)`` directly
    from the bits: ``k = bits(x) - bits(sqrt(1/2))``, ``e = k >> 23``
    (arithmetic shift), ``bits(m) = bits(x) - (e << 23)``.  Denormal inputs are
    first scaled by 2**23 (and ``e`` corrected by -23).  With ``f = m - 1``:
    ``log(x) = f - f**2/2 + f**3 * P(f) + e*C2 + e*C1`` where ``P`` is the
    degree-8 polynomial of Cephes ``logf.c`` and ``C1 + C2 = ln 2`` is the
    Cody-Waite split (``e * C1`` is exact).

    Sources: S. L. Moshier, Cephes Math Library ``single/logf.c``
    (coefficients, also in Eigen's older ``plog_float``,
    Eigen/src/Core/arch/Default/GenericPacketMathFunctions.h); the integer
    range reduction is the classic one of e.g. musl ``logf.c``.

    Parameters
    ----------
    x : float32

    Returns
    -------
    float32
        ``log(x)``.  Max error over all float32 inputs: 1 ulp (measured
        exhaustively, denormal inputs included).

    Notes
    -----
    Special values: ``log(+-0) = -inf``, ``log(x < 0) = NaN``,
    ``log(-inf) = NaN``, ``log(+inf) = +inf``, NaN -> NaN; ``log(1) = 0``.
    """
    sub = x < _FLT_MIN
    xs = x * _TWO23 if sub else x
    eadj = _MINUS23 if sub else _ZERO
    ix = _as_i32(xs)
    e = np.right_shift(np.subtract(ix, _SQRTHF_BITS), _I23)
    m = _as_f32(np.subtract(ix, np.left_shift(e, _I23)))
    f = m - _ONE
    fe = _F(e) + eadj
    z = f * f
    y = _log_poly(f, z)
    y = _fma(fe, _LN2_LO, y)
    y = y - _HALF * z
    r = f + y
    r = r + fe * _LN2_HI
    # Special values, as selects (LLVM turns these into vector blends).
    r = r if x >= _ZERO else _NAN  # negative or NaN
    r = _NEG_INF if x == _ZERO else r
    r = _INF if x == _INF else r
    return r


# ---------------------------------------------------------------------------
# log1p
# ---------------------------------------------------------------------------
_LOG1P_TINY = _F(5.9604645e-8)  # 2**-24: below it log1p(x) = x - x**2/2 rounds to x
_LOG1P_NO_CORR = _F(33554432.0)  # 2**25: from here on the correction c/u is below 2**-25
_I2 = _I(2)


@njit(_SIG, **_JIT)
def log1p_f32(x):
    """``log(1 + x)`` of a float32, branch-free and vectorisable (in float32 throughout).

    Formula: ``u = 1 + x`` rounded to float32, written as ``u = 2**e * m`` with
    ``sqrt(1/2) <= m < sqrt(2)`` from the bits as in :func:`log_f32` (``u`` is never
    denormal: the float32 nearest -1 from above is ``-1 + 2**-24``).  The rounding error
    of ``u`` is recovered exactly as ``c = x - (u - 1)`` for ``e <= 1`` and
    ``c = 1 - (u - x)`` for ``e >= 2`` (Sterbenz: both subtractions are exact there), so
    ``log(1 + x) = log(u) + log(1 + c/u) ~= e*ln2 + log(m) + c/u``; ``c = 0`` once
    ``u >= 2**25``, where ``c/u`` is below 2**-25 (and would only underflow).  When
    ``e = 0`` (``x`` in about [-0.29, 0.41]) the reduction is skipped: ``f = x`` itself,
    exactly.  ``log(1 + f)`` is Cephes' ``f - f**2/2 + f**3 * P(f)`` (degree-8 ``P``,
    :func:`log_f32`'s coefficients), with ``c/u`` and ``e*C2`` added to the small terms
    and ``e*C1`` last (``C1 + C2 = ln 2``, Cody-Waite).  For ``|x| < 2**-24`` the result
    is ``x`` (there ``x**2/2`` is below half an ulp of ``x``), which keeps ``-0`` and
    denormals exact.

    Sources: the correction term and its two exact forms follow musl libc
    ``src/math/log1pf.c`` (itself from FreeBSD's ``s_log1pf.c``); the polynomial is
    S. L. Moshier's, Cephes Math Library ``single/logf.c``.

    Parameters
    ----------
    x : float32

    Returns
    -------
    float32
        ``log1p(x)``.  Max error over all float32 inputs: 1 ulp against numpy's float64
        ``log1p`` rounded to float32 (measured exhaustively over all 2**32 bit patterns by
        ``tools/exhaustive_ulp.py``).

    Notes
    -----
    Special values: ``log1p(-1) = -inf``, ``log1p(x < -1) = NaN`` (``-inf`` included),
    ``log1p(+inf) = +inf``, ``log1p(+-0) = +-0``, denormals return ``x``, NaN -> NaN.
    """
    u = x + _ONE
    ix = _as_i32(u)
    e = np.right_shift(np.subtract(ix, _SQRTHF_BITS), _I23)
    m = _as_f32(np.subtract(ix, np.left_shift(e, _I23)))
    red = e != _I(0)
    c = (_ONE - (u - x)) if e >= _I2 else (x - (u - _ONE))
    c = np.divide(c, u) if red & (u < _LOG1P_NO_CORR) else _ZERO
    f = (m - _ONE) if red else x
    fe = _F(e)
    z = f * f
    y = _log_poly(f, z)
    y = y + _fma(fe, _LN2_LO, c)
    y = y - _HALF * z
    r = f + y
    r = r + fe * _LN2_HI
    # Special values, as selects.
    r = x if abs(x) < _LOG1P_TINY else r
    r = r if u >= _ZERO else _NAN  # x < -1, or NaN
    r = _NEG_INF if u == _ZERO else r
    r = _INF if x == _INF else r
    return r


# ---------------------------------------------------------------------------
# tanh (Eigen / XLA rational)
# ---------------------------------------------------------------------------
# Eigen's clamps (generic_fast_tanh_float): the smallest x where p(x)/q(x) evaluates to
# exactly 1.0 in float32, with FMA (7.9988...) and without (7.9053...). Beyond it the
# rational would exceed 1 (or, clamped too late, give 1 + 1 ulp).
_TANH_CLAMP = _F(7.99881172180175781) if HAS_FMA else _F(7.90531110763549805)
_TANH_NEG_CLAMP = -_TANH_CLAMP
_TANH_TINY = _F(0.0004)
_TANH_A1 = _F(4.89352455891786e-03)
_TANH_A3 = _F(6.37261928875436e-04)
_TANH_A5 = _F(1.48572235717979e-05)
_TANH_A7 = _F(5.12229709037114e-08)
_TANH_A9 = _F(-8.60467152213735e-11)
_TANH_A11 = _F(2.00018790482477e-13)
_TANH_A13 = _F(-2.76076847742355e-16)
_TANH_B0 = _F(4.89352518554385e-03)
_TANH_B2 = _F(2.26843463243900e-03)
_TANH_B4 = _F(1.18534705686654e-04)
_TANH_B6 = _F(1.19825839466702e-06)


@njit(_SIG, **_JIT)
def tanh_f32(x):
    """Hyperbolic tangent of a float32: Eigen's / XLA's fast rational form.

    Formula: clamp ``x`` to +-7.99881172180175781 (Eigen's clamp with FMA;
    +-7.90531110763549805 on a host without FMA), then
    ``tanh(x) ~= x * P(x**2) / Q(x**2)`` with ``P`` of degree 6 and ``Q`` of
    degree 3 in ``x**2`` (a 13/6 rational); for ``|x| < 0.0004`` return ``x``
    (there ``tanh(x) = x`` to within 1 ulp).

    Source: Eigen, ``generic_fast_tanh_float`` in
    Eigen/src/Core/MathFunctionsImpl.h (coefficients and the non-FMA clamp);
    XLA's ``EmitFastTanh`` in xla/service/llvm_ir/math_ops.cc emits the same
    rational with the same clamp (without FMA) and the same 0.0004 cut-off.

    Parameters
    ----------
    x : float32

    Returns
    -------
    float32
        ``tanh(x)``.  Max error over all float32 inputs: 5 ulp with FMA
        (7 ulp without; measured exhaustively; absolute error < 4e-7; mean
        error about 1 ulp).  The
        largest ulp errors are for ``|x|`` in [3, 7.9] where the result is
        close to +-1.  See :func:`tanh_accurate_f32` for a 1-ulp version.

    Notes
    -----
    Special values: ``tanh(+-inf) = +-1``, ``|x| >= 7.9988`` (7.905 without
    FMA) -> exactly +-1,
    ``tanh(+-0) = +-0``, denormals return ``x``, NaN -> NaN.
    """
    xc = min(max(x, _TANH_NEG_CLAMP), _TANH_CLAMP)
    x2 = xc * xc
    p = _fma(_fma(_fma(_fma(_fma(_fma(_TANH_A13, x2, _TANH_A11), x2, _TANH_A9), x2, _TANH_A7),
                        x2, _TANH_A5), x2, _TANH_A3), x2, _TANH_A1)
    p = p * xc
    q = _fma(_fma(_fma(_TANH_B6, x2, _TANH_B4), x2, _TANH_B2), x2, _TANH_B0)
    r = np.divide(p, q)
    return x if abs(x) < _TANH_TINY else r


# ---------------------------------------------------------------------------
# tanh (Cephes, accurate)
# ---------------------------------------------------------------------------
_TANH_SWITCH = _F(0.625)
# Cephes tanhf.c: tanh(x) ~= x + x**3 * P(x**2) for |x| < 0.625.
_TANHC_P0 = _F(-5.70498872745e-3)
_TANHC_P1 = _F(2.06390887954e-2)
_TANHC_P2 = _F(-5.37397155531e-2)
_TANHC_P3 = _F(1.33314422036e-1)
_TANHC_P4 = _F(-3.33332819422e-1)


@njit(_SIG, **_JIT)
def tanh_accurate_f32(x):
    """Hyperbolic tangent of a float32 to 1 ulp (about 2x the cost of ``tanh_f32``).

    Formula, on ``a = |x|``: for ``a < 0.625``, ``a + a**3 * P(a**2)`` with the
    degree-4 polynomial of Cephes ``tanhf.c``; otherwise
    ``1 - 2 / (exp_f32(2a) + 1)``.  Both branches are computed and one is
    selected (branch-free); the sign of ``x`` is then copied onto the result.

    Source: S. L. Moshier, Cephes Math Library ``single/tanhf.c``
    (coefficients, switch point 0.625 and the exp-based formula).

    Parameters
    ----------
    x : float32

    Returns
    -------
    float32
        ``tanh(x)``.  Max error over all float32 inputs: 1 ulp (measured
        exhaustively).

    Notes
    -----
    Special values: ``tanh(+-inf) = +-1``, ``tanh(+-0) = +-0``, denormals
    return ``x``, NaN -> NaN.
    """
    a = abs(x)
    s = a * a
    small = ((((_TANHC_P0 * s + _TANHC_P1) * s + _TANHC_P2) * s + _TANHC_P3) * s + _TANHC_P4) * s * a + a
    e = exp_f32(a + a)
    big = _ONE - np.divide(_TWO, e + _ONE)
    r = small if a < _TANH_SWITCH else big
    # copysign(r, x); r >= 0 or NaN here.
    return _as_f32(np.bitwise_or(_as_i32(r), np.bitwise_and(_as_i32(x), _SIGN_MASK)))


# ---------------------------------------------------------------------------
# logistic
# ---------------------------------------------------------------------------
@njit(_SIG, **_JIT)
def logistic_f32(x):
    """Logistic sigmoid ``1 / (1 + exp(-x))`` of a float32, vectorisable.

    Formula: ``e = exp_f32(-|x|)`` (so ``e`` is in (0, 1] and never overflows);
    ``1 / (1 + e)`` for ``x >= 0`` and ``e / (1 + e)`` for ``x < 0``.  The
    second form keeps full relative accuracy for very negative ``x``, where
    the result is tiny (down to denormals), which the naive
    ``1 / (1 + exp(-x))`` flushes to 0 once ``exp(-x)`` overflows at
    ``x < -88.7``.

    Source: the standard numerically stable sigmoid (e.g. as used by XLA's
    and PyTorch's CPU kernels); ``exp_f32`` as documented there.

    Parameters
    ----------
    x : float32

    Returns
    -------
    float32
        ``logistic(x)``.  Max error over all float32 inputs: 2 ulp (measured
        exhaustively, including denormal results for x < -87.3).

    Notes
    -----
    Special values: ``logistic(+inf) = 1``, ``logistic(-inf) = 0``,
    ``logistic(+-0) = 0.5``, ``x < -103.97`` -> ``+0``, ``x >= 17.33`` ->
    exactly 1, NaN -> NaN.
    """
    e = exp_f32(-abs(x))
    num = e if x < _ZERO else _ONE
    return np.divide(num, _ONE + e)


# ---------------------------------------------------------------------------
# erf
# ---------------------------------------------------------------------------
# erfinv(1 - 2**-23): from here on erf(x) rounds to 1 (Eigen clamps slightly
# early so that the rational never exceeds 1).
_ERF_CLAMP = _F(3.832506856900711)
_ERF_A1 = _F(1.128379143519084)
_ERF_A3 = _F(0.18520832239976145)
_ERF_A5 = _F(0.050955695062380861)
_ERF_A7 = _F(0.0034082910107109506)
_ERF_A9 = _F(0.00022905065861350646)
_ERF_B2 = _F(0.49746925110067538)
_ERF_B4 = _F(0.11098505178285362)
_ERF_B6 = _F(0.014070470171167667)
_ERF_B8 = _F(0.0010179625278914885)
_ERF_B10 = _F(0.000023547966471313185)
_ERF_B12 = _F(-1.1791602954361697e-7)


@njit(_SIG, **_JIT)
def erf_f32(x):
    """Error function of a float32: Eigen's fast rational form, vectorisable.

    Formula: ``erf(x) ~= x * P(x**2) / Q(x**2)`` with ``P`` of degree 4 and
    ``Q`` of degree 6 in ``x**2`` (a 9/12 rational, ``P(0) = 2/sqrt(pi)``,
    ``Q(0) = 1``); for ``|x| >= 3.832506856900711 = erfinv(1 - 2**-23)`` the
    result is ``sign(x)``.

    Source: Eigen, ``generic_fast_erf_float`` in
    unsupported/Eigen/src/SpecialFunctions/SpecialFunctionsImpl.h (the
    current 9/12 version; it replaced an older 13/8 rational clamped to
    +-4, which we measured at 37 ulp near denormals and 7 ulp elsewhere).

    Parameters
    ----------
    x : float32

    Returns
    -------
    float32
        ``erf(x)``.  Max error over all float32 inputs: 7 ulp (measured
        exhaustively; absolute error < 4e-7; the largest ulp errors are for
        ``|x|`` in [2, 3.83] where the result is close to +-1; 1 ulp for
        ``|x| < 2**-10``).

    Notes
    -----
    Special values: ``erf(+-inf) = +-1``, ``|x| >= 3.8325`` -> exactly
    +-1, ``erf(+-0) = +-0``, denormal inputs give ``2/sqrt(pi) * x`` to
    within 1 ulp (not flushed), NaN -> NaN.
    """
    x2 = x * x
    p = _fma(_fma(_fma(_fma(_ERF_A9, x2, _ERF_A7), x2, _ERF_A5), x2, _ERF_A3), x2, _ERF_A1)
    p = p * x
    q = _fma(_fma(_fma(_fma(_fma(_fma(_ERF_B12, x2, _ERF_B10), x2, _ERF_B8), x2, _ERF_B6),
                        x2, _ERF_B4), x2, _ERF_B2), x2, _ONE)
    r = np.divide(p, q)
    sgn = _ONE if x > _ZERO else -_ONE
    return sgn if abs(x) >= _ERF_CLAMP else r


# ---------------------------------------------------------------------------
# C-library versions (float32 in, float32 out) and the op tables
# ---------------------------------------------------------------------------
@njit(_SIG, **_JIT)
def _exact_exp(x):
    """``expf`` from the C library (numba ``math.exp`` on float32)."""
    return math.exp(x)


@njit(_SIG, **_JIT)
def _exact_log(x):
    """``logf`` from the C library (numba ``math.log`` on float32)."""
    return math.log(x)


@njit(_SIG, **_JIT)
def _exact_log1p(x):
    """``log1pf`` from the C library (numba ``math.log1p`` on float32)."""
    return math.log1p(x)


@njit(_SIG, **_JIT)
def _exact_tanh(x):
    """``tanhf`` from the C library (numba ``math.tanh`` on float32)."""
    return math.tanh(x)


@njit(_SIG, **_JIT)
def _exact_logistic(x):
    """Logistic sigmoid computed in float64 with the C library ``exp``, rounded to float32."""
    return _F(1.0 / (1.0 + math.exp(-np.float64(x))))


@njit(_SIG, **_JIT)
def _exact_erf(x):
    """``erff`` from the C library (numba ``math.erf`` on float32)."""
    return math.erf(x)


#: HLO op name -> float32 function calling the C library (not vectorisable).
EXACT = {
    "exponential": _exact_exp,
    "log": _exact_log,
    "log-plus-one": _exact_log1p,
    "tanh": _exact_tanh,
    "logistic": _exact_logistic,
    "erf": _exact_erf,
}

#: HLO op name -> branch-free float32 approximation (vectorisable).
FAST = {
    "exponential": exp_f32,
    "log": log_f32,
    "log-plus-one": log1p_f32,
    "tanh": tanh_f32,
    "logistic": logistic_f32,
    "erf": erf_f32,
}

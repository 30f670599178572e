"""Accuracy and special values of workbench.codegen.fastmath_f64 (sin, cos, pow, expm1),
and how the CPU backend calls sine and cosine (the medium-range reduction first, the full
range again only when an argument needs it).

Errors are in ulp against numpy's float64 function rounded to float32 (``ulp_error`` of
test_fastmath), over every 131st float32 bit pattern (about 33 million values, NaNs and
infinities among them), dense sweeps of the ranges models use, and the special values; the
bound asserted is the one the module's docstring states.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from test_fastmath import bit_sweep, strided_all_floats, ulp_error

from workbench.codegen import fastmath_f64 as fm
from workbench.ir import GraphBuilder

F32 = np.float32
BOUND = 1


def _apply1(fn):
    @njit
    def run(x, out):
        for i in range(x.size):
            out[i] = fn(x[i])
    return run


def _apply2(fn):
    @njit
    def run(x, y, out):
        for i in range(x.size):
            out[i] = fn(x[i], y[i])
    return run


def _staged(op, full: bool):
    first, second, first_full = fm.STAGED[op]
    red = first_full if full else first

    @njit
    def run(x, out):
        for i in range(x.size):
            out[i] = second(red(x[i]), x[i])
    return run


UNARY = {"sin": (fm.sin_f32, np.sin), "cos": (fm.cos_f32, np.cos),
         "expm1": (fm.expm1_f32, np.expm1)}


def _ref(ref, x):
    with np.errstate(all="ignore"):
        return ref(x.astype(np.float64)).astype(np.float32)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_functions_are_within_one_ulp_over_the_float32_range(name):
    fn, ref = UNARY[name]
    x = strided_all_floats(131)
    out = np.empty_like(x)
    _apply1(fn)(x, out)
    worst, at = ulp_error(out, _ref(ref, x))
    assert worst <= BOUND, (name, x[at], out[at], _ref(ref, x[at:at + 1])[0])


@pytest.mark.parametrize("name,lo,hi", [("sin", -100.0, 100.0), ("cos", -100.0, 100.0),
                                        ("sin", 4e8, 3e38), ("cos", -3e38, -4e8),
                                        ("expm1", -1.0, 1.0)])
def test_unary_functions_on_dense_sweeps(name, lo, hi):
    fn, ref = UNARY[name]
    x = bit_sweep(lo, hi, 1 << 21)
    out = np.empty_like(x)
    _apply1(fn)(x, out)
    assert ulp_error(out, _ref(ref, x))[0] <= BOUND


@pytest.mark.parametrize("op", ["sine", "cosine"])
def test_the_medium_range_stage_is_exact_below_its_limit_and_the_full_one_everywhere(op):
    ref = np.sin if op == "sine" else np.cos
    x = bit_sweep(-fm.MEDIUM_LIMIT * 0.999, fm.MEDIUM_LIMIT * 0.999, 1 << 21)
    out = np.empty_like(x)
    _staged(op, full=False)(x, out)
    assert ulp_error(out, _ref(ref, x))[0] <= BOUND
    big = bit_sweep(fm.MEDIUM_LIMIT, 3e38, 1 << 18)
    out = np.empty_like(big)
    _staged(op, full=True)(big, out)
    assert ulp_error(out, _ref(ref, big))[0] <= BOUND
    _staged(op, full=False)(big, out)                 # the medium stage is wrong up there
    assert ulp_error(out, _ref(ref, big))[0] > BOUND


SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0,
                    -3.0, 0.3, 1e-45, -1e-45, 1e-30, 3.4e38, -3.4e38, 88.8, -88.8, 1e10],
                   np.float32)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_special_values_follow_c99(name):
    fn, ref = UNARY[name]
    out = np.empty_like(SPECIAL)
    _apply1(fn)(SPECIAL, out)
    want = _ref(ref, SPECIAL)
    assert ulp_error(out, want)[0] <= BOUND
    finite_zero = (want == 0)
    assert np.array_equal(np.signbit(out[finite_zero]), np.signbit(want[finite_zero]))


def test_pow_matches_c99_on_every_pair_of_special_values():
    x, y = (a.ravel().copy() for a in np.meshgrid(SPECIAL, SPECIAL))
    out = np.empty_like(x)
    _apply2(fm.pow_f32)(x, y, out)
    with np.errstate(all="ignore"):
        want = np.power(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
    assert ulp_error(out, want)[0] <= BOUND
    zero = want == 0
    assert np.array_equal(np.signbit(out[zero]), np.signbit(want[zero]))
    assert np.array_equal(np.isinf(out), np.isinf(want))


@pytest.mark.parametrize("xs,ys", [
    (bit_sweep(1e-30, 1e30, 1 << 20), np.linspace(-3.5, 3.5, 1 << 20 | 1)[:-1]),
    (bit_sweep(0.0, 8.0, 1 << 20), np.linspace(-40.0, 40.0, 1 << 20 | 1)[:-1]),
    (-bit_sweep(0.0, 5.0, 1 << 20), np.round(np.linspace(-30, 30, 1 << 20 | 1)[:-1]))])
def test_pow_is_within_one_ulp(xs, ys):
    xs = xs[:ys.size].astype(np.float32)
    ys = np.resize(ys, xs.size).astype(np.float32)
    out = np.empty_like(xs)
    _apply2(fm.pow_f32)(xs, ys, out)
    with np.errstate(all="ignore"):
        want = np.power(xs.astype(np.float64), ys.astype(np.float64)).astype(np.float32)
    assert ulp_error(out, want)[0] <= BOUND


def test_a_kernel_with_sine_retries_with_the_full_reduction_only_when_needed(kernel_cache):
    from conftest import one_group_plan

    from workbench.codegen import compile_plan

    b = GraphBuilder("sc")
    x = b.parameter("x", (1 << 16,))
    y = b.op("add", [b.op("sine", [x]), b.op("cosine", [x])])
    g = b.build([y])
    fast = compile_plan(g, one_group_plan(g), "cpu", cache_dir=kernel_cache)
    src = fast.kernels[0].source
    assert "fm_sine_2(fm_sine_1(" in src and "fm_sine_2(fm_sine_3(" in src
    # one update of the count per loop body, each argument once (x is both functions')
    assert src.count("p_bad += ") == 1 and "if p_bad > 0:" in src
    xs = np.random.default_rng(0).uniform(-50, 50, 1 << 16).astype(np.float32)
    xs[[7, 70000 % xs.size]] = [F32(3e30), F32(-5e8)]
    (out,) = fast.run([xs])
    want = np.sin(xs.astype(np.float64)) + np.cos(xs.astype(np.float64))
    assert np.abs(out - want).max() < 1e-6
    exact = compile_plan(g, one_group_plan(g), "cpu", exact_math=True, cache_dir=kernel_cache)
    assert "p_bad" not in exact.kernels[0].source
    assert np.abs(exact.run([xs])[0] - want).max() < 1e-6


def test_a_parallel_horizontal_sine_and_cosine_kernel_compiles_and_retries(kernel_cache):
    # sin(x) and cos(x) as one kernel of two outputs over 2^18 elements: a prange loop (5
    # statements per element, above the backend's threshold) whose body counts the arguments
    # beyond the fast reduction's range once; with two updates numba refused the kernel and
    # it ran through numpy (the bench's sincos, 2x slower)
    from conftest import one_group_plan

    from workbench.codegen import compile_plan

    b = GraphBuilder("sincos")
    x = b.parameter("x", (1 << 18,))
    g = b.build([b.op("sine", [x]), b.op("cosine", [x])])
    compiled = compile_plan(g, one_group_plan(g), "cpu", cache_dir=kernel_cache)
    (k,) = compiled.kernels
    assert not k.fallback and "prange" in k.source and k.source.count("p_bad += ") == 1
    xs = np.random.default_rng(1).uniform(-50, 50, 1 << 18).astype(np.float32)
    xs[[3, 200000]] = [F32(3e30), F32(-5e8)]
    s_out, c_out = compiled.run([xs])
    assert np.abs(s_out - np.sin(xs.astype(np.float64))).max() < 1e-6
    assert np.abs(c_out - np.cos(xs.astype(np.float64))).max() < 1e-6

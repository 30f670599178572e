"""The CPU scatter kernel (workbench/codegen/cpu_scatter.py): XLA's scatter with its combiner
compiled.

Each case compiles a one-scatter HLO module for the CPU, checks that the scatter ran as a
native kernel (not the numpy reference), and compares its output with the reference
interpreter's bit for bit (NaN payloads aside: NaN where the reference has NaN), and where the
semantics are simple with numpy computed here independently (``np.add.at`` on the indices
that land). Inputs hold NaN, -0, repeated indices (combined in order) and out-of-bounds
indices (negative, past the end, a window that does not fit: skipped whole, as XLA does).
"""

from __future__ import annotations

import numpy as np
import pytest

from workbench.codegen import compile_plan
from workbench.importers.hlo import parse_hlo
from workbench.ir import evaluate
from workbench.planner import plan_graph


def _comb(name, op, dtype="f32"):
    return f"""
{name} {{
  a = {dtype}[] parameter(0)
  b = {dtype}[] parameter(1)
  ROOT r = {dtype}[] {op}(a, b)
}}
"""


def _rows_module(comb_text, comb_name, dtype="f32", rows=8, cols=6, n=7, idx="s32"):
    """``x.at[idx].<op>(upd)`` on rows of an [rows, cols] operand (JAX's row scatter)."""
    return "HloModule m\n" + comb_text + f"""
ENTRY e {{
  x = {dtype}[{rows},{cols}] parameter(0)
  i = {idx}[{n}] parameter(1)
  u = {dtype}[{n},{cols}] parameter(2)
  i2 = {idx}[{n},1] reshape(i)
  ROOT s = {dtype}[{rows},{cols}] scatter(x, i2, u), update_window_dims={{1}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply={comb_name}
}}
"""


def _run(text, args, kernel_cache):
    graph = parse_hlo(text, "scatter_case.hlo")
    compiled = compile_plan(graph, plan_graph(graph, "priority"), backend="cpu",
                            cache_dir=kernel_cache)
    scatters = [k for k in compiled.kernels if "scatter" in k.ops]
    assert scatters and all(not k.fallback and k.address is not None for k in scatters), \
        [k.fallback_reason for k in scatters]
    got = [np.asarray(o) for o in compiled.run(args)]
    ref = evaluate(graph, args)
    ref = list(ref) if isinstance(ref, tuple) else [ref]
    return got, [np.asarray(r) for r in ref]


def _same(a, b):
    """Equal bit for bit, NaN matching NaN (any payload)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind != "f":
        return a.dtype == b.dtype and np.array_equal(a, b)
    nan = np.isnan(a)
    return np.array_equal(nan, np.isnan(b)) and np.array_equal(
        a[~nan].view(np.uint8 if a.itemsize == 1 else f"u{a.itemsize}"),
        b[~nan].view(np.uint8 if b.itemsize == 1 else f"u{b.itemsize}"))


_SPECIALS = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.5, -2.25], np.float32)


def _inputs(rng, rows=8, cols=6, n=7):
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    x[1, :] = -0.0
    x[2, 0] = np.nan
    u = rng.choice(_SPECIALS, (n, cols)).astype(np.float32)
    # repeated rows (2 three times), negative, past the end, and the last row
    i = np.array([2, -1, 2, rows, 1, 2, rows - 1][:n], np.int32)
    return x, i, u


def test_add_with_repeats_nan_negative_zero_and_out_of_bounds(kernel_cache):
    x, i, u = _inputs(np.random.default_rng(0))
    (got,), (ref,) = _run(_rows_module(_comb("add_c", "add"), "add_c"), [x, i, u], kernel_cache)
    want = x.copy()
    keep = (i >= 0) & (i < x.shape[0])         # XLA skips out-of-bounds windows
    with np.errstate(invalid="ignore"):            # inf + -inf: NaN, as in the kernel
        np.add.at(want, i[keep], u[keep])
    assert _same(got, want)
    assert _same(got, ref)
    assert np.signbit(got[1, :]).any()             # -0 + -0 stayed -0 where no update landed


@pytest.mark.parametrize("op", ["maximum", "minimum", "multiply"])
def test_named_combiners_match_the_reference(op, kernel_cache):
    x, i, u = _inputs(np.random.default_rng(1))
    (got,), (ref,) = _run(_rows_module(_comb("c", op), "c"), [x, i, u], kernel_cache)
    assert np.array_equal(np.isnan(got), np.isnan(ref))      # max/min propagate NaN
    assert np.array_equal(np.nan_to_num(got), np.nan_to_num(ref))   # -0 == 0 in value
    if op == "multiply":
        assert _same(got, ref)


def test_assign_of_integers_with_unsigned_indices(kernel_cache):
    comb = """
keep {
  a = s32[] parameter(0)
  ROOT b = s32[] parameter(1)
}
"""
    x = np.arange(48, dtype=np.int32).reshape(8, 6)
    i = np.array([3, 9, 0, 3, 4294967295, 7, 5], np.uint32)     # 9 and 2^32-1: skipped
    u = -np.arange(42, dtype=np.int32).reshape(7, 6)
    (got,), (ref,) = _run(_rows_module(comb, "keep", "s32", idx="u32"), [x, i, u], kernel_cache)
    want = x.copy()
    for k, r in enumerate(i):
        if r < 8:
            want[r] = u[k]                     # in order: the last update of row 3 wins
    assert _same(got, want) and _same(got, ref)


def test_a_computation_combiner_applies_repeats_in_order(kernel_cache):
    # not a named combiner: new = 2 * old + upd (order matters for repeated indices)
    comb = """
lin {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  two = f32[] constant(2)
  m = f32[] multiply(a, two)
  ROOT r = f32[] add(m, b)
}
"""
    x = np.zeros((4, 3), np.float32)
    i = np.array([1, 1, 1, 3, -5], np.int32)
    u = np.array([[1, 2, 3], [10, 20, 30], [100, 200, 300], [7, 8, 9], [5, 5, 5]], np.float32)
    (got,), (ref,) = _run(_rows_module(comb, "lin", rows=4, cols=3, n=5), [x, i, u],
                          kernel_cache)
    want = x.copy()
    want[1] = 2 * (2 * (2 * 0 + u[0]) + u[1]) + u[2]
    want[3] = u[3]
    assert _same(got, want) and _same(got, ref)


def test_windows_that_do_not_fit_are_skipped_whole(kernel_cache):
    # 2-D windows of [2, 3] at (row, col) starts into a [5, 6] operand
    text = "HloModule m\n" + _comb("add_c", "add") + """
ENTRY e {
  x = f32[5,6] parameter(0)
  i = s32[4,2] parameter(1)
  u = f32[4,2,3] parameter(2)
  ROOT s = f32[5,6] scatter(x, i, u), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=add_c
}
"""
    x = np.zeros((5, 6), np.float32)
    # fits; col 4 + 3 > 6: skipped; row -1: skipped; fits at the far corner
    i = np.array([[0, 0], [1, 4], [-1, 0], [3, 3]], np.int32)
    u = np.arange(24, dtype=np.float32).reshape(4, 2, 3) + 1
    (got,), (ref,) = _run(text, [x, i, u], kernel_cache)
    want = x.copy()
    want[0:2, 0:3] += u[0]
    want[3:5, 3:6] += u[3]
    assert _same(got, want) and _same(got, ref)


def test_variadic_scatter_with_a_tuple_computation(kernel_cache):
    # (value, count) pairs: the value keeps the max, the count adds
    text = """HloModule m

pair {
  a = f32[] parameter(0)
  c = s32[] parameter(1)
  b = f32[] parameter(2)
  d = s32[] parameter(3)
  m = f32[] maximum(a, b)
  s = s32[] add(c, d)
  ROOT t = (f32[], s32[]) tuple(m, s)
}

ENTRY e {
  x = f32[6] parameter(0)
  n = s32[6] parameter(1)
  i = s32[5] parameter(2)
  u = f32[5] parameter(3)
  k = s32[5] parameter(4)
  i2 = s32[5,1] reshape(i)
  ROOT s = (f32[6], s32[6]) scatter(x, n, i2, u, k), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=pair
}
"""
    x = np.array([0, 1, 2, 3, 4, 5], np.float32)
    cnt = np.zeros(6, np.int32)
    i = np.array([2, 2, 6, 0, 2], np.int32)
    u = np.array([5, np.nan, 9, -1, 1], np.float32)
    k = np.ones(5, np.int32)
    got, ref = _run(text, [x, cnt, i, u, k], kernel_cache)
    assert _same(got[0], ref[0]) and _same(got[1], ref[1])
    assert got[1].tolist() == [1, 0, 3, 0, 0, 0]
    assert np.isnan(got[0][2]) and got[0][0] == 0


def test_bf16_scatter_stays_a_named_fallback(kernel_cache):
    graph = parse_hlo(_rows_module(_comb("c", "add", "bf16"), "c", "bf16"), "bf16.hlo")
    compiled = compile_plan(graph, plan_graph(graph, "priority"), backend="cpu",
                            cache_dir=kernel_cache)
    (k,) = [k for k in compiled.kernels if "scatter" in k.ops]
    assert k.fallback and "bf16" in k.fallback_reason

"""The CPU sort kernel (workbench/codegen/cpu_sort.py): XLA's sort with its comparator compiled.

Each case compiles a one-sort HLO module for the CPU, checks that the sort ran as a native
kernel (not the numpy reference), and compares its outputs with numpy's own sorts computed
independently here (stable argsort, total order of floats), bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from workbench.codegen import compile_plan
from workbench.importers.hlo import parse_hlo
from workbench.planner import plan_graph

#: JAX's float comparator: NaN and -0 canonicalised, then a TOTALORDER less-than
_F32_LT = """
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  nan = f32[] constant(nan)
  zero = f32[] constant(0)
  a_nan = pred[] compare(a, a), direction=NE
  a_zero = pred[] compare(a, zero), direction=EQ
  a0 = f32[] select(a_zero, zero, a)
  a1 = f32[] select(a_nan, nan, a0)
  b_nan = pred[] compare(b, b), direction=NE
  b_zero = pred[] compare(b, zero), direction=EQ
  b0 = f32[] select(b_zero, zero, b)
  b1 = f32[] select(b_nan, nan, b0)
  ROOT lt = pred[] compare(a1, b1), direction=LT, type=TOTALORDER
}
"""


def _run(text, args):
    graph = parse_hlo(text, "sort_case.hlo")
    compiled = compile_plan(graph, plan_graph(graph, "priority"), backend="cpu")
    sorts = [k for k in compiled.kernels if "sort" in k.ops]
    assert sorts and all(not k.fallback and k.address is not None for k in sorts), \
        [k.fallback_reason for k in sorts]
    return compiled, [np.asarray(o) for o in compiled.run(args)]


def test_floats_sort_in_total_order_along_a_leading_dimension():
    text = "HloModule m\n" + _F32_LT + """
ENTRY e {
  x = f32[6,3] parameter(0)
  ROOT s = f32[6,3] sort(x), dimensions={0}, is_stable=true, to_apply=cmp
}
"""
    x = np.array([[np.nan, 1, -0.0], [2, -np.inf, 0.0], [-0.0, 3, np.nan], [np.inf, -1, 5],
                  [0.0, 1, -7], [-3, np.nan, -0.0]], np.float32)
    _, (got,) = _run(text, [x])
    # JAX's comparator: -0 is 0 and every NaN the positive quiet NaN, so NaNs sort last and
    # the zeros keep their input order (stable)
    keys = np.where(x == 0, np.float32(0), x)
    want = np.take_along_axis(x, np.argsort(keys, axis=0, kind="stable"), axis=0)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_argsort_is_stable_and_carries_the_second_operand():
    text = "HloModule m\n" + _F32_LT.replace("cmp {", "cmp2 {").replace(
        "  ROOT lt", "  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  ROOT lt") + """
ENTRY e {
  x = f32[3,40] parameter(0)
  iota = s32[3,40] iota(), iota_dimension=1
  ROOT s = (f32[3,40], s32[3,40]) sort(x, iota), dimensions={1}, is_stable=true, to_apply=cmp2
}
"""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, (3, 40)).astype(np.float32)      # many ties
    _, outs = _run(text, [x])
    order = np.argsort(x, axis=1, kind="stable")
    assert np.array_equal(outs[1], order.astype(np.int32))
    assert np.array_equal(outs[0], np.take_along_axis(x, order, axis=1))


def test_descending_integers_with_a_greater_than_comparator():
    text = """HloModule m
gt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT g = pred[] compare(a, b), direction=GT
}
ENTRY e {
  x = s32[4,33] parameter(0)
  ROOT s = s32[4,33] sort(x), dimensions={1}, to_apply=gt
}
"""
    x = np.random.default_rng(1).integers(-2**31, 2**31 - 1, (4, 33)).astype(np.int32)
    _, (got,) = _run(text, [x])
    assert np.array_equal(got, -np.sort(-x.astype(np.int64), axis=1))


def test_a_large_sort_matches_numpy():
    text = "HloModule m\n" + _F32_LT + """
ENTRY e {
  x = f32[8,4096] parameter(0)
  ROOT s = f32[8,4096] sort(x), dimensions={1}, is_stable=true, to_apply=cmp
}
"""
    x = np.random.default_rng(2).standard_normal((8, 4096)).astype(np.float32)
    _, (got,) = _run(text, [x])
    assert np.array_equal(got, np.sort(x, axis=1))


def test_a_bf16_sort_still_runs_through_the_reference_and_says_why():
    text = """HloModule m
lt {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT l = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = bf16[8] parameter(0)
  ROOT s = bf16[8] sort(x), dimensions={0}, to_apply=lt
}
"""
    graph = parse_hlo(text, "bf16_sort.hlo")
    compiled = compile_plan(graph, plan_graph(graph, "priority"), backend="cpu")
    (k,) = [k for k in compiled.kernels if "sort" in k.ops]
    assert k.fallback and "sort of bf16" in k.fallback_reason


@pytest.mark.parametrize("dtype", [np.float64, np.uint8])
def test_other_dtypes_sort_natively(dtype):
    t = {np.float64: "f64", np.uint8: "u8"}[dtype]
    text = f"""HloModule m
lt {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT l = pred[] compare(a, b), direction=LT
}}
ENTRY e {{
  x = {t}[5,9] parameter(0)
  ROOT s = {t}[5,9] sort(x), dimensions={{1}}, to_apply=lt
}}
"""
    x = (np.random.default_rng(3).standard_normal((5, 9)) * 50 + 100).astype(dtype)
    _, (got,) = _run(text, [x])
    assert np.array_equal(got, np.sort(x, axis=1))

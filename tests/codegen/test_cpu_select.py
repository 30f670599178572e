"""The CPU kernels of select-and-scatter and top-k (workbench/codegen/cpu_select.py) and the
loop lowering of reduce-window with base and window dilation (workbench/codegen/lower_rules.py).

Each case compiles a small HLO module for the CPU, checks that the op ran natively (not through
the numpy reference), and compares the output with the reference interpreter bit for bit (NaN
matching NaN), and where the semantics are simple with numpy computed here independently.
Inputs hold NaN, -0 and +0, ties, padding and windows that overhang or overlap.
"""

from __future__ import annotations

import numpy as np
import pytest

from workbench.codegen import compile_plan
from workbench.importers.hlo import parse_hlo
from workbench.ir import evaluate
from workbench.ir.ops.elementwise import total_order_key
from workbench.planner import plan_graph


def _run(text, args, kernel_cache, op):
    graph = parse_hlo(text, "select_case.hlo")
    compiled = compile_plan(graph, plan_graph(graph, "priority"), backend="cpu",
                            cache_dir=kernel_cache)
    mine = [k for k in compiled.kernels if op in k.ops]
    assert mine and all(not k.fallback and k.address is not None for k in mine), \
        [k.fallback_reason for k in compiled.kernels]
    got = compiled.run(args)
    got = [np.asarray(o) for o in (got if isinstance(got, (tuple, list)) else [got])]
    ref = evaluate(graph, args)
    ref = list(ref) if isinstance(ref, tuple) else [ref]
    return got, [np.asarray(r) for r in ref]


def _same(a, b):
    """Equal bit for bit, NaN matching NaN (any payload)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind != "f":
        return a.dtype == b.dtype and np.array_equal(a, b)
    nan = np.isnan(a)
    return np.array_equal(nan, np.isnan(b)) and np.array_equal(
        a[~nan].view(f"u{a.itemsize}"), b[~nan].view(f"u{b.itemsize}"))


# ----- select-and-scatter -----------------------------------------------------------------------

_SAS = """HloModule m
ge {{
  a = {dt}[] parameter(0)
  b = {dt}[] parameter(1)
  ROOT c = pred[] compare(a, b), direction={cmp}
}}
add {{
  a = {dt}[] parameter(0)
  b = {dt}[] parameter(1)
  ROOT c = {dt}[] add(a, b)
}}
ENTRY e {{
  x = {dt}[{xs}] parameter(0)
  s = {dt}[{ss}] parameter(1)
  z = {dt}[] constant(0)
  ROOT r = {dt}[{xs}] select-and-scatter(x, s, z), window={{{win}}}, select=ge, scatter=add
}}
"""


def _maxpool_grad_numpy(x, s):
    """2x2 stride-2 windows: the source value lands on each window's first maximum."""
    out = np.zeros_like(x)
    for i in range(s.shape[0]):
        for j in range(s.shape[1]):
            w = x[2 * i:2 * i + 2, 2 * j:2 * j + 2].reshape(-1)
            k = int(np.argmax(w))                # first maximum: GE keeps the current pick
            out[2 * i + k // 2, 2 * j + k % 2] += s[i, j]
    return out


def test_select_and_scatter_maxpool_grad_with_ties(kernel_cache):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, (6, 8)).astype(np.float32)      # many ties in each window
    s = rng.standard_normal((3, 4)).astype(np.float32)
    text = _SAS.format(dt="f32", cmp="GE", xs="6,8", ss="3,4", win="size=2x2 stride=2x2")
    (got,), (ref,) = _run(text, [x, s], kernel_cache, "select-and-scatter")
    assert _same(got, ref)
    assert _same(got, _maxpool_grad_numpy(x, s))


def test_select_and_scatter_overlapping_padded_windows_nan_and_signed_zero(kernel_cache):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 7)).astype(np.float32)
    x[0, 0], x[2, 3], x[4, 6] = np.nan, -0.0, 0.0
    x[1, 1] = -0.0
    # 3x3 windows, stride 2, padding 1 on each side: windows overlap and overhang the edges
    s = rng.standard_normal((3, 4)).astype(np.float32)
    text = _SAS.format(dt="f32", cmp="GE", xs="5,7", ss="3,4",
                       win="size=3x3 stride=2x2 pad=1_1x1_1")
    (got,), (ref,) = _run(text, [x, s], kernel_cache, "select-and-scatter")
    assert _same(got, ref)
    assert got.sum() == pytest.approx(float(s.sum()), rel=1e-5)   # every window lands once


def test_select_and_scatter_integers_min_select(kernel_cache):
    rng = np.random.default_rng(2)
    x = rng.integers(-4, 4, (4, 9)).astype(np.int32)
    s = rng.integers(-9, 9, (2, 2)).astype(np.int32)
    text = _SAS.format(dt="s32", cmp="LE", xs="4,9", ss="2,2",
                       win="size=3x4 stride=1x3 pad=0_0x0_0")
    (got,), (ref,) = _run(text, [x, s], kernel_cache, "select-and-scatter")
    assert _same(got, ref)
    assert got.sum() == s.sum()


# ----- top-k ------------------------------------------------------------------------------------

_TOPK = """HloModule m
ENTRY e {{
  x = {dt}[{shape}] parameter(0)
  t = ({dt}[{out}], s32[{out}]) topk(x), k={k}, largest={largest}
  v = {dt}[{out}] get-tuple-element(t), index=0
  i = s32[{out}] get-tuple-element(t), index=1
  ROOT r = ({dt}[{out}], s32[{out}]) tuple(v, i)
}}
"""


def _topk_numpy(x, k, largest):
    key = total_order_key(x) if x.dtype.kind == "f" else x.astype(np.int64)
    order = np.argsort(-key.astype(np.float64) if largest else key, axis=-1, kind="stable")
    idx = order[..., :k]
    return np.take_along_axis(x, idx, -1), idx.astype(np.int32)


@pytest.mark.parametrize("k,largest", [(1, True), (4, True), (4, False), (20, True),
                                       (24, False)])
def test_topk_f32_nan_signed_zero_and_ties(k, largest, kernel_cache):
    rng = np.random.default_rng(k)
    x = rng.integers(-3, 3, (5, 24)).astype(np.float32)     # ties everywhere
    x[0, 5], x[1, 0], x[1, 23] = np.nan, -np.nan, np.inf
    x[2, :6] = [-0.0, 0.0, -0.0, 0.0, -np.inf, np.nan]
    shape, out = "5,24", f"5,{k}"
    text = _TOPK.format(dt="f32", shape=shape, out=out, k=k, largest=str(largest).lower())
    (gv, gi), (rv, ri) = _run(text, [x], kernel_cache, "topk")
    assert _same(gv, rv) and _same(gi, ri)
    wv, wi = _topk_numpy(x, k, largest)
    assert _same(gi, wi) and _same(gv, wv)


@pytest.mark.parametrize("k", [3, 17])
def test_topk_integers_rank_three(k, kernel_cache):
    rng = np.random.default_rng(7)
    x = rng.integers(-5, 5, (2, 3, 19)).astype(np.int32)
    text = _TOPK.format(dt="s32", shape="2,3,19", out=f"2,3,{k}", k=k, largest="true")
    (gv, gi), (rv, ri) = _run(text, [x], kernel_cache, "topk")
    assert _same(gv, rv) and _same(gi, ri)
    wv, wi = _topk_numpy(x, k, True)
    assert _same(gi, wi) and _same(gv, wv)


# ----- reduce-window with dilation --------------------------------------------------------------

_RW = """HloModule m
{name} {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] {op}(a, b)
}}
ENTRY e {{
  x = f32[{xs}] parameter(0)
  z = f32[] constant({init})
  ROOT r = f32[{os}] reduce-window(x, z), window={{{win}}}, to_apply={name}
}}
"""


@pytest.mark.parametrize("op,init,xs,os,win", [
    ("maximum", "-inf", "1,8,8,2", "1,4,4,2", "size=1x3x3x1 rhs_dilate=1x2x2x1"),
    ("add", "0", "1,8,8,2", "1,14,14,2", "size=1x2x2x1 lhs_dilate=1x2x2x1"),
    ("add", "0", "6,7", "6,3", "size=3x3 stride=2x2 pad=2_1x1_2 lhs_dilate=2x1 rhs_dilate=1x2"),
    ("maximum", "-inf", "9,5", "3,3", "size=2x2 stride=3x2 pad=-1_1x0_1 rhs_dilate=2x1"),
    ("minimum", "inf", "5,6", "9,6", "size=2x3 pad=1_0x1_1 lhs_dilate=2x1 rhs_dilate=1x1"),
])
def test_dilated_reduce_window_matches_the_reference(op, init, xs, os, win, kernel_cache):
    rng = np.random.default_rng(len(win))
    shape = tuple(int(v) for v in xs.split(","))
    x = rng.standard_normal(shape).astype(np.float32)
    x.reshape(-1)[3] = np.nan if op != "add" else -0.0
    text = _RW.format(name="c", op=op, init=init, xs=xs, os=os, win=win)
    (got,), (ref,) = _run(text, [x], kernel_cache, "reduce-window")
    assert got.shape == tuple(int(v) for v in os.split(","))
    if op == "add":                                 # summation order may differ
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)
    else:
        assert _same(got, ref)


def test_window_dilated_max_numpy():
    """The reference itself, against a direct loop (what the kernel is compared with)."""
    from workbench.ir.ops.reduction import _reduce_window_ref

    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    attrs = type("A", (dict,), {"without": lambda self, k: {a: b for a, b in self.items()
                                                               if a != k}})(
        window_size=(3, 3), window_dilation=(2, 2), reducer="maximum")
    got = _reduce_window_ref([x, np.float32(-np.inf)], attrs, None)
    want = np.array([[x[i:i + 5:2, j:j + 5:2].max() for j in range(4)] for i in range(4)])
    assert np.array_equal(got, want)

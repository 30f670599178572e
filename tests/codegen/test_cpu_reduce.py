"""The CPU kernel of a group holding a reduce with a computation= (workbench/codegen/
cpu_reduce.py): XLA's variadic reduce (argmax, argmin over (value, index) pairs, the
comparators JAX writes) and a reduce whose computation is not one named op.

Each case compiles a small HLO module for the CPU, checks that the reduce ran natively (not
through the numpy reference), and compares the outputs with the reference interpreter bit for
bit (NaN matching NaN) and with numpy's own argmax/argmin (first index of the extreme value;
a NaN is the extreme, its first index wins). Inputs hold ties, NaN, -0 and +0.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.codegen import compile_plan
from workbench.importers import load_graph
from workbench.importers.hlo import parse_hlo
from workbench.ir import evaluate
from workbench.planner import plan_graph

CORPUS = Path(__file__).resolve().parents[2] / "corpus"

# the comparator jax.numpy.argmax/argmin lowers to (jax/_src/lax/lax.py, _compute_argminmax):
# the accumulator (a0, a1) is kept when its value wins ({cmp}) or is NaN, or on a tie in
# value when its index is lower
_ARG = """HloModule m
cmp {{
  a0 = {dt}[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = {dt}[] parameter(2)
  b1 = s32[] parameter(3)
  win = pred[] compare(a0, b0), direction={cmp}
  nan = pred[] compare(a0, a0), direction=NE
  keep = pred[] or(win, nan)
  v = {dt}[] select(keep, a0, b0)
  eq = pred[] compare(a0, b0), direction=EQ
  lt = pred[] compare(a1, b1), direction=LT
  tie = pred[] and(eq, lt)
  keepi = pred[] or(keep, tie)
  i = s32[] select(keepi, a1, b1)
  ROOT t = ({dt}[], s32[]) tuple(v, i)
}}
mx {{
  a = {dt}[] parameter(0)
  b = {dt}[] parameter(1)
  ROOT c = {dt}[] maximum(a, b)
}}
ENTRY e {{
  x = {dt}[{shape}] parameter(0)
  io = s32[{n}] iota(), iota_dimension=0
  ix = s32[{shape}] broadcast(io), dimensions={{{dim}}}
  init = {dt}[] constant({init})
  zero = s32[] constant(0)
  r = ({dt}[{kept}], s32[{kept}]) reduce(x, ix, init, zero), dimensions={{{dim}}}, to_apply=cmp
  v = {dt}[{kept}] get-tuple-element(r), index=0
  i = s32[{kept}] get-tuple-element(r), index=1
  m = {dt}[{kept}] reduce(x, init), dimensions={{{dim}}}, to_apply=mx
  ROOT out = ({dt}[{kept}], s32[{kept}], {dt}[{kept}]) tuple(v, i, m)
}}
"""

_INIT = {("GT", "f32"): "-inf", ("LT", "f32"): "inf", ("GT", "f64"): "-inf",
         ("LT", "f64"): "inf", ("GT", "s32"): "-2147483648", ("LT", "s32"): "2147483647",
         ("GT", "u8"): "0", ("LT", "u8"): "255"}


def _compile(text, kernel_cache):
    graph = parse_hlo(text, "reduce_case.hlo")
    compiled = compile_plan(graph, plan_graph(graph, "priority"), backend="cpu",
                            cache_dir=kernel_cache)
    return graph, compiled


def _outputs(value):
    return [np.asarray(o) for o in (value if isinstance(value, (tuple, list)) else [value])]


def _same(a, b):
    """Equal bit for bit, NaN matching NaN (any payload)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind != "f":
        return np.array_equal(a, b)
    nan = np.isnan(a)
    return np.array_equal(nan, np.isnan(b)) and np.array_equal(
        a[~nan].view(f"u{a.itemsize}"), b[~nan].view(f"u{b.itemsize}"))


def _inputs(dt, shape, rng):
    np_dt = np.dtype({"f32": np.float32, "f64": np.float64, "s32": np.int32, "u8": np.uint8}[dt])
    x = rng.integers(0, 4, shape).astype(np_dt)   # few distinct values: many ties
    if np_dt.kind == "f":
        x[0, 1] = np.nan                           # a NaN inside a row and a column
        x[-1, :] = -0.0
        x[-1, 1:3] = 0.0                           # -0 and +0 tie (they compare equal)
        x[1, :] = np.nan                           # a row of NaN: its first index wins
    return x


@pytest.mark.parametrize("dt", ["f32", "f64", "s32", "u8"])
@pytest.mark.parametrize("direction", ["GT", "LT"])
@pytest.mark.parametrize("dim", [0, 1])
def test_argmax_argmin_native_and_equal(dt, direction, dim, kernel_cache):
    shape = (6, 9)
    kept = shape[1 - dim]
    text = _ARG.format(dt=dt, cmp=direction, shape="6,9", n=shape[dim], dim=dim, kept=kept,
                       init=_INIT[(direction, dt)])
    graph, compiled = _compile(text, kernel_cache)
    mine = [k for k in compiled.kernels if "reduce" in k.ops]
    assert mine and all(not k.fallback and k.address is not None for k in compiled.kernels), \
        [k.fallback_reason for k in compiled.kernels]
    x = _inputs(dt, shape, np.random.default_rng(7))
    got = _outputs(compiled.run([x]))
    ref = _outputs(evaluate(graph, [x]))
    assert len(got) == 3
    for g, r in zip(got[:2], ref[:2]):          # the argmax/argmin pair: bit for bit
        assert _same(g, r), (g, r)
    # the named max beside it: folded in another order than the reference's tree, so the
    # sign of a zero among -0 and +0 may differ (XLA leaves the order unspecified)
    np.testing.assert_array_equal(got[2], ref[2])
    pick = np.argmax if direction == "GT" else np.argmin   # first index of the extreme; NaN
    want = pick(x, axis=dim).astype(np.int32)              # is the extreme (numpy and XLA)
    np.testing.assert_array_equal(got[1], want)
    np.testing.assert_array_equal(got[0], np.take_along_axis(
        x, np.expand_dims(want, dim), dim).squeeze(dim))


def test_ties_first_index_wins(kernel_cache):
    """Every element equal: index 0 of every row (not the last, not a tree's middle)."""
    text = _ARG.format(dt="f32", cmp="GT", shape="3,8", n=8, dim=1, kept=3, init="-inf")
    graph, compiled = _compile(text, kernel_cache)
    x = np.full((3, 8), 2.5, np.float32)
    x[1, 5] = x[1, 6] = 3.0                      # two maxima: the first one, 5
    got = _outputs(compiled.run([x]))
    np.testing.assert_array_equal(got[1], np.array([0, 5, 0], np.int32))


_ARG3 = """HloModule m
cmp {
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = s32[] parameter(3)
  win = pred[] compare(a0, b0), direction=LT
  nan = pred[] compare(a0, a0), direction=NE
  keep = pred[] or(win, nan)
  v = f32[] select(keep, a0, b0)
  eq = pred[] compare(a0, b0), direction=EQ
  lt = pred[] compare(a1, b1), direction=LT
  tie = pred[] and(eq, lt)
  keepi = pred[] or(keep, tie)
  i = s32[] select(keepi, a1, b1)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[4,5,6] parameter(0)
  y = f32[4,5,6] negate(x)
  io = s32[4,5,6] iota(), iota_dimension=2
  io0 = s32[4,5,6] iota(), iota_dimension=0
  sc = s32[] constant(6)
  scb = s32[4,5,6] broadcast(sc), dimensions={}
  m = s32[4,5,6] multiply(io0, scb)
  ix = s32[4,5,6] add(m, io)
  init = f32[] constant(inf)
  zero = s32[] constant(0)
  r = (f32[5], s32[5]) reduce(y, ix, init, zero), dimensions={0,2}, to_apply=cmp
  v = f32[5] get-tuple-element(r), index=0
  ROOT i = s32[5] get-tuple-element(r), index=1
}
"""


def test_argmin_over_two_dimensions_with_fused_producers(kernel_cache):
    """An argmin of -x over dimensions {0, 2} (the flat index of the pair computed by fused
    iotas, a multiply and an add): the first flat index of x's largest value."""
    graph, compiled = _compile(_ARG3, kernel_cache)
    assert all(not k.fallback for k in compiled.kernels), \
        [k.fallback_reason for k in compiled.kernels]
    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, (4, 5, 6)).astype(np.float32)
    x[2, 3, 4] = np.nan
    got = _outputs(compiled.run([x]))
    ref = _outputs(evaluate(graph, [x]))
    for g, r in zip(got, ref):
        assert _same(g, r), (g, r)
    flat = np.transpose(x, (1, 0, 2)).reshape(5, 24)
    np.testing.assert_array_equal(got[-1], np.argmax(flat, axis=1).astype(np.int32))


_SUM_COPY = """HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = s32[] add(a, b)
  ROOT d = s32[] copy(c)
}
ENTRY e {
  x = s32[7,5] parameter(0)
  z = s32[] constant(3)
  ROOT r = s32[5] reduce(x, z), dimensions={0}, to_apply=add
}
"""


def test_computation_that_is_not_one_named_op(kernel_cache):
    """A sum written as add then copy is kept as computation= (not reducer=add): compiled."""
    graph, compiled = _compile(_SUM_COPY, kernel_cache)
    assert graph.node("r").attrs.get("reducer") is None
    assert all(not k.fallback for k in compiled.kernels), \
        [k.fallback_reason for k in compiled.kernels]
    x = np.arange(35, dtype=np.int32).reshape(7, 5) - 17
    got = _outputs(compiled.run([x]))[0]
    np.testing.assert_array_equal(got, x.sum(axis=0) + 3)
    np.testing.assert_array_equal(got, _outputs(evaluate(graph, [x]))[0])


def test_bf16_falls_back_with_reason(kernel_cache):
    text = _ARG.format(dt="bf16", cmp="GT", shape="6,9", n=9, dim=1, kept=6, init="-inf")
    graph, compiled = _compile(text, kernel_cache)
    fb = [k for k in compiled.kernels if k.fallback]
    assert fb and "cpu reduce kernel takes pred, integer, f32 and f64" in fb[0].fallback_reason


def test_argmax_accuracy_plan_has_no_numpy_fallback(kernel_cache):
    graph = load_graph(CORPUS / "argmax_accuracy.before.hlo")
    compiled = compile_plan(graph, plan_graph(graph, "priority"), backend="cpu",
                            cache_dir=kernel_cache)
    assert compiled.kernels and not [k for k in compiled.kernels if k.fallback]
    io = np.load(CORPUS / "argmax_accuracy.io.npz")
    args = [io[k] for k in sorted(io.files) if k.startswith("arg")]
    got = _outputs(compiled.run(args))
    ref = _outputs(evaluate(graph, args))
    for g, r, want in zip(got, ref, (io["out0"], io["out1"], io["out2"])):
        assert _same(g, r), (g, r)
        np.testing.assert_allclose(g, want)   # jax.jit's outputs, saved with the corpus

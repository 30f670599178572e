"""Row-wise input fusions on the CPU: a transcendental needed by a row's reduction and by the
row's tail is computed once (row cache); merged loops address by their loop variable; short
float max reductions keep numpy's NaN propagation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import assert_matches, one_group_plan

from workbench.codegen import compile_plan
from workbench.codegen.backend import capabilities
from workbench.codegen.kernel_ir import Ix
from workbench.codegen.lower import group_members, lower_group
from workbench.codegen.source import merge_address
from workbench.ir import GraphBuilder, expand_composites, make_inputs, verify


def _softmax(shape):
    b = GraphBuilder(f"softmax_{'x'.join(map(str, shape))}")
    x = b.parameter("x", shape)
    last = len(shape) - 1
    keep = tuple(range(last))
    m = b.reduce(x, (last,), "maximum", -math.inf)
    e = b.op("exponential", [b.op("subtract", [x, b.op("broadcast", [m], shape=shape,
                                                          dimensions=keep)])])
    s = b.reduce(e, (last,), "add", 0.0)
    y = b.op("divide", [e, b.op("broadcast", [s], shape=shape, dimensions=keep)])
    return verify(b.build([y]))


def _lower(graph, backend="cpu"):
    g = one_group_plan(graph).groups[0]
    xg = expand_composites(graph)
    return lower_group(xg, group_members(xg, g.nodes), g.outputs, capabilities(backend))


def _run(graph, cache, inputs=None):
    compiled = compile_plan(graph, one_group_plan(graph), backend="cpu", cache_dir=cache)
    assert not compiled.kernels[0].fallback, compiled.kernels[0].fallback_reason
    inputs = make_inputs(graph, seed=5) if inputs is None else inputs
    outs = compiled.run(inputs)
    assert_matches(graph, outs, inputs)
    return compiled, outs


def test_softmax_computes_each_exp_once_serial(kernel_cache):
    g = _softmax((2, 4, 64, 64))                     # the transformer block's attention
    kir = _lower(g)
    (nest,) = kir.nests
    assert len(nest.rows) == 1
    buf, level = nest.rows[0]
    assert buf.shape == (64,) and buf.dtype == "f32" and level == 3   # the row level
    compiled, _ = _run(g, kernel_cache)
    src = compiled.kernels[0].source
    assert src.count("fm_exponential(") == 1
    assert "PARALLEL = False" in src
    # one buffer per kernel, allocated before the loops
    assert src.index(f"{buf.name} = np.empty(64") < src.index("for li")
    # merged loop [2, 4, 64] addressed by its loop variable, without the divisions
    assert "li1 * 64" in src and "* 16384" not in src


def test_softmax_row_cache_is_thread_private_in_a_parallel_nest(kernel_cache):
    g = _softmax((512, 1024))
    compiled, _ = _run(g, kernel_cache)
    src = compiled.kernels[0].source
    assert "PARALLEL = True" in src and src.count("fm_exponential(") == 1
    alloc = next(ln for ln in src.splitlines() if "np.empty(1024" in ln)
    assert src.index("prange(") < src.index(alloc)    # inside the parallel loop


def test_softmax_with_nan_inf_and_masked_rows_matches_numpy(kernel_cache):
    g = _softmax((8, 64))
    x = np.random.default_rng(0).standard_normal((8, 64)).astype(np.float32)
    x[1, 5] = np.nan
    x[2, :] = -np.inf                                # all masked: 0/0 = NaN, as in numpy
    x[3, 7] = np.inf
    x[4, :32] = -1e9                                 # an attention mask
    _, (y,) = _run(g, kernel_cache, [x])
    with np.errstate(invalid="ignore"):
        e = np.exp(x - x.max(1, keepdims=True))
        want = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-7, equal_nan=True)
    assert np.isnan(y[1]).all() and np.isnan(y[2]).all() and not np.isnan(y[4]).any()


def test_cheap_members_and_other_indices_are_recomputed(kernel_cache):
    # the tail reads exp at a reversed index: not the element the reduction computed
    b = GraphBuilder("rev")
    x = b.parameter("x", (4, 32))
    e = b.op("exponential", [x])
    s = b.reduce(e, (1,), "add", 0.0)
    r = b.op("reverse", [e], dimensions=(1,))
    y = b.op("divide", [r, b.op("broadcast", [s], shape=(4, 32), dimensions=(0,))])
    g = verify(b.build([y]))
    assert _lower(g).nests[0].rows == []
    _run(g, kernel_cache)
    # layer norm's x - mean is cheap, and gelu's tanh is only in the tail: no row cache
    from small_graphs import load_sample

    assert all(n.rows == [] for n in _lower(load_sample("layernorm_gelu")).nests)


def test_no_row_cache_on_cuda():
    kir = _lower(_softmax((4, 64)), "cuda-sim")
    assert all(n.rows == [] for n in kir.nests)


@pytest.mark.parametrize("row, form", [(32, "flag"), (64, "fmaximum")])
def test_float_max_reduction_form_by_row_length_propagates_nan(kernel_cache, row, form):
    # rows up to SHORT_MINMAX_REDUCTION (32): plain max + a NaN flag; longer: llvm.maximum
    b = GraphBuilder(f"rowmax{row}")
    x = b.parameter("x", (6, row))
    g = verify(b.build([b.reduce(x, (1,), "maximum", -math.inf),
                        b.reduce(x, (1,), "minimum", math.inf)]))
    x0 = np.random.default_rng(1).standard_normal((6, row)).astype(np.float32)
    x0[0, row - 1] = np.nan
    x0[1, 0] = np.nan
    x0[2, :] = -np.inf
    x0[3, 10] = np.inf
    compiled, (mx, mn) = _run(g, kernel_cache, [x0])
    assert ("fmaximum" in compiled.kernels[0].source) == (form == "fmaximum")
    assert ("_nan |=" in compiled.kernels[0].source) == (form == "flag")
    np.testing.assert_array_equal(mx, x0.max(1))
    np.testing.assert_array_equal(mn, x0.min(1))
    assert np.isnan(mx[:2]).all() and mx[2] == -np.inf and mx[3] == np.inf


@pytest.mark.parametrize("row, hidden", [(16, False), (64, True), (96, True), (256, False)])
def test_short_float_sum_runs_to_a_hidden_extent(kernel_cache, row, hidden):
    # OPAQUE_EXTENTS (32..127): the trip count is hidden from LLVM so that it vectorises the
    # loop instead of unrolling it; the sum is the same
    b = GraphBuilder(f"rowsum{row}")
    x = b.parameter("x", (5, row))
    g = verify(b.build([b.reduce(x, (1,), "add", 0.0),
                        b.reduce(x, (1,), "multiply", 1.0)]))
    x0 = (1 + 0.01 * np.random.default_rng(2).standard_normal((5, row))).astype(np.float32)
    x0[4, 3] = np.nan
    compiled, (sm, pr) = _run(g, kernel_cache, [x0])
    assert (f"opaque_extent({row})" in compiled.kernels[0].source) == hidden
    np.testing.assert_allclose(sm, x0.astype(np.float64).sum(1), rtol=1e-5)
    np.testing.assert_allclose(pr, x0.astype(np.float64).prod(1), rtol=1e-4)
    assert np.isnan(sm[4]) and np.isnan(pr[4])


def test_a_short_sum_of_exponentials_runs_to_a_hidden_extent(kernel_cache):
    # a softmax over rows of 8: the sum of exp(x - max) calls the float32 approximation, so its
    # loop's extent is hidden from LLVM even below OPAQUE_EXTENTS; the max's (plain) is not
    b = GraphBuilder("softmax8")
    x = b.parameter("x", (64, 8))
    m = b.reduce(x, (1,), "maximum", -math.inf)
    e = b.op("exponential", [b.op("subtract", [x, b.op("broadcast", [m], shape=(64, 8),
                                                           dimensions=(0,))])])
    s = b.reduce(e, (1,), "add", 0.0)
    g = verify(b.build([b.op("divide", [e, b.op("broadcast", [s], shape=(64, 8),
                                                  dimensions=(0,))])]))
    x0 = (4 * np.random.default_rng(3).standard_normal((64, 8))).astype(np.float32)
    compiled, (y,) = _run(g, kernel_cache, [x0])
    src = compiled.kernels[0].source
    assert len(compiled.kernels) == 1 and src.count("opaque_extent(8)") == 1
    ref = np.exp(x0 - x0.max(1, keepdims=True))
    np.testing.assert_allclose(y, ref / ref.sum(1, keepdims=True), rtol=2e-6, atol=1e-7)


def test_merge_address_folds_only_whole_proportional_groups():
    merged = [("l1", {"i1": 256, "i2": 64, "i3": 1})]
    a = Ix.var("i1") * 16384 + Ix.var("i2") * 4096 + Ix.var("i3") * 64 + Ix.var("r") + 3
    assert merge_address(a, merged).text() == "l1 * 64 + r + 3"
    # a transposed read (coefficients not proportional to the strides) is left alone
    t = Ix.var("i1") * 16384 + Ix.var("i2") * 64 + Ix.var("i3") * 4096
    assert merge_address(t, merged) == t
    # a broadcast read that misses one of the merged variables is left alone
    p = Ix.var("i1") * 64 + Ix.var("i3")
    assert merge_address(p, merged) == p

"""Row-wise input fusions on the CPU: a transcendental needed by a row's reduction and by the
row's tail is computed once (row cache); merged loops address by their loop variable; short
float max reductions keep numpy's NaN propagation."""

from __future__ import annotations

import math

import numpy as np
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


def test_short_float_max_reduction_propagates_nan(kernel_cache):
    b = GraphBuilder("rowmax")
    x = b.parameter("x", (6, 32))
    g = verify(b.build([b.reduce(x, (1,), "maximum", -math.inf),
                        b.reduce(x, (1,), "minimum", math.inf)]))
    x0 = np.random.default_rng(1).standard_normal((6, 32)).astype(np.float32)
    x0[0, 31] = np.nan
    x0[1, 0] = np.nan
    x0[2, :] = -np.inf
    x0[3, 10] = np.inf
    compiled, (mx, mn) = _run(g, kernel_cache, [x0])
    assert "fmaximum" not in compiled.kernels[0].source          # the short form
    np.testing.assert_array_equal(mx, x0.max(1))
    np.testing.assert_array_equal(mn, x0.min(1))


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

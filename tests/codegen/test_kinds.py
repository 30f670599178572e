"""Each kind of fusion, lowered natively by the cpu backend: the kernel IR has the expected
structure, and the compiled kernel equals the reference interpreter."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from conftest import assert_matches, one_group_plan

from workbench.codegen import compile_plan
from workbench.codegen.kernel_ir import Reduce, Store
from workbench.ir import GraphBuilder, make_inputs, verify


def _compile(graph, cache, plan=None):
    plan = plan or one_group_plan(graph)
    compiled = compile_plan(graph, plan, backend="cpu", cache_dir=cache)
    for k in compiled.kernels:
        assert not k.fallback, k.fallback_reason
    inputs = make_inputs(graph, seed=3)
    assert_matches(graph, compiled.run(inputs), inputs)
    return compiled


def _nests(compiled):
    from workbench.codegen.backend import capabilities
    from workbench.codegen.lower import group_members, lower_group

    g = compiled.plan.groups[0]
    return lower_group(compiled.xgraph, group_members(compiled.xgraph, g.nodes), g.outputs,
                       capabilities("cpu"))


def test_loop_fusion_with_broadcast_reshape_transpose_slice(kernel_cache):
    b = GraphBuilder("loop")
    x = b.parameter("x", (6, 8))
    v = b.parameter("v", (8,))
    t = b.op("transpose", [x], dimensions=(1, 0))                     # [8, 6]
    s = b.op("slice", [t], start_indices=(1, 0), limit_indices=(7, 6),
             strides=(2, 1))                                          # [3, 6]
    r = b.op("reshape", [s], shape=(18,))
    vb = b.op("broadcast", [b.op("slice", [v], start_indices=(2,), limit_indices=(5,))],
              shape=(3, 6), dimensions=(0,))
    y = b.op("multiply", [r, b.op("reshape", [vb], shape=(18,))])
    g = verify(b.build([b.op("tanh", [y])]))
    compiled = _compile(g, kernel_cache)
    kir = _nests(compiled)
    assert len(kir.nests) == 1 and not kir.scratch
    assert "c_" not in compiled.kernels[0].source      # no block-wise contraction code


def test_loop_fusion_vectorises_the_inner_loop(kernel_cache):
    from small_graphs import load_hlo

    g = load_hlo("chain10")
    compiled = _compile(g, kernel_cache)
    module = next(m for m in list(sys.modules.values())
                  if getattr(m, "__file__", None) == compiled.kernels[0].source_path)
    # the kernel may have come from numba's disk cache (the run's kernel cache is shared),
    # which keeps machine code but no LLVM IR: the same function, compiled afresh with the
    # same options, shows the IR
    import numba

    options = {k: v for k, v in module.kernel.targetoptions.items() if k != "nopython"}
    sig = module.kernel.signatures[0]
    fresh = numba.njit(sig, **options)(module.kernel.py_func)
    llvm = fresh.inspect_llvm(sig)
    assert "<8 x float>" in llvm or "<16 x float>" in llvm


def test_multi_output_fusion_writes_all_outputs_in_one_pass(kernel_cache):
    from small_graphs import load_sample

    g = load_sample("multi_consumer")
    assert len(g.outputs) == 3
    compiled = _compile(g, kernel_cache)
    assert compiled.plan.groups[0].kind == "multi-output"
    kir = _nests(compiled)
    assert len(kir.nests) == 1
    stores = [s for s in kir.nests[0].levels[-1] if isinstance(s, Store)]
    assert sorted(s.buffer for s in stores) == ["out0", "out1", "out2"]


def test_multi_output_with_a_reduction_stores_it_at_row_depth(kernel_cache):
    b = GraphBuilder("mo")
    x = b.parameter("x", (16, 32))
    e = b.op("exponential", [x])
    s = b.reduce(e, (1,), "add", 0.0)
    g = verify(b.build([e, s]))
    compiled = _compile(g, kernel_cache)
    nest = _nests(compiled).nests[0]
    assert [s.buffer for s in nest.levels[1] if isinstance(s, Store)] == ["out1"]


def test_input_fusion_softmax_reduces_once_per_row(kernel_cache):
    from small_graphs import load_hlo

    g = load_hlo("softmax")
    compiled = _compile(g, kernel_cache)
    kir = _nests(compiled)
    assert len(kir.nests) == 1 and not kir.scratch
    row_level = kir.nests[0].levels[1]
    reduces = [s for s in row_level if isinstance(s, Reduce)]
    assert sorted(r.reducer for r in reduces) == ["add", "maximum"]
    assert all(r.contiguous for r in reduces)


def test_input_fusion_layer_norm_gelu(kernel_cache):
    from small_graphs import load_sample

    g = load_sample("layernorm_gelu")
    kir = _nests(_compile(g, kernel_cache))
    assert not kir.scratch
    assert len([s for s in kir.nests[0].levels[1] if isinstance(s, Reduce)]) == 2


def test_output_fusion_matmul_bias_gelu_is_block_wise_blas(kernel_cache):
    from small_graphs import load_sample

    g = load_sample("matmul_bias_gelu")
    compiled = _compile(g, kernel_cache)
    assert compiled.plan.groups[0].kind == "output"
    kir = _nests(compiled)
    assert len(kir.nests) == 1 and kir.nests[0].contraction.kind == "dot"
    src = compiled.kernels[0].source
    assert "sgemm_rows(0, c_m1 - c_m0, c_n1 - c_n0, 256" in src and "tanh" in src


def test_output_fusion_conv_bias_relu_uses_im2col_blocks(kernel_cache):
    from small_graphs import load_sample

    g = load_sample("conv_bias_relu")
    compiled = _compile(g, kernel_cache)
    kir = _nests(compiled)
    assert kir.nests[-1].contraction.kind == "conv"
    assert "c_P[c_m - c_m0" in compiled.kernels[0].source


def test_dot_with_batch_dims_and_transposed_rhs(kernel_cache):
    b = GraphBuilder("bmm")
    q = b.parameter("q", (2, 3, 5, 4))
    k = b.parameter("k", (2, 3, 7, 4))
    d = b.op("dot", [q, k], lhs_batch_dims=(0, 1), rhs_batch_dims=(0, 1),
             lhs_contracting_dims=(3,), rhs_contracting_dims=(3,))      # [2,3,5,7]
    g = verify(b.build([b.op("multiply", [d, b.splat(0.5, (2, 3, 5, 7))])]))
    compiled = _compile(g, kernel_cache)
    assert "sgemm_rows(1, " in compiled.kernels[0].source     # B read transposed, no copy


def test_dot_used_at_another_index_is_materialised(kernel_cache):
    b = GraphBuilder("dot_t")
    a = b.parameter("a", (8, 6))
    w = b.parameter("w", (6, 5))
    d = b.op("dot", [a, w], lhs_contracting_dims=(1,), rhs_contracting_dims=(0,))
    t = b.op("transpose", [d], dimensions=(1, 0))
    g = verify(b.build([b.op("negate", [t])]))
    kir = _nests(_compile(g, kernel_cache))
    assert [s.shape for s in kir.scratch] == [(8, 5)]
    assert kir.nests[0].contraction is not None and kir.nests[1].contraction is None


def test_column_reduction_broadcast_back_is_materialised(kernel_cache):
    b = GraphBuilder("colnorm")
    x = b.parameter("x", (12, 10))
    s = b.reduce(x, (0,), "add", 0.0)
    g = verify(b.build([b.op("divide", [x, b.broadcast_to(s, (12, 10), (1,))])]))
    kir = _nests(_compile(g, kernel_cache))
    assert [sc.shape for sc in kir.scratch] == [(10,)]


def test_integer_dot_and_ops_are_lowered_inline(kernel_cache):
    b = GraphBuilder("ints")
    a = b.parameter("a", (4, 6), "s32")
    w = b.parameter("w", (6, 3), "s32")
    d = b.op("dot", [a, w], lhs_contracting_dims=(1,), rhs_contracting_dims=(0,))
    q = b.op("divide", [d, b.splat(-3, (4, 3), "s32")])
    r = b.op("remainder", [d, b.splat(5, (4, 3), "s32")])
    g = verify(b.build([q, r]))
    _compile(g, kernel_cache)


@pytest.mark.parametrize("case", ["pad", "concatenate", "reverse", "iota", "reduce_window",
                                  "convert", "select_clamp", "bitcast", "conv_groups"])
def test_data_movement_and_special_ops(case, kernel_cache):
    _compile(_special_graph(case), kernel_cache)


def _special_graph(case):
    b = GraphBuilder(case)
    x = b.parameter("x", (5, 6))
    if case == "pad":
        out = b.op("pad", [x, b.constant(1.5)], padding=((1, -1, 1), (2, 0, 0)))
    elif case == "concatenate":
        y = b.parameter("y", (3, 6))
        out = b.op("concatenate", [x, y, x], dimension=0)
    elif case == "reverse":
        out = b.op("reverse", [x], dimensions=(0, 1))
    elif case == "iota":
        io = b.op("iota", [], shape=(5, 6), dtype="f32", iota_dimension=1)
        out = b.op("add", [x, io])
    elif case == "reduce_window":
        out = b.op("reduce-window", [x, b.constant(-np.inf)], reducer="maximum",
                   window_size=(2, 3), window_stride=(1, 2), window_padding=((1, 0), (1, 1)))
    elif case == "convert":
        big = b.op("multiply", [x, b.splat(3e8, (5, 6))])
        out = b.op("convert", [big], dtype="s32")
    elif case == "select_clamp":
        c = b.op("compare", [x, b.splat(0.0, (5, 6))], direction="GT")
        sel = b.op("select", [c, x, b.op("negate", [x])])
        out = b.op("clamp", [b.constant(0.25), sel, b.constant(1.0)])
    elif case == "bitcast":
        out = b.op("bitcast", [x], shape=(6, 5), operand_layout=(0, 1), layout=(1, 0))
    else:
        img = b.parameter("img", (1, 7, 7, 4))
        ker = b.parameter("ker", (3, 3, 2, 6))
        out = b.op("convolution", [img, ker], dim_labels="b01f_01io->b01f",
                   window_stride=(2, 1), window_padding=((1, 1), (0, 2)),
                   rhs_dilation=(1, 2), feature_group_count=2)
    return verify(b.build([out]))


def test_float_to_int_convert_truncates_and_saturates(kernel_cache):
    """XLA semantics, checked directly against the expected integers."""
    b = GraphBuilder("sat")
    x = b.parameter("x", (6,))
    g = verify(b.build([b.op("convert", [x], dtype="s32")]))
    compiled = compile_plan(g, one_group_plan(g), backend="cpu", cache_dir=kernel_cache)
    x = np.array([3e9, -3e9, np.nan, 2.7, -2.7, np.inf], np.float32)
    (out,) = compiled.run([x])
    assert out.tolist() == [2**31 - 1, -2**31, 0, 2, -2, 2**31 - 1]

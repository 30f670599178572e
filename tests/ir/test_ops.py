"""Per-op shape inference and numpy references against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.errors import AttributeError_, ShapeError
from workbench.ir import Attrs, GraphBuilder, TensorType, evaluate, expand_composites, get_op, verify
from workbench.ir.ops import REGISTRY, Category

F32 = "f32"


def T(*shape, dtype=F32):
    return TensorType(tuple(shape), dtype)


def run(op, arrays, **attrs):
    """Infer the type of op on arrays and evaluate its reference."""
    d = get_op(op)
    a = Attrs(attrs)
    types = [T(*np.shape(x), dtype={"float32": "f32", "int32": "s32", "bool": "pred",
                                    "float64": "f64"}[np.asarray(x).dtype.name]) for x in arrays]
    out_t = d.infer(types, a, None)
    return out_t, d.reference([np.asarray(x) for x in arrays], a, out_t)


def f32(x):
    return np.asarray(x, dtype=np.float32)


def test_every_op_in_shared_hlo_is_registered():
    needed = ["parameter", "constant", "broadcast", "reshape", "transpose", "slice", "add",
              "subtract", "multiply", "divide", "maximum", "minimum", "negate", "abs", "power",
              "exponential", "log", "tanh", "logistic", "sqrt", "rsqrt", "sine", "cosine",
              "compare", "select", "clamp", "convert", "iota", "concatenate", "pad", "reduce",
              "dot", "convolution", "bitcast", "copy", "reduce-window",
              "batch_norm_inference", "layer_norm", "softmax", "gelu", "relu", "bias_add",
              "matmul", "conv2d"]
    missing = [n for n in needed if n not in REGISTRY]
    assert missing == []


def test_categories_are_known():
    assert {d.category for d in REGISTRY.values()} <= set(Category.ALL)
    assert get_op("add").category == Category.ELEMENTWISE
    assert get_op("broadcast").category == Category.BROADCAST
    assert get_op("transpose").category == Category.INJECTIVE
    assert get_op("reduce").category == Category.REDUCTION
    assert get_op("dot").category == Category.CONTRACTION
    assert get_op("convolution").category == Category.CONVOLUTION
    assert get_op("layer_norm").category == Category.NORMALIZATION
    assert get_op("opaque").category == Category.OPAQUE


def test_elementwise_binary_and_unary():
    t, v = run("add", [f32([1, 2]), f32([10, 20])])
    assert t == T(2) and v.tolist() == [11, 22]
    _, v = run("subtract", [f32([1, 2]), f32([10, 20])])
    assert v.tolist() == [-9, -18]
    _, v = run("maximum", [f32([1, np.nan]), f32([3, 0])])
    assert v[0] == 3 and np.isnan(v[1])          # NaN propagates, as in XLA
    _, v = run("rsqrt", [f32([4.0, 0.25])])
    assert v.tolist() == [0.5, 2.0]
    _, v = run("logistic", [f32([0.0, 1000.0, -1000.0])])
    assert v.tolist() == [0.5, 1.0, 0.0]          # no overflow at the ends
    _, v = run("power", [f32([2.0, 3.0]), f32([3.0, 2.0])])
    assert v.tolist() == [8.0, 9.0]
    _, v = run("erf", [f32([0.0, 1.0])])
    assert v[0] == 0 and abs(v[1] - math.erf(1.0)) < 1e-7


def test_integer_divide_truncates_toward_zero_and_remainder_keeps_sign():
    a = np.array([7, -7, 7, -7], np.int32)
    b = np.array([2, 2, -2, -2], np.int32)
    _, q = run("divide", [a, b])
    _, r = run("remainder", [a, b])
    assert q.tolist() == [3, -3, -3, 3]
    assert r.tolist() == [1, -1, 1, -1]


def test_elementwise_shape_and_dtype_errors():
    with pytest.raises(ShapeError, match="equal shapes"):
        get_op("add").infer([T(2), T(3)], Attrs(), None)
    with pytest.raises(ShapeError, match="equal dtypes"):
        get_op("add").infer([T(2), T(2, dtype="s32")], Attrs(), None)
    with pytest.raises(ShapeError, match="not allowed"):
        get_op("exponential").infer([T(2, dtype="s32")], Attrs(), None)


def test_compare_select_clamp_convert():
    t, v = run("compare", [f32([1, 2, 3]), f32([2, 2, 2])], direction="GE")
    assert t.dtype == "pred" and v.tolist() == [False, True, True]
    with pytest.raises(AttributeError_, match="direction"):
        get_op("compare").infer([T(2), T(2)], Attrs(direction="XX"), None)
    _, v = run("select", [np.array([True, False]), f32([1, 2]), f32([10, 20])])
    assert v.tolist() == [1, 20]
    _, v = run("clamp", [f32(0.0), f32([-1, 0.5, 3]), f32(1.0)])
    assert v.tolist() == [0, 0.5, 1]
    t, v = run("convert", [f32([1.7, -1.7, 1e10, np.nan])], dtype="s32")
    assert t.dtype == "s32"
    assert v.tolist() == [1, -1, 2**31 - 1, 0]   # truncate toward zero, saturate


def test_broadcast_maps_operand_dims():
    x = f32([[1, 2, 3], [4, 5, 6]])                 # [2, 3]
    t, v = run("broadcast", [x], shape=(3, 4, 2), dimensions=(2, 0))   # transposing broadcast
    assert t == T(3, 4, 2)
    assert v[:, 0, :].tolist() == [[1, 4], [2, 5], [3, 6]]
    assert (v[:, 1, :] == v[:, 3, :]).all()
    t, v = run("broadcast", [f32(7.0)], shape=(2, 2), dimensions=())
    assert v.tolist() == [[7, 7], [7, 7]]
    with pytest.raises(ShapeError):
        get_op("broadcast").infer([T(3)], Attrs(shape=(4,), dimensions=(0,)), None)


def test_reshape_transpose_slice_concat_reverse():
    x = np.arange(6, dtype=np.float32)
    t, v = run("reshape", [x], shape=(2, 3))
    assert v.tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ShapeError, match="cannot reshape"):
        get_op("reshape").infer([T(6)], Attrs(shape=(4,)), None)
    t, v = run("transpose", [v], dimensions=(1, 0))
    assert t == T(3, 2) and v.tolist() == [[0, 3], [1, 4], [2, 5]]
    t, v = run("slice", [np.arange(10, dtype=np.float32)], start_indices=(1,),
               limit_indices=(8,), strides=(3,))
    assert t == T(3) and v.tolist() == [1, 4, 7]
    t, v = run("concatenate", [f32([[1], [2]]), f32([[3, 4], [5, 6]])], dimension=1)
    assert t == T(2, 3) and v.tolist() == [[1, 3, 4], [2, 5, 6]]
    _, v = run("reverse", [f32([[1, 2], [3, 4]])], dimensions=(1,))
    assert v.tolist() == [[2, 1], [4, 3]]


def test_pad_edges_interior_and_negative():
    t, v = run("pad", [f32([1, 2, 3]), f32(0.0)], padding=((1, 2, 1),))
    assert t == T(8) and v.tolist() == [0, 1, 0, 2, 0, 3, 0, 0]
    t, v = run("pad", [f32([1, 2, 3]), f32(9.0)], padding=((-1, 1, 0),))
    assert t == T(3) and v.tolist() == [2, 3, 9]


def test_iota():
    d = get_op("iota")
    a = Attrs(shape=(2, 3), dtype="s32", iota_dimension=1)
    t = d.infer([], a, None)
    assert d.reference([], a, t).tolist() == [[0, 1, 2], [0, 1, 2]]


def test_bitcast_with_layouts_is_a_transpose():
    # operand [2,3] stored column-major ({0,1}): memory order is x[0,0], x[1,0], x[0,1], ...
    x = f32([[1, 2, 3], [4, 5, 6]])
    d = get_op("bitcast")
    a = Attrs(shape=(3, 2), operand_layout=(0, 1), layout=(1, 0))
    t = d.infer([T(2, 3)], a, None)
    assert d.reference([x], a, t).tolist() == [[1, 4], [2, 5], [3, 6]]
    # default layouts: a reshape
    a = Attrs(shape=(3, 2))
    assert d.reference([x], a, t).tolist() == [[1, 2], [3, 4], [5, 6]]


def test_reduce_and_reduce_window():
    x = f32([[1, 5, 3], [4, 2, 6]])
    t, v = run("reduce", [x, f32(0.0)], dimensions=(1,), reducer="add")
    assert t == T(2) and v.tolist() == [9, 12]
    _, v = run("reduce", [x, f32(-np.inf)], dimensions=(0, 1), reducer="maximum")
    assert v.tolist() == 6
    _, v = run("reduce", [x, f32(10.0)], dimensions=(0,), reducer="add")
    assert v.tolist() == [15, 17, 19]               # the init value is included once
    t, v = run("reduce-window", [f32([[1, 2, 3, 4], [5, 6, 7, 8]]), f32(0.0)],
               window_size=(1, 2), window_stride=(1, 2), reducer="add")
    assert t == T(2, 2) and v.tolist() == [[3, 7], [11, 15]]
    t, v = run("reduce-window", [f32([1, 3, 2]), f32(-np.inf)], window_size=(2,),
               window_padding=((1, 0),), reducer="maximum")
    assert v.tolist() == [1, 3, 3]
    assert get_op("reduce").flops([T(2, 3), T()], T(2), Attrs(dimensions=(1,), reducer="add")) == 6


def test_dot_general_dimension_numbers():
    a = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)   # batch 2, M 3, K 4
    b = np.arange(2 * 4 * 5, dtype=np.float32).reshape(2, 4, 5)   # batch 2, K 4, N 5
    attrs = dict(lhs_batch_dims=(0,), rhs_batch_dims=(0,), lhs_contracting_dims=(2,),
                 rhs_contracting_dims=(1,))
    t, v = run("dot", [a, b], **attrs)
    assert t == T(2, 3, 5)
    np.testing.assert_allclose(v, np.einsum("bmk,bkn->bmn", a, b))
    # contracting the lhs's first dimension: out = a^T b
    a2 = np.arange(6, dtype=np.float32).reshape(3, 2)
    b2 = np.arange(12, dtype=np.float32).reshape(3, 4)
    t, v = run("dot", [a2, b2], lhs_contracting_dims=(0,), rhs_contracting_dims=(0,))
    assert t == T(2, 4)
    np.testing.assert_allclose(v, a2.T @ b2)
    flops = get_op("dot").flops([T(2, 3, 4), T(2, 4, 5)], t, Attrs(attrs))
    assert flops == 2 * 2 * 3 * 5 * 4
    with pytest.raises(ShapeError, match="contracting dimension"):
        get_op("dot").infer([T(3, 4), T(5, 6)], Attrs(lhs_contracting_dims=(1,),
                                                     rhs_contracting_dims=(0,)), None)


def _conv_direct(x, w, stride, pad):
    """Direct NHWC/HWIO convolution with loops (the definition)."""
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    xp = np.pad(x, ((0, 0), pad[0], pad[1], (0, 0)))
    oh = (xp.shape[1] - kh) // stride[0] + 1
    ow = (xp.shape[2] - kw) // stride[1] + 1
    out = np.zeros((n, oh, ow, o), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw, :]
            out[:, i, j, :] = np.tensordot(patch, w, axes=([1, 2, 3], [0, 1, 2]))
    return out


def test_convolution_nhwc_hwio_with_stride_and_padding():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 6, 3)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 4)).astype(np.float32)
    t, v = run("convolution", [x, w], dim_labels="b01f_01io->b01f", window_size=(3, 2),
               window_stride=(2, 1), window_padding=((1, 1), (0, 1)))
    expected = _conv_direct(x, w, (2, 1), ((1, 1), (0, 1)))
    assert t.shape == expected.shape == (2, 3, 6, 4)
    np.testing.assert_allclose(v, expected, rtol=1e-5, atol=1e-5)
    g = get_op("convolution")
    a = Attrs(dim_labels="b01f_01io->b01f", window_stride=(2, 1),
              window_padding=((1, 1), (0, 1)))
    assert g.flops([T(2, 5, 6, 3), T(3, 2, 3, 4)], t, a) == 2 * t.size * 3 * 3 * 2


def test_convolution_nchw_labels_and_feature_groups():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 4, 5, 5)).astype(np.float32)      # NCHW, 4 channels
    w = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)      # OIHW, 2 groups of 2
    t, v = run("convolution", [x, w], dim_labels="bf01_oi01->bf01", feature_group_count=2,
               window_padding=((1, 1), (1, 1)))
    assert t.shape == (1, 6, 5, 5)
    xh = x.transpose(0, 2, 3, 1)
    wh = w.transpose(2, 3, 1, 0)                                  # HWIO, I = 2 per group
    ref = np.concatenate([
        _conv_direct(xh[..., g * 2:(g + 1) * 2], wh[..., g * 3:(g + 1) * 3], (1, 1),
                     ((1, 1), (1, 1))) for g in range(2)], axis=-1)
    np.testing.assert_allclose(v, ref.transpose(0, 3, 1, 2), rtol=1e-5, atol=1e-5)
    with pytest.raises(ShapeError, match="feature_group_count"):
        get_op("convolution").infer([T(1, 4, 5, 5), T(6, 3, 3, 3)],
                                    Attrs(dim_labels="bf01_oi01->bf01", feature_group_count=2),
                                    None)
    with pytest.raises(AttributeError_, match="dim_labels"):
        get_op("convolution").infer([T(1, 4, 5, 5), T(6, 4, 3, 3)], Attrs(dim_labels="nchw"),
                                    None)


@pytest.mark.parametrize("op, operands, attrs", [
    ("relu", [(4, 8)], {}),
    ("gelu", [(4, 8)], {"approximate": True}),
    ("gelu", [(4, 8)], {"approximate": False}),
    ("bias_add", [(4, 8), (8,)], {}),
    ("matmul", [(4, 8), (8, 3)], {}),
    ("matmul", [(2, 4, 8), (2, 8, 3)], {}),
    ("layer_norm", [(4, 8), (8,), (8,)], {"epsilon": 1e-5}),
    ("softmax", [(4, 8)], {}),
    ("batch_norm_inference", [(2, 3, 3, 8), (8,), (8,), (8,), (8,)],
     {"epsilon": 1e-3, "feature_index": 3}),
    ("conv2d", [(1, 6, 6, 3), (3, 3, 3, 4)], {"strides": (2, 2), "padding": "SAME"}),
])
def test_composite_reference_equals_its_expansion(op, operands, attrs):
    b = GraphBuilder(op)
    ids = [b.parameter(f"p{i}", s) for i, s in enumerate(operands)]
    out = b.op(op, ids, **attrs)
    g = verify(b.build([out]))
    rng = np.random.default_rng(0)
    inputs = [rng.uniform(0.5, 1.5, s).astype(np.float32) for s in operands]
    direct = evaluate(g, inputs)[0]
    expanded = verify(expand_composites(g))
    assert not any(get_op(n.op).composite for n in expanded.nodes)
    np.testing.assert_allclose(evaluate(expanded, inputs)[0], direct, rtol=2e-5, atol=2e-6)
    # a composite costs what its expansion costs
    flops = sum(get_op(n.op).flops([expanded.node(o).type for o in n.operands], n.type, n.attrs)
                for n in expanded.nodes)
    assert get_op(op).flops([g.node(i).type for i in ids], g.node(out).type, Attrs(attrs)) == flops


def test_gelu_and_softmax_values():
    _, v = run("gelu", [f32([0.0, 1.0, -1.0])], approximate=False)
    np.testing.assert_allclose(v, [0.0, 0.5 * (1 + math.erf(1 / math.sqrt(2))),
                                   -0.5 * (1 - math.erf(1 / math.sqrt(2)))], rtol=1e-6)
    _, v = run("softmax", [f32([[0.0, math.log(3.0)]])])
    np.testing.assert_allclose(v, [[0.25, 0.75]], rtol=1e-6)
    _, v = run("layer_norm", [f32([[1, 2, 3, 4]]), f32([1, 1, 1, 1]), f32([0, 0, 0, 0])],
               epsilon=0.0)
    np.testing.assert_allclose(v, [[-1.3416408, -0.4472136, 0.4472136, 1.3416408]], rtol=1e-6)


def test_transcendental_counting_follows_hlo_cost_analysis():
    ex = get_op("exponential")
    assert ex.flops([T(10)], T(10), Attrs()) == 0
    assert ex.transcendentals([T(10)], T(10), Attrs()) == 10
    assert get_op("add").flops([T(10), T(10)], T(10), Attrs()) == 10
    assert get_op("broadcast").bytes_read([T(10)], T(4, 10), Attrs()) == 40   # its own size
    assert get_op("broadcast").bytes_written([T(10)], T(4, 10), Attrs()) == 160

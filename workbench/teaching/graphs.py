"""The lessons' and exercises' own small graphs, built with :class:`~workbench.ir.GraphBuilder`.

Sizes are chosen so that a profile on a two-core CPU takes seconds, tensors are larger than a
core's L2 where the lesson is about memory traffic, and every graph verifies. Node ids are
words a student can read on the canvas (``product``, ``row_sum``).
"""

from __future__ import annotations

from workbench.ir import GraphBuilder, verify
from workbench.ir.graph import Graph

#: elements of the one-dimensional tensors of the elementwise lessons (1 MiB of f32)
N = 1 << 18


def _built(b: GraphBuilder, outputs, description: str) -> Graph:
    return verify(b.build(outputs, meta={"description": description}))


def vertical() -> Graph:
    """``sum = x * y + z``: a producer (the product) and its consumer (the add)."""
    b = GraphBuilder("lesson_vertical")
    x, y, z = (b.parameter(n, (N,)) for n in ("x", "y", "z"))
    product = b.op("multiply", [x, y], node_id="product")
    out = b.op("add", [product, z], node_id="sum")
    return _built(b, [out], "A multiply feeding an add: vertical (producer-consumer) fusion.")


def sin_cos() -> Graph:
    """Sine and cosine of one tensor: siblings, no edge between them. ``N`` elements: at a
    quarter of that (256 KiB, inside the LLC) the cpu profile's planner refuses the fusion, the
    re-read of x costing less than the kernel's arithmetic; at ``N`` the shared read pays."""
    b = GraphBuilder("lesson_sin_cos")
    x = b.parameter("x", (N,))
    s = b.op("sine", [x], node_id="sin")
    c = b.op("cosine", [x], node_id="cos")
    return _built(b, [s, c], "Sine and cosine of one input: horizontal (sibling) fusion.")


def chain() -> Graph:
    """A chain of cheap pointwise ops on two inputs (as the ``chain10`` sample)."""
    b = GraphBuilder("lesson_chain")
    x, y = b.parameter("x", (N,)), b.parameter("y", (N,))
    v = b.op("multiply", [x, y], node_id="mul1")
    v = b.op("add", [v, x], node_id="add1")
    v = b.op("multiply", [v, b.splat(0.5, (N,))], node_id="mul2")
    v = b.op("maximum", [v, b.splat(0.0, (N,))], node_id="max1")
    v = b.op("subtract", [v, y], node_id="sub1")
    v = b.op("multiply", [v, v], node_id="square")
    v = b.op("add", [v, b.splat(1.0, (N,))], node_id="add2")
    v = b.op("sqrt", [v], node_id="sqrt1")
    v = b.op("multiply", [v, x], node_id="mul3")
    v = b.op("subtract", [v, b.splat(0.25, (N,))], node_id="sub2")
    return _built(b, [v], "A chain of pointwise ops: loop fusion.")


def softmax_sum() -> Graph:
    """Softmax without the max: ``exp``, a row sum, a divide by the broadcast sum."""
    b = GraphBuilder("lesson_softmax")
    x = b.parameter("x", (256, 1024))
    e = b.op("exponential", [x], node_id="exp")
    s = b.reduce(e, (1,), "add", 0.0)
    b.rename(s, "row_sum")
    sb = b.op("broadcast", ["row_sum"], node_id="sum_b", shape=(256, 1024), dimensions=(0,))
    out = b.op("divide", [e, sb], node_id="probs")
    return _built(b, [out], "Exp, reduce-sum, divide: input fusion.")


def matmul_bias_gelu() -> Graph:
    """A dense layer: matmul, bias, GELU."""
    b = GraphBuilder("lesson_matmul_bias_gelu")
    x, w = b.parameter("x", (128, 256)), b.parameter("w", (256, 512))
    bias = b.parameter("bias", (512,))
    mm = b.op("matmul", [x, w], node_id="matmul")
    ba = b.op("bias_add", [mm, bias], node_id="bias_add")
    out = b.op("gelu", [ba], node_id="gelu", approximate=True)
    return _built(b, [out], "MatMul + bias + GELU: output fusion.")


def conv_bias_relu() -> Graph:
    """A convolution with its bias and ReLU."""
    b = GraphBuilder("lesson_conv_bias_relu")
    x, w = b.parameter("x", (4, 32, 32, 16)), b.parameter("w", (3, 3, 16, 32))
    bias = b.parameter("bias", (32,))
    c = b.op("conv2d", [x, w], node_id="conv", strides=(1, 1), padding="SAME")
    a = b.op("bias_add", [c, bias], node_id="bias_add")
    out = b.op("relu", [a], node_id="relu")
    return _built(b, [out], "Conv + bias + ReLU: output fusion.")


def _positive(graph: Graph, names) -> Graph:
    from workbench.ir.attrs import Attrs

    nodes = tuple(n.replace(meta=Attrs(init="positive")) if n.id in names else n
                  for n in graph.nodes)
    return graph.replace(nodes=nodes)


def conv_bn_relu() -> Graph:
    """A convolution, an inference batch norm (fixed statistics), a ReLU."""
    b = GraphBuilder("lesson_conv_bn_relu")
    x, w = b.parameter("x", (4, 32, 32, 16)), b.parameter("w", (3, 3, 16, 32))
    bn = [b.parameter(f"bn_{k}", (32,)) for k in ("scale", "offset", "mean", "var")]
    c = b.op("conv2d", [x, w], node_id="conv", strides=(1, 1), padding="SAME")
    n = b.op("batch_norm_inference", [c, *bn], node_id="bn", epsilon=1e-3, feature_index=3)
    out = b.op("relu", [n], node_id="relu")
    g = _built(b, [out], "Conv + batch norm (inference) + ReLU.")
    return _positive(g, ("bn_var",))


def conv_bn_relu_training() -> Graph:
    """The same layer in training: the batch's own mean and variance, reduced from the
    convolution's output."""
    b = GraphBuilder("lesson_conv_bn_relu_training")
    shape = (4, 32, 32, 32)
    count = float(shape[0] * shape[1] * shape[2])
    x, w = b.parameter("x", (4, 32, 32, 16)), b.parameter("w", (3, 3, 16, 32))
    scale, offset = b.parameter("bn_scale", (32,)), b.parameter("bn_offset", (32,))
    c = b.op("conv2d", [x, w], node_id="conv", strides=(1, 1), padding="SAME")
    b.rename(b.reduce(c, (0, 1, 2), "add", 0.0), "sum")
    mean = b.op("multiply", ["sum", b.splat(1.0 / count, (32,))], node_id="batch_mean")
    d = b.op("subtract", [c, b.op("broadcast", [mean], node_id="mean_b", shape=shape,
                                  dimensions=(3,))], node_id="centered")
    b.rename(b.reduce(b.op("multiply", [d, d], node_id="squares"), (0, 1, 2), "add", 0.0),
             "square_sum")
    var = b.op("multiply", ["square_sum", b.splat(1.0 / count, (32,))], node_id="batch_var")
    inv = b.op("rsqrt", [b.op("add", [var, b.splat(1e-3, (32,))], node_id="var_eps")],
               node_id="inv_std")
    factor = b.op("broadcast", [b.op("multiply", [inv, scale], node_id="factor")],
                  node_id="factor_b", shape=shape, dimensions=(3,))
    shift = b.op("broadcast", [offset], node_id="offset_b", shape=shape, dimensions=(3,))
    n = b.op("add", [b.op("multiply", [d, factor], node_id="scaled"), shift], node_id="normed")
    out = b.op("maximum", [n, b.splat(0.0, shape)], node_id="relu")
    return _built(b, [out], "Conv + batch norm (training statistics) + ReLU.")


def layernorm_gelu() -> Graph:
    """Layer norm followed by GELU."""
    b = GraphBuilder("lesson_layernorm_gelu")
    x = b.parameter("x", (256, 512))
    gamma, beta = b.parameter("gamma", (512,)), b.parameter("beta", (512,))
    ln = b.op("layer_norm", [x, gamma, beta], node_id="ln", epsilon=1e-5)
    out = b.op("gelu", [ln], node_id="gelu", approximate=True)
    return _built(b, [out], "Layer norm + GELU: a named input fusion.")


def rules() -> Graph:
    """Producers with several users: a cheap one, a reduction, a graph output."""
    n = 1 << 16
    b = GraphBuilder("lesson_rules")
    x, y = b.parameter("x", (n,)), b.parameter("y", (n,))
    shared = b.op("add", [x, y], node_id="shared")
    square = b.op("multiply", [shared, shared], node_id="square")
    diff = b.op("subtract", [shared, y], node_id="diff")
    m = b.parameter("m", (256, 256))
    b.rename(b.reduce(m, (1,), "add", 0.0), "row_sum")
    sb = b.op("broadcast", ["row_sum"], node_id="sum_b", shape=(256, 256), dimensions=(0,))
    share = b.op("divide", [m, sb], node_id="share")
    sum_sq = b.op("multiply", ["row_sum", "row_sum"], node_id="sum_sq")
    t = b.op("tanh", [x], node_id="t")
    t_y = b.op("multiply", [t, y], node_id="t_y")
    t_x = b.op("add", [t, x], node_id="t_x")
    return _built(b, [square, diff, share, sum_sq, t_y, t_x, t],
                  "Producers with several consumers: the planner's rules.")


def wide_product(k: int = 8) -> Graph:
    """``k`` exponentials multiplied in a balanced tree: many values live at once."""
    n = 1 << 16
    b = GraphBuilder("lesson_registers")
    level = [b.op("exponential", [b.parameter(f"x{i}", (n,))], node_id=f"e{i}")
             for i in range(k)]
    j = 0
    while len(level) > 1:
        nxt = []
        for a, c in zip(level[::2], level[1::2]):
            j += 1
            nxt.append(b.op("multiply", [a, c], node_id=f"m{j}"))
        level = nxt + ([level[-1]] if len(level) % 2 else [])
    return _built(b, level, "A wide product of exponentials: register pressure.")


def expensive_shared() -> Graph:
    """An expensive producer (tanh) read by three cheap consumers."""
    b = GraphBuilder("lesson_expensive_shared")
    x, y = b.parameter("x", (N,)), b.parameter("y", (N,))
    t = b.op("tanh", [x], node_id="t")
    outs = [b.op(op, [t, y], node_id=name)
            for op, name in (("multiply", "t_times_y"), ("add", "t_plus_y"),
                             ("subtract", "t_minus_y"))]
    return _built(b, outs, "An expensive producer with three consumers.")


def duplicated_groups(graph: Graph) -> list:
    """Member sets that fuse the producer ``t`` into each of its consumers' kernels (three
    copies of it), the plan a fuser that ignores the cost of recomputing would make."""
    return [("t", c) for c in graph.users("t")]


def prologue() -> Graph:
    """An elementwise op in front of a matmul, and an epilogue after it."""
    b = GraphBuilder("exercise_prologue")
    x, w = b.parameter("x", (128, 256)), b.parameter("w", (256, 256))
    bias = b.parameter("bias", (256,))
    scaled = b.op("multiply", [x, b.splat(0.125, (128, 256))], node_id="scaled")
    mm = b.op("matmul", [scaled, w], node_id="matmul")
    out = b.op("relu", [b.op("bias_add", [mm, bias], node_id="bias_add")], node_id="relu")
    return _built(b, [out], "A scale before a matmul and an epilogue after it.")


def reuse_through_broadcast() -> Graph:
    """An exponential of a vector, broadcast over the rows of a matrix."""
    b = GraphBuilder("exercise_broadcast_reuse")
    v, m = b.parameter("v", (1024,)), b.parameter("m", (512, 1024))
    e = b.op("exponential", [v], node_id="exp_v")
    eb = b.op("broadcast", [e], node_id="exp_b", shape=(512, 1024), dimensions=(1,))
    out = b.op("add", [b.op("multiply", [m, eb], node_id="scaled"), m], node_id="out")
    return _built(b, [out], "An expensive producer reused through a broadcast.")

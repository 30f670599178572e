"""Write the sample graphs in sample_graphs/ (run from the repository root).

    python tools/make_sample_graphs.py

Each graph is built with :class:`workbench.ir.GraphBuilder`, verified, and saved in the JSON
format with a one-line description of what it teaches. The JSON files are committed; this
script is how they were made and how to change them.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.importers import save_json  # noqa: E402
from workbench.ir import GraphBuilder, verify  # noqa: E402


def mlp():
    b = GraphBuilder("mlp")
    x = b.parameter("x", (32, 256))
    h = x
    dims = [256, 512, 512, 128]
    for i in range(3):
        w = b.parameter(f"w{i + 1}", (dims[i], dims[i + 1]))
        bias = b.parameter(f"b{i + 1}", (dims[i + 1],))
        mm = b.op("matmul", [h, w], node_id=f"matmul{i + 1}")
        ba = b.op("bias_add", [mm, bias], node_id=f"bias_add{i + 1}")
        h = b.op("relu", [ba], node_id=f"relu{i + 1}")
    return b.build([h]), ("Three dense layers, matmul + bias + ReLU each: the output-fusion "
                          "pattern (a matmul with its epilogue in one kernel).")


def transformer_block():
    B, S, D, H, F = 2, 64, 128, 4, 512
    hd = D // H
    b = GraphBuilder("transformer_block")
    x = b.parameter("x", (B, S, D))
    ln1g = b.parameter("ln1_gamma", (D,), index=None)
    ln1b = b.parameter("ln1_beta", (D,))
    wqkv = b.parameter("w_qkv", (D, 3 * D))
    bqkv = b.parameter("b_qkv", (3 * D,))
    wo = b.parameter("w_o", (D, D))
    bo = b.parameter("b_o", (D,))
    ln2g = b.parameter("ln2_gamma", (D,))
    ln2b = b.parameter("ln2_beta", (D,))
    w1 = b.parameter("w_1", (D, F))
    b1 = b.parameter("b_1", (F,))
    w2 = b.parameter("w_2", (F, D))
    b2 = b.parameter("b_2", (D,))

    h = b.op("layer_norm", [x, ln1g, ln1b], node_id="ln1", epsilon=1e-5)
    qkv = b.op("bias_add", [b.op("matmul", [h, wqkv], node_id="qkv_matmul"), bqkv],
               node_id="qkv")
    heads = []
    for k, name in enumerate(("q", "k", "v")):
        part = b.op("slice", [qkv], node_id=f"{name}_slice", start_indices=(0, 0, k * D),
                    limit_indices=(B, S, (k + 1) * D), strides=(1, 1, 1))
        r = b.op("reshape", [part], node_id=f"{name}_heads", shape=(B, S, H, hd))
        perm = (0, 2, 3, 1) if name == "k" else (0, 2, 1, 3)
        heads.append(b.op("transpose", [r], node_id=f"{name}_t", dimensions=perm))
    q, kt, v = heads
    scores = b.op("matmul", [q, kt], node_id="scores")                 # B H S S
    scaled = b.op("multiply", [scores, b.splat(1.0 / math.sqrt(hd), (B, H, S, S))],
                  node_id="scores_scaled")
    rows = b.op("iota", [], node_id="row", shape=(S, S), dtype="s32", iota_dimension=0)
    cols = b.op("iota", [], node_id="col", shape=(S, S), dtype="s32", iota_dimension=1)
    causal = b.op("compare", [rows, cols], node_id="causal", direction="GE")
    mask = b.op("broadcast", [causal], node_id="causal_b", shape=(B, H, S, S), dimensions=(2, 3))
    masked = b.op("select", [mask, scaled, b.splat(-1e9, (B, H, S, S))], node_id="masked")
    probs = b.op("softmax", [masked], node_id="attn_softmax")
    ctx = b.op("matmul", [probs, v], node_id="context")                # B H S hd
    ctx = b.op("transpose", [ctx], node_id="context_t", dimensions=(0, 2, 1, 3))
    ctx = b.op("reshape", [ctx], node_id="context_merged", shape=(B, S, D))
    attn = b.op("bias_add", [b.op("matmul", [ctx, wo], node_id="out_proj"), bo],
                node_id="attn_out")
    res1 = b.op("add", [x, attn], node_id="residual1")
    h2 = b.op("layer_norm", [res1, ln2g, ln2b], node_id="ln2", epsilon=1e-5)
    ff = b.op("bias_add", [b.op("matmul", [h2, w1], node_id="ffn1"), b1], node_id="ffn1_bias")
    ff = b.op("gelu", [ff], node_id="ffn_gelu", approximate=True)
    ff = b.op("bias_add", [b.op("matmul", [ff, w2], node_id="ffn2"), b2], node_id="ffn2_bias")
    out = b.op("add", [res1, ff], node_id="residual2")
    return b.build([out]), ("A pre-norm transformer block (2x64 tokens, 4 heads): layer norm, "
                            "QKV projection, causal softmax attention, GELU MLP, residuals - "
                            "every fusion kind in one graph.")


def _bn_params(b, prefix, c):
    scale = b.parameter(f"{prefix}_scale", (c,))
    offset = b.parameter(f"{prefix}_offset", (c,))
    mean = b.parameter(f"{prefix}_mean", (c,))
    var = b.parameter(f"{prefix}_var", (c,))
    return scale, offset, mean, var


def resnet_block():
    b = GraphBuilder("resnet_block")
    N, Hh, W, C = 2, 16, 16, 16
    x = b.parameter("x", (N, Hh, W, C))
    w1 = b.parameter("w1", (3, 3, C, C))
    bn1 = _bn_params(b, "bn1", C)
    w2 = b.parameter("w2", (3, 3, C, C))
    bn2 = _bn_params(b, "bn2", C)
    c1 = b.op("conv2d", [x, w1], node_id="conv1", strides=(1, 1), padding="SAME")
    n1 = b.op("batch_norm_inference", [c1, *bn1], node_id="bn1", epsilon=1e-3, feature_index=3)
    r1 = b.op("relu", [n1], node_id="relu1")
    c2 = b.op("conv2d", [r1, w2], node_id="conv2", strides=(1, 1), padding="SAME")
    n2 = b.op("batch_norm_inference", [c2, *bn2], node_id="bn2", epsilon=1e-3, feature_index=3)
    s = b.op("add", [n2, x], node_id="residual")
    out = b.op("relu", [s], node_id="relu2")
    g = b.build([out])
    return _positive(g, ("bn1_var", "bn2_var")), (
        "A ResNet basic block: conv + batch norm + ReLU twice and a residual add; batch norm "
        "folds into the convolution at inference.")


def _positive(g, names):
    from workbench.ir.attrs import Attrs

    nodes = tuple(n.replace(meta=Attrs(init="positive")) if n.id in names else n
                  for n in g.nodes)
    return g.replace(nodes=nodes)


def softmax():
    b = GraphBuilder("softmax")
    x = b.parameter("x", (256, 1024))
    m = b.reduce(x, (1,), "maximum", -math.inf)
    mb = b.op("broadcast", [m], node_id="max_b", shape=(256, 1024), dimensions=(0,))
    e = b.op("exponential", [b.op("subtract", [x, mb], node_id="shifted")], node_id="exp")
    s = b.reduce(e, (1,), "add", 0.0)
    sb = b.op("broadcast", [s], node_id="sum_b", shape=(256, 1024), dimensions=(0,))
    out = b.op("divide", [e, sb], node_id="probs")
    return b.build([out]), ("Row-wise softmax written out: two reductions (max, sum) and the "
                            "broadcasts that use them; fused into one input fusion per row.")


def layernorm_gelu():
    b = GraphBuilder("layernorm_gelu")
    x = b.parameter("x", (256, 512))
    g = b.parameter("gamma", (512,))
    be = b.parameter("beta", (512,))
    ln = b.op("layer_norm", [x, g, be], node_id="ln", epsilon=1e-5)
    out = b.op("gelu", [ln], node_id="gelu", approximate=True)
    return b.build([out]), ("Layer norm followed by GELU: a named pattern, one input fusion "
                            "(reduction per row, then the elementwise tail).")


def chain10():
    n = 1 << 16
    b = GraphBuilder("chain10")
    x = b.parameter("x", (n,))
    y = b.parameter("y", (n,))
    v = b.op("multiply", [x, y], node_id="mul1")
    v = b.op("add", [v, x], node_id="add1")
    v = b.op("multiply", [v, b.splat(0.5, (n,))], node_id="mul2")
    v = b.op("maximum", [v, b.splat(0.0, (n,))], node_id="max1")
    v = b.op("subtract", [v, y], node_id="sub1")
    v = b.op("multiply", [v, v], node_id="square")
    v = b.op("add", [v, b.splat(1.0, (n,))], node_id="add2")
    v = b.op("sqrt", [v], node_id="sqrt1")
    v = b.op("multiply", [v, x], node_id="mul3")
    v = b.op("subtract", [v, b.splat(0.25, (n,))], node_id="sub2")
    return b.build([v]), ("Ten cheap elementwise ops on two inputs: the classic loop fusion - "
                          "14 kernels unfused (the ten ops and four broadcasts of constants), "
                          "one fused, with one pass over memory.")


def sin_cos():
    n = 1 << 16
    b = GraphBuilder("sin_cos")
    x = b.parameter("x", (n,))
    s = b.op("sine", [x], node_id="sin")
    c = b.op("cosine", [x], node_id="cos")
    return b.build([s, c]), ("Sine and cosine of one input: no producer-consumer edge, but "
                             "sibling (horizontal) fusion reads x once for both.")


def conv_bias_relu():
    b = GraphBuilder("conv_bias_relu")
    x = b.parameter("x", (4, 32, 32, 16))
    w = b.parameter("w", (3, 3, 16, 32))
    bias = b.parameter("bias", (32,))
    c = b.op("conv2d", [x, w], node_id="conv", strides=(1, 1), padding="SAME")
    a = b.op("bias_add", [c, bias], node_id="bias_add")
    out = b.op("relu", [a], node_id="relu")
    return b.build([out]), ("Convolution + bias + ReLU: an output fusion whose epilogue is "
                            "applied to each tile before it is stored.")


def multi_consumer():
    n = 1 << 16
    b = GraphBuilder("multi_consumer")
    x = b.parameter("x", (n,))
    y = b.parameter("y", (n,))
    p = b.op("add", [x, y], node_id="producer")
    c1 = b.op("multiply", [p, p], node_id="consumer_square")
    c2 = b.op("subtract", [p, y], node_id="consumer_sub")
    c3 = b.op("maximum", [p, b.splat(0.0, (n,))], node_id="consumer_relu")
    return b.build([c1, c2, c3]), (
        "One producer, three consumers: fuse it into all of them (duplicating it) when it is "
        "cheap, or write it once and read it three times.")


def reduce_broadcast():
    b = GraphBuilder("reduce_broadcast")
    x = b.parameter("x", (512, 256))
    s = b.reduce(x, (1,), "add", 0.0)
    mean = b.op("multiply", [s, b.splat(1.0 / 256, (512,))], node_id="row_mean")
    mb = b.op("broadcast", [mean], node_id="mean_b", shape=(512, 256), dimensions=(0,))
    out = b.op("subtract", [x, mb], node_id="centered")
    return b.build([out]), ("A row reduction whose result is broadcast back to its input's "
                            "shape: the consumer of a reduction, fused or not.")


def matmul_bias_gelu():
    b = GraphBuilder("matmul_bias_gelu")
    x = b.parameter("x", (128, 256))
    w = b.parameter("w", (256, 512))
    bias = b.parameter("bias", (512,))
    mm = b.op("matmul", [x, w], node_id="matmul")
    ba = b.op("bias_add", [mm, bias], node_id="bias_add")
    out = b.op("gelu", [ba], node_id="gelu", approximate=True)
    return b.build([out]), ("MatMul + bias + GELU: the dense layer of a transformer's MLP as "
                            "one output fusion.")


SAMPLES = [mlp, transformer_block, resnet_block, softmax, layernorm_gelu, chain10, sin_cos,
           conv_bias_relu, multi_consumer, reduce_broadcast, matmul_bias_gelu]


def main() -> None:
    out_dir = ROOT / "sample_graphs"
    out_dir.mkdir(exist_ok=True)
    for make in SAMPLES:
        graph, description = make()
        graph = verify(graph.replace(meta={"description": description}))
        save_json(graph, out_dir / f"{graph.name}.json", description)
        print(f"{graph.name}: {len(graph.nodes)} nodes")


if __name__ == "__main__":
    main()

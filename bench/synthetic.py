"""Synthetic deep graphs for measuring the app (the flattened deep models XLA produces).

``deep_mlp_graph(n_ops)`` stacks layers of primitive HLO-style ops (dot, broadcast, add,
multiply, tanh, reduce, divide, subtract, rsqrt) until the graph has about ``n_ops`` op nodes.
Each layer is a dense layer with a tanh-GELU epilogue and a layer norm: about 30 ops.
"""

from __future__ import annotations

from workbench.ir import GraphBuilder, verify


def _layer(b: GraphBuilder, h: str, i: int, rows: int, width: int) -> str:
    w = b.parameter(f"w{i}", (width, width))
    bias = b.parameter(f"b{i}", (width,))
    mm = b.op("dot", [h, w], lhs_contracting_dims=(1,), rhs_contracting_dims=(0,))
    x = b.op("add", [mm, b.broadcast_to(bias, (rows, width), (1,))])
    # GELU, tanh form: 0.5 x (1 + tanh(0.79788456 (x + 0.044715 x^3)))
    x3 = b.op("multiply", [b.op("multiply", [x, x]), x])
    inner = b.op("add", [x, b.op("multiply", [b.splat(0.044715, (rows, width)), x3])])
    t = b.op("tanh", [b.op("multiply", [b.splat(0.7978845608, (rows, width)), inner])])
    g = b.op("multiply", [b.op("multiply", [b.splat(0.5, (rows, width)), x]),
                          b.op("add", [b.splat(1.0, (rows, width)), t])])
    # layer norm over the last dimension
    mean = b.op("divide", [b.reduce(g, (1,), "add", 0.0), b.splat(float(width), (rows,))])
    c = b.op("subtract", [g, b.broadcast_to(mean, (rows, width), (0,))])
    var = b.op("divide", [b.reduce(b.op("multiply", [c, c]), (1,), "add", 0.0),
                          b.splat(float(width), (rows,))])
    r = b.op("rsqrt", [b.op("add", [var, b.splat(1e-5, (rows,))])])
    return b.op("multiply", [c, b.broadcast_to(r, (rows, width), (0,))])


def deep_mlp_graph(n_ops: int = 2000, rows: int = 64, width: int = 128):
    """A verified graph of stacked dense + GELU + layer-norm layers with about ``n_ops`` ops.

    Parameters
    ----------
    n_ops : int
        Target number of ops (nodes that are neither parameters nor constants).
    rows, width : int
        Activation shape (rows x width, f32).
    """
    b = GraphBuilder(f"deep_mlp_{n_ops}")
    h = b.parameter("x", (rows, width))
    i = 0
    while sum(1 for n in b.nodes if n.op not in ("parameter", "constant")) < n_ops:
        h = _layer(b, h, i, rows, width)
        i += 1
    return verify(b.build([h], meta={"description": f"{i} dense+GELU+layer-norm layers"}))

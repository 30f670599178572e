"""Synthetic layered graphs for the planner's benchmark and scaling tests.

:func:`layered_graph` stacks blocks that look like a small network's layers: a fan-out of
``width`` parallel elementwise lanes reading the block's input (siblings sharing an input), each
with a per-feature bias broadcast and a short chain of cheap and transcendental ops, an add tree
joining them, and, every few blocks, a row reduction broadcast back (a normalization) or a
matrix product (every other block). Node count grows linearly with ``blocks``; groups stay local, as in real models.
"""

from __future__ import annotations

import random

from workbench.ir.builder import GraphBuilder
from workbench.ir.graph import Graph

_UNARY = ("tanh", "exponential", "negate", "abs")
_BINARY = ("add", "multiply", "subtract", "maximum")


def _lane(b: GraphBuilder, h: str, bias: str, shape, rng: random.Random) -> str:
    v = b.op("add", [h, b.op("broadcast", [bias], shape=shape, dimensions=(1,))])
    for _ in range(rng.randint(2, 4)):
        if rng.random() < 0.3:
            v = b.op(rng.choice(_UNARY), [v])
        else:
            v = b.op(rng.choice(_BINARY), [v, b.splat(rng.choice((0.5, 1.0, 2.0)), shape)])
    return v


def _block(b: GraphBuilder, h: str, k: int, width: int, shape, rng: random.Random) -> str:
    lanes = []
    for j in range(width):
        bias = b.parameter(f"b{k}_{j}", (shape[1],))
        lanes.append(_lane(b, h, bias, shape, rng))
    while len(lanes) > 1:
        lanes = [b.op("add", lanes[i:i + 2]) if i + 1 < len(lanes) else lanes[i]
                 for i in range(0, len(lanes), 2)]
    s = lanes[0]
    if k % 3 == 2:
        r = b.reduce(s, (1,), "add", 0.0)
        mean = b.op("multiply", [r, b.splat(1.0 / shape[1], (shape[0],))])
        s = b.op("subtract", [s, b.op("broadcast", [mean], shape=shape, dimensions=(0,))])
    if k % 2 == 1:
        w = b.parameter(f"w{k}", (shape[1], shape[1]))
        s = b.op("dot", [s, w], lhs_contracting_dims=(1,), rhs_contracting_dims=(0,))
    return s


def layered_graph(nodes: int, width: int = 4, shape=(16, 128), seed: int = 0) -> Graph:
    """A layered graph of about ``nodes`` nodes (parameters and constants included).

    Parameters
    ----------
    nodes : int
        Target size; the graph has at least this many nodes (whole blocks).
    width : int
        Parallel lanes per block.
    shape : (int, int)
        The activations' shape (f32).
    seed : int
        Random seed; the same arguments give the same graph.

    Returns
    -------
    Graph
        Not verified (the builder infers every type); call ``verify`` if wanted.
    """
    rng = random.Random(seed)
    b = GraphBuilder(f"layered{nodes}")
    h = b.parameter("x", shape)
    k = 0
    while len(b.nodes) < nodes:
        h = _block(b, h, k, width, tuple(shape), rng)
        k += 1
    return b.build([h])

"""Batch-norm folding: an inference graph transform (re-exported by :mod:`~workbench.planner.patterns`).

At inference, ``batch_norm(conv(x, w))`` with per-channel ``scale, offset, mean, variance`` is an
affine map of each output channel, so it folds into the convolution (Jacob et al., "Quantization
and Training of Neural Networks for Efficient Integer-Arithmetic-Only Inference", CVPR 2018,
section 3.2; TensorFlow's ``fold_batch_norms`` graph transform)::

    factor = scale * rsqrt(variance + epsilon)            per output channel
    w'     = w * factor            (broadcast along the kernel's output-feature dimension)
    bias   = offset - mean * factor
    batch_norm(conv(x, w)) == bias_add(conv(x, w'), bias)

The folded weights are computed by a few small ops on the parameters (in deployment they would be
constant-folded once). The convolution keeps its id; the batch norm's id now names the
``bias_add``, so the consumers of the batch norm are unchanged.
"""

from __future__ import annotations

from workbench.errors import GraphError
from workbench.ir.attrs import Attrs
from workbench.ir.graph import Graph, Node
from workbench.ir.types import TensorType
from workbench.ir.verify import verify


def _feature_dims(conv: Node) -> tuple[int, int]:
    """(output-feature dimension of the result, output-feature dimension of the kernel)."""
    if conv.op == "conv2d":
        return 3, 3
    labels = str(conv.attrs.get("dim_labels", "b01f_01io->b01f"))
    lhs_rhs, out = labels.split("->")
    rhs = lhs_rhs.split("_")[1]
    return out.index("f"), rhs.index("o")


def _foldable(graph: Graph, bn: Node) -> Node | None:
    if bn.op != "batch_norm_inference":
        return None
    conv = graph.node(bn.operands[0])
    if conv.op not in ("conv2d", "convolution") or graph.is_output(conv.id):
        return None
    if graph.users(conv.id) != (bn.id,) or conv.attrs.get("feature_group_count", 1) != 1:
        return None
    out_f, _ = _feature_dims(conv)
    if bn.attrs.get("feature_index", bn.type.rank - 1) != out_f:
        return None
    return conv


def _fresh(taken: set, base: str) -> str:
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}{k}"
    taken.add(name)
    return name


def _fold_nodes(graph: Graph, bn: Node, conv: Node, taken: set) -> list[Node]:
    x, w = conv.operands
    _, scale, offset, mean, var = bn.operands
    wt = graph.node(w).type
    dt = bn.type.dtype
    vec = TensorType(graph.node(scale).type.shape, dt)
    _, k_f = _feature_dims(conv)
    eps = float(bn.attrs.get("epsilon", 1e-3))

    def node(suffix, op, operands, t, **attrs):
        return Node(_fresh(taken, f"{bn.id}.fold_{suffix}"), op, tuple(operands), t, Attrs(attrs),
                    Attrs(folded_from=bn.id))

    n_eps = node("eps", "constant", (), TensorType((), dt), value=eps)
    n_eps_b = node("eps_b", "broadcast", [n_eps.id], vec, shape=vec.shape, dimensions=())
    n_ve = node("var_eps", "add", [var, n_eps_b.id], vec)
    n_inv = node("inv_std", "rsqrt", [n_ve.id], vec)
    n_fac = node("factor", "multiply", [n_inv.id, scale], vec)
    n_fac_b = node("factor_b", "broadcast", [n_fac.id], wt, shape=wt.shape, dimensions=(k_f,))
    n_w = node("weights", "multiply", [w, n_fac_b.id], wt)
    n_mf = node("mean_factor", "multiply", [mean, n_fac.id], vec)
    n_bias = node("bias", "subtract", [offset, n_mf.id], vec)
    return [n_eps, n_eps_b, n_ve, n_inv, n_fac, n_fac_b, n_w, n_mf, n_bias]


def fold_batch_norm(graph: Graph) -> Graph:
    """Fold every inference batch norm that directly follows a convolution into it.

    A batch norm folds when its input is a ``conv2d``/``convolution`` (one feature group) used
    by nothing else and not a graph output, and it normalises the convolution's output-feature
    dimension. Others are left as they are.

    Parameters
    ----------
    graph : Graph

    Returns
    -------
    Graph
        A new, verified graph named ``<name>.folded``; the input graph is not changed. It
        evaluates equal to the original (to rounding).

    Raises
    ------
    GraphError
        If the result does not verify (it should always).
    """
    taken = {n.id for n in graph.nodes}
    replace: dict[str, Node] = {}
    extra: dict[str, list[Node]] = {}
    for bn in graph.topo_nodes():
        conv = _foldable(graph, bn)
        if conv is None:
            continue
        new = _fold_nodes(graph, bn, conv, taken)
        w_folded, bias = new[6], new[8]
        extra[conv.id] = new
        replace[conv.id] = conv.replace(operands=(conv.operands[0], w_folded.id))
        fi = bn.attrs.get("feature_index", bn.type.rank - 1)
        replace[bn.id] = Node(bn.id, "bias_add", (conv.id, bias.id), bn.type, Attrs(axis=fi),
                              bn.meta.set(folded="batch_norm_inference"))
    if not replace:
        return graph
    nodes = []
    for n in graph.topo_nodes():
        nodes.extend(extra.get(n.id, ()))
        nodes.append(replace.get(n.id, n))
    folded = graph.replace(name=f"{graph.name}.folded", nodes=tuple(nodes))
    try:
        return verify(folded)
    except GraphError as exc:  # pragma: no cover - a bug here, not a user error
        raise GraphError(f"batch-norm folding produced an invalid graph: {exc.message}",
                         node=exc.node) from None

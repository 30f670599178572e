"""Batch-norm folding: an inference graph transform (:func:`fold_batch_norms`).

At inference, a batch norm after a convolution, with per-channel ``scale, offset, mean,
variance``, is an affine map of each output channel, so it folds into the convolution (Jacob et
al., "Quantization and Training of Neural Networks for Efficient Integer-Arithmetic-Only
Inference", CVPR 2018, section 3.2; TensorFlow's ``fold_batch_norms`` graph transform)::

    factor = scale * rsqrt(variance + epsilon)            per output channel
    w'     = w * factor            (broadcast along the kernel's output-feature dimension)
    bias   = offset - mean * factor
    batch_norm(conv(x, w)) == bias_add(conv(x, w'), bias)

Two forms are recognised:

* the composite ``batch_norm_inference`` op (the workbench's JSON graphs);
* JAX's primitive lowering (``*.before.hlo``): ``subtract`` the mean, ``multiply`` by
  ``rsqrt(var + eps)``, ``multiply`` by the scale, ``add`` the offset, each vector brought to the
  activation's shape by ``reshape``/``broadcast`` chains along the output-feature dimension. Any
  chain of per-channel ``add``/``subtract``/``multiply``/``divide`` steps right after the
  convolution, with at least one scaling step, folds the same way: it is ``conv * F + S`` with
  per-channel vectors ``F`` and ``S``.

The new ops compute the folded weights and bias from the per-channel parameters only, so at
inference they run once, when the weights are loaded (in deployment they are constant-folded):
they are marked ``meta['offline']``, and so is every op that only feeds them (the ``rsqrt`` of
the variance, ...). The planner never fuses an offline op with per-call ops, and the cost model
reports offline kernels apart from the per-call total. The convolution keeps its id; the batch
norm's id (or the chain's last op's) now names the ``bias_add``, so its consumers are unchanged.
Ops that only the folded chain used (the broadcasts of the vectors) are removed.

:func:`fold_batch_norms` returns the new graph with a :class:`FoldReport` saying what was folded,
and what could not be and why.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.errors import GraphError
from workbench.ir.attrs import Attrs
from workbench.ir.graph import Graph, Node
from workbench.ir.types import TensorType
from workbench.ir.verify import verify

_CONVS = ("conv2d", "convolution")
_CHAIN_OPS = ("broadcast", "reshape", "bitcast")
_AFFINE_OPS = ("add", "subtract", "multiply", "divide")


@dataclass(frozen=True)
class FoldedNorm:
    """One batch norm folded into its convolution.

    Attributes
    ----------
    conv : str
        The convolution (its weights are now the folded ones).
    norm : str
        The batch norm's id, or the last op of the primitive chain; it now names the bias add.
    form : str
        ``"batch_norm_inference"`` or ``"primitive"`` (JAX's lowering).
    ops : tuple of str
        The per-call ops the fold replaced (the batch norm, or the chain's steps).
    """

    conv: str
    norm: str
    form: str
    ops: tuple[str, ...]

    def to_json(self) -> dict:
        return {"conv": self.conv, "norm": self.norm, "form": self.form, "ops": list(self.ops)}


@dataclass(frozen=True)
class FoldReport:
    """What :func:`fold_batch_norms` did.

    Attributes
    ----------
    folded : tuple of FoldedNorm
    skipped : tuple of (str, str)
        ``(node, reason)`` for each batch norm (or primitive chain) that could not be folded.
    offline : tuple of str
        The ops of the new graph that run once, offline (the weight and bias computations).
    removed : tuple of str
        Ops of the old graph no longer needed (the folded chains' broadcasts).
    reason : str
        When nothing was folded: why (empty otherwise).
    """

    folded: tuple[FoldedNorm, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    offline: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    reason: str = ""

    def to_json(self) -> dict:
        return {"folded": [f.to_json() for f in self.folded],
                "skipped": [{"node": n, "reason": r} for n, r in self.skipped],
                "offline_ops": list(self.offline), "removed_ops": list(self.removed),
                "reason": self.reason}


def _feature_dims(conv: Node) -> tuple[int, int]:
    """(output-feature dimension of the result, output-feature dimension of the kernel)."""
    if conv.op == "conv2d":
        return 3, 3
    labels = str(conv.attrs.get("dim_labels", "b01f_01io->b01f"))
    lhs_rhs, out = labels.split("->")
    rhs = lhs_rhs.split("_")[1]
    return out.index("f"), rhs.index("o")


def _conv_problem(graph: Graph, conv: Node, norm: str) -> str | None:
    """Why ``conv`` cannot take a fold of the batch norm ``norm`` (None if it can)."""
    if graph.is_output(conv.id):
        return f"{conv.id}'s unnormalised result is a graph output, which folding would change"
    others = [u for u in graph.users(conv.id) if u != norm]
    if others:
        return (f"{conv.id}'s unnormalised result is also read by {others[0]}, which folding "
                "would change")
    if conv.attrs.get("feature_group_count", 1) != 1:
        return f"{conv.id} is a grouped convolution"
    return None


def _per_channel_only(graph: Graph, nid: str, channels: int) -> str | None:
    """None if ``nid`` is computed only from values of at most ``channels`` elements (per-channel
    parameters and constants, so a fold of it is a weight transform); else the first larger
    value it depends on."""
    seen, stack = set(), [nid]
    while stack:
        n = graph.node(stack.pop())
        if n.id in seen:
            continue
        seen.add(n.id)
        if isinstance(n.type, TensorType) and n.type.size > channels:
            return n.id
        stack.extend(n.operands)
    return None


def _channel_vector(graph: Graph, nid: str, shape: tuple, f_dim: int) -> str | None:
    """The per-channel vector that ``nid`` broadcasts along ``f_dim`` to ``shape``, or None.

    ``nid`` must be a broadcast to ``shape`` whose operand has exactly one dimension larger than
    1, mapped to ``f_dim``; below it, reshape/broadcast/bitcast steps that keep the element count
    are followed down to the vector's producer.
    """
    node = graph.node(nid)
    if node.op != "broadcast" or tuple(node.type.shape) != tuple(shape):
        return None
    src = graph.node(node.operands[0])
    dims = tuple(node.attrs.get("dimensions", ()))
    wide = [dims[k] for k, d in enumerate(src.type.shape) if d != 1]
    channels = shape[f_dim]
    if wide != [f_dim] or src.type.size != channels:
        return None
    while src.op in _CHAIN_OPS and graph.node(src.operands[0]).type.size == channels:
        src = graph.node(src.operands[0])
    return src.id


def _affine_chain(graph: Graph, conv: Node):
    """The per-channel affine steps after ``conv``: ``[(op, vector id, step node id), ...]``,
    following single users; stops at the first step that is not one."""
    out_f, _ = _feature_dims(conv)
    shape = tuple(conv.type.shape)
    steps, cur = [], conv.id
    while True:
        users = graph.users(cur)
        if len(users) != 1 or (cur != conv.id and graph.is_output(cur)):
            break
        u = graph.node(users[0])
        if u.op not in _AFFINE_OPS or len(u.operands) != 2 or u.operands[0] == u.operands[1]:
            break
        k = u.operands.index(cur)
        if k == 1 and u.op in ("subtract", "divide"):
            break
        vec = _channel_vector(graph, u.operands[1 - k], shape, out_f)
        if vec is None or graph.node(vec).type.dtype != conv.type.dtype:
            break
        steps.append((u.op, vec, u.id))
        cur = u.id
    return steps


class _Builder:
    """New nodes for one fold, with fresh ids ``<norm>.fold_<what>``, marked offline."""

    def __init__(self, taken: set, norm: str):
        self.taken, self.norm, self.nodes = taken, norm, []

    def fresh(self, base: str) -> str:
        name, k = base, 1
        while name in self.taken:
            k += 1
            name = f"{base}{k}"
        self.taken.add(name)
        return name

    def add(self, what: str, op: str, operands, t, **attrs) -> str:
        nid = self.fresh(f"{self.norm}.fold_{what}")
        self.nodes.append(Node(nid, op, tuple(operands), t, Attrs(attrs),
                               Attrs(folded_from=self.norm, offline=True)))
        return nid


def _fold_weights(b: _Builder, graph: Graph, conv: Node, factor: str) -> str:
    """Nodes computing ``w * factor`` along the kernel's output-feature dimension."""
    w = conv.operands[1]
    wt = graph.node(w).type
    _, k_f = _feature_dims(conv)
    fb = b.add("factor_b", "broadcast", [factor], wt, shape=wt.shape, dimensions=(k_f,))
    return b.add("weights", "multiply", [w, fb], wt)


def _composite_fold(b: _Builder, graph: Graph, bn: Node, conv: Node) -> tuple[str, str]:
    """(folded weights, bias) for a ``batch_norm_inference`` (see the module notes)."""
    _, scale, offset, mean, var = bn.operands
    dt = bn.type.dtype
    vec = TensorType(graph.node(scale).type.shape, dt)
    eps = b.add("eps", "constant", (), TensorType((), dt),
                value=float(bn.attrs.get("epsilon", 1e-3)))
    eps_b = b.add("eps_b", "broadcast", [eps], vec, shape=vec.shape, dimensions=())
    ve = b.add("var_eps", "add", [var, eps_b], vec)
    inv = b.add("inv_std", "rsqrt", [ve], vec)
    fac = b.add("factor", "multiply", [inv, scale], vec)
    w = _fold_weights(b, graph, conv, fac)
    mf = b.add("mean_factor", "multiply", [mean, fac], vec)
    return w, b.add("bias", "subtract", [offset, mf], vec)


def _primitive_fold(b: _Builder, graph: Graph, conv: Node, steps) -> tuple[str, str]:
    """(folded weights, bias) for a chain of per-channel steps: ``conv * F + S``."""
    dt = conv.type.dtype
    out_f, _ = _feature_dims(conv)
    channels = conv.type.shape[out_f]
    vt = TensorType((channels,), dt)
    fac = shift = None
    for op, vec, _ in steps:
        if tuple(graph.node(vec).type.shape) != (channels,):
            vec = b.add("vector", "reshape", [vec], vt, shape=(channels,))
        if op in ("multiply", "divide"):
            if fac is None and op == "divide":
                one = b.add("one", "constant", (), TensorType((), dt), value=1.0)
                fac = b.add("ones", "broadcast", [one], vt, shape=(channels,), dimensions=())
            fac = vec if fac is None else b.add("factor", op, [fac, vec], vt)
            if shift is not None:
                shift = b.add("shift", op, [shift, vec], vt)
        elif shift is None:
            shift = vec if op == "add" else b.add("shift", "negate", [vec], vt)
        else:
            shift = b.add("shift", op, [shift, vec], vt)
    if shift is None:
        zero = b.add("zero", "constant", (), TensorType((), dt), value=0.0)
        shift = b.add("bias", "broadcast", [zero], vt, shape=(channels,), dimensions=())
    return _fold_weights(b, graph, conv, fac), shift


def _find_folds(graph: Graph):
    """(folds, skipped): folds are (conv, norm node, form, replaced ops, vectors)."""
    folds, skipped = [], []
    for n in graph.topo_nodes():
        if n.op == "batch_norm_inference":
            conv = graph.node(n.operands[0])
            if conv.op not in _CONVS:
                skipped.append((n.id, f"it follows {conv.op} {conv.id}, not a convolution"))
                continue
            out_f, _ = _feature_dims(conv)
            problem = _conv_problem(graph, conv, n.id)
            if problem is None and n.attrs.get("feature_index", n.type.rank - 1) != out_f:
                problem = "it normalises another dimension than the convolution's features"
            if problem is None:
                problem = _vectors_problem(graph, n.operands[1:], conv.type.shape[out_f])
            if problem:
                skipped.append((n.id, problem))
            else:
                folds.append((conv, n, "batch_norm_inference", (n.id,), None))
        elif n.op in _CONVS:
            steps = _affine_chain(graph, n)
            if not any(op in ("multiply", "divide") for op, _, _ in steps):
                continue
            last = graph.node(steps[-1][2])
            out_f, _ = _feature_dims(n)
            problem = n.attrs.get("feature_group_count", 1) != 1 and \
                f"{n.id} is a grouped convolution"
            problem = problem or _vectors_problem(graph, [v for _, v, _ in steps],
                                                  n.type.shape[out_f])
            if problem:
                skipped.append((last.id, problem))
            else:
                folds.append((n, last, "primitive", tuple(s for _, _, s in steps), steps))
    return folds, skipped


def _vectors_problem(graph: Graph, vectors, channels: int) -> str | None:
    for v in vectors:
        big = _per_channel_only(graph, v, channels)
        if big is not None:
            return (f"its per-channel value {v} is computed from {big}, which has more than "
                    f"{channels} elements: not per-channel parameters, so not a weight transform")
    return None


def fold_batch_norms(graph: Graph) -> tuple[Graph, FoldReport]:
    """Fold every inference batch norm that directly follows a convolution into it.

    A batch norm folds when its input is a ``conv2d``/``convolution`` (one feature group) whose
    result nothing else reads and is not a graph output, it normalises the convolution's
    output-feature dimension, and its per-channel values depend only on per-channel parameters
    and constants. Both the composite op and JAX's primitive form are folded (module notes).

    Parameters
    ----------
    graph : Graph

    Returns
    -------
    (Graph, FoldReport)
        The new, verified graph named ``<name>.folded`` (the input graph itself when nothing
        folds), and what was folded, what was not and why. The new graph evaluates equal to the
        original (to rounding).

    Raises
    ------
    GraphError
        If the result does not verify (a bug, not a user error).
    """
    folds, skipped = _find_folds(graph)
    if not folds:
        return graph, FoldReport(skipped=tuple(skipped), reason=_nothing_reason(graph, skipped))
    taken = {n.id for n in graph.nodes}
    replace: dict[str, Node] = {}
    extra: dict[str, list[Node]] = {}
    done, drop = [], set()
    for conv, norm, form, ops, steps in folds:
        b = _Builder(taken, norm.id)
        if steps is None:
            w, bias = _composite_fold(b, graph, norm, conv)
        else:
            w, bias = _primitive_fold(b, graph, conv, steps)
            drop |= set(ops[:-1])
        extra[conv.id] = b.nodes
        replace[conv.id] = conv.replace(operands=(conv.operands[0], w))
        out_f, _ = _feature_dims(conv)
        replace[norm.id] = Node(norm.id, "bias_add", (conv.id, bias), norm.type,
                                Attrs(axis=out_f), norm.meta.set(folded=form))
        done.append(FoldedNorm(conv.id, norm.id, form, ops))
    nodes = []
    for n in graph.topo_nodes():
        if n.id in drop:
            continue
        nodes.extend(extra.get(n.id, ()))
        nodes.append(replace.get(n.id, n))
    nodes, removed = _drop_unused(graph, nodes)
    folded, offline = _mark_offline(graph.replace(name=f"{graph.name}.folded",
                                                  nodes=tuple(nodes)))
    try:
        folded = verify(folded)
    except GraphError as exc:  # pragma: no cover - a bug here, not a user error
        raise GraphError(f"batch-norm folding produced an invalid graph: {exc.message}",
                         node=exc.node) from None
    return folded, FoldReport(tuple(done), tuple(skipped), offline,
                              tuple(sorted(removed | drop)))


def fold_batch_norm(graph: Graph) -> Graph:
    """The graph of :func:`fold_batch_norms` (without its report)."""
    return fold_batch_norms(graph)[0]


def _nothing_reason(graph: Graph, skipped) -> str:
    if skipped:
        return "no batch norm could be folded (see the reasons above)"
    if not any(n.op in _CONVS for n in graph.nodes):
        return "the graph has no convolution"
    return ("no convolution is followed by a batch norm: neither a batch_norm_inference op nor "
            "JAX's primitive form (subtract the mean, multiply by per-channel factors, add the "
            "offset, each vector broadcast along the output features)")


def _live(nodes, outputs) -> set:
    by_id = {n.id: n for n in nodes}
    live, stack = set(), list(outputs)
    while stack:
        i = stack.pop()
        if i not in live:
            live.add(i)
            stack.extend(by_id[i].operands)
    return live


def _drop_unused(graph: Graph, nodes):
    """Remove the non-parameter nodes that were live before the fold and are dead after it."""
    before = _live(list(graph.nodes), graph.outputs)
    after = _live(nodes, graph.outputs)
    gone = {n.id for n in nodes if n.id in before and n.id not in after and n.op != "parameter"}
    return [n for n in nodes if n.id not in gone], gone


def _mark_offline(graph: Graph):
    """Mark offline every non-source op whose users are all offline (it only feeds the weight
    transform); returns the new graph and the ids of its offline ops."""
    outputs = set(graph.outputs)
    offline = {n.id for n in graph.nodes if n.meta.get("offline")}
    for nid in reversed(graph.topo_order):
        n = graph.node(nid)
        if nid in offline or n.op in ("parameter", "constant") or nid in outputs:
            continue
        us = graph.users(nid)
        if us and all(u in offline for u in us):
            offline.add(nid)
    nodes = tuple(n if n.id not in offline or n.meta.get("offline") else
                  n.replace(meta=n.meta.set(offline=True)) for n in graph.nodes)
    ids = tuple(i for i in graph.topo_order
                if i in offline and graph.node(i).op not in ("parameter", "constant"))
    return graph.replace(nodes=nodes), ids

"""Named fusion patterns, matched before the cost-driven planner runs, and batch-norm folding.

Patterns are what a compiler engineer recognises at a glance; each is matched on the graph's
structure with its preconditions checked (every intermediate value is used only inside the
pattern, so fusing it never forces a value to be written and read back), and works on both the
workbench's composite ops and the primitive HLO that JAX emits:

``matmul+bias+relu`` / ``+gelu``, ``conv+bias+relu``, ``conv+bn+relu`` (output fusions)
    A dot or convolution, then per-element epilogue steps, each with a single user: a bias
    (``bias_add``, or ``add`` of a broadcast of a vector), an inference batch norm (the composite,
    or ``subtract``/``multiply`` by broadcast per-channel vectors as JAX writes it), a residual
    ``add`` of another value of the same shape, a scale by a constant; then an activation: the largest single-output elementwise expression
    of the result and constants (``max(x, 0)``, the tanh or erf form of GELU, ...). This is
    cuBLASLt's / cuDNN's epilogue fusion and XLA's ``kOutput`` fusion.
``softmax`` (input fusion)
    ``exp(x - max x) / sum exp(x - max x)`` along one axis, written with two ``reduce`` ops and
    broadcasts: one row-wise kernel (XLA's Triton softmax fusion, SoftmaxRewriterTriton).
``layer_norm``, ``layer_norm+gelu`` (input fusion)
    Two sum reductions (mean, variance), ``rsqrt`` and the affine tail, optionally followed by a
    GELU: one row-wise kernel. With the composite ``layer_norm``, the layer norm and the GELU
    that follows it.

:func:`~workbench.transforms.fold_batch_norm` is a graph transform, not a fusion: at inference a batch norm after a
convolution folds into the convolution's weights and a bias.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from workbench.ir.ops import Category, get_op
from workbench.ir.types import TensorType
from workbench.ir.index import GraphIndex

__all__ = ["PatternMatch", "find_patterns", "match_contraction",
           "match_layer_norm_composite", "match_row_normalization"]

_CHAIN_OPS = ("broadcast", "reshape", "bitcast")
_WINDOW = 400       # topological distance a pattern may span
_MAX_CLOSURE = 64   # ops in an activation closure
_MAX_REGION = 128   # ops in a row-normalization region


@dataclass(frozen=True)
class PatternMatch:
    """A matched pattern: its name, the fusion kind it forms, its member node indices."""

    name: str
    kind: str
    members: frozenset
    anchor: int


def _chain(ix: GraphIndex, i: int) -> tuple[list[int], int]:
    """Broadcast/reshape nodes from ``i`` down to the first other node (the chain's root)."""
    chain = []
    while ix.ops[i] in _CHAIN_OPS:
        chain.append(i)
        i = ix.operands[i][0]
    return chain, i


def _scalar_const(ix: GraphIndex, i: int) -> bool:
    return ix.ops[i] == "constant" and ix.elements[i] <= 1


def _rank(ix: GraphIndex, i: int) -> int:
    t = ix.graph.node(ix.ids[i]).type
    return t.rank if isinstance(t, TensorType) else 0


def _exclusive_prefix(ix: GraphIndex, chain: list[int], inside: set) -> set:
    """The chain nodes, from the consumer end, used only inside the pattern."""
    taken: set[int] = set()
    for c in chain:
        if ix.output[c] or any(u not in inside and u not in taken and u not in chain
                               for u in ix.users[c]):
            break
        taken.add(c)
    return taken


def _side_ok(ix: GraphIndex, o: int, per_row_max: int) -> list[int] | None:
    """If ``o`` is a constant, or a broadcast chain of a scalar constant or of a small source
    vector (bias, gamma, beta), the chain's nodes; else None."""
    if _scalar_const(ix, o):
        return []
    chain, root = _chain(ix, o)
    if not chain:
        return None
    if _scalar_const(ix, root) or (ix.source[root] and _rank(ix, root) <= 1
                                   and ix.elements[root] <= per_row_max):
        return chain
    return None


def _closure_sink(ix: GraphIndex, acc: set, start: set, need: set | None = None):
    """The largest subset of ``acc`` ending in one sink whose other members are used only
    inside it (and which holds ``need``); returns (members, sink) or (None, None)."""
    best, best_t = None, None
    # a member used outside acc | start (or a graph output) is used outside every candidate
    # subset: the test below fails wherever such a member is in (a - {t}) | start
    whole = acc | start
    escapes = {x for x in whole if ix.output[x] or any(u not in whole for u in ix.users[x])}
    if escapes & start:
        return None, None
    for t in sorted(acc, reverse=True):
        a, stack = {t}, [t]
        while stack:
            for o in ix.operands[stack.pop()]:
                if o in acc and o not in a:
                    a.add(o)
                    stack.append(o)
        if need and not need <= a:
            continue
        if escapes and any(x in escapes and x != t for x in a):
            continue
        inner = a | start
        if any(ix.output[x] or any(u not in inner for u in ix.users[x])
               for x in (a - {t}) | start):
            continue
        if best is None or len(a) > len(best):
            best, best_t = a, t
    return best, best_t


def _activation(ix: GraphIndex, s: int, claimed: set):
    """The activation applied to ``s``: (label, members) or None."""
    cand, queue = set(), deque(ix.users[s])
    while queue and len(cand) < _MAX_CLOSURE:
        i = queue.popleft()
        if i in cand or i in claimed or i - s > _WINDOW:
            continue
        if get_op(ix.ops[i]).category != Category.ELEMENTWISE:
            continue
        cand.add(i)
        queue.extend(ix.users[i])
    acc, side = set(), set()
    for i in sorted(cand):
        chains = [[] if (o == s or o in acc) else _side_ok(ix, o, 1) for o in ix.operands[i]]
        if all(c is not None for c in chains):
            acc.add(i)
            for c in chains:
                side.update(c)
    members, _ = _closure_sink(ix, acc, {s})
    if not members:
        return None
    ops = {ix.ops[m] for m in members}
    label = ("gelu" if ops & {"tanh", "erf", "gelu"} else
             "relu" if ops <= {"maximum", "relu"} else
             "scale" if ops <= {"multiply", "divide"} else "activation")
    keep = set()
    for c in side:
        chain, _ = _chain(ix, c)
        keep |= _exclusive_prefix(ix, [x for x in chain if x in side], members | side)
    return label, members | keep


def _epilogue_step(ix: GraphIndex, u: int, s: int):
    op, ops = ix.ops[u], ix.operands[u]
    if op in ("bias_add", "batch_norm_inference") and ops[0] == s:
        return ("bias" if op == "bias_add" else "bn"), set()
    if op not in ("add", "subtract", "multiply") or len(ops) != 2 or s not in ops:
        return None
    other = ops[1] if ops[0] == s else ops[0]
    chain, root = _chain(ix, other)
    if not chain:
        if op == "add" and ix.elements[root] == ix.elements[s]:
            return "residual", set()
        return None
    if _rank(ix, root) > 1 or ix.elements[root] * 2 > ix.elements[s]:
        return None
    label = "scale" if _scalar_const(ix, root) else ("bias" if op == "add" else "bn")
    return label, _exclusive_prefix(ix, chain, {u})


def _name(base: str, labels: list[str]) -> str:
    out = []
    for lab in labels:
        if lab == "bias" and "bn" in out:
            continue
        if lab not in out:
            out.append(lab)
    return "+".join([base] + out)


def match_contraction(ix: GraphIndex, d: int, claimed: set) -> PatternMatch | None:
    """A dot or convolution with its epilogue (see the module notes), or None."""
    members, labels, s = {d}, [], d
    while not ix.output[s] and len(ix.users[s]) == 1 and ix.users[s][0] not in claimed:
        step = _epilogue_step(ix, ix.users[s][0], s)
        if step is None:
            break
        label, side = step
        s = ix.users[s][0]
        members |= side | {s}
        labels.append(label)
    if not ix.output[s]:
        act = _activation(ix, s, claimed | members)
        if act:
            labels.append(act[0])
            members |= act[1]
    if not labels or members & claimed:
        return None
    base = "matmul" if get_op(ix.ops[d]).category == Category.CONTRACTION else "conv"
    return PatternMatch(_name(base, labels), "output", frozenset(members), d)


def _row_op(ix: GraphIndex, i: int, full: int, rows: int) -> bool:
    n, op = ix.elements[i], ix.ops[i]
    if op == "reduce":
        return n == rows and ix.elements[ix.operands[i][0]] == full
    cat = get_op(op).category
    return n in (full, rows) and (cat in (Category.ELEMENTWISE, Category.BROADCAST)
                                  or op in ("reshape", "bitcast"))


def match_row_normalization(ix: GraphIndex, r: int, claimed: set) -> PatternMatch | None:
    """Softmax or layer norm (and a GELU after it) written with primitive reduces, or None."""
    x = ix.operands[r][0]
    full, rows = ix.elements[x], ix.elements[r]
    if not rows or full // rows < 2:
        return None
    cand, queue = set(), deque(ix.users[x])
    while queue and len(cand) < _MAX_REGION:
        i = queue.popleft()
        if i in cand or i in claimed or i - r > _WINDOW or not _row_op(ix, i, full, rows):
            continue
        cand.add(i)
        queue.extend(ix.users[i])
    acc, side = set(), set()
    for i in sorted(cand):
        chains = [[] if (o == x or o in acc) else _side_ok(ix, o, full // rows)
                  for o in ix.operands[i]]
        if all(c is not None for c in chains):
            acc.add(i)
            for c in chains:
                side.update(c)
    members, _ = _closure_sink(ix, acc, set(), need={r})
    if not members:
        return None
    reds = [m for m in members if ix.ops[m] == "reduce"]
    reducers = sorted(ix.graph.node(ix.ids[m]).attrs.get("reducer") for m in reds)
    ops = {ix.ops[m] for m in members}
    if len(reds) == 2 and reducers == ["add", "maximum"] and "exponential" in ops:
        name = "softmax"
    elif len(reds) == 2 and reducers == ["add", "add"] and "rsqrt" in ops:
        name = "layer_norm+gelu" if ops & {"tanh", "erf"} else "layer_norm"
    else:
        return None
    keep = set()
    for c in side:
        chain, _ = _chain(ix, c)
        keep |= _exclusive_prefix(ix, [y for y in chain if y in side], members | side)
    return PatternMatch(name, "input", frozenset(members | keep), r)


def match_layer_norm_composite(ix: GraphIndex, i: int, claimed: set) -> PatternMatch | None:
    """The composite ``layer_norm`` followed by a GELU (one input fusion), or None."""
    if ix.output[i]:
        return None
    act = _activation(ix, i, claimed)
    if not act or act[0] != "gelu":
        return None
    return PatternMatch("layer_norm+gelu", "input", frozenset({i} | act[1]), i)


def find_patterns(ix: GraphIndex) -> list[PatternMatch]:
    """Every non-overlapping pattern match, anchors in topological order."""
    out, claimed = [], set()
    for i in range(len(ix)):
        if ix.source[i] or i in claimed:
            continue
        m = None
        if ix.contraction[i]:
            m = match_contraction(ix, i, claimed)
        elif ix.ops[i] == "reduce":
            m = match_row_normalization(ix, i, claimed)
        elif ix.ops[i] == "layer_norm":
            m = match_layer_norm_composite(ix, i, claimed)
        if m is not None and not (m.members & claimed):
            out.append(m)
            claimed |= m.members
    return out

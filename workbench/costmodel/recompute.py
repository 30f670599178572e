"""How often a fused loop kernel evaluates each of its members (recomputation through a
broadcast).

The CPU and CUDA code generators lower a group by evaluating its outputs at the loop index of a
nest over the output's shape, walking the expression backwards through each op's index map
(:mod:`workbench.codegen.lower`, after XLA's elemental IR emitter). Each statement is placed in
the outermost loop level whose variables it uses, and values are memoised per (node, index).
So a producer reached through a ``broadcast`` is evaluated once per iteration of every loop down
to the innermost loop its index uses:

* ``sin(x)`` of ``f32[64]`` broadcast along dimension 0 of ``[64, 8]`` uses only the outer loop
  variable and is hoisted: 64 evaluations, as many as it has elements;
* the same along dimension 1 of ``[8, 64]`` uses the inner one: 8 x 64 = 512 evaluations, eight
  per element (the generated loop body holds the ``sine``).

XLA's priority fusion avoids the second case for expensive producers
(``FusionWouldDuplicate``/``IsExpensive`` in xla/service/cpu/cpu_instruction_fusion.cc: an
expensive producer is not fused into a consumer that reuses its elements); the cost model
counts what the kernel does instead, so that the saving of such a fusion comes out negative
when the recomputation costs more than the write and re-read it saves.

:func:`evaluations` follows the index maps per dimension: which loop variables of the nest each
member's index depends on. Elementwise ops, ``broadcast``, ``transpose``, ``reshape`` and
``bitcast`` (dimensions split and merged as whole groups), ``slice``, ``reverse``, ``pad``,
``concatenate`` (lowered as clamped loads under a select: every operand is evaluated at every
index of the result), ``copy`` and ``iota`` are followed; any other member (a reduction, a
contraction, a gather ...) makes the whole group fall back to one evaluation per element, the
op registry's counts (so input and output fusions are counted as before). Two uses of a member
at different indices of one nest (two slices of it) count once: an approximation, the union of
their loop variables.

On a GPU (the CUDA backend's *flat* loop: one element of the nest per thread, a grid-stride
loop over the linear index) nothing is hoisted: every member a loop level uses is evaluated
once per element of the nest (``hoist=False``); ``sin`` of ``f32[64]`` broadcast to ``[64, 8]``
along either dimension runs 512 times.

The correction is applied only to groups that hold an *expanding* broadcast (more elements out
than in) of another member, the case above; in other groups every member counts once per
element.

The planner asks about many candidate kernels, each a group it already counted plus a producer
(or a sibling). A kernel's masks are kept per graph index (the most recent :data:`_STATES_MAX`)
and a candidate's are its group's extended by what the added members change (:func:`_extend`:
the masks are a bitwise-or over paths, so only the added members and the base members whose
masks grow are walked); the counts are those of a whole walk (tests/costmodel/test_recompute.py
checks every split of its small groups).
"""

from __future__ import annotations

import heapq
import math

from workbench.ir.ops import Category, get_op

__all__ = ["INDEX_ONLY_OPS", "evaluations", "expands", "extra_statements", "followed",
           "recompute_extra", "recompute_factors"]

#: ops the code generator lowers as index maps only (no statement of their own): recomputing
#: them through a broadcast costs nothing, so their counts are not scaled
INDEX_ONLY_OPS = frozenset({"broadcast", "transpose", "reshape", "bitcast", "slice", "reverse",
                            "copy"})

#: candidate kernels whose factors one graph's index keeps (then it starts afresh)
_CACHE_MAX = 1 << 16
#: loop-variable masks of kernels one graph's index keeps (the most recently used); the planner
#: extends a group's masks by the producer a candidate adds (:func:`_extend`)
_STATES_MAX = 4096
_MISSING = object()
_SAME_INDEX = frozenset({"slice", "reverse", "pad", "concatenate", "copy"})
_RESHAPES = frozenset({"reshape", "bitcast"})


def expands(index, i: int) -> bool:
    """Whether node ``i`` is a broadcast with more elements than its (non-source) operand."""
    if index.ops[i] != "broadcast" or not index.operands[i]:
        return False
    o = index.operands[i][0]
    return not index.source[o] and index.elements[i] > index.elements[o]


def _info(index) -> tuple[list, list, list]:
    """(shape of each node, whether the walk follows it, the nodes), computed once per index."""
    hit = index.__dict__.get("_recompute_info")
    if hit is None:
        shapes, follow, nodes = [], [], []
        for i, nid in enumerate(index.ids):
            node = index.graph.node(nid)
            nodes.append(node)
            shapes.append(tuple(getattr(node.type, "shape", ()) or ()))
            op = node.op
            follow.append(index.source[i] or op == "iota" or op in INDEX_ONLY_OPS
                          or op in _SAME_INDEX
                          or (get_op(op).category == Category.ELEMENTWISE
                              and not index.reduction[i]))
        hit = index.__dict__["_recompute_info"] = (shapes, follow, nodes)
    return hit


def followed(index) -> list[bool]:
    """Per node of ``index``: whether :func:`evaluations` follows its index map (a group with
    any other member is counted once per element)."""
    return _info(index)[1]


def _shape(index, i: int) -> tuple:
    return _info(index)[0][i]


def _reshape_groups(src: tuple, dst: tuple):
    """Pairs (source dims, result dims) of the groups of dimensions a row-major reshape maps onto
    each other (equal products); None when the element counts differ."""
    if math.prod(src) != math.prod(dst):
        return None
    out, i, j = [], 0, 0
    while i < len(src) or j < len(dst):
        a, b = [i], [j]
        pa = src[i] if i < len(src) else 1
        pb = dst[j] if j < len(dst) else 1
        i, j = i + 1, j + 1
        while pa != pb:
            if pa < pb and i < len(src):
                pa *= src[i]
                a.append(i)
                i += 1
            elif j < len(dst):
                pb *= dst[j]
                b.append(j)
                j += 1
            else:
                return None
        out.append(([d for d in a if d < len(src)], [d for d in b if d < len(dst)]))
    return out


def _operand_deps(index, i: int, dep: list, shapes: list, nodes: list) -> list | None:
    """For node ``i`` whose dimensions depend on the loop variables ``dep`` (one bit mask per
    dimension: bit ``k`` for the nest's dimension ``k``): the same for each operand (None: an
    op this walk does not follow). Only called for followed nodes (:func:`followed`);
    ``shapes`` and ``nodes`` are :func:`_info`'s."""
    node = nodes[i]
    op = node.op
    ops = index.operands[i]
    if op == "iota":
        return []
    if op == "broadcast":
        xs = shapes[ops[0]]
        dims = node.attrs.get("dimensions", ())
        return [[dep[d] if xs[k] != 1 else 0 for k, d in enumerate(dims)]]
    if op == "transpose":
        perm = node.attrs["dimensions"]
        xi = [0] * len(perm)
        for k, p in enumerate(perm):
            xi[p] = dep[k]
        return [xi]
    if op in _RESHAPES:
        xs = shapes[ops[0]]
        groups = _reshape_groups(xs, shapes[i])
        if groups is None:
            return None
        xi = [0] * len(xs)
        for a, b in groups:
            u = 0
            for d in b:
                u |= dep[d]
            for d in a:
                xi[d] = u if xs[d] != 1 else 0
        return [xi]
    n = len(dep)
    if op in _SAME_INDEX:
        return [[] if (op == "pad" and k > 0) or len(shapes[o]) != n else dep
                for k, o in enumerate(ops)]
    out = []                                    # elementwise (followed, so not a reduction)
    for o in ops:
        r = len(shapes[o])
        if r == 0:
            out.append([])
        elif r == n:
            out.append(dep)
        else:
            return None
    return out


def _nests(index, outs) -> list[tuple[tuple, list[int]]]:
    """The loop nests of a kernel writing ``outs``: one per output shape, an output whose shape
    is a leading prefix of another's sharing that one's nest (as the code generator does)."""
    shapes = {o: _shape(index, o) for o in outs}
    roots = sorted({s for s in shapes.values()}, key=len, reverse=True)
    nests: dict[tuple, list[int]] = {}
    for o in sorted(outs):
        s = shapes[o]
        root = next(r for r in roots if r[:len(s)] == s)
        nests.setdefault(root, []).append(o)
    return list(nests.items())


def _walk(index, mem: frozenset, outs: tuple, hoist: bool):
    """The loop-variable masks of a kernel of ``mem`` writing ``outs`` (members, ascending):
    ``(nests, deps, counts)`` with ``nests`` :func:`_nests`'s list, ``deps`` one dict per nest
    (member -> one bit mask per dimension, for the members an output of that nest reaches) and
    ``counts`` member -> evaluations; None when a member's index map is not followed."""
    shapes, follow, nodes = _info(index)
    if not all(follow[m] for m in mem):
        return None
    order = sorted(mem, reverse=True)               # consumers before producers (topological)
    operands = index.operands
    nests = _nests(index, outs)
    deps = []
    for root, nouts in nests:
        dep: dict[int, list] = {}
        for o in nouts:
            dep[o] = [1 << k for k in range(len(shapes[o]))]
        for m in order:
            d = dep.get(m)
            if d is None:
                continue
            per = _operand_deps(index, m, d, shapes, nodes)
            if per is None:
                return None
            for o, od in zip(operands[m], per):
                if o not in mem:
                    continue
                old = dep.get(o)
                dep[o] = od if old is None else [a | b for a, b in zip(old, od)]
        deps.append(dep)
    counts = {m: 0 for m in mem}
    _count(nests, deps, counts, hoist)
    return nests, deps, counts, frozenset(m for m, n in counts.items() if _nonunit(index, m, n))


def _nonunit(index, m: int, n: int) -> bool:
    """Whether ``n`` evaluations of member ``m`` is other than once per element (a factor
    :func:`recompute_factors` reports; index-only ops are never scaled)."""
    e = index.elements[m]
    return bool(n and e and n != e and index.ops[m] not in INDEX_ONLY_OPS)


def _count(nests, deps, counts: dict, hoist: bool) -> None:
    """Add to ``counts`` (member -> evaluations) each nest's evaluations of the members its
    masks ``deps`` hold: the trip counts of the loops down to the innermost one a member's
    index uses (``hoist``), else of the whole nest."""
    for (root, _), dep in zip(nests, deps):
        for m, d in dep.items():
            used = 0
            for x in d:
                used |= x
            depth = (used.bit_length() if hoist else len(root)) if used else 0
            counts[m] += math.prod(root[:depth])


def _extend(index, base, base_mem: frozenset, added: frozenset, outs: tuple, hoist: bool):
    """:func:`_walk`'s result for ``base_mem | added`` writing ``outs``, from ``base`` (the
    walk of ``base_mem`` and its outputs) by walking only what the added members change.

    The masks are a union (bitwise or) over the paths from the outputs, and each op's map of
    its masks onto its operands' distributes over that union. So the kernel's masks are the
    base's, plus what flows from the added outputs and from the base members that read an added
    member; a base member's masks change only where an added member reads it (and then its
    producers'). Those members are walked, consumers before producers (a heap on the
    topological index), each once per nest; a base member's count changes by its new masks'
    evaluations less its old ones'. Requires the outputs among ``base_mem`` to be the base's
    own, in the same loop nests with the same trip counts; returns ``False`` where they are not
    (then the caller walks the whole kernel)."""
    bnests, bdeps, bcounts, bnon = base
    nests = _nests(index, outs)
    by_outs = {tuple(nouts): (root, dep) for (root, nouts), dep in zip(bnests, bdeps)}
    pairs = []
    for root, nouts in nests:
        mine = tuple(o for o in nouts if o in base_mem)
        dc = {}
        if mine:
            hit = by_outs.pop(mine, None)
            if hit is None or hit[0] != root:
                return False
            dc = hit[1]
        pairs.append((root, dc, [o for o in nouts if o not in base_mem]))
    if by_outs:                         # a base nest merged into another one: walk it all
        return False
    shapes, follow, nodes = _info(index)
    if not all(follow[m] for m in added):
        return None
    operands, users = index.operands, index.all_users
    boundary = [-u for u in {u for x in added for u in users[x] if u in base_mem}]
    counts = dict.fromkeys(added, 0)        # the counts that differ from the base's
    overlays = []
    for root, dc, pouts in pairs:
        dep = {}                            # the masks that differ from the base's
        for o in pouts:
            dep[o] = [1 << k for k in range(len(shapes[o]))]
        heap = boundary + [-o for o in pouts]
        heapq.heapify(heap)
        queued = {-h for h in heap}
        while heap:
            m = -heapq.heappop(heap)
            d = dep.get(m)
            if d is None:
                d = dc.get(m)
                if d is None:               # a base member no output of this nest reaches
                    continue
            per = _operand_deps(index, m, d, shapes, nodes)
            if per is None:
                return None
            for o, od in zip(operands[m], per):
                if o not in added and o not in base_mem:
                    continue
                old = dep.get(o)
                if old is None:
                    old = dc.get(o)
                new = od if old is None else [a | b for a, b in zip(old, od)]
                if new == old:
                    continue
                dep[o] = new
                if o not in queued:
                    queued.add(o)
                    heapq.heappush(heap, -o)
        for m, d in dep.items():            # the members whose masks this nest changed
            n = counts[m] if m in counts else bcounts[m]
            counts[m] = n + _evals(root, d, hoist) - (_evals(root, dc[m], hoist)
                                                      if m in dc else 0)
        overlays.append(dep)
    non = set(bnon)
    for m, n in counts.items():
        if _nonunit(index, m, n):
            non.add(m)
        else:
            non.discard(m)
    return _Extended(nests, [dc for _, dc, _ in pairs], overlays, bcounts, counts,
                     frozenset(non))


class _Extended:
    """:func:`_extend`'s result: the base's masks and counts with what the added members
    changed laid over them (copied into one state only when it is itself extended or its
    counts are all read: a candidate the planner does not take is never copied)."""

    __slots__ = ("nests", "deps", "overlays", "base_counts", "counts_over", "non")

    def __init__(self, nests, deps, overlays, base_counts, counts_over, non):
        self.nests, self.deps, self.overlays = nests, deps, overlays
        self.base_counts, self.counts_over, self.non = base_counts, counts_over, non

    def count(self, m: int) -> int:
        """Evaluations of member ``m``."""
        c = self.counts_over.get(m)
        return self.base_counts[m] if c is None else c

    def full(self) -> tuple:
        """The state as :func:`_walk` returns it."""
        return (self.nests, [{**d, **o} for d, o in zip(self.deps, self.overlays)],
                {**self.base_counts, **self.counts_over}, self.non)


def _evals(root: tuple, d: list, hoist: bool) -> int:
    """Evaluations in a nest of trip counts ``root`` of a member whose index uses the loop
    variables of masks ``d`` (see :func:`_count`)."""
    used = 0
    for x in d:
        used |= x
    return math.prod(root[:(used.bit_length() if hoist else len(root)) if used else 0])


def _states(index) -> dict:
    return index.__dict__.setdefault("_recompute_states", {})


def _state(index, mem: frozenset, outputs, hoist: bool, base=None, full: bool = False):
    """:func:`_walk` of ``mem`` writing the members among ``outputs``, kept per graph index
    (the most recently used :data:`_STATES_MAX`). ``base``: ``(members, outputs)`` of a
    subset of ``mem`` whose walk is extended by the rest (:func:`_extend`) when it can be;
    ``full``: an :class:`_Extended` result is copied into a plain state (and kept so)."""
    outs = tuple(sorted(o for o in outputs if o in mem))
    key = (mem, outs, hoist)
    cache = _states(index)
    hit = cache.pop(key, _MISSING)
    if hit is _MISSING:
        hit = False
        if base is not None:
            bmem = frozenset(base[0])
            bouts = tuple(sorted(o for o in base[1] if o in bmem))
            b = _state(index, bmem, bouts, hoist, full=True)
            if b is None:
                hit = None
            elif len(base) > 2:         # members == base | base[2] (the caller's word)
                added = frozenset(x for x in base[2] if x not in bmem)
                hit = _extend(index, b, bmem, added, outs, hoist)
            elif bmem <= mem:
                hit = _extend(index, b, bmem, mem - bmem, outs, hoist)
        if hit is False:
            hit = _walk(index, mem, outs, hoist)
        if len(cache) >= _STATES_MAX:
            del cache[next(iter(cache))]
    if full and type(hit) is _Extended:
        hit = hit.full()
    cache[key] = hit                    # most recently used last
    return hit


def evaluations(index, members, outputs, hoist: bool = True, base=None) -> dict[int, int] | None:
    """How many times one kernel of ``members`` writing ``outputs`` evaluates each member.

    Parameters
    ----------
    index : GraphIndex
    members : set of int
        Node indices of the group (sources excluded).
    outputs : iterable of int
        The members the kernel stores.
    hoist : bool
        True for the CPU's loop nests (a statement placed in the outermost loop whose variables
        it uses), False for the CUDA backend's flat loops (every element of the nest).
    base : tuple (set of int, iterable of int[, set of int]), optional
        Members and outputs of a kernel already counted (a planner's group) of which
        ``members`` adds to the members; its loop-variable masks are kept per graph index and
        extended by the added members only (:func:`_extend`), the same counts as a whole walk.
        A third item, where given, is a set of which ``members`` is the union with the base's
        members (the producer a candidate adds; not checked).

    Returns
    -------
    dict of int to int, or None
        Member -> evaluations per kernel call (a member no output reaches: 0), or None when the
        group holds an op the walk does not follow (see the module notes).
    """
    mem = frozenset(members)
    st = _state(index, mem, outputs, hoist, base, full=True)
    if st is None:
        return None
    counts = st[2]
    return {m: counts[m] for m in set(mem)}


def recompute_factors(index, members, outputs, hoist: bool = True,
                      base=None) -> dict[int, float]:
    """Member -> evaluations per element (``evaluations / elements``) for the members a kernel
    evaluates other than once per element; empty when the group holds no expanding broadcast of
    a member or the walk does not apply (see the module notes).

    Parameters
    ----------
    index : GraphIndex
    members : set of int
        Node indices of the group.
    outputs : iterable of int
        The members the kernel stores.
    hoist : bool
        See :func:`evaluations` (False on a GPU).
    base : tuple (set of int, iterable of int), optional
        See :func:`evaluations`: a counted kernel whose masks are extended (same result).

    Returns
    -------
    dict of int to float
    """
    mem = frozenset(members)
    key = (mem, frozenset(outputs), hoist)
    cache = index.__dict__.setdefault("_recompute_factors", {})
    hit = cache.get(key)
    if hit is not None:
        return dict(hit)
    out: dict[int, float] = {}
    operands = index.operands
    if any(operands[m][0] in mem for m in _expanding(index) & mem):
        st = _state(index, mem, outputs, hoist, base)
        if st is not None:              # members in ascending order
            el = index.elements
            if type(st) is _Extended:
                out = {m: st.count(m) / el[m] for m in sorted(st.non)}
            else:
                out = {m: st[2][m] / el[m] for m in sorted(st[3])}
    if len(cache) > _CACHE_MAX:         # the planner asks about many candidate kernels
        cache.clear()
    cache[key] = out
    return dict(out)


def _expanding(index) -> frozenset:
    """The nodes of ``index`` that are expanding broadcasts (:func:`expands`), once per index."""
    hit = index.__dict__.get("_recompute_expanding")
    if hit is None:
        hit = index.__dict__["_recompute_expanding"] = frozenset(
            i for i in range(len(index.ids)) if expands(index, i))
    return hit


def recompute_extra(index, members, outputs, compute_s=None,
                    hoist: bool = True, base=None) -> tuple[int, int, float, int]:
    """What a kernel of ``members`` writing ``outputs`` computes beyond one evaluation per
    element of each member (see :func:`recompute_factors`): ``(FLOPs, transcendentals, one
    core's compute seconds, statements)``, each the sum over members of ``(factor - 1) x`` the
    member's count (``compute_s``: the calibrated per-node seconds, a list by node index; None:
    0 s; statements: one per extra evaluation, what the CPU backend's parallel threshold counts,
    :func:`~workbench.codegen.kernel_ir.nest_work`; ``hoist``: see :func:`evaluations`).
    Negative where the kernel evaluates a member at fewer indices than it has elements (a
    slice of it). All zero for a group without an expanding broadcast of a member. ``base``:
    see :func:`evaluations`."""
    factors = recompute_factors(index, members, outputs, hoist, base)
    if not factors:
        return 0, 0, 0.0, 0
    flops = trans = work = 0
    secs = 0.0
    for m, f in factors.items():
        flops += round((f - 1.0) * index.flops[m])
        trans += round((f - 1.0) * index.trans[m])
        work += extra_statements(index, m, f)
        if compute_s is not None:
            secs += (f - 1.0) * compute_s[m]
    return flops, trans, secs, work


def extra_statements(index, m: int, factor: float) -> int:
    """Statement executions a member evaluated ``factor`` times per element adds to its kernel
    (one per extra evaluation)."""
    return round((factor - 1.0) * index.elements[m])

"""The legality checker: may these ops be one kernel? One checker for the planner and for edits.

It is made of small named predicates (in the manner of torch.fx's partitioner checks), each
answering one question and, on refusal, giving a :class:`Refusal` with a reason code and a
sentence. :func:`check_group` runs them all on a member set (what a user's edit produces); the
planner runs the same predicates on a :class:`GroupView` of a candidate union whose counts it
keeps incrementally, so that a 100,000-node graph is planned without re-walking whole groups.

The predicates, in the order they run:

``opaque``            an opaque op (custom call, sort ...) is never fused with anything.
``dead-code``         a dead op (no graph output depends on it) is never fused with anything:
                      XLA's dead-code elimination (``HloDCE``) removes it before fusion.
``offline``           an offline op (batch-norm folding's weight transform, run once when the
                      weights are loaded) is not fused with the ops that run on every call.
``forbidden``         the user forbade two of the members to share a kernel.
``operand-budget``    at most 96 operands plus outputs per kernel
                      (``kMaxOperandsAndOutputsPerFusion``, xla/service/gpu/gpu_fusible.h).
``reduction-budget``  at most 8 reductions per kernel
                      (``kMaxUnnestedReductionOutputsPerFusion``, xla/service/gpu/gpu_fusible.cc:
                      each reduction needs many registers and its own shared-memory tile).
``two-contractions``  at most one dot or convolution per kernel: it is the output fusion's hero.
``contraction-prologue`` a dot or convolution reads its operands from memory (it is a library
                      GEMM / convolution); nothing may be fused into its operands.
``epilogue-shape``    an output fusion's epilogue works on the contraction's result tile: ops
                      after the contraction keep its element count and do not reduce.
``reduce-into-reduce`` no reduction feeding another directly (not through a broadcast) when both
                      reduce at least 16 elements per output: the second would need the first's
                      results across threads (XLA keeps such reductions in separate kernels).
``reduction-epilogue`` after a reduction, members must be on the reduced rows or on the full rows
                      the reduction read (a row-wise normalization kernel, XLA's input fusion);
                      an epilogue on another shape needs the reduction's results at other
                      indices, which makes the kernel a loop kernel evaluating the reduction
                      inside its loop. A reduction to one row (a vector's softmax, axis 0 of
                      ``f32[3,1,1]``) has one result, which every later member reads: nothing
                      is recomputed, and it takes any epilogue, up to
                      :data:`ONE_ROW_MAX_ELEMENTS` elements read (the kernel runs as one row: a
                      single thread block, or one core).
``shape-mismatch``    the roots of a horizontal (multi-output) kernel share one iteration space
                      (``ShapesCompatibleForMultiOutputFusion``, xla/service/gpu/gpu_fusible.cc).
``registers``         the register estimate stays under the device profile's cap (GPU only).
``cycle``             no path leaves the group and comes back into it (for a whole plan, the
                      graph of groups is acyclic: :func:`check_plan_groups`).
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.errors import CycleError, LegalityError
from workbench.ir.graph import Graph
from workbench.costmodel.model import BASE_REGISTERS, peak_live
from workbench.costmodel.devices import DeviceProfile, get_device
from workbench.ir.index import GraphIndex, graph_index, iteration_shape
from workbench.ir.ops import Category, get_op
from workbench.planner.plan import Constraints
from workbench.planner.view import GroupView

#: XLA's kMaxOperandsAndOutputsPerFusion (xla/service/gpu/gpu_fusible.h)
MAX_OPERANDS_AND_OUTPUTS = 96
#: XLA's kMaxUnnestedReductionOutputsPerFusion (xla/service/gpu/gpu_fusible.cc)
MAX_REDUCTIONS = 8
#: reductions of at least this many elements per output are "real" reductions
MIN_REDUCED_ELEMENTS = 16
#: a kernel that reduces everything to one row result and then works on what it read runs as
#: one row (one thread block on a GPU, one core on the CPU): allowed up to this many elements,
#: a row of 256 KiB of float32 (the CPU backend's row cache, ROW_CACHE_MAX_BYTES in
#: workbench/codegen/lower.py)
ONE_ROW_MAX_ELEMENTS = 1 << 16

REASONS = {
    "opaque": "opaque ops are never fused",
    "dead-code": "a dead op (no graph output depends on it) is never fused",
    "offline": "offline weight-folding ops are not fused with per-call ops",
    "forbidden": "the user forbade these ops to share a kernel",
    "operand-budget": f"more than {MAX_OPERANDS_AND_OUTPUTS} operands and outputs",
    "reduction-budget": f"more than {MAX_REDUCTIONS} reductions",
    "two-contractions": "two contractions in one kernel",
    "contraction-prologue": "a contraction's operand computed in its own kernel",
    "epilogue-shape": "an epilogue that changes the contraction's shape or reduces",
    "reduce-into-reduce": "a reduction fed directly by another reduction",
    "reduction-epilogue": "an epilogue on neither the reduced rows nor the rows read",
    "shape-mismatch": "horizontal fusion of different iteration spaces",
    "registers": "register estimate above the device's cap",
    "cycle": "a path leaves the group and re-enters it",
}


@dataclass(frozen=True)
class Refusal:
    """Why a fusion is illegal: a reason code (a key of :data:`REASONS`) and a sentence."""

    code: str
    message: str
    nodes: tuple[str, ...] = ()

    def error(self) -> LegalityError:
        """This refusal as a :class:`LegalityError` (for edits)."""
        return LegalityError(self.message, reason=self.code,
                             node=self.nodes[0] if self.nodes else None)


def reduced_per_output(index: GraphIndex, i: int) -> int:
    """Elements a reduction combines into each output element."""
    node = index.graph.node(index.ids[i])
    if node.op in ("reduce", "reduce-window"):
        src = index.elements[index.operands[i][0]]
        return max(1, src // max(1, index.elements[i]))
    t = node.type
    axis = node.attrs.get("axis", -1) if node.op == "softmax" else -1
    return t.shape[axis] if t.shape else 1


def _name(ix: GraphIndex, i: int) -> str:
    return f"{ix.ops[i]} {ix.ids[i]}"


# ----- the predicates ---------------------------------------------------------------------------

def opaque_alone(v: GroupView, device, constraints) -> Refusal | None:
    if v.opaque and v.size > 1:
        o = v.opaque[0]
        cat = get_op(v.index.ops[o]).category
        if cat == Category.OPAQUE:
            return Refusal("opaque", f"{_name(v.index, o)} is opaque (the workbench cannot "
                           "generate code inside it), so it runs as a kernel of its own",
                           (v.index.ids[o],))
        why = ("it only names part of a multi-output op's result"
               if cat not in Category.UNFUSIBLE else
               f"XLA's fusion passes leave {cat} ops unfused")
        return Refusal("unfusible", f"{_name(v.index, o)} runs as a kernel of its own: {why}",
                       (v.index.ids[o],))
    return None


def dead_alone(v: GroupView, device, constraints) -> Refusal | None:
    if v.dead and v.size > 1:
        ix, d = v.index, v.dead[0]
        other = next((m for m in sorted(v.members) if m != d), d)
        return Refusal("dead-code", f"{_name(ix, d)} is dead: no graph output depends on it; "
                       "XLA's DCE would remove it, so it is not fused with "
                       f"{_name(ix, other)}", (ix.ids[d], ix.ids[other]))
    return None


def offline_apart(v: GroupView, device, constraints) -> Refusal | None:
    if not v.offline or len(v.offline) == v.size:
        return None
    ix = v.index
    live = next((m for m in sorted(v.members) if not ix.offline[m]), None)
    if live is None:
        return None
    o = v.offline[0]
    return Refusal("offline", f"{_name(ix, o)} folds weights once, offline, when they are "
                   f"loaded; {_name(ix, live)} runs on every call, so they are not one kernel",
                   (ix.ids[o], ix.ids[live]))


def not_forbidden(v: GroupView, device, constraints: Constraints) -> Refusal | None:
    pos = v.index.pos
    for a, b in constraints.forbidden:
        ia, ib = pos.get(a), pos.get(b)
        if ia is not None and ib is not None and v.contains(ia) and v.contains(ib):
            return Refusal("forbidden", f"{a} and {b} may not share a kernel: you forbade it",
                           (a, b))
    return None


def operand_budget(v: GroupView, device, constraints) -> Refusal | None:
    n = v.n_inputs + v.n_outputs
    if n > MAX_OPERANDS_AND_OUTPUTS:
        return Refusal("operand-budget", f"the kernel would have {v.n_inputs} operands and "
                       f"{v.n_outputs} outputs, more than XLA's budget of "
                       f"{MAX_OPERANDS_AND_OUTPUTS} kernel parameters")
    return None


def reduction_budget(v: GroupView, device, constraints) -> Refusal | None:
    if len(v.reductions) > MAX_REDUCTIONS:
        return Refusal("reduction-budget", f"the kernel would hold {len(v.reductions)} "
                       f"reductions, more than XLA's budget of {MAX_REDUCTIONS} (each needs its "
                       "own registers and shared-memory tile)")
    return None


def one_contraction(v: GroupView, device, constraints) -> Refusal | None:
    if len(v.contractions) > 1:
        a, b = v.contractions[:2]
        return Refusal("two-contractions", f"{_name(v.index, a)} and {_name(v.index, b)} would "
                       "share a kernel; an output fusion has one contraction as its hero",
                       (v.index.ids[a], v.index.ids[b]))
    return None


def contraction_reads_memory(v: GroupView, device, constraints) -> Refusal | None:
    ix = v.index
    for d in v.contractions:
        for o in ix.operands[d]:
            if v.contains(o) and not ix.source[o]:
                return Refusal("contraction-prologue", f"{_name(ix, d)} reads its operands from "
                               f"memory (it is a library GEMM/convolution): {ix.ids[o]} cannot "
                               "be computed inside its kernel", (ix.ids[o], ix.ids[d]))
    return None


def _downstream(v: GroupView, start: int, through=lambda i: True) -> list[int]:
    ix, seen, stack = v.index, {start}, [start]
    while stack:
        for u in ix.users[stack.pop()]:
            if u not in seen and v.contains(u) and through(u):
                seen.add(u)
                stack.append(u)
    seen.discard(start)
    return sorted(seen)


def epilogue_shape(v: GroupView, device, constraints) -> Refusal | None:
    ix = v.index
    for d in v.contractions:
        for m in _downstream(v, d):
            if ix.reduction[m] or ix.elements[m] != ix.elements[d]:
                what = "reduces" if ix.reduction[m] else f"has {ix.elements[m]} elements"
                return Refusal("epilogue-shape", f"{_name(ix, m)} {what}; an output fusion's "
                               f"epilogue works element by element on {_name(ix, d)}'s "
                               f"{ix.elements[d]}-element result", (ix.ids[m], ix.ids[d]))
    return None


def _upstream_reduction(v: GroupView, r: int) -> int | None:
    ix = v.index
    seen, stack = set(), [ix.operands[r][0]]
    while stack:
        i = stack.pop()
        if i in seen or not v.contains(i):
            continue
        seen.add(i)
        if ix.reduction[i]:
            return i
        if ix.ops[i] != "broadcast":
            stack.extend(ix.operands[i])
    return None


def no_reduce_into_reduce(v: GroupView, device, constraints) -> Refusal | None:
    ix = v.index
    if len(v.reductions) < 2 or not v.new_reduction_structure():
        return None
    for r2 in v.reductions:
        if ix.graph.node(ix.ids[r2]).op not in ("reduce", "reduce-window"):
            continue
        r1 = _upstream_reduction(v, r2)
        if r1 is not None and min(reduced_per_output(ix, r1),
                                  reduced_per_output(ix, r2)) >= MIN_REDUCED_ELEMENTS:
            return Refusal("reduce-into-reduce", f"{_name(ix, r1)} feeds {_name(ix, r2)} and "
                           f"both reduce {MIN_REDUCED_ELEMENTS} or more elements per output: "
                           "the second reduction needs the first's results from other threads, "
                           "so they are separate kernels", (ix.ids[r1], ix.ids[r2]))
    return None


def _row_counts(ix: GraphIndex, r: int) -> tuple[int, int]:
    op = ix.ops[r]
    if op in ("reduce", "reduce-window"):
        return ix.elements[r], ix.elements[ix.operands[r][0]]
    full = ix.elements[r]
    return full // max(1, reduced_per_output(ix, r)), full


def reduction_epilogue(v: GroupView, device, constraints) -> Refusal | None:
    ix = v.index
    if not v.reductions or not v.new_reduction_structure():
        return None
    for r in v.reductions:
        rows, full = _row_counts(ix, r)
        after = _downstream(v, r, through=lambda i: not ix.reduction[i])
        if rows <= 1:       # one result, read by every later member: nothing is recomputed
            if after and full > ONE_ROW_MAX_ELEMENTS:
                m = after[0]
                return Refusal("reduction-epilogue", f"{_name(ix, r)} reduces all {full} "
                               f"elements it reads to one result, which {_name(ix, m)} "
                               "needs: in one kernel everything after it waits for the whole "
                               "reduction, so the kernel runs as a single row (one thread "
                               "block, or one core) over all its elements; one-row kernels are "
                               f"kept to {ONE_ROW_MAX_ELEMENTS} elements",
                               (ix.ids[m], ix.ids[r]))
            continue
        for m in after:
            n = ix.elements[m]
            if n in (rows, full):
                continue
            return Refusal("reduction-epilogue", f"{_name(ix, m)} ({n} elements) follows "
                           f"{_name(ix, r)}, which produces {rows} row results from {full} "
                           f"elements: in one kernel the ops after a reduction work on its "
                           f"{rows} results or on the {full} elements it reads (an input "
                           f"fusion's epilogue); on {n} elements the kernel would need the "
                           "reduction's results at other indices, a loop kernel evaluating the "
                           "reduction inside its loop", (ix.ids[m], ix.ids[r]))
    return None


def horizontal_shapes(v: GroupView, device, constraints) -> Refusal | None:
    roots = v.roots
    if len(roots) < 2:
        return None
    ix = v.index
    shapes = {}
    for r in roots:
        shapes.setdefault(iteration_shape(ix.graph, ix.ids[r]), r)
    if len(shapes) > 1:
        (s1, a), (s2, b) = list(shapes.items())[:2]
        return Refusal("shape-mismatch", f"{ix.ids[a]} loops over {list(s1)} and {ix.ids[b]} "
                       f"over {list(s2)}: a multi-output kernel shares one parallel loop",
                       (ix.ids[a], ix.ids[b]))
    return None


def register_cap(v: GroupView, device: DeviceProfile, constraints) -> Refusal | None:
    cap = device.max_registers_per_thread
    if not device.is_gpu or cap is None:
        return None
    bound = v.live_bound
    if bound is not None and BASE_REGISTERS + bound <= cap:
        return None
    regs = BASE_REGISTERS + peak_live(v.index, v.members)
    if regs > cap:
        return Refusal("registers", f"about {regs} registers per thread (peak live values plus "
                       f"{BASE_REGISTERS} for indexing), above {device.name}'s cap of {cap}: "
                       "the kernel would spill")
    return None


def convex(v: GroupView, device, constraints) -> Refusal | None:
    if not v.check_cycle:
        return None
    ix, mem = v.index, v.members
    hi = max(mem)
    seen, stack = set(), [u for m in mem for u in ix.users[m] if u not in mem]
    while stack:
        i = stack.pop()
        if i in seen or i > hi:
            continue
        seen.add(i)
        for u in ix.users[i]:
            if u in mem:
                return Refusal("cycle", f"a path leaves the group through {ix.ids[i]} and comes "
                               f"back into {ix.ids[u]}: as one kernel the group would depend on "
                               "itself", (ix.ids[i], ix.ids[u]))
            stack.append(u)
    return None


PREDICATES = (
    ("opaque", opaque_alone), ("dead-code", dead_alone), ("offline", offline_apart),
    ("forbidden", not_forbidden), ("operand-budget", operand_budget),
    ("reduction-budget", reduction_budget), ("two-contractions", one_contraction),
    ("contraction-prologue", contraction_reads_memory), ("epilogue-shape", epilogue_shape),
    ("reduce-into-reduce", no_reduce_into_reduce), ("reduction-epilogue", reduction_epilogue),
    ("shape-mismatch", horizontal_shapes), ("registers", register_cap), ("cycle", convex),
)


def check_view(view: GroupView, device: DeviceProfile, constraints: Constraints,
               skip=()) -> Refusal | None:
    """Run every predicate (except those named in ``skip``) on ``view``; the first refusal."""
    for name, pred in PREDICATES:
        if name in skip:
            continue
        r = pred(view, device, constraints)
        if r is not None:
            return r
    return None


def check_group(graph: Graph, members, device="cpu",
                constraints: Constraints | None = None) -> Refusal | None:
    """Check that ``members`` may run as one kernel.

    Parameters
    ----------
    graph : Graph
    members : iterable of str
        Node ids; sources (parameters, constants) are ignored.
    device : str or DeviceProfile
    constraints : Constraints, optional

    Returns
    -------
    Refusal or None
        ``None`` when legal.

    Raises
    ------
    DanglingReferenceError
        If a member is not in the graph.
    """
    ix = graph_index(graph)
    mem = {ix.pos[graph.node(m).id] for m in members}
    mem = {m for m in mem if not ix.source[m]}
    if not mem:
        return None
    return check_view(GroupView(ix, [mem]), get_device(device), constraints or Constraints())


def check_plan_groups(graph: Graph, member_sets, device="cpu",
                      constraints: Constraints | None = None, only=None) -> Refusal | None:
    """Check each group (or only the groups in ``only``), then that the groups can be ordered.

    Returns the first :class:`Refusal`, or ``None``.
    """
    from workbench.planner.plan import make_plan

    for s in member_sets:
        if only is not None and frozenset(s) not in only:
            continue
        r = check_group(graph, s, device, constraints)
        if r is not None:
            return r
    try:
        make_plan(graph, member_sets, policy="check")
    except CycleError as exc:
        return Refusal("cycle", exc.message)
    return None


__all__ = ["GroupView", "LegalityError", "MAX_OPERANDS_AND_OUTPUTS", "MAX_REDUCTIONS",
           "ONE_ROW_MAX_ELEMENTS",
           "PREDICATES", "REASONS", "Refusal", "check_group", "check_plan_groups", "check_view",
           "reduced_per_output"]

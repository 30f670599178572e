"""The ``xla-cpu`` policy: XLA:CPU's rule-based instruction fusion, modelled on its source.

XLA:CPU fuses with ``CpuInstructionFusion`` (xla/service/cpu/cpu_instruction_fusion.cc) on top
of the generic ``InstructionFusion`` pass (xla/service/instruction_fusion.cc). What this module
reproduces, rule by rule:

* **Order.** Instructions are visited consumers first (reverse post order). A consumer tries its
  operands, latest first; after each successful fusion the fusion is revisited at once, so a
  kernel grows backwards from its root.
* **Globally unfusible producers** (``ComputeGloballyUnfusible``). A producer that reads more
  than one large operand (not "effectively at most unary") and whose operands are bigger than its
  result is never duplicated unless it can be fused into all of its users along every path.
* **ShouldFuse** (CPU, then generic), in order: a rank-1 dot into an ``add`` is an output fusion
  (``CanBeOutputFused``); a producer must be loop-fusible (``CanBeLoopFused``: elementwise, data
  movement, broadcast, iota, pad, reduce -- not dot, convolution, reduce-window or custom calls);
  concatenations with many operands or along the minor dimension stay out; an *expensive*
  producer (``IsExpensive``: exp, log, tanh, rsqrt, sqrt, float divide, reduce, dot ...) is not
  fused into a consumer that *reuses* its elements (a broadcast, or a fusion that reads it
  through one); an expensive producer is not duplicated (``FusionWouldDuplicate``), except a
  broadcast; at most 5 reductions per fusion; a producer that is itself a fusion is not fused;
  a dot consumer only takes small matrix-vector operands; the consumer must be a loop fusion or
  loop-fusible itself.
* **No sibling or multi-output fusion** (the CPU pass does not override
  ``ShouldFuseIntoMultiOutput``), and no patterns beyond the rank-1 dot + add output fusion.

* **Tree reduction.** Before fusion, XLA:CPU's ``TreeReductionRewriter``
  (xla/hlo/transforms/simplifiers/tree_reduction_rewriter.cc, window size 32 in
  xla/service/cpu/cpu_compiler.cc) rewrites a ``reduce`` with a reduced dimension longer than 32
  into a ``reduce-window`` (windows of 32, stride 32, padded) and a ``reduce`` of the partial
  results. A ``reduce-window`` is not loop-fusible, so nothing is fused into the reduction's
  operand: ``sum(cos(x))`` on ``f32[33]`` is three kernels in XLA (``cos``, the reduce-window,
  the reduce). The planner takes the graph as it is, so such a reduce stays one node; the
  policy keeps its operand's producer out of its kernel (reason ``tree-reduction``), and the
  kernel stands for XLA's two (reduce-window, then reduce). In an optimised module the split is
  already in the graph.

Not modelled: ``FusionNodeIndexingEvaluation`` ("code duplication too high", which matters for
deep diamonds).
"""

from __future__ import annotations

from workbench.errors import PlanError
from workbench.ir.attrs import Attrs
from workbench.ir.graph import Graph
from workbench.ir.types import TensorType
from workbench.costmodel.devices import get_device
from workbench.fmt import name_list
from workbench.costmodel.recompute import evaluations
from workbench.ir.index import graph_index, reuses_operand
from workbench.ir.ops import Category, get_op
from workbench.planner.plan import Constraints, Decision, Plan, make_plan

#: expensive ops for XLA:CPU (``CpuInstructionFusion::IsExpensive``): a transcendental, a float
#: division, a library call or a reduction; the workbench's composites by what they expand to
XLA_CPU_EXPENSIVE = frozenset({
    "divide", "remainder", "tanh", "atan2", "cbrt", "power", "rsqrt", "sqrt", "erf",
    "exponential", "exponential-minus-one", "log", "log-plus-one", "logistic",
    "dot", "convolution", "reduce", "reduce-window", "opaque", "parameter",
    "gelu", "matmul", "conv2d", "layer_norm", "softmax", "batch_norm_inference",
})

#: ops XLA:CPU can emit inside a loop fusion (``CanBeLoopFused``), besides elementwise ops
_LOOP_FUSIBLE_EXTRA = frozenset({"bitcast", "broadcast", "concatenate", "iota", "pad", "reduce",
                                 "reshape", "reverse", "slice", "transpose", "copy", "gather",
                                 "dynamic-slice", "dynamic-update-slice"})



def loop_fusible(op: str) -> bool:
    """XLA:CPU's ``CanBeLoopFused``: elementwise ops, data movement, broadcast, iota, reduce.

    The workbench's row-normalization composites (softmax, layer_norm, batch norm) count as
    loop-fusible, as the reduce and elementwise ops they expand to are.
    """
    cat = get_op(op).category
    return (cat in (Category.ELEMENTWISE, Category.NORMALIZATION) or op in _LOOP_FUSIBLE_EXTRA)


_OUT = -1                      # the graph's result tuple, a user that cannot fuse
_MAX_REDUCTIONS = 5            # kMaxReductionsInFusion (cpu_instruction_fusion.cc)
_MAX_CONCAT_OPERANDS = 8       # kMaxConcatenateArguments
_FUSION_THRESHOLD_BYTES = 16 * 1024
_MINOR_CONCAT_ELEMENTS = 128   # is_minor_dim_concatenate (cpu_instruction_fusion.cc)
_TREE_REDUCTION_WINDOW = 32    # TreeReductionRewriter's window on the CPU (cpu_compiler.cc)
_DOTS = ("dot", "matmul")


class _Fusion:
    __slots__ = ("root", "members", "reused", "ext", "reductions", "reduces", "contracts")

    def __init__(self, root: int, reused: set, ext: set, is_reduce: bool):
        self.root, self.members, self.reused, self.ext = root, {root}, reused, ext
        self.reductions = int(is_reduce)
        #: whether a member reduces / is a dot or convolution (the kernel's fusion kind)
        self.reduces = self.contracts = False

    def kind(self) -> str:
        """The fusion kind as a plan's kernel header names it (output, input or loop)."""
        return "output" if self.contracts else "input" if self.reduces else "loop"


class XlaCpuRun:
    """One run of the ``xla-cpu`` policy (see the module notes)."""

    def __init__(self, graph: Graph, device, constraints: Constraints | None):
        self.graph, self.ix = graph, graph_index(graph)
        self.dev = get_device(device)
        self.cons = constraints or Constraints()
        ix = self.ix
        n = len(ix)
        self.users_left = [set(ix.users[i]) | ({_OUT} if ix.output[i] else set())
                           for i in range(n)]
        self.dead = [False] * n
        self.fusions: dict[int, _Fusion] = {}
        self.pinned_of: dict[int, int] = {}
        for k, names in enumerate(self.cons.pinned):
            for nm in names:
                if nm not in ix.pos:
                    raise PlanError(f"a pinned group names node {nm!r}, which is not in graph "
                                    f"{graph.name!r}", node=nm)
                self.pinned_of[ix.pos[nm]] = k
        self.decisions: list[Decision] = []
        self._reach: dict = {}
        self.do_not_duplicate = self._globally_unfusible()

    # ----- facts -----------------------------------------------------------------------------

    def expensive(self, i: int) -> bool:
        op = self.ix.ops[i]
        if op in ("divide", "remainder"):
            t = self.graph.node(self.ix.ids[i]).type
            return not (isinstance(t, TensorType) and t.dtype.startswith(("s", "u")))
        return op in XLA_CPU_EXPENSIVE

    def _reused_of(self, i: int) -> set:
        node, ix = self.graph.node(self.ix.ids[i]), self.ix
        return {ix.pos[o] for k, o in enumerate(node.operands)
                if not ix.source[ix.pos[o]] and reuses_operand(self.graph, node.id, k)}

    def _new_fusion(self, r: int) -> _Fusion:
        ix = self.ix
        f = _Fusion(r, self._reused_of(r), {o for o in ix.operands[r] if not ix.source[o]},
                    ix.ops[r] == "reduce")
        f.reduces, f.contracts = ix.reduction[r], ix.contraction[r]
        return f

    def _effectively_unary(self, i: int) -> bool:
        ix, node = self.ix, self.graph.node(self.ix.ids[i])
        rank = _true_rank(node.type)
        big = 0
        for o in node.operands:
            j = ix.pos[o]
            if ix.ops[j] in ("broadcast", "iota") or (ix.ops[j] == "constant"
                                                      and ix.elements[j] <= 1):
                continue
            if _true_rank(self.graph.node(o).type) >= rank:
                big += 1
        return big <= 1

    def _can_output_fuse(self, p: int, consumer: int) -> bool:
        ix = self.ix
        if ix.ops[consumer] != "add" or ix.ops[p] not in _DOTS:
            return False
        t = self.graph.node(ix.ids[p]).type
        node = self.graph.node(ix.ids[p])
        batch = node.attrs.get("lhs_batch_dims", ())
        uses = self.graph.node(ix.ids[consumer]).operands.count(ix.ids[p])
        return t.rank <= 1 and not batch and len(ix.users[p]) == 1 and uses == 1 \
            and not ix.output[p]

    def _minor_concat(self, i: int) -> bool:
        """XLA:CPU keeps this concatenate out of loop fusions: more than 8 operands
        (``kMaxConcatenateArguments``), or along the minor dimension of a rank-2+ array when
        that dimension has 128 or more elements (``is_minor_dim_concatenate``; row-major
        layout, as the workbench's arrays are)."""
        node = self.graph.node(self.ix.ids[i])
        if node.op != "concatenate":
            return False
        if len(node.operands) > _MAX_CONCAT_OPERANDS:
            return True
        t = node.type
        if t.rank <= 1:
            return False
        d = node.attrs.get("dimension", 0)
        return d == t.rank - 1 and t.shape[d] >= _MINOR_CONCAT_ELEMENTS

    def split_reduce(self, i: int) -> bool:
        """Whether XLA:CPU's tree reduction rewriter splits this ``reduce`` (a reduced
        dimension longer than 32) into a reduce-window and a reduce."""
        ix = self.ix
        if ix.ops[i] != "reduce":
            return False
        x = self.graph.node(ix.ids[ix.operands[i][0]]).type
        dims = self.graph.node(ix.ids[i]).attrs.get("dimensions", ())
        return any(x.shape[d] > _TREE_REDUCTION_WINDOW for d in dims)

    def _feeds_split_reduce(self, f: _Fusion, p: int) -> int | None:
        ix = self.ix
        for m in sorted(f.members):
            if ix.operands[m] and ix.operands[m][0] == p and self.split_reduce(m):
                return m
        return None

    # ----- ShouldFuse ------------------------------------------------------------------------

    def should_fuse(self, f: _Fusion, p: int, users_left) -> tuple[bool, str]:
        """(allowed, reason code) for fusing producer ``p`` into fusion ``f``."""
        ix, root = self.ix, f.root
        is_fusion = len(f.members) > 1
        if self._can_output_fuse(p, root) and not is_fusion:
            return True, "output-fusion"
        if ix.ops[p] == "add" and any(self._can_output_fuse(o, p) for o in ix.operands[p]):
            return False, "output-fusible-elsewhere"
        if not loop_fusible(ix.ops[p]) or ix.opaque[p]:
            return False, "not-loop-fusible"
        if self._feeds_split_reduce(f, p) is not None:
            return False, "tree-reduction"
        if self._minor_concat(p) or self._minor_concat(root):
            return False, "concatenate"
        if self.expensive(p) and p in f.reused:
            return False, "expensive-reuse"
        would_dup = bool(users_left[p] - {root})
        if would_dup and self.expensive(p) and ix.ops[p] != "broadcast":
            return False, "expensive-duplication"
        if is_fusion and ix.ops[p] == "reduce" and f.reductions > _MAX_REDUCTIONS:
            return False, "too-many-reductions"
        if p in self.fusions and len(self.fusions[p].members) > 1:
            return False, "producer-is-fusion"
        if ix.ops[root] in _DOTS and not is_fusion and self._small_matvec(root, p):
            return True, "small-matvec"
        if is_fusion:
            return True, "consumer-is-fusion"
        if loop_fusible(ix.ops[root]) and not ix.opaque[root]:
            return True, "consumer-fusible"
        return False, "consumer-not-fusible"

    def _small_matvec(self, dot: int, p: int) -> bool:
        ix, g = self.ix, self.graph
        node = g.node(ix.ids[dot])
        if node.type.rank > 1:
            return False
        a, b = (g.node(o).type for o in node.operands[:2])
        pid = ix.ids[p]
        if a.rank == 1 and node.operands[1] == pid:
            return a.nbytes < _FUSION_THRESHOLD_BYTES
        return b.rank == 1 and node.operands[0] == pid and b.nbytes < _FUSION_THRESHOLD_BYTES

    # ----- ComputeGloballyUnfusible ----------------------------------------------------------

    def _globally_unfusible(self) -> set:
        ix, dnd, memo = self.ix, set(), {}
        initial = [set(u) for u in self.users_left]
        for p in reversed(range(len(ix))):
            if ix.source[p] or self._effectively_unary(p):
                continue
            size = sum(ix.elements[o] for o in ix.operands[p])
            if size <= ix.elements[p]:
                continue
            if not ix.opaque[p] and not ix.output[p] and all(
                    self._on_all_paths(p, u, dnd, memo, initial) for u in ix.users[p]):
                continue
            dnd.add(p)
        return dnd

    def _reachable(self, a: int, b: int) -> bool:
        if a == b:
            return True
        if b < a:
            return False
        key = (a, b)
        if key not in self._reach:
            seen, stack, found = set(), [a], False
            while stack and not found:
                for u in self.ix.users[stack.pop()]:
                    if u == b:
                        found = True
                        break
                    if u < b and u not in seen:
                        seen.add(u)
                        stack.append(u)
            self._reach[key] = found
        return self._reach[key]

    def _on_all_paths(self, p: int, c: int, dnd: set, memo: dict, initial) -> bool:
        ix = self.ix
        if c == p:
            return True
        if ix.opaque[c]:
            return False
        if (p, c) in memo:
            return memo[(p, c)]
        ok = True
        for o in ix.operands[c]:
            if ix.source[o] or not self._reachable(p, o):
                continue
            if o in dnd or not self.should_fuse(self._new_fusion(c), o, initial)[0] \
                    or not self._on_all_paths(p, o, dnd, memo, initial):
                ok = False
                break
        memo[(p, c)] = ok
        return ok

    # ----- the pass --------------------------------------------------------------------------

    def run(self) -> Plan:
        ix = self.ix
        for r in reversed(range(len(ix))):
            if ix.source[r] or self.dead[r] or r in self.pinned_of or ix.opaque[r] \
                    or not ix.live[r]:
                continue
            f = self._new_fusion(r)
            self.fusions[r] = f
            logged: set = set()
            while self._fuse_one(f, logged):
                pass
        return self._finish()

    def _fuse_one(self, f: _Fusion, logged: set) -> bool:
        for p in sorted(f.ext, reverse=True):
            if p in self.pinned_of:
                continue
            if p in self.do_not_duplicate and loop_fusible(self.ix.ops[p]):
                ok, why = False, "globally-unfusible"
            elif any(self.cons.forbids(self.ix.ids[p], self.ix.ids[m]) for m in f.members):
                ok, why = False, "forbidden"
            elif self.ix.offline[p] != self.ix.offline[f.root]:
                ok, why = False, "offline"
            else:
                ok, why = self.should_fuse(f, p, self.users_left)
            if ok:
                self._fuse(f, p, why)
                return True
            if (p, why) not in logged:
                logged.add((p, why))
                self._log_refusal(f, p, why)
        return False

    def _fuse(self, f: _Fusion, p: int, why: str) -> None:
        ix = self.ix
        before = frozenset(f.members)
        target = self._describe(f)
        others = sorted(self.users_left[p] - {f.root})
        if p in f.reused:
            f.reused.discard(p)
            f.reused |= {o for o in ix.operands[p] if not ix.source[o]}
        else:
            f.reused |= self._reused_of(p)
        f.members.add(p)
        f.reductions += ix.ops[p] == "reduce"
        f.reduces = f.reduces or ix.reduction[p]
        f.contracts = f.contracts or ix.contraction[p]
        self.users_left[p].discard(f.root)
        f.ext.discard(p)
        for o in ix.operands[p]:
            if not ix.source[o] and o not in f.members:
                self.users_left[o].add(f.root)
                f.ext.add(o)
        removed = [before]
        if not self.users_left[p]:
            self.dead[p] = True
            removed.append(frozenset({p}))
            for o in ix.operands[p]:
                if not ix.source[o]:
                    self.users_left[o].discard(p)
        self._log_fusion(f, p, why, others, removed, target)

    # ----- the log ---------------------------------------------------------------------------

    def _log(self, fused, reason, message, nodes, members=(), removed=(), numbers=None):
        ix = self.ix
        self.decisions.append(Decision(
            len(self.decisions), "fuse", fused, reason, message, tuple(nodes),
            tuple(ix.names(m) for m in members), Attrs(numbers or {}),
            tuple(ix.names(m) for m in removed)))

    def _describe(self, f: _Fusion) -> str:
        """The kernel a producer is fused into, as it is before the step: ``sub2 (subtract)``
        for a lone op, else ``the input fusion of 3 ops rooted at sub2``."""
        ix, rn = self.ix, self.ix.ids[f.root]
        if len(f.members) == 1:
            return f"{rn} ({ix.ops[f.root]})"
        return f"the {f.kind()} fusion of {len(f.members)} ops rooted at {rn}"

    def _log_fusion(self, f, p, why, others, removed, target):
        ix = self.ix
        pn, rn = ix.ids[p], ix.ids[f.root]
        dup = ""
        if others:
            names = [("the graph's result" if u == _OUT else ix.ids[u]) for u in others]
            dup = (f", duplicating it ({ix.ops[p]} is cheap; it is still computed for "
                   f"{name_list(names)})")
        how = {"output-fusion": "as the epilogue of an output fusion (a rank-1 dot and its add)",
               "small-matvec": "as a small vector operand of a matrix-vector dot"}.get(why, "")
        msg = (f"fused {pn} ({ix.ops[p]}) into {target}{dup}{(' ' + how) if how else ''}, which makes it "
               f"{_article(f.kind())} {f.kind()} fusion of {len(f.members)} ops")
        if not others:
            msg += f": {pn}'s result is no longer written to memory"
        self._log(True, why, msg, (pn, rn), members=(f.members,), removed=removed,
                  numbers={"bytes_saved": 0 if others else ix.nbytes[p],
                           "other_users": len(others)})

    def _log_refusal(self, f, p, why):
        ix = self.ix
        pn, rn, op = ix.ids[p], ix.ids[f.root], ix.ops[p]
        k = len(self.users_left[p] - {f.root})
        text = {
            "globally-unfusible": f"{pn} reads more than one large operand and cannot be fused "
                                  "into all of its users on every path, so it is never "
                                  "duplicated",
            "forbidden": "you forbade fusing these ops",
            "offline": "one of them folds weights once, offline, when they are loaded, and the "
                       "other runs on every call",
            "not-loop-fusible": f"XLA:CPU cannot emit {op} inside a loop fusion (a library call, "
                                "a windowed reduction or an opaque op)",
            "output-fusible-elsewhere": f"{pn} is kept for an output fusion with its dot",
            "concatenate": "", "tree-reduction": "",
            "expensive-reuse": f"{op} is expensive and the kernel reads each of its elements "
                               "several times (through a broadcast or a window), and XLA:CPU "
                               "counts it as recomputed for every use",
            "expensive-duplication": f"{op} is expensive and has "
                                     f"{'another user' if k == 1 else f'{k} other users'}; "
                                     "fusing it would compute it again",
            "too-many-reductions": f"the fusion already holds {_MAX_REDUCTIONS} reductions",
            "producer-is-fusion": f"{pn} already heads a fusion of its own",
            "consumer-not-fusible": f"XLA:CPU does not fuse into {ix.ops[f.root]} (a library "
                                    "call or windowed reduction reads its operands from memory)",
        }[why]
        if why == "concatenate":
            text = self._concat_text(p, f.root)
        elif why == "tree-reduction":
            text = self._tree_text(f, p)
        numbers = None
        if why == "expensive-reuse":
            extra, numbers = self._reuse_count(f, p)
            text += extra
        self._log(False, why, f"kept {pn} ({op}) out of {rn}'s kernel: {text}", (pn, rn),
                  numbers=numbers)

    def _reuse_count(self, f: _Fusion, p: int) -> tuple[str, dict | None]:
        """What the cost model counts for an expensive producer refused for reuse: how often
        the workbench's kernel of ``f`` with ``p`` would evaluate it
        (:func:`~workbench.costmodel.recompute.evaluations`; the CPU loop hoists what only
        outer loops use), as a clause and numbers; ``("", None)`` where the count does not
        apply (a reduction or another op the count does not follow in the kernel)."""
        ix = self.ix
        counts = evaluations(ix, f.members | {p}, [f.root], hoist=not self.dev.is_gpu)
        if counts is None or not counts.get(p) or not ix.elements[p]:
            return "", None
        n, e = counts[p], ix.elements[p]
        numbers = {"evaluations": n, "elements": e}
        if n > e:
            return (f"; the workbench's kernel would indeed evaluate it {n} times, "
                    f"{n / e:.3g} per element"), numbers
        return (f"; the workbench's kernel would not: its loop hoists it out of the inner "
                f"loops and evaluates it once per element ({e} times)"), numbers

    def _concat_text(self, p: int, root: int) -> str:
        ix = self.ix
        c = p if self._minor_concat(p) else root
        node = self.graph.node(ix.ids[c])
        if len(node.operands) > _MAX_CONCAT_OPERANDS:
            why = (f"it joins {len(node.operands)} operands, more than "
                   f"{_MAX_CONCAT_OPERANDS}")
        else:
            d = node.attrs.get("dimension", 0)
            why = (f"it joins along the minor dimension, of {node.type.shape[d]} elements "
                   f"({_MINOR_CONCAT_ELEMENTS} or more)")
        return (f"XLA:CPU keeps concatenate {ix.ids[c]} out of loop fusions because {why}: "
                "fused, its innermost loop would branch on every element, so XLA "
                "materialises the operands and runs the concatenation as a copy of its own "
                "(cpu_instruction_fusion.cc)")

    def _tree_text(self, f: _Fusion, p: int) -> str:
        ix = self.ix
        r = self._feeds_split_reduce(f, p)
        if r is None:
            return ""
        x = self.graph.node(ix.ids[ix.operands[r][0]]).type
        return (f"XLA:CPU's tree reduction rewriter splits reduce {ix.ids[r]} (over "
                f"{x}, a reduced dimension longer than {_TREE_REDUCTION_WINDOW}) into a "
                f"reduce-window of {_TREE_REDUCTION_WINDOW}-element windows and a reduce of "
                "their results; a reduce-window reads its operand from memory, so "
                f"{ix.ids[p]} is a kernel of its own and {ix.ids[r]}'s kernel stands for "
                "XLA's two")

    def _finish(self) -> Plan:
        from workbench.planner.driver import dead_code_decision

        ix = self.ix
        d = dead_code_decision(ix, len(self.decisions))
        if d is not None:
            self.decisions.append(d)
        sets = [frozenset([ix.ids[i]]) for i in ix.dead_nodes if i not in self.pinned_of]
        for r in sorted(self.fusions):
            if not self.dead[r]:
                sets.append(frozenset(ix.ids[m] for m in self.fusions[r].members))
        for i in range(len(ix)):
            if not ix.source[i] and ix.opaque[i]:
                sets.append(frozenset({ix.ids[i]}))
        pinned = [frozenset(p) for p in self.cons.pinned]
        patterns = {s: "dot+add" for s in sets
                    if len(s) > 1 and any(ix.ops[ix.pos[m]] in _DOTS for m in s)}
        return make_plan(self.graph, pinned + sets, policy="xla-cpu", device=self.dev.name,
                         decisions=self.decisions, constraints=self.cons, patterns=patterns,
                         pinned=pinned)


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _true_rank(t) -> int:
    return sum(1 for d in t.shape if d > 1) if isinstance(t, TensorType) else 0


def plan_xla_cpu(graph: Graph, device="cpu", constraints: Constraints | None = None) -> Plan:
    """Plan ``graph`` as XLA:CPU's instruction fusion would (see the module notes)."""
    return XlaCpuRun(graph, device, constraints).run()

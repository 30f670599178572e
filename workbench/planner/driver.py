"""What every planner policy shares: the working state, the decision log, pinned groups, named
patterns, legality checks of candidate unions, and turning the final state into a
:class:`~workbench.planner.plan.Plan`."""

from __future__ import annotations

from workbench.errors import LegalityError, PlanError
from workbench.ir.graph import Graph
from workbench.ir.attrs import EMPTY, Attrs
from workbench.costmodel.calibrated import calibration_of
from workbench.costmodel.calibration import speedup
from workbench.costmodel.model import BASE_REGISTERS, MEMORY_COMPUTE_PARALLELISM, group_cost
from workbench.costmodel.devices import get_device
from workbench.costmodel.text import bound_label
from workbench.fmt import fmt_bytes, fmt_time, name_list
from workbench.planner.explain import describe
from workbench.ir.index import graph_index
from workbench.planner.legality import (MAX_OPERANDS_AND_OUTPUTS, GroupView, Refusal,
                                        check_view, horizontal_shapes)
from workbench.planner.patterns import find_patterns
from workbench.planner.plan import Constraints, Decision, Plan, plan_of_index_sets
from workbench.planner.state import FusionState, Group, version_members


class PlannerRun:
    """One run of a policy over one graph (see :func:`workbench.planner.heuristics.plan_graph`).

    Parameters
    ----------
    graph : Graph
    policy : str
    device : str or DeviceProfile
    constraints : Constraints or None
    """

    def __init__(self, graph: Graph, policy: str, device, constraints: Constraints | None):
        self.graph = graph
        self.policy = policy
        self.ix = graph_index(graph)
        self.dev = get_device(device)
        self.cons = constraints or Constraints()
        self.state = FusionState(self.ix, self.dev)
        self.decisions: list[Decision] = []

    # ----- the log ---------------------------------------------------------------------------

    def names(self, members) -> tuple[str, ...]:
        return self.ix.names(members)

    def log(self, action: str, fused: bool, reason: str, message: str, nodes=(), members=(),
            removed=(), numbers: dict | None = None) -> None:
        """Append a decision; ``members``/``removed`` are groups, group versions, index sets or
        id tuples (snapshotted now, named when the log is read)."""
        snap = _snapshot
        self.decisions.append(Decision.later(
            len(self.decisions), action, fused, reason, _entry,
            (self.ix, message, tuple(nodes), tuple(snap(m) for m in members),
             tuple(snap(m) for m in removed), numbers)))

    def log_later(self, action: str, fused: bool, reason: str, build, args) -> None:
        """Append a decision built by ``build(*args)`` when the log is read (see
        :meth:`Decision.later <workbench.planner.decision.Decision.later>`)."""
        self.decisions.append(Decision.later(len(self.decisions), action, fused, reason, build,
                                             args))

    def desc(self, g: Group) -> str:
        """The group as the log names it (see :func:`~workbench.planner.explain.describe`)."""
        return snap_desc(self.ix, g.ver, len(g.members), max(g.roots) if g.roots else None,
                         g.pattern)

    def desc_of(self, snap: tuple) -> str:
        """:meth:`desc` of a snapshot ``(version, size, latest root, pattern)``."""
        return snap_desc(self.ix, *snap)

    # ----- checks ----------------------------------------------------------------------------

    def union_counts(self, a: Group, b: Group, upstream_reduces: bool, roots=None,
                     n_out=None, n_in=None) -> dict:
        st, ix = self.state, self.ix
        if n_in is None:
            n_in, _ = st.merged_inputs(a, b)
        if n_out is None:
            both = {a.gid, b.gid}
            n_out = sum(1 for v in a.outs | b.outs if _needs_write_union(st, v, both))
        if roots is None:
            mem = (a.members, b.members)
            roots = sorted(r for r in a.roots | b.roots
                           if not any(u in mem[0] or u in mem[1] for u in ix.users[r]))
        special = sorted(a.special | b.special) if a.special or b.special else []
        return {"size": len(a.members) + len(b.members), "n_inputs": n_in, "n_outputs": n_out,
                "roots": roots, "live_bound": a.live + b.live,
                "reductions": [m for m in special if ix.reduction[m]],
                "contractions": [m for m in special if ix.contraction[m]],
                "opaque": [m for m in special if ix.opaque[m]],
                "offline": [m for m in special if ix.offline[m]], "dead": [],
                "upstream_reduces": upstream_reduces}

    def check(self, parts, counts: dict, upstream=None) -> Refusal | None:
        """Legality of a candidate union (the cycle is checked by the state's search).

        A union with no reduction, contraction or opaque op, one root, no forbidden pairs and
        within the operand and register budgets passes every predicate; it is accepted without
        building the view (the common case on large graphs).
        """
        plain = not (counts["reductions"] or counts["contractions"] or counts["opaque"]
                     or counts["offline"] or self.cons.forbidden
                     or counts["n_inputs"] + counts["n_outputs"] > MAX_OPERANDS_AND_OUTPUTS)
        cap = self.dev.max_registers_per_thread
        regs_ok = not self.dev.is_gpu or cap is None or \
            counts["live_bound"] + BASE_REGISTERS <= cap
        if plain and regs_ok:
            if len(counts["roots"]) <= 1:
                return None
            if "dead" in counts and not counts["dead"]:
                # several roots (sibling fusion): every predicate before shape-mismatch looks
                # only at the counts above and passes, and with the registers within the cap
                # the shapes decide (the cycle is the state's search)
                return horizontal_shapes(_Roots(self.ix, counts["roots"]), self.dev, self.cons)
        return check_view(GroupView(self.ix, parts, upstream, counts), self.dev, self.cons,
                          skip=("cycle",))

    def unite(self, a: Group, b: Group, direct_ok: bool):
        """Unite two groups if that creates no cycle: the new group, or a :class:`Refusal`."""
        ranks = self.state.reorder_for_union(a, b, direct_ok)
        if ranks is False:
            succ = self.state.succ
            first, second = (a, b) if b.gid in succ[a.gid] else (b, a)
            if not direct_ok and second.gid in succ[first.gid]:
                return Refusal("cycle", f"{self.desc(second)} reads the result of "
                               f"{self.desc(first)}: they are producer and consumer, not "
                               "siblings, and side-by-side fusion joins only kernels that do "
                               "not depend on each other")
            return Refusal("cycle", f"a path runs from {self.desc(a)} to {self.desc(b)} through "
                           "other kernels: as one kernel they would depend on themselves")
        if ranks is None:
            return BUDGET_REFUSAL
        g = self.state.union(a, b, ranks)
        self.tighten(g)
        return g

    def tighten(self, g: Group) -> None:
        """Recompute a GPU group's register bound when the cheap sum passes the cap."""
        cap = self.dev.max_registers_per_thread
        if self.dev.is_gpu and cap is not None and g.live + BASE_REGISTERS > cap:
            self.state.exact_live(g)

    def bound_of(self, flops, trans, nbytes, written=None, contraction=False,
                 calibrated=None) -> str:
        """What limits a kernel, as the log says it (see :func:`bound_text`)."""
        return bound_text(self.dev, flops, trans, nbytes, written, contraction, calibrated)

    def kind(self, g: Group) -> str:
        ix = self.ix
        if any(ix.opaque[m] for m in g.special):
            return "opaque"
        if any(ix.contraction[m] for m in g.special):
            return "output"
        if len(g.outs) > 1:
            return "multi-output"
        return "input" if any(ix.reduction[m] for m in g.special) else "loop"

    # ----- pinned groups and patterns ----------------------------------------------------------

    def pin_groups(self) -> None:
        """Form the user's pinned groups first; nothing is fused into or out of them."""
        seen: set[int] = set()
        for names in self.cons.pinned:
            idx = []
            for n in names:
                if n not in self.ix.pos:
                    raise PlanError(f"a pinned group names node {n!r}, which is not in graph "
                                    f"{self.graph.name!r}", node=n)
                i = self.ix.pos[n]
                if not self.ix.source[i] and self.ix.live[i]:
                    idx.append(i)
            if seen & set(idx):
                raise PlanError("two pinned groups share a node; unpin one of them",
                                node=self.ix.ids[min(seen & set(idx))])
            seen |= set(idx)
            if not idx:
                continue
            g = self._gather(idx, "pin")
            if g is None:
                raise LegalityError(f"the pinned group holding {names[0]} can no longer be one "
                                    "kernel (it would form a cycle)", reason="cycle",
                                    node=names[0])
            g.pinned = True
            self.log("pin", True, "pinned", f"kept the pinned group {self.desc(g)} as it is",
                     nodes=self.names(g.members), members=(g.members,),
                     removed=[{i} for i in sorted(idx)])

    def _gather(self, idx, why: str) -> Group | None:
        st = self.state
        idx = sorted(idx)
        acc = st.group_of(idx[0])
        for i in idx[1:]:
            g = st.group_of(i)
            if g is acc:
                continue
            res = self.unite(acc, g, direct_ok=True)
            if isinstance(res, Refusal):
                return None
            acc = res
        return acc

    def apply_patterns(self) -> None:
        """Form the named pattern groups whose preconditions and legality hold."""
        st, ix = self.state, self.ix
        for m in find_patterns(ix):
            if any(ix.dead[i] for i in m.members):
                continue
            groups = {st.home[i] for i in m.members}
            if any(st.groups[g].pinned or len(st.groups[g].members) > 1 for g in groups):
                continue
            r = check_view(GroupView(ix, [set(m.members)]), self.dev, self.cons)
            anchor = ix.ids[m.anchor]
            if r is not None:
                self.log("pattern", False, r.code, f"did not form the {m.name} pattern at "
                         f"{anchor}: {r.message}", nodes=(anchor,))
                continue
            before = self._pattern_cost(m.members)
            predicted = group_cost(self.graph, self.names(m.members), self.dev).predicted_s
            if predicted > before:
                self.log("pattern", False, "not-profitable",
                         f"did not form the {m.name} pattern at {anchor}: as one {m.kind} "
                         f"fusion its {len(m.members)} ops are predicted at "
                         f"{fmt_time(predicted)}, {fmt_time(predicted - before)} more than "
                         f"running them one by one ({fmt_time(before)})", nodes=(anchor,),
                         numbers={"time_unfused_s": before, "time_fused_s": predicted,
                                  "benefit_s": before - predicted})
                continue
            g = self._gather(sorted(m.members), "pattern")
            if g is None:
                continue
            g.pattern = m.name
            after = st.time(g)
            self.log("pattern", True, m.name,
                     f"matched {m.name} at {anchor}: {len(g.members)} ops as one {m.kind} "
                     f"fusion ({', '.join(self.names(g.members)[:6])}"
                     f"{', ...' if len(g.members) > 6 else ''}) — saves "
                     f"{fmt_time(before - after)} over running them one by one",
                     nodes=self.names(g.members), members=(g.members,),
                     removed=[{i} for i in sorted(m.members)],
                     numbers={"time_unfused_s": before, "time_fused_s": after,
                              "benefit_s": before - after})

    def _pattern_cost(self, members) -> float:
        st = self.state
        return sum(st.time(st.groups[st.home[i]]) for i in members)

    # ----- the result ------------------------------------------------------------------------

    def log_dead(self) -> None:
        """One decision listing the dead ops, which are left out of planning (see
        :func:`dead_code_decision`)."""
        d = dead_code_decision(self.ix, len(self.decisions))
        if d is not None:
            self.decisions.append(d)

    def finish(self) -> Plan:
        ix = self.ix
        sets, patterns, pinned = [], {}, []
        for g in sorted(self.state.groups.values(), key=lambda g: g.rank):
            members = frozenset(g.members)
            sets.append(members)
            if g.pattern:
                patterns[members] = g.pattern
            if g.pinned:
                pinned.append(members)
        sets += [frozenset([i]) for i in ix.dead_nodes]
        # the groups as node numbers (no source is a member): make_plan without the names
        return plan_of_index_sets(self.graph, sets, policy=self.policy, device=self.dev.name,
                                  decisions=self.decisions, constraints=self.cons,
                                  patterns=patterns, pinned=pinned)


#: :meth:`PlannerRun.unite`'s refusal when the reachability search ran out of budget (one
#: object, so that a caller can tell it from a path, which no later union removes)
BUDGET_REFUSAL = Refusal("cycle", "the reachability search between the two groups exceeded "
                         "its budget; refused to stay safe")


class _Roots:
    """What :func:`~workbench.planner.legality.horizontal_shapes` reads of a view."""

    __slots__ = ("index", "roots")

    def __init__(self, index, roots):
        self.index, self.roots = index, roots


def dead_code_decision(ix, step: int) -> Decision | None:
    """The decision that records the graph's dead ops (None when there are none): each stays a
    kernel of its own, never fused (reason ``dead-code``)."""
    dead = ix.dead_nodes
    if not dead:
        return None
    names = ix.names(dead)
    one = len(names) == 1
    return Decision(step, "dead", False, "dead-code",
                    f"left {name_list(names)} unfused: {'it is' if one else 'they are'} dead "
                    f"(no graph output depends on {'it' if one else 'them'}); XLA's DCE would "
                    f"remove {'it' if one else 'them'}, so {'it is' if one else 'each is'} "
                    "reported as a kernel of its own and not counted in the per-call totals",
                    names)


def bound_text(d, flops, trans, nbytes, written=None, contraction=False,
               calibrated=None) -> str:
    """What limits a kernel on device ``d``, as the log says it: ``launch-bound``,
    ``compute-bound``, ``memory-bound`` or, on a profile with cache ceilings,
    ``memory-bound (L2)``. On a calibrated CPU profile, ``calibrated`` (one core's compute
    seconds, contraction seconds, work, traffic: :meth:`FusionState.calibrated`) gives the
    measured rates the planner itself used."""
    level, bandwidth = d.memory_level(nbytes)
    cal = calibration_of(d)
    if cal is not None and calibrated is not None:
        cs, ds, work, traffic = calibrated
        c, m = cs / speedup(cal, work, 2, nbytes) + ds, cal.memory(nbytes, traffic)
        launch = cal.launch(traffic)
    else:
        c = (flops + d.transcendental_flops * trans) / d.flop_rate(written, contraction)
        m = nbytes / bandwidth
        launch = d.launch_overhead_s
    if launch >= max(c, m):
        return bound_label("launch", level, d)
    return bound_label("compute" if c > m else "memory", level, d)


def _snapshot(m):
    """What the log keeps of a group or member set until it is read (see :func:`snap_names`)."""
    if isinstance(m, Group):
        return m.ver
    if isinstance(m, (set, frozenset)):
        return frozenset(m)
    return m


def snap_names(ix, s) -> tuple[str, ...]:
    """Member ids, in topological order, of a snapshot: an id tuple, an index set, or a group
    version (:func:`~workbench.planner.state.version_members`)."""
    if isinstance(s, frozenset):
        return ix.names(s)
    if isinstance(s, tuple) and (not s or isinstance(s[0], str)):
        return s
    return ix.names(version_members(s))


def snap_desc(ix, ver, size: int, root: int | None, pattern) -> str:
    """:func:`~workbench.planner.explain.describe` of a group snapshot: its version, size,
    latest root and pattern (member ids are looked up only for groups of up to three ops)."""
    rname = ix.ids[root] if root is not None else None
    if size > 3 and (pattern or rname is not None):
        return describe(("",) * size, rname, pattern)
    return describe(ix.names(version_members(ver)), rname, pattern)


def _entry(ix, message, nodes, members, removed, numbers):
    names = snap_names
    return (message, nodes, tuple(names(ix, m) for m in members),
            _round(numbers) if numbers else None, tuple(names(ix, m) for m in removed))


def _needs_write_union(st: FusionState, v: int, gids: set) -> bool:
    if st.ix.output[v]:
        return True
    for u in st.ix.users[v]:
        for h in st.node_groups[u]:
            if h not in gids and v not in st.groups[h].members:
                return True
    return False


def _round(numbers: dict) -> dict:
    """Floats to 6 significant digits; ints (numpy's too) as ints."""
    return {k: (float(f"{v:.6g}") if isinstance(v, float) else
                int(v) if not isinstance(v, (bool, str)) and v is not None else v)
            for k, v in numbers.items()}


def saved_bytes_text(nbytes: int) -> str:
    """``writes and re-reads 1.0 MiB``."""
    return f"writes and re-reads {fmt_bytes(nbytes)}"


__all__ = ["MEMORY_COMPUTE_PARALLELISM", "PlannerRun", "saved_bytes_text"]

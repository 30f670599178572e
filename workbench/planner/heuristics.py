"""The fusion planner: ``plan_graph(graph, policy, device, constraints) -> Plan``.

Policies (:data:`POLICIES`):

``priority`` (default)
    XLA GPU's priority fusion (xla/service/gpu/transforms/priority_fusion.cc). Named patterns
    first (:mod:`~workbench.planner.patterns`). Then, repeatedly, the producer group with the
    largest estimated benefit, ``time unfused - time fused`` with ``time unfused = t(producer) +
    sum t(consumer)`` and ``time fused = sum t(consumer + producer)`` (XLA's
    ``GpuPerformanceModel::EstimateRunTimes``), is fused into *all* of its consumers or none,
    duplicated when it has several. Priorities live in a heap with lazy invalidation: after a
    fusion only the new groups and their producers are re-estimated. A producer that writes
    several values, a graph output with several consumers, and a group holding a contraction or
    a reduction are not duplicated (XLA fuses such producers only into a single consumer). Then
    sibling (multi-output) fusion: groups that read one large input are merged when legal and
    profitable, so the input is read once (XLA's multi-output fusion; Sin and Cos of one tensor
    become one kernel).
``xla-cpu``
    XLA:CPU's rule-based instruction fusion, to compare with XLA's real decisions: see
    :mod:`workbench.planner.xla_cpu`.
``greedy``
    The textbook planner: patterns first, then every producer with a single user is fused into
    it, producers with the largest outputs (the most expensive to materialise) first, unless
    the legality checker refuses (register estimate above the cap included). No duplication, no
    sibling fusion.

Every policy plans the graph as XLA's dead-code elimination would leave it: ops no graph output
depends on are left out of planning, never fused, and added back as kernels of their own, marked
dead (one decision, reason ``dead-code``, lists them). Batch-norm folding's offline ops are
planned among themselves, never with per-call ops (legality reason ``offline``).

Every decision, taken or refused, is logged with its reason and numbers (see
:class:`~workbench.planner.plan.Decision`); the app steps through them with
:func:`~workbench.planner.plan.replay`.
"""

from __future__ import annotations

import gc
import heapq
from bisect import bisect_left
from functools import reduce
from itertools import compress
from operator import add, attrgetter, is_not

from workbench.errors import InputError, PlanError
from workbench.ir.graph import Graph
from workbench.planner.driver import (PlannerRun, _round, bound_text, saved_bytes_text,
                                      snap_desc, snap_names)
from workbench.fmt import fmt_time, name_list
from workbench.costmodel.model import BASE_REGISTERS
from workbench.planner.legality import MAX_OPERANDS_AND_OUTPUTS, Refusal
from workbench.planner.plan import Constraints, Decision, Plan
from workbench.planner.state import Group

#: planner policies, selectable by name
POLICIES = ("priority", "xla-cpu", "greedy")


def plan_graph(graph: Graph, policy: str = "priority", device="cpu",
               constraints: Constraints | None = None) -> Plan:
    """Plan the fusion of ``graph``.

    Parameters
    ----------
    graph : Graph
        A verified graph; it is not changed.
    policy : str
        One of :data:`POLICIES`.
    device : str or DeviceProfile
        The cost model's device (``cpu``, ``h100``, ``h200``, ``a100``).
    constraints : Constraints, optional
        Forbidden pairs and pinned groups to honour.

    Returns
    -------
    Plan
        With the full decision log. Deterministic: the same inputs give the same plan text.

    Raises
    ------
    InputError
        For an unknown policy or device.
    PlanError, LegalityError
        If the constraints name unknown nodes or pinned groups can no longer be formed.
    """
    if policy not in POLICIES:
        raise InputError(f"unknown policy {policy!r} (known: {', '.join(POLICIES)})")
    # The planner allocates many small, short-lived objects and frees them by reference
    # counting; the cyclic collector's full passes over a large graph's objects would make the
    # run superlinear, so it is paused while planning.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _plan(graph, policy, device, constraints)
    finally:
        if enabled:
            gc.enable()


#: what ``workbench run --policy`` accepts: a policy, XLA's own grouping, or one op per kernel
PLAN_NAMES = POLICIES + ("xla", "unfused")


def named_plan(graph: Graph, name: str | None = None, device="cpu") -> Plan:
    """The plan called ``name``: a policy's (:data:`POLICIES`), ``xla`` (the grouping of an
    optimised module's own XLA fusions), or ``unfused`` (one op per kernel); ``None`` is the
    ``priority`` policy.

    Raises
    ------
    InputError
        For a name that is none of :data:`PLAN_NAMES`.
    PlanError
        For ``xla`` on a graph that carries no XLA fusions.
    """
    from workbench.planner.plan import unfused_plan, xla_plan

    if name == "unfused":
        return unfused_plan(graph)
    if name == "xla":
        return xla_plan(graph)
    if name is not None and name not in POLICIES:
        raise InputError(f"unknown policy {name!r} (known: {', '.join(PLAN_NAMES)})")
    return plan_graph(graph, name or "priority", device)


def _plan(graph, policy, device, constraints) -> Plan:
    if policy == "xla-cpu":
        from workbench.planner.xla_cpu import plan_xla_cpu

        return plan_xla_cpu(graph, device, constraints)
    from workbench.planner.greedy import GreedyRun

    runs = {"priority": PriorityRun, "greedy": GreedyRun}
    if policy not in runs:   # a name added to POLICIES without its run
        raise PlanError(f"policy {policy!r} has no planner run (known: {', '.join(runs)}, "
                        "xla-cpu)")
    run = runs[policy](graph, policy, device, constraints)
    run.pin_groups()
    run.apply_patterns()
    run.plan()
    run.log_dead()
    return run.finish()


class PriorityRun(PlannerRun):
    """XLA GPU's priority fusion followed by sibling fusion (see the module notes)."""

    def plan(self) -> None:
        #: group id -> its valid heap entry ``(-benefit, rank, gid)`` (the others are stale)
        self.live: dict[int, tuple] = {}
        #: producer gid -> its table of consumers (see :meth:`_current`)
        self._tables: dict[int, list] = {}
        #: producer gid -> the version :meth:`_structural` refused with several consumers
        self._refused: dict[int, object] = {}
        #: producer gid -> what legality refused it with for good (see :meth:`_remember`)
        self._never: dict[int, tuple[set[int], list[tuple[int, ...]]]] = {}
        self.heap: list = []
        # the pop order is that of the keys alone (each is unique: it holds the group id), so
        # the first entries are pushed in any order and heapified once
        self._initial = True
        for g in self.state.groups.values():
            self.push(g)
        self._initial = False
        heapq.heapify(self.heap)
        heap, live, groups, pop = self.heap, self.live, self.state.groups, heapq.heappop
        tables, output, forbidden = self._tables, self.ix.output, self.cons.forbidden
        dev = self.dev
        cap = self._cap = dev.max_registers_per_thread if dev.is_gpu else None
        while heap:
            entry = pop(heap)
            gid = entry[2]
            if live.get(gid) is not entry or gid not in groups:
                continue
            del live[gid]
            if -entry[0] <= 0:
                break
            p, tab = groups[gid], tables[gid]
            cons = tab[_CONSUMERS]
            if len(cons) == 1 and not forbidden and not p.special:
                # legality's own first test, which every union it passes is legal by
                c, e = cons[0], tab[_PAIRS][0]
                n_out = len(c.outs)
                for v in p.outs:
                    if output[v]:
                        n_out += 1
                if not (c.special or len(c.roots) > 1
                        or e[3] + n_out > MAX_OPERANDS_AND_OUTPUTS) and \
                        (cap is None or p.live + c.live + BASE_REGISTERS <= cap):
                    self._take(p, [c], e[2], tab[_UNFUSED], tab[_FUSED])
                    continue
            cand = self._candidate(p, tab)
            refused = self.legality(cand)
            if refused is None:
                self.take(cand)
            elif refused.refusal.code in GROWING_REFUSALS:
                self._remember(p, refused)
        self.log_leftovers()
        from workbench.planner.sibling import SiblingFusion

        SiblingFusion(self).apply()

    def push(self, g: Group) -> None:
        """(Re-)estimate ``g`` as a producer; a positive estimate gets a heap entry, unless the
        entry it has already says the same (a re-estimate often changes nothing). The
        :class:`Candidate` is built from the producer's table only when its entry is popped."""
        gid = g.gid
        succ = self.state.succ[gid]
        if gid in self._never and self._known_refused(g, succ):
            # legality refuses it (when popped) whatever the costs: no estimate, no entry
            self.live.pop(gid, None)
            return
        # one consumer, one output and nothing pinned: _structural has nothing to refuse
        if len(succ) == 1 and len(g.outs) <= 1 and not self.cons.pinned:
            for c in succ:
                c = self.state.groups[c]
            tab = self._tables.get(gid)
            if tab is None or tab[_VER] is not g.ver or tab[_CONSUMERS][0] is not c or \
                    tab[_PAIRS][0][0] is not c.ver:
                tab = self._current1(g, c)
        elif len(succ) > 1 and self._refused.get(gid) is g.ver:
            # refused as a producer of several consumers before, and unchanged since: every
            # such refusal of _structural holds for any number of consumers over one
            self.live.pop(gid, None)
            return
        elif succ and self._structural(g, succ) is None:
            tab = self._current(g, succ)
        else:
            if len(succ) > 1 and not self.cons.pinned:
                self._refused[gid] = g.ver
            self.live.pop(gid, None)
            return
        benefit = tab[_UNFUSED] - tab[_FUSED]
        if benefit > 0:
            key = (-benefit, g.rank, gid)
            live = self.live
            if live.get(gid) != key:
                live[gid] = key
                if self._initial:
                    self.heap.append(key)
                else:
                    heapq.heappush(self.heap, key)
            return
        self.live.pop(gid, None)

    def _remember(self, p: Group, cand: "Candidate") -> None:
        """Remember that legality refused producer ``p`` into ``cand.consumer`` for a reason
        that stays (:data:`GROWING_REFUSALS`): by the refusal's nodes when any group holding
        them all is refused (:data:`PAIR_REFUSALS`; those of ``p`` stay in it), else by the
        consumer's id."""
        r = cand.refusal
        gids, needs = self._never.setdefault(p.gid, (set(), []))
        if r.code in PAIR_REFUSALS and r.nodes:
            pos, pm = self.ix.pos, p.members
            needs.append(tuple(i for i in map(pos.__getitem__, r.nodes) if i not in pm))
        else:
            gids.add(cand.consumer.gid)

    def _known_refused(self, p: Group, succ) -> bool:
        """Whether legality refuses fusing ``p`` into its consumers ``succ`` by what
        :meth:`_remember` kept: a consumer refused before, or one holding a refusal's nodes."""
        gids, needs = self._never[p.gid]
        if not gids.isdisjoint(succ):
            return True
        groups = self.state.groups
        for c in succ:
            cm = groups[c].members
            for need in needs:
                for i in need:
                    if i not in cm:
                        break
                else:
                    return True
        return False

    def evaluate(self, p: Group, full: bool = False):
        """A :class:`Candidate` for fusing ``p`` into all its consumers, or None when it has no
        consumers. Only with ``full`` is legality checked here (the loop checks it when it pops
        a candidate); a structural refusal is always reported."""
        succ = self.state.succ[p.gid]
        if not succ:
            return None
        r = self._structural(p, succ)
        if r is not None and not full:   # refused whatever the costs: no need to order them
            return Candidate(p, (), refusal=r, k=len(succ))
        cand = self._candidate(p, self._current(p, succ), r)
        if r is not None:
            return cand
        if full:
            return self.legality(cand) or cand
        return cand

    def _candidate(self, p: Group, tab: list, refusal=None) -> "Candidate":
        pairs = tab[_PAIRS]
        return Candidate(p, list(tab[_CONSUMERS]), refusal=refusal, t_unfused=tab[_UNFUSED],
                         t_fused=tab[_FUSED], fused=[e[2] for e in pairs],
                         n_inputs=[e[3] for e in pairs])

    def _current(self, p: Group, succ) -> list:
        """``p``'s table of consumers, brought up to date: ``[p's version, consumers in rank
        order, one pair per consumer, t_unfused, t_fused]``, a pair being ``(consumer's version,
        fused seconds, (flops, trans, bytes, written, dot), inputs, consumer's own seconds)``.

        A pair's estimate is kept until either group changes (their
        :attr:`~workbench.planner.state.Group.ver` snapshots say so): after a fusion, a producer
        of many consumers re-estimates only the consumers that changed (XLA's priority fusion
        likewise recomputes only the priorities a fusion invalidated). The times are summed in
        the consumers' order, one by one, as the estimate always was."""
        tab = self._tables.get(p.gid)
        k = len(succ)
        if k == 1:
            for c in succ:
                c = self.state.groups[c]
            if tab is not None and tab[_VER] is p.ver and tab[_CONSUMERS][0] is c:
                if tab[_PAIRS][0][0] is c.ver:
                    return tab
            return self._current1(p, c)
        # a table of several consumers also keeps their ids, and per pair its consumer's
        # version, own seconds and fused seconds (parallel lists, compared and summed by C
        # loops: a producer of a hundred consumers is re-estimated after each of them changes)
        if tab is None or tab[_VER] is not p.ver or len(tab) <= _GIDS:
            tab = self._tables[p.gid] = self._table(p, succ, tab)
        else:
            patched = len(tab[_CONSUMERS]) != k or tab[_GIDS] != succ
            if patched:
                self._patch(p, succ, tab)
            consumers, pvers = tab[_CONSUMERS], tab[_PVERS]
            flags = list(map(is_not, pvers, map(_ver, consumers)))
            if not patched and not any(flags):
                return tab
            ctx = self._producer_terms(p)
            pairs, own, fused = tab[_PAIRS], tab[_OWN], tab[_FUSEDS]
            for i in compress(range(k), flags):
                pairs[i] = e = self._pair(p, consumers[i], *ctx)
                pvers[i], own[i], fused[i] = e[0], e[4], e[1]
        tab[_UNFUSED] = reduce(add, tab[_OWN], self.state.time(p))
        tab[_FUSED] = reduce(add, tab[_FUSEDS], 0.0)
        return tab

    def _current1(self, p: Group, c: Group) -> list:
        """A new table of ``p``, whose one consumer is ``c``: :meth:`_pair` with
        :meth:`_producer_terms` and :meth:`FusionState.merged_inputs` written out (the same
        sums in the same order; the common case on large graphs)."""
        st, ix = self.state, self.ix
        flops, trans = c.flops + p.flops, c.trans + p.trans
        if p.dup or c.dup:
            shared = p.members & c.members
            ixf, ixt = ix.flops, ix.trans
            for m in shared:
                flops -= ixf[m]
                trans -= ixt[m]
        else:
            shared = ()
        # st.merged_inputs(c, p), counted in the same way (its loops written out)
        aext, bext = c.ext, p.ext
        if len(bext) > 8 or (len(aext) > 8 and len(p.members) > 8):
            n_in, nb = st.merged_inputs(c, p)
        else:
            pm, cm = p.members, c.members
            n_in = len(aext) + len(bext)
            nb = c.ext_bytes + p.ext_bytes
            if len(pm) <= len(aext):
                for m in pm:
                    if m in aext:
                        n_in -= 1
                        nb -= aext[m]
            else:
                for m in aext:
                    if m in pm:
                        n_in -= 1
                        nb -= aext[m]
            if bext:
                parts = c.parts or p.parts
                for o, w in bext.items():
                    if o in cm:
                        n_in -= 1
                        nb -= w
                    elif o in aext:
                        n_in -= 1
                        nb -= w
                        if parts:
                            nb += st.shared_read(c, p, o) - aext[o]
        written = c.out_bytes
        output = ix.output
        for v in p.outs:
            if output[v] and v not in c.outs:
                written += ix.nbytes[v]
        nbytes = nb + written
        dot = ((bool(p.special) and any(ix.contraction[m] for m in p.special))
               or (bool(c.special) and any(ix.contraction[m] for m in c.special)))
        if st.costs is None:
            t = st.ktime(flops, trans, nbytes, written, dot, None)
        elif shared:
            t = st.ktime(flops, trans, nbytes, written, dot, st.calibrated(c, p, minus=shared))
        else:                    # st.calibrated(c, p): two groups, nothing counted twice
            t = st.ktime(flops, trans, nbytes, written, dot,
                         (c.cs + p.cs, c.dsf + p.dsf, c.work + p.work, st.traffic))
        ct = c.t if c.t is not None else st.time(c)
        e = (c.ver, t, (flops, trans, nbytes, written, dot), n_in, ct)
        pt = p.t if p.t is not None else st.time(p)
        tab = self._tables[p.gid] = [p.ver, [c], [e], pt + ct, 0.0 + t]
        return tab

    def _patch(self, p: Group, succ, tab: list) -> None:
        """Bring the consumers of ``p``'s table of several consumers to ``succ`` in place: a
        consumer that is gone (fused into its own consumers) is taken out, a new one put in at
        its rank with its pair estimated (ranks do not change while producers are fused), so
        the table is the one :meth:`_table` would build, without walking every consumer in
        Python (a producer of 150 consumers loses and gains one at a time)."""
        old = tab[_GIDS]
        lists = (tab[_CONSUMERS], tab[_PAIRS], tab[_PVERS], tab[_OWN], tab[_FUSEDS])
        consumers = lists[0]
        gone = old - succ
        if gone:
            gids = list(map(_gid, consumers))
            for i in sorted(map(gids.index, gone), reverse=True):
                for col in lists:
                    del col[i]
        new = succ - old
        if new:
            groups, ctx = self.state.groups, self._producer_terms(p)
            for gid in new:
                c = groups[gid]
                i = bisect_left(consumers, c.rank, key=_rank)
                e = self._pair(p, c, *ctx)
                for col, x in zip(lists, (c, e, e[0], e[4], e[1])):
                    col.insert(i, x)
        tab[_GIDS] = frozenset(succ)

    def _table(self, p: Group, succ, old) -> list:
        """A new table of ``p``'s consumers ``succ`` (``old``: the previous one, whose pairs
        are kept where neither group changed)."""
        consumers = sorted((self.state.groups[c] for c in succ), key=_rank)
        kept = {}
        if old is not None and old[_VER] is p.ver:
            kept = {c.gid: e for c, e in zip(old[_CONSUMERS], old[_PAIRS])}
        ctx = None
        pairs = []
        for c in consumers:
            e = kept.get(c.gid)
            if e is None or e[0] is not c.ver:
                if ctx is None:
                    ctx = self._producer_terms(p)
                e = self._pair(p, c, *ctx)
            pairs.append(e)
        return [p.ver, consumers, pairs, 0.0, 0.0, frozenset(succ), [e[0] for e in pairs],
                [e[4] for e in pairs], [e[1] for e in pairs]]

    def _producer_terms(self, p: Group) -> tuple:
        """What every pair of :meth:`_pair` needs of the producer: the bytes of its graph
        outputs (written whatever the consumer) and whether it holds a contraction."""
        output = self.ix.output
        keep = [v for v in p.outs if output[v]]
        p_dot = bool(p.special) and any(self.ix.contraction[m] for m in p.special)
        return keep, p_dot

    def _pair(self, p: Group, c: Group, keep, p_dot) -> tuple:
        """The pair of producer ``p`` fused into consumer ``c`` (see :meth:`_current`)."""
        st, ix = self.state, self.ix
        flops, trans = c.flops + p.flops, c.trans + p.trans
        shared = p.members & c.members if p.dup or c.dup else ()
        for m in shared:
            flops -= ix.flops[m]
            trans -= ix.trans[m]
        n_in, in_bytes = st.merged_inputs(c, p)
        written = c.out_bytes
        for v in keep:
            if v not in c.outs:
                written += ix.nbytes[v]
        nbytes = in_bytes + written
        dot = p_dot or (bool(c.special) and any(ix.contraction[m] for m in c.special))
        t = st.ktime(flops, trans, nbytes, written, dot,
                     None if st.costs is None else st.calibrated(c, p, minus=shared))
        return (c.ver, t, (flops, trans, nbytes, written, dot), n_in,
                c.t if c.t is not None else st.time(c))

    def legality(self, cand: "Candidate"):
        """Check every producer-consumer union of ``cand``; a refused :class:`Candidate`, or
        None when legal. Done only for candidates that would pay off (when popped from the
        heap, or for the final report), as XLA's priority fusion checks ``CanFuse`` only for
        the producers it is about to fuse."""
        p, ix = cand.producer, self.ix
        output = ix.output
        n_keep = 0
        for v in p.outs:
            if output[v]:
                n_keep += 1
        upstream_reduces = None
        forbidden, dev = self.cons.forbidden, self.dev
        cap = dev.max_registers_per_thread if dev.is_gpu else None
        for c, n_in in zip(cand.consumers, cand.n_inputs):
            # the union check() passes without a view, decided without building its counts
            if not (p.special or c.special or forbidden or len(c.roots) > 1
                    or n_in + len(c.outs) + n_keep > MAX_OPERANDS_AND_OUTPUTS) and \
                    (cap is None or p.live + c.live + BASE_REGISTERS <= cap):
                continue
            if upstream_reduces is None:
                upstream_reduces = bool(p.select(ix.reduction))
            counts = self.union_counts(p, c, upstream_reduces, list(c.roots),
                                       n_out=len(c.outs) + n_keep, n_in=n_in)
            r = self.check([p.members, c.members], counts, upstream=0)
            if r is not None:
                return Candidate(p, cand.consumers, refusal=r, consumer=c,
                                 t_unfused=cand.t_unfused, t_fused=cand.t_fused,
                                 fused=cand.fused, n_inputs=cand.n_inputs)
        return None

    def _structural(self, p: Group, succ) -> Refusal | None:
        """Why ``p`` cannot be fused into its consumers (the ids ``succ``) whatever the
        costs, or None."""
        ix = self.ix
        k = len(succ)
        groups = self.state.groups
        if self.cons.pinned and (p.pinned or any(groups[c].pinned for c in succ)):
            return Refusal("pinned", "a pinned group is kept exactly as it is")
        if len(p.outs) > 1:
            return Refusal("multi-output", f"it writes {len(p.outs)} values "
                           f"({name_list(self.names(p.outs))}); a multi-output producer is not "
                           "fused into its consumers")
        if k > 1:
            if any(ix.output[v] for v in p.outs):
                return Refusal("graph-output", "its value is a graph output, so it is written "
                               "anyway, and a graph output with several consumers is not "
                               f"copied into them (that would compute it {k + 1} times)")
            if not p.special:
                return None
            if p.select(ix.contraction):
                return Refusal("duplicate-contraction", f"it holds a contraction, which would be "
                               f"recomputed {k} times")
            if p.select(ix.reduction):
                return Refusal("duplicate-reduction", f"it holds a reduction, which would be "
                               f"recomputed {k} times")
        return None

    def take(self, cand: "Candidate") -> None:
        self._take(cand.producer, cand.consumers, cand.fused[0], cand.t_unfused, cand.t_fused)

    def _take(self, p: Group, consumers: list, fused0, t_unfused, t_fused) -> None:
        """Fuse ``p`` into ``consumers`` (:meth:`take` of a legal candidate: the pair numbers
        of the first consumer, the estimate's times), log it and re-estimate what changed."""
        st = self.state
        k = len(consumers)
        saved, ptrans = p.out_bytes, p.trans
        if k == 1:
            c = consumers[0]
            before = [(p.ver, len(p.members), max(p.roots), p.pattern),
                      (c.ver, len(c.members), max(c.roots), c.pattern)]
            st.fuse_into_one(p, c)
        else:
            before = [(g.ver, len(g.members), max(g.roots), g.pattern)
                      for g in (p, *consumers)]
            consumers = st.fuse_into_consumers(p, consumers)
        del self._tables[p.gid]
        dev, cap = self.dev, self._cap
        for c in consumers:                      # tighten(c)
            if cap is not None and c.live + BASE_REGISTERS > cap:
                st.exact_live(c)
        first = consumers[0]
        kind = ("multi-output" if len(first.outs) > 1 else "loop") if not first.special \
            else self.kind(first)
        self.decisions.append(Decision.later(
            len(self.decisions), "fuse", True, "benefit" if k == 1 else "duplicate",
            _fuse_entry, (self.ix, dev, before, [c.ver for c in consumers], saved, ptrans,
                          fused0, st.calibrated(first), kind, t_unfused, t_fused)))
        # every group whose estimate the fusion changed, in any order (see plan)
        groups, pred, push = st.groups, st.pred, self.push
        if len(consumers) == 1:
            push(first)
            for gid in pred[first.gid]:
                push(groups[gid])
            return
        touched = set()
        for c in consumers:
            touched.add(c.gid)
            touched |= pred[c.gid]
        for gid in touched:
            push(groups[gid])

    def log_leftovers(self) -> None:
        """One refusal per producer left unfused, with its reason (the planner's verdict)."""
        st, ix = self.state, self.ix
        for g in sorted(st.groups.values(), key=lambda g: g.rank):
            cand = self.evaluate(g, full=True)
            if cand is None:
                continue
            nodes = (ix.ids[max(g.roots)],) + tuple(ix.ids[max(c.roots)]
                                                   for c in cand.consumers)
            cdesc = (self.desc(cand.consumers[0]) if cand.k == 1
                     else f"its {cand.k} consumers ({name_list(self.desc(c) for c in cand.consumers)})")
            if cand.refusal is not None:
                target = self.desc(cand.consumer) if cand.consumer is not None else cdesc
                numbers = ({} if not cand.fused else
                           {"time_unfused_s": cand.t_unfused, "time_fused_s": cand.t_fused,
                            "benefit_s": cand.estimate})
                self.log("fuse", False, cand.refusal.code, f"kept {self.desc(g)} separate from "
                         f"{target}: {cand.refusal.message}{_model_says(cand)}", nodes=nodes,
                         numbers=numbers)
                continue
            dup = (f"; duplicating it would compute it {cand.k}x" if cand.k > 1 else "")
            self.log("fuse", False, "not-profitable",
                     f"kept {self.desc(g)} separate from {cdesc}: fusing would cost "
                     f"{fmt_time(-cand.benefit)} more than it saves{dup}", nodes=nodes,
                     numbers={"time_unfused_s": cand.t_unfused, "time_fused_s": cand.t_fused,
                              "benefit_s": cand.benefit})


def _fuse_entry(ix, dev, before, after, saved, ptrans, fused, calibrated, kind, t_unfused,
                t_fused):
    """The decision of one priority fusion, built when the log is read (see
    :meth:`PriorityRun.take`): ``before`` the producer's and consumers' snapshots (version,
    size, latest root, pattern), ``after`` the consumers' versions."""
    pdesc, *cdescs = [snap_desc(ix, *b) for b in before]
    k, benefit = len(cdescs), t_unfused - t_fused
    bound = bound_text(dev, *fused, calibrated)
    if k == 1:
        msg = (f"fused {pdesc} into {cdescs[0]}: saves "
               f"{fmt_time(benefit)} ({saved_bytes_text(saved)}) — {bound} "
               f"{kind} fusion")
    else:
        extra = (f"; its {_count(ptrans)} transcendentals are computed {k}x"
                 if ptrans else "")
        msg = (f"fused {pdesc} into its {k} consumers "
               f"({name_list(cdescs)}), duplicating it: saves "
               f"{fmt_time(benefit)} ({saved_bytes_text(saved)}{extra}) — "
               f"{bound} {kind} fusions")
    nodes = tuple(ix.ids[b[2]] for b in before)
    members = tuple(snap_names(ix, v) for v in after)
    removed = tuple(snap_names(ix, b[0]) for b in before)
    numbers = _round({"time_unfused_s": t_unfused, "time_fused_s": t_fused, "benefit_s": benefit,
                      "bytes_saved": saved, "consumers": k})
    return msg, nodes, members, numbers, removed


def _model_says(cand: "Candidate") -> str:
    """What the cost model predicts for a fusion a rule refused (``""`` when it was not
    costed): the rule decides, and the sentence says so when the model disagrees."""
    if not cand.fused:
        return ""
    est = cand.estimate
    if est > 0:
        return (f"; the cost model predicts fusing would save {fmt_time(est)}, but this rule "
                "keeps them apart")
    return f"; the cost model agrees: fusing would cost {fmt_time(-est)} more than it saves"


def _count(n: int) -> str:
    from workbench.fmt import fmt_count

    return fmt_count(n)


#: legality's reasons that hold for every union of two groups holding these: in priority
#: fusion a group keeps its id and only grows (a consumer absorbs its producers), and each of
#: these predicates refuses a superset of a refused union too (an opaque, offline or forbidden
#: member stays, reductions and contractions only add up, a contraction's operand or a path
#: from it to a reshaping op stays inside). A producer refused into a consumer for one of them
#: is refused for as long as that consumer exists, so it is not estimated again
#: (operand-budget, shape-mismatch, registers and the reduction-structure checks can change
#: either way and are asked again).
GROWING_REFUSALS = frozenset({"opaque", "unfusible", "dead-code", "offline", "forbidden",
                              "reduction-budget", "two-contractions", "contraction-prologue",
                              "epilogue-shape"})
#: the reasons of :data:`GROWING_REFUSALS` that refuse every group holding the refusal's nodes
#: (an opaque op with anything; two contractions; a contraction and its operand; an offline
#: and a per-call op; a forbidden pair), whichever groups they came from
PAIR_REFUSALS = frozenset({"opaque", "unfusible", "dead-code", "offline", "forbidden",
                           "two-contractions", "contraction-prologue"})

#: a group's rank (the sort key of a producer's consumers)
_rank = attrgetter("rank")


#: the fields of a producer's table (:meth:`PriorityRun._current`); a table of several
#: consumers has four more: their ids, and per pair the consumer's version, its own seconds
#: and the fused seconds
_VER, _CONSUMERS, _PAIRS, _UNFUSED, _FUSED, _GIDS, _PVERS, _OWN, _FUSEDS = range(9)
_ver = attrgetter("ver")
_gid = attrgetter("gid")


class Candidate:
    """Fusing a producer into all its consumers: the estimate, or why it is refused."""

    __slots__ = ("producer", "consumers", "refusal", "consumer", "t_unfused", "t_fused", "k",
                 "fused", "n_inputs")

    def __init__(self, producer, consumers, refusal=None, consumer=None, t_unfused=0.0,
                 t_fused=0.0, k=0, fused=(), n_inputs=()):
        self.producer, self.consumers = producer, consumers
        self.refusal, self.consumer = refusal, consumer
        self.t_unfused, self.t_fused = t_unfused, t_fused
        self.k = k or len(consumers)
        self.fused = fused
        self.n_inputs = n_inputs

    @property
    def benefit(self) -> float:
        return self.t_unfused - self.t_fused if self.refusal is None else float("-inf")

    @property
    def estimate(self) -> float:
        """The cost model's saving of the fusion, refused or not (seconds)."""
        return self.t_unfused - self.t_fused

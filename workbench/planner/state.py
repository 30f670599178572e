"""The planner's working state: fusion groups, the graph of groups, and their costs, kept
incrementally so that a merge costs time in proportion to the groups it touches, not the graph.

A :class:`FusionState` holds, for every current group, its members, the external values it reads
(with their bytes; a value read only through slices with the boxes read, whose union is what a
kernel reads), the values it writes, its FLOP and transcendental counts, its roots, an upper
bound on its register pressure, and its *rank* in a topological order of the groups. Edges of the
graph of groups (``succ``/``pred``) link the group that writes a value to the groups that read it.

Two operations change groups:

Dead nodes (no graph output depends on them) are not in the state: the planner plans the graph
as XLA's dead-code elimination would leave it, and the policies add each dead node back as a
group of its own at the end.

* :meth:`FusionState.fuse_into_consumers` — a producer group is copied into every group that
  reads it and disappears (XLA's priority fusion; duplication when it has several consumers).
  This can never create a cycle (every path out of the producer started at one of its consumers,
  which now compute the producer themselves), and each consumer keeps its rank.
* :meth:`FusionState.union` — two groups become one (vertical fusion into a single consumer,
  sibling fusion, pattern groups). Whether that creates a cycle, and the new topological ranks,
  come from one bounded search in the style of Pearce and Kelly's dynamic topological ordering
  ("A dynamic topological sort algorithm for directed acyclic graphs", JEA 2006): with ranks
  ``lo < hi`` of the two groups, it collects the descendants ``D`` of the lower group and the
  ancestors ``U`` of the higher one whose ranks lie in ``(lo, hi)``. A path between the two groups
  exists only if the search meets the other group; otherwise the slots of ``U``, the two groups
  and ``D`` are reassigned as ``U``, the merged group, ``D``, which keeps the order topological.
  Whether there is a path is asked first, by a walk up from the higher group that takes the
  lowest rank first and stops when it meets the lower one (sibling fusion mostly asks about
  kernels that do depend on each other); the two sets are walked whole only when there is none.
  Only the window between the two groups is searched: this is the incremental reachability that
  XLA gets from ``HloReachabilityMap``. networkx is not used here because its algorithms work on
  whole graphs, and a planner on 100,000 nodes performs tens of thousands of merges.
"""

from __future__ import annotations

import heapq

from workbench.costmodel.calibrated import calibration_of, graph_traffic, node_costs_of
from workbench.costmodel.model import kernel_timer, peak_live
from workbench.costmodel.devices import DeviceProfile
from workbench.ir.index import GraphIndex

#: groups a reachability search may visit before the merge is refused as undecidable
SEARCH_BUDGET = 20000


def version_members(ver) -> set[int]:
    """The members a group had when its :attr:`Group.ver` was ``ver``.

    A version is a node index (a group of one op) or a pair of the versions that were merged;
    taking one costs nothing, and the decision log keeps them to name a step's groups only when
    the log is read.
    """
    out: set[int] = set()
    seen: set[int] = set()
    stack = [ver]
    while stack:
        v = stack.pop()
        if v.__class__ is int:
            out.add(v)
        elif id(v) not in seen:
            seen.add(id(v))
            stack.extend(v)
    return out


class Group:
    """One group of the working state (node indices; see :class:`FusionState`)."""

    __slots__ = ("gid", "members", "ext", "parts", "ext_bytes", "outs", "out_bytes", "flops",
                 "trans", "rank", "roots", "live", "pattern", "pinned", "special", "dup", "names", "t",
                 "ver", "cs", "ds", "dsf", "work")

    def __init__(self, gid: int):
        self.gid = gid
        self.members: set[int] = set()
        self.ext: dict[int, int] = {}
        #: external values read only through slices -> the boxes read (their union is ext[o])
        self.parts: dict[int, frozenset] = {}
        self.ext_bytes = 0
        self.outs: set[int] = set()
        self.out_bytes = 0
        self.flops = 0
        self.trans = 0
        self.rank = 0
        self.roots: set[int] = set()
        self.live = 0
        self.pattern: str | None = None
        self.pinned = False
        #: members that are reductions, contractions, opaque or offline (what legality looks at)
        self.special: set[int] = set()
        #: whether some member is also computed by another group (duplication)
        self.dup = False
        #: member ids in topological order, cached for the decision log (None: stale)
        self.names: tuple | None = None
        #: cached predicted time (None: stale)
        self.t: float | None = None
        #: a snapshot of the members, O(1) to take (see :func:`version_members`)
        self.ver: object = gid
        #: calibrated CPU: one core's compute seconds, contraction seconds, work (statements)
        self.cs = 0.0
        self.ds = 0.0
        self.dsf = 0.0
        self.work = 0

    def select(self, flags) -> list[int]:
        """Sorted special members with ``flags[i]`` set."""
        return sorted(m for m in self.special if flags[m])


class FusionState:
    """Groups over a :class:`GraphIndex`, starting with every non-source op alone.

    Parameters
    ----------
    index : GraphIndex
    device : DeviceProfile
    """

    def __init__(self, index: GraphIndex, device: DeviceProfile):
        self.ix = index
        self.device = device
        cal = calibration_of(device)
        #: per-node calibrated costs (None: XLA's model of FLOPs and bytes)
        self.costs = node_costs_of(index, device, cal) if cal is not None else None
        self.traffic = graph_traffic(index) if cal is not None else 0
        #: :func:`~workbench.costmodel.model.kernel_timer` of the device (kernel_time's seconds)
        self.ktime = kernel_timer(device)
        self.groups: dict[int, Group] = {}
        n = len(index)
        self.node_groups: list[set[int]] = [set() for _ in range(n)]
        self.home = [-1] * n
        self.succ: dict[int, set[int]] = {}
        self.pred: dict[int, set[int]] = {}
        self._next = n
        self._singles()

    def _singles(self) -> None:
        """Every live op alone in its group, and the edges between them:  the groups
        of one op, built in one loop (each set and dict filled in the order it always was)."""
        ix, costs = self.ix, self.costs
        source, live, operands, read_bytes = ix.source, ix.live, ix.operands, ix.read_bytes
        region, slice_bytes, reg_width = ix.region, ix.slice_bytes, ix.reg_width
        reduction, contraction, opaque, offline = ix.reduction, ix.contraction, ix.opaque, \
            ix.offline
        output, users, nbytes, flops, trans = ix.output, ix.users, ix.nbytes, ix.flops, ix.trans
        groups, node_groups, home, succ, pred = (self.groups, self.node_groups, self.home,
                                                 self.succ, self.pred)
        new = Group.__new__
        for i in range(len(ix)):
            if source[i] or not live[i]:
                continue
            g = new(Group)
            g.gid = g.rank = g.ver = i
            g.members = {i}
            box = region[i]
            ext = {}
            ext_bytes = 0
            lv = reg_width[i]
            ins = set()
            for o in operands[i]:
                rb = read_bytes[o]
                if rb:
                    w = ext[o] = slice_bytes[i] if box is not None else rb
                    ext_bytes += w
                    lv += reg_width[o]
                if not source[o]:
                    succ[o].add(i)
                    ins.add(o)
            g.ext, g.ext_bytes, g.live = ext, ext_bytes, lv
            g.parts = {o: frozenset([box]) for o in ext} if box is not None and ext else {}
            g.flops, g.trans = flops[i], trans[i]
            if costs is not None:
                g.cs, g.ds, g.dsf, g.work = (costs.compute_s[i], costs.dot_s[i],
                                             costs.dot_fused_s[i], costs.work[i])
            else:
                g.cs = g.ds = g.dsf = 0.0
                g.work = 0
            g.roots = {i}
            g.special = {i} if reduction[i] or contraction[i] or opaque[i] or offline[i] \
                else set()
            if output[i] or users[i]:
                g.outs = {i}
                g.out_bytes = nbytes[i]
            else:
                g.outs = set()
                g.out_bytes = 0
            g.pattern = g.names = g.t = None
            g.pinned = g.dup = False
            groups[i] = g
            node_groups[i].add(i)
            home[i] = i
            succ[i] = set()
            pred[i] = ins

    # ----- costs -----------------------------------------------------------------------------

    def time(self, g: Group) -> float:
        """Predicted seconds of group ``g`` as one kernel (cached until the group changes)."""
        t = g.t
        if t is None:
            sp = g.special                       # has_contraction(g), without the call
            dot = bool(sp) and any(self.ix.contraction[m] for m in sp)
            t = g.t = self.ktime(g.flops, g.trans, g.ext_bytes + g.out_bytes, g.out_bytes, dot,
                                 None if self.costs is None else self.calibrated(g))
        return t

    def calibrated(self, *groups: Group, minus=()):
        """``(compute s, contraction s, work, traffic)`` of ``groups`` as one kernel, less the
        nodes ``minus`` (members counted twice), on a calibrated CPU; else None."""
        if self.costs is None:
            return None
        if not minus and len(groups) == 2:      # a pair, nothing counted twice: the common case
            a, b = groups                        # (the same sums as sums(), term by term)
            cs, ds, dsf, work = a.cs + b.cs, a.ds + b.ds, a.dsf + b.dsf, a.work + b.work
            size = len(a.members) + len(b.members)
        elif not minus and len(groups) == 1:
            a = groups[0]
            cs, ds, dsf, work, size = a.cs, a.ds, a.dsf, a.work, len(a.members)
        else:
            cs, ds, dsf, work = self.sums(*groups, minus=minus)
            size = sum(len(g.members) for g in groups) - len(minus)
        if size == 1 and self.costs.loop_s:   # a loop over short rows alone (not fused)
            cs += sum(self.costs.loop_s[m] for g in groups for m in g.members
                      if m not in minus)
        return cs, (dsf if size > 1 else ds), work, self.traffic

    def sums(self, *groups: Group, minus=()):
        """(compute s, contraction s alone, contraction s fused, work) of ``groups`` less the
        nodes ``minus``."""
        c = self.costs
        return (sum(g.cs for g in groups) - sum(c.compute_s[m] for m in minus),
                sum(g.ds for g in groups) - sum(c.dot_s[m] for m in minus),
                sum(g.dsf for g in groups) - sum(c.dot_fused_s[m] for m in minus),
                sum(g.work for g in groups) - sum(c.work[m] for m in minus))

    def time_of(self, flops: float, trans: float, nbytes: float, written: float,
                contraction: bool, calibrated=None) -> float:
        """Predicted seconds of a kernel moving ``nbytes``, ``written`` of them written
        (``contraction``: it holds a dot or convolution; ``calibrated``: see
        :meth:`calibrated`)."""
        return self.ktime(flops, trans, nbytes, written, contraction,
                           calibrated)

    def has_contraction(self, *groups: Group) -> bool:
        """Whether any of ``groups`` holds a dot or a convolution."""
        flags = self.ix.contraction
        return any(flags[m] for g in groups for m in g.special)

    def group_of(self, i: int) -> Group:
        """The group that writes node ``i`` (its home)."""
        return self.groups[self.home[i]]

    # ----- fusing a producer into all of its consumers ---------------------------------------

    def merged_inputs(self, a: Group, b: Group) -> tuple[int, int]:
        """(count, bytes) of the external values read by ``a`` and ``b`` together: a value both
        read counts once (the union of their slices when both read it only through slices)."""
        # counted from the totals (ext and members are disjoint; bytes are ints, so the order
        # of the sums is free): by set intersections in C, each walking its smaller side,
        # when b reads many values (a group that absorbed many producers reads hundreds) or
        # a's reads and b's members are both many; else by a loop over b's reads, and one
        # over the smaller of a's reads and b's members
        aext, bext = a.ext, b.ext
        if len(bext) > 8 or (len(aext) > 8 and len(b.members) > 8):
            ak, bk = aext.keys(), bext.keys()
            ca = ak & b.members                   # a reads what b computes
            cb = bk & a.members                   # b reads what a computes
            both = bk & ak                        # both read
            n = len(aext) - len(ca) + len(bext) - len(cb) - len(both)
            nb = a.ext_bytes + b.ext_bytes
            if ca:
                nb -= sum(map(aext.__getitem__, ca))
            if cb:
                nb -= sum(map(bext.__getitem__, cb))
            if both:
                nb -= sum(map(bext.__getitem__, both))
                if a.parts or b.parts:
                    for o in both:
                        nb += self.shared_read(a, b, o) - aext[o]
            return n, nb
        bm, am = b.members, a.members
        n = len(aext) + len(bext)
        nb = a.ext_bytes + b.ext_bytes
        if len(bm) <= len(aext):
            for m in bm:
                if m in aext:
                    n -= 1
                    nb -= aext[m]
        else:
            for m in aext:
                if m in bm:
                    n -= 1
                    nb -= aext[m]
        if bext:
            parts = a.parts or b.parts
            for o, w in bext.items():
                if o in am:
                    n -= 1
                    nb -= w
                elif o in aext:
                    n -= 1
                    nb -= w
                    if parts:
                        nb += self.shared_read(a, b, o) - aext[o]
        return n, nb

    def shared_read(self, a: Group, b: Group, o: int) -> int:
        """Bytes one kernel reads of ``o``, which both ``a`` and ``b`` read."""
        pa, pb = a.parts.get(o), b.parts.get(o)
        if pa is None or pb is None:
            return self.ix.read_bytes[o]
        return self.ix.union_bytes(o, pa | pb)

    def merged_ext(self, a: Group, b: Group) -> tuple[dict, dict]:
        """(ext, parts) of ``a`` and ``b`` as one kernel (see :meth:`merged_inputs`)."""
        ext = {o: w for o, w in a.ext.items() if o not in b.members}
        parts = {o: p for o, p in a.parts.items() if o in ext}
        for o, w in b.ext.items():
            if o in a.members:
                continue
            if o in ext:
                if o in parts:
                    ext[o] = self.shared_read(a, b, o)
                    if o in b.parts:
                        parts[o] = parts[o] | b.parts[o]
                    else:
                        del parts[o]
                continue
            ext[o] = w
            if o in b.parts:
                parts[o] = b.parts[o]
        return ext, parts

    def _absorb_ext(self, c: Group, p: Group) -> None:
        """``c.ext``, ``c.parts`` and ``c.ext_bytes`` become, in place, those of
        :meth:`merged_ext(c, p) <merged_ext>` (the bytes are ints: kept by differences, they
        are the sum of the new values), in time of ``p``'s reads rather than ``c``'s."""
        cext, cparts, pm, cm = c.ext, c.parts, p.members, c.members
        nb = c.ext_bytes
        gone = cext.keys() & pm
        if gone:
            for o in gone:
                nb -= cext.pop(o)
                if cparts:
                    cparts.pop(o, None)
        pparts = p.parts
        for o, w in p.ext.items():
            if o in cm:
                continue
            if o in cext:
                if o in cparts:
                    new = self.shared_read(c, p, o)
                    nb += new - cext[o]
                    cext[o] = new
                    if o in pparts:
                        cparts[o] = cparts[o] | pparts[o]
                    else:
                        del cparts[o]
                continue
            cext[o] = w
            nb += w
            if o in pparts:
                cparts[o] = pparts[o]
        c.ext_bytes = nb

    def fuse_into_consumers(self, p: Group, consumers: list[Group]) -> list[Group]:
        """Copy producer ``p`` into each consumer and delete it; returns the consumers."""
        ix, pm = self.ix, p.members
        keep_outs = {v for v in p.outs if ix.output[v]}
        node_groups, costs, many = self.node_groups, self.costs, len(consumers) > 1
        for c in consumers:
            self._absorb_ext(c, p)
            # a member of two groups was duplicated, and duplication marks every group that
            # holds a copy (``dup``): only then can the two share members (as in _pair)
            shared = pm & c.members if p.dup or c.dup else ()
            c.members |= pm
            c.names = c.t = None
            c.ver = (c.ver, p.ver)
            gid = c.gid
            for v in pm:
                node_groups[v].add(gid)
            if shared:
                c.flops += p.flops - sum(ix.flops[m] for m in shared)
                c.trans += p.trans - sum(ix.trans[m] for m in shared)
            else:                                # the same sums, less nothing
                c.flops += p.flops - 0
                c.trans += p.trans - 0
            if costs is not None:
                if shared:
                    c.cs, c.ds, c.dsf, c.work = self.sums(c, p, minus=shared)
                else:                            # sums(c, p): the same additions
                    c.cs, c.ds, c.dsf, c.work = (c.cs + p.cs, c.ds + p.ds, c.dsf + p.dsf,
                                                 c.work + p.work)
            c.live += p.live
            c.special |= p.special
            c.pattern = c.pattern or p.pattern
            c.dup = c.dup or p.dup or many
            if keep_outs:                        # else c.outs, and so its bytes, are as they were
                c.outs |= keep_outs
                c.out_bytes = sum(ix.nbytes[v] for v in c.outs)
            cpred = self.pred[gid]
            cpred.discard(p.gid)
            cpred |= self.pred[p.gid]
        pgid, succ, home = p.gid, self.succ, self.home
        cgids = [c.gid for c in consumers]
        for x in self.pred[pgid]:
            sx = succ[x]
            sx.discard(pgid)
            sx.update(cgids)
        first = cgids[0]
        for v in pm:
            node_groups[v].discard(pgid)
            if home[v] == pgid:
                home[v] = first
        self._drop(p)
        return consumers

    def fuse_into_one(self, p: Group, c: Group) -> Group:
        """:meth:`fuse_into_consumers` of a producer with the one consumer ``c`` (each set
        and number updated as there, in the same order); returns ``c``."""
        ix, pm = self.ix, p.members
        output = ix.output
        keep_outs = {v for v in p.outs if output[v]}
        self._absorb_ext(c, p)
        shared = pm & c.members if p.dup or c.dup else ()
        c.members |= pm
        c.names = c.t = None
        c.ver = (c.ver, p.ver)
        gid, pgid = c.gid, p.gid
        node_groups, home = self.node_groups, self.home
        for v in pm:
            ng = node_groups[v]
            ng.add(gid)
            ng.discard(pgid)
            if home[v] == pgid:
                home[v] = gid
        if shared:
            c.flops += p.flops - sum(ix.flops[m] for m in shared)
            c.trans += p.trans - sum(ix.trans[m] for m in shared)
        else:
            c.flops += p.flops - 0
            c.trans += p.trans - 0
        if self.costs is not None:
            if shared:
                c.cs, c.ds, c.dsf, c.work = self.sums(c, p, minus=shared)
            else:
                c.cs, c.ds, c.dsf, c.work = (c.cs + p.cs, c.ds + p.ds, c.dsf + p.dsf,
                                             c.work + p.work)
        c.live += p.live
        if p.special:
            c.special |= p.special
        c.pattern = c.pattern or p.pattern
        c.dup = c.dup or p.dup
        if keep_outs:
            c.outs |= keep_outs
            nbytes = ix.nbytes
            c.out_bytes = sum(nbytes[v] for v in c.outs)
        pred, succ = self.pred, self.succ
        ppred = pred[pgid]
        cpred = pred[gid]
        cpred.discard(pgid)
        cpred |= ppred
        for x in ppred:
            sx = succ[x]
            sx.discard(pgid)
            sx.add(gid)
        del self.groups[pgid]
        del succ[pgid]
        del pred[pgid]
        return c

    def _drop(self, g: Group) -> None:
        del self.groups[g.gid]
        del self.succ[g.gid]
        del self.pred[g.gid]

    # ----- uniting two groups ----------------------------------------------------------------

    def reorder_for_union(self, a: Group, b: Group, direct_ok: bool):
        """Search the rank window between ``a`` and ``b`` (see the module notes).

        Returns
        -------
        list or None or False
            The new rank assignment ``[(group id, rank), ...]`` (the merged group as ``None``);
            ``False`` if a path joins the two groups other than a direct edge (when
            ``direct_ok``); ``None`` if the search budget ran out.
        """
        if a.rank > b.rank:
            a, b = b, a
        lo, hi = a.rank, b.rank
        groups, succ, pred = self.groups, self.succ, self.pred
        bgid, agid, budget = b.gid, a.gid, SEARCH_BUDGET
        if hi - lo <= budget + 1:
            # the window holds at most ``budget`` groups, so neither walk can run out of
            # budget: a rank-guided walk up from ``b``, which stops as soon as it meets ``a``,
            # decides the same (see :meth:`_ancestors`)
            up = self._ancestors(agid, bgid, lo, direct_ok)
            if up is None:
                return False
            return self._ranks(lo, hi, up, self._walk(succ, agid, bgid, hi, 1, direct_ok))
        down = self._walk(succ, agid, bgid, hi, 1, direct_ok)
        if down is None or down is False:
            return down
        up = self._walk(pred, bgid, agid, lo, -1, True)
        if up is None:
            return None
        return self._ranks(lo, hi, up, down)

    def _walk(self, edges, start: int, stop: int, bound: int, sign: int, skip_direct: bool):
        """The depth-first walk of :meth:`reorder_for_union` from ``start`` along ``edges``
        (``succ`` with ``sign`` 1: groups of rank up to ``bound``; ``pred`` with -1: of rank
        ``bound`` or more): the set it visits, ``False`` when it meets ``stop`` (only looked
        for going down), ``None`` when it visits more than :data:`SEARCH_BUDGET` groups."""
        groups, budget = self.groups, SEARCH_BUDGET
        seen: set[int] = set()
        stack = [s for s in edges[start] if not (skip_direct and s == stop)]
        pop, push, add = stack.pop, stack.extend, seen.add
        if sign > 0:
            while stack:
                x = pop()
                if x == stop:
                    return False
                if x in seen or groups[x].rank > bound:
                    continue
                add(x)
                if len(seen) > budget:
                    return None
                push(edges[x])
        else:
            while stack:
                x = pop()
                if x in seen or groups[x].rank < bound:
                    continue
                add(x)
                if len(seen) > budget:
                    return None
                push(edges[x])
        return seen

    def _ancestors(self, agid: int, bgid: int, lo: int, direct_ok: bool):
        """The groups above ``bgid`` of rank over ``lo`` (the set :meth:`reorder_for_union`'s
        walk up visits), or None when a path leads from ``agid`` to ``bgid`` (other than the
        direct edge, when ``direct_ok``).

        Lowest rank first: ranks fall along every path walked up, and ``agid`` has the lowest
        rank in the window, so it is taken the moment it is reached and the walk heads for it
        first. Sibling fusion asks mostly about kernels that do depend on each other (a weight
        read by the forward and the backward pass: 17,236 of the 17,627 questions of the
        8-block training step); the depth-first walk down from ``agid`` in the order of the
        edges visited much of the window before it met ``bgid``, while this walk visits about
        5 groups a question there (84,626 in all). Without a path it visits every group above
        ``bgid`` in the window, the same set as a walk in any order."""
        groups, pred = self.groups, self.pred
        heap = []
        for q in pred[bgid]:
            if not (direct_ok and q == agid):
                r = groups[q].rank
                if r >= lo:
                    heap.append((r, q))
        heapq.heapify(heap)
        up: set[int] = set()
        pop, push, add = heapq.heappop, heapq.heappush, up.add
        while heap:
            x = pop(heap)[1]
            if x == agid:
                return None
            if x in up:
                continue
            add(x)
            for q in pred[x]:
                if q not in up:
                    r = groups[q].rank
                    if r >= lo:
                        push(heap, (r, q))
        return up

    def _ranks(self, lo: int, hi: int, up: set, down: set) -> list:
        """The new ranks: the slots of ``up``, the two groups and ``down``, given in order to
        ``up``, the merged group (``None``) and ``down``."""
        groups = self.groups
        slots = sorted([groups[x].rank for x in up | down] + [lo, hi])
        seq = sorted(up, key=lambda x: groups[x].rank) + [None] + \
            sorted(down, key=lambda x: groups[x].rank)
        return list(zip(seq, slots))

    def union(self, a: Group, b: Group, ranks) -> Group:
        """Merge ``b`` into ``a`` (ranks from :meth:`reorder_for_union`); returns ``a``."""
        ix = self.ix
        for x, r in ranks:
            if x is None:
                a.rank = r
            else:
                self.groups[x].rank = r
        members = a.members | b.members
        ext, parts = self.merged_ext(a, b)
        for v in b.members:
            self.node_groups[v].discard(b.gid)
            self.node_groups[v].add(a.gid)
            if self.home[v] == b.gid:
                self.home[v] = a.gid
        a.members = members
        a.names = a.t = None
        a.ver = (a.ver, b.ver)
        a.ext, a.parts, a.ext_bytes = ext, parts, sum(ext.values())
        a.outs = {v for v in a.outs | b.outs if self.needs_write(v, a.gid)}
        a.out_bytes = sum(ix.nbytes[v] for v in a.outs)
        a.roots = {r for r in a.roots | b.roots if not any(u in members for u in ix.users[r])}
        a.flops += b.flops
        a.trans += b.trans
        a.cs += b.cs
        a.ds += b.ds
        a.dsf += b.dsf
        a.work += b.work
        a.live += b.live
        a.special |= b.special
        a.dup = a.dup or b.dup
        a.pattern = a.pattern or b.pattern
        for side, other in ((self.succ, self.pred), (self.pred, self.succ)):
            side[a.gid] |= side[b.gid]
            side[a.gid] -= {a.gid, b.gid}
            for x in side[b.gid]:
                if x != a.gid:
                    other[x].discard(b.gid)
                    other[x].add(a.gid)
        self._drop(b)
        return a

    def needs_write(self, v: int, gid: int) -> bool:
        """Whether value ``v`` (a member of group ``gid``) must be written to memory."""
        if self.ix.output[v]:
            return True
        groups = self.groups
        for u in self.ix.users[v]:
            for h in self.node_groups[u]:
                if h != gid and v not in groups[h].members:
                    return True
        return False

    def exact_live(self, g: Group) -> int:
        """Recompute ``g``'s register-pressure bound exactly (after a large merge)."""
        g.live = peak_live(self.ix, g.members)
        return g.live

    def member_sets(self) -> list[tuple[int, set[int]]]:
        """(rank, members) of every group, in rank order."""
        return sorted(((g.rank, g.members) for g in self.groups.values()), key=lambda t: t[0])

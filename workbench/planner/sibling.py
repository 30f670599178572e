"""Sibling (multi-output) fusion, the last phase of the ``priority`` policy."""

from __future__ import annotations

from workbench.planner.driver import BUDGET_REFUSAL, PlannerRun, _round, snap_desc
from workbench.fmt import fmt_bytes, fmt_time
from workbench.planner.legality import MAX_OPERANDS_AND_OUTPUTS, Refusal
from workbench.planner.state import Group


class SiblingFusion:
    """Multi-output (sibling) fusion after priority fusion: groups that read one large input
    become one kernel, which reads it once (XLA's multi-output fusion,
    xla/service/gpu/transforms/multi_output_fusion.cc)."""

    def __init__(self, run: PlannerRun):
        self.run = run
        #: (gid, gid) of a refused pair -> (their versions, the root names, the log's snapshots
        #: and numbers, the refusal or None for not profitable, the reason code); see
        #: :meth:`try_merge`
        self._refused: dict = {}

    def apply(self) -> None:
        st, ix = self.run.state, self.run.ix
        for v in range(len(ix)):
            if not ix.read_bytes[v] or len(ix.users[v]) < 2:
                continue
            readers = sorted({h for u in ix.users[v] for h in st.node_groups[u]
                              if v not in st.groups[h].members}, key=lambda h: st.groups[h].rank)
            readers = [st.groups[h] for h in readers if self._eligible(st.groups[h], v)]
            accs: list[Group] = []
            for g in readers:
                for i, a in enumerate(accs):
                    merged = self.try_merge(a, g, v)
                    if merged is not None:
                        accs[i] = merged
                        break
                else:
                    accs.append(g)
                accs = [a for a in accs if not self._full(a, v)]

    def _full(self, a: Group, v: int) -> bool:
        """Whether ``a`` is at the operand budget, so that no sibling can join it: a sibling adds
        at least one output (one whose outputs only ``a`` reads is its producer, which
        side-by-side fusion refuses), so every later try would be refused. A full accumulator
        is logged once and tried no more: trying it against every later reader made sibling
        fusion quadratic (20,000 outputs of one parameter: 200 million set lookups, issue 15).
        """
        used = len(a.ext) + len(a.outs)
        if used < MAX_OPERANDS_AND_OUTPUTS:
            return False
        run, ix = self.run, self.run.ix
        run.log("sibling", False, "operand-budget",
                f"no more siblings reading {ix.ids[v]} join {run.desc(a)}: it has {used} "
                f"operands and outputs, the most a kernel may have "
                f"({MAX_OPERANDS_AND_OUTPUTS}); each would add an output",
                nodes=(ix.ids[v], ix.ids[max(a.roots)]))
        return True

    def _eligible(self, g: Group, v: int) -> bool:
        ix = self.run.ix
        if g.pinned:
            return False
        span = max(_iteration_elements(ix, r) for r in g.roots)
        return ix.elements[v] >= span

    def try_merge(self, a: Group, b: Group, v: int):
        """Fuse ``a`` and ``b``, which both read ``v``, side by side if legal and profitable:
        the new group, or None (the try is logged either way).

        A refused pair is remembered by the two groups' versions: the same two groups read
        many of the same values (a weight read by the forward and the backward pass), and
        they are tried again for each (44,000 of the 54,566 tries of the 8-block training
        step). Every refusal is a function of the two groups alone (their members, reads,
        outputs and costs; whether a value must be written does not change when other groups
        unite), except the cycle: a path between them stays a path when other groups unite,
        but a search that ran out of budget is asked again. Only the value ``v`` the log names
        differs."""
        run, ix = self.run, self.run.ix
        key = (a.gid, b.gid)
        hit = self._refused.get(key)
        if hit is not None and hit[0] is a.ver and hit[1] is b.ver:
            _, _, ra, rb, snaps, nums, r, reason = hit
            run.log_later("sibling", False, reason, _refused_entry,
                          (ix, snaps, (ix.ids[v], ra, rb), nums, r))
            return None
        return self._try(a, b, v, key)

    def _try(self, a: Group, b: Group, v: int, key):
        run, st, ix = self.run, self.run.state, self.run.ix
        n_in, in_bytes = st.merged_inputs(a, b)
        counts = run.union_counts(a, b, False, sorted(a.roots | b.roots), n_in=n_in)
        r = run.check([a.members, b.members], counts)
        out_bytes = a.out_bytes + b.out_bytes
        t_fused = st.time_of(a.flops + b.flops, a.trans + b.trans, in_bytes + out_bytes,
                             out_bytes, st.has_contraction(a, b), st.calibrated(a, b))
        t_unfused = st.time(a) + st.time(b)
        nodes = (ix.ids[v], ix.ids[max(a.roots)], ix.ids[max(b.roots)])
        nums = {"time_unfused_s": t_unfused, "time_fused_s": t_fused,
                "benefit_s": t_unfused - t_fused}
        # the groups as the log names them, snapshotted now and put in words when it is read
        snaps = (_snap(a), _snap(b))
        if r is None and t_fused >= t_unfused:
            self._refused[key] = (a.ver, b.ver, nodes[1], nodes[2], snaps, nums, None,
                                  "not-profitable")
            run.log_later("sibling", False, "not-profitable", _refused_entry,
                          (ix, snaps, nodes, nums, None))
            return None
        before = [a.ver, b.ver]
        if r is None:
            shared_text = self.shared_text(a, b, v)
            res = run.unite(a, b, direct_ok=False)
            if not isinstance(res, Refusal):
                da, db = run.desc_of(snaps[0]), run.desc_of(snaps[1])
                # the log names the roots the two have after the union, as it always did
                nodes = (ix.ids[v], ix.ids[max(a.roots)], ix.ids[max(b.roots)])
                run.log("sibling", True, "shared-input",
                        f"fused {da} and {db} side by side: {shared_text} — saves "
                        f"{fmt_time(t_unfused - t_fused)}", nodes=nodes, members=[res],
                        removed=before, numbers=nums)
                return res
            r = res
        if r is not BUDGET_REFUSAL:
            self._refused[key] = (a.ver, b.ver, nodes[1], nodes[2], snaps, nums, r, r.code)
        run.log_later("sibling", False, r.code, _refused_entry, (ix, snaps, nodes, nums, r))
        return None

    def shared_text(self, a: Group, b: Group, v: int) -> str:
        """What the two kernels read of ``v`` and what one kernel reads: the whole value once,
        the union of overlapping slices, or disjoint slices (then only a launch is saved)."""
        st, ix = self.run.state, self.run.ix
        src = ix.ids[v]
        ra, rb = a.ext.get(v, ix.read_bytes[v]), b.ext.get(v, ix.read_bytes[v])
        both = st.shared_read(a, b, v) if v in a.ext and v in b.ext else ra + rb
        if ra == rb == both:
            return (f"both read {src} ({fmt_bytes(both)}), which one multi-output kernel reads "
                    "once")
        if both >= ra + rb:
            return (f"they read disjoint slices of {src} ({fmt_bytes(ra)} and {fmt_bytes(rb)}), "
                    "so one multi-output kernel reads no less; it saves a launch")
        return (f"they read {fmt_bytes(ra)} and {fmt_bytes(rb)} of {src}, overlapping; one "
                f"multi-output kernel reads their union, {fmt_bytes(both)}, once")


def _iteration_elements(ix, r: int) -> int:
    if ix.reduction[r] and ix.operands[r]:
        return ix.elements[ix.operands[r][0]]
    return ix.elements[r]


def _snap(g: Group) -> tuple:
    """What the log needs to name ``g`` later: version, size, latest root, pattern."""
    return g.ver, len(g.members), max(g.roots) if g.roots else None, g.pattern


def _refused_entry(ix, snaps, nodes, nums, r):
    """The decision of a sibling fusion refused by legality (``r``) or, with ``r`` None, as
    not profitable; built when the log is read."""
    da, db = (snap_desc(ix, *s) for s in snaps)
    if r is None:
        t_fused, t_unfused = nums["time_fused_s"], nums["time_unfused_s"]
        message = (f"one kernel would take {fmt_time(t_fused)}, no less than the two "
                   f"({fmt_time(t_unfused)})")
    else:
        message = r.message
    return (f"kept {da} and {db} apart although both read {nodes[0]}: {message}", nodes, (),
            _round(nums), ())

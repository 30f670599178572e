"""Sibling (multi-output) fusion, the last phase of the ``priority`` policy."""

from __future__ import annotations

from workbench.planner.driver import PlannerRun
from workbench.fmt import fmt_bytes, fmt_time
from workbench.planner.legality import Refusal
from workbench.planner.state import Group


class SiblingFusion:
    """Multi-output (sibling) fusion after priority fusion: groups that read one large input
    become one kernel, which reads it once (XLA's multi-output fusion,
    xla/service/gpu/transforms/multi_output_fusion.cc)."""

    def __init__(self, run: PlannerRun):
        self.run = run

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

    def _eligible(self, g: Group, v: int) -> bool:
        ix = self.run.ix
        if g.pinned:
            return False
        span = max(_iteration_elements(ix, r) for r in g.roots)
        return ix.elements[v] >= span

    def try_merge(self, a: Group, b: Group, v: int):
        run, st, ix = self.run, self.run.state, self.run.ix
        counts = run.union_counts(a, b, False, sorted(a.roots | b.roots))
        r = run.check([a.members, b.members], counts)
        _, in_bytes = st.merged_inputs(a, b)
        out_bytes = a.out_bytes + b.out_bytes
        t_fused = st.time_of(a.flops + b.flops, a.trans + b.trans, in_bytes + out_bytes,
                             out_bytes, st.has_contraction(a, b), st.calibrated(a, b))
        t_unfused = st.time(a) + st.time(b)
        da, db, src = run.desc(a), run.desc(b), ix.ids[v]
        nums = {"time_unfused_s": t_unfused, "time_fused_s": t_fused,
                "benefit_s": t_unfused - t_fused}
        if r is None and t_fused >= t_unfused:
            r = Refusal("not-profitable", f"one kernel would take {fmt_time(t_fused)}, no less "
                        f"than the two ({fmt_time(t_unfused)})")
        before = [a.ver, b.ver]
        if r is None:
            shared_text = self.shared_text(a, b, v)
            res = run.unite(a, b, direct_ok=False)
            if not isinstance(res, Refusal):
                run.log("sibling", True, "shared-input",
                        f"fused {da} and {db} side by side: {shared_text} — saves "
                        f"{fmt_time(t_unfused - t_fused)}",
                        nodes=(src, ix.ids[max(a.roots)], ix.ids[max(b.roots)]),
                        members=[res], removed=before, numbers=nums)
                return res
            r = res
        run.log("sibling", False, r.code, f"kept {da} and {db} apart although both read {src}: "
                f"{r.message}", nodes=(src, ix.ids[max(a.roots)], ix.ids[max(b.roots)]),
                numbers=nums)
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

"""The ``greedy`` policy: the textbook planner a course starts from."""

from __future__ import annotations

from workbench.planner.driver import PlannerRun, saved_bytes_text
from workbench.fmt import fmt_bytes, fmt_time, name_list
from workbench.planner.legality import Refusal
from workbench.planner.state import Group


class GreedyRun(PlannerRun):
    """The textbook greedy planner (see the module notes)."""

    def plan(self) -> None:
        st, ix = self.state, self.ix
        edges, multi = [], []
        for p in range(len(ix)):
            if ix.source[p] or not ix.users[p]:
                continue
            if len(ix.users[p]) == 1 and not ix.output[p]:
                edges.append((-ix.nbytes[p], p, ix.users[p][0]))
            elif len(ix.users[p]) > 1:
                multi.append(p)
        for _, p, c in sorted(edges):
            P, C = st.group_of(p), st.group_of(c)
            if P is C:
                continue
            self.fuse_edge(p, c, P, C)
        for p in multi:
            P = st.group_of(p)
            outside = [u for u in ix.users[p] if u not in P.members]
            if outside:
                self.log("fuse", False, "several-users",
                         f"kept {ix.ids[p]} separate: it has {len(ix.users[p])} users "
                         f"({name_list(ix.ids[u] for u in ix.users[p])}), and the greedy rule "
                         "only fuses a producer with a single user", nodes=(ix.ids[p],))

    def fuse_edge(self, p: int, c: int, P: Group, C: Group) -> None:
        st, ix = self.state, self.ix
        names = (ix.ids[p], ix.ids[c])
        r = None
        if P.pinned or C.pinned:
            r = Refusal("pinned", "a pinned group is kept exactly as it is")
        else:
            counts = self.union_counts(P, C, bool(P.select(ix.reduction)))
            r = self.check([P.members, C.members], counts, upstream=0)
        t_unfused = st.time(P) + st.time(C)
        before = [P.ver, C.ver]
        if r is None:
            res = self.unite(P, C, direct_ok=True)
            if not isinstance(res, Refusal):
                t_fused = st.time(res)
                gain = t_unfused - t_fused
                verdict = (f"saves {fmt_time(gain)} ({saved_bytes_text(ix.nbytes[p])})"
                           if gain > 0 else
                           f"the cost model predicts it costs {fmt_time(-gain)} more, although "
                           f"nothing {saved_bytes_text(ix.nbytes[p])} any more; the "
                           "greedy rule fuses every single-user producer without weighing "
                           "costs")
                self.log("fuse", True, "single-user",
                         f"fused {names[0]} into {names[1]}: {names[0]} has one user and its "
                         f"{fmt_bytes(ix.nbytes[p])} result is the largest left to keep out of "
                         f"memory — {verdict}", nodes=names,
                         members=[res], removed=before,
                         numbers={"time_unfused_s": t_unfused, "time_fused_s": t_fused,
                                  "benefit_s": t_unfused - t_fused,
                                  "bytes_saved": ix.nbytes[p]})
                return
            r = res
        self.log("fuse", False, r.code, f"kept {names[0]} separate from {names[1]}: "
                 f"{r.message}", nodes=names)

"""The planner's replay, fast enough for a slider over 200,000 decisions (no Dash here).

:func:`workbench.planner.plan.replay` rebuilds the groups after the first ``k`` decisions from
scratch, scanning every group at every step: fine for a sample, minutes at step 100,000 of a
training step. :class:`ReplayIndex` replays the log once, in the same way (the same groups in
the same order), keeping about :data:`SNAPSHOTS` states along the way (every
:data:`SNAPSHOT_EVERY` decisions at least), so that any step is one stored state plus a few
thousand decisions away. It also answers what the explain panel
asks: the next taken (or refused) decision, the decisions of one reason, and what a decision
replaced and made.
"""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass

from workbench.ir.graph import Graph

#: decisions between two stored states (at least; a long log keeps about 50 states)
SNAPSHOT_EVERY = 2000
SNAPSHOTS = 50


class _State:
    """Groups as an insertion-ordered dict of member sets; the groups of each node are indexed
    only when a decision needs them (one without ``removed``)."""

    def __init__(self, sets):
        self.sets = dict.fromkeys(sets)
        self.of: dict[str, set] | None = None

    def copy(self) -> "_State":
        return _State(self.sets)

    def _index(self) -> dict:
        if self.of is None:
            self.of = {}
            for s in self.sets:
                for n in s:
                    self.of.setdefault(n, set()).add(s)
        return self.of

    def remove(self, s) -> None:
        del self.sets[s]
        if self.of is not None:
            for n in s:
                self.of[n].discard(s)

    def add(self, s) -> None:
        self.sets[s] = None
        if self.of is not None:
            for n in s:
                self.of.setdefault(n, set()).add(s)

    def apply(self, d) -> None:
        """One decision, as :func:`~workbench.planner.plan.replay` applies it."""
        if not d.fused or not d.members:
            return
        new = [frozenset(m) for m in d.members]
        if d.removed:
            for s in {frozenset(m) for m in d.removed}:
                if s in self.sets:
                    self.remove(s)
        else:
            union = frozenset().union(*new)
            of = self._index()
            gone = {s for n in union for s in of.get(n, ()) if s <= union}
            for s in gone:
                self.remove(s)
        for s in new:
            if s not in self.sets:
                self.add(s)


@dataclass(frozen=True)
class StepChange:
    """What decision ``step`` (1-based, as the log numbers them) did: the groups it replaced
    (``before``) and those it made (``after``), as member sets; both empty when refused."""

    step: int
    before: tuple
    after: tuple


class ReplayIndex:
    """Every step of a plan's decision log, on demand (see the module docstring).

    Parameters
    ----------
    plan : Plan
    graph : Graph
        The graph the plan is for.
    """

    def __init__(self, plan, graph: Graph):
        from workbench.planner.plan import is_source

        self.decisions = plan.decisions
        start = [frozenset([n]) for n in graph.topo_order if not is_source(graph, n)]
        state = _State(start)
        self.every = max(SNAPSHOT_EVERY, len(self.decisions) // SNAPSHOTS + 1)
        self._snaps = [tuple(state.sets)]
        for k, d in enumerate(self.decisions, 1):
            state.apply(d)
            if k % self.every == 0:
                self._snaps.append(tuple(state.sets))
        self.taken = [k for k, d in enumerate(self.decisions, 1) if d.fused]
        self.refused = [k for k, d in enumerate(self.decisions, 1) if not d.fused]
        self.reasons = Counter(d.reason for d in self.decisions)

    def __len__(self) -> int:
        return len(self.decisions)

    def nbytes(self) -> int:
        """An estimate of the bytes it holds (for the app's bounded caches): 96 bytes a group
        of each stored state, 64 a decision for the step lists."""
        return 96 * sum(len(s) for s in self._snaps) + 64 * len(self.decisions)

    def groups_at(self, step: int) -> list[frozenset]:
        """The groups after the first ``step`` decisions (every op alone at 0), in the order
        :func:`~workbench.planner.plan.replay` gives them."""
        step = max(0, min(int(step), len(self.decisions)))
        k = step // self.every
        if step % self.every == 0:
            return list(self._snaps[k])
        state = _State(self._snaps[k])
        for d in self.decisions[k * self.every:step]:
            state.apply(d)
        return list(state.sets)

    def change(self, step: int) -> StepChange:
        """What decision ``step`` replaced and made (see :class:`StepChange`)."""
        if not 1 <= step <= len(self.decisions):
            return StepChange(step, (), ())
        d = self.decisions[step - 1]
        if not d.fused or not d.members:
            return StepChange(step, (), ())
        after = tuple(frozenset(m) for m in d.members)
        if d.removed:
            before = tuple(frozenset(m) for m in d.removed)
        else:
            union = frozenset().union(*after)
            before = tuple(s for s in self.groups_at(step - 1) if s <= union)
        return StepChange(step, before, after)

    def matching(self, taken: bool | None = None, reason: str | None = None) -> list[int]:
        """The steps (1-based) of the decisions that were taken (``True``), refused
        (``False``) or either (None), of ``reason`` when given."""
        base = (self.taken if taken else self.refused) if taken is not None else range(
            1, len(self.decisions) + 1)
        if not reason:
            return list(base)
        return [k for k in base if self.decisions[k - 1].reason == reason]

    def next_step(self, current: int, forward: bool = True, taken: bool | None = True,
                  reason: str | None = None) -> int | None:
        """The nearest matching step after (or, ``forward=False``, before) ``current``."""
        steps = self.matching(taken, reason)
        if forward:
            i = bisect.bisect_right(steps, current)
            return steps[i] if i < len(steps) else None
        i = bisect.bisect_left(steps, current)
        return steps[i - 1] if i > 0 else None

"""What-if: plan again with the cost model's knobs turned, and say what changed.

:func:`what_if` plans a graph on a device profile and on the same profile with knobs set
(:func:`~workbench.costmodel.knobs.apply_knobs`), and returns both plans, the decisions that
flipped, the groups that changed (a :class:`~workbench.planner.diff.PlanDiff` costed on the
knobbed profile) and the predicted totals before and after. :func:`knob_sweep` does it for a
series of values of one knob — the data of the teaching plot "at what launch overhead does this
chain stop being worth fusing?": at each value, the plan's predicted time, the unfused
baseline's, the kernel count, whether the plan changed from the previous value and which
decisions flipped against the first. The app, ``workbench plan --set`` and ``--sweep`` and the
lessons all call these two functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.costmodel.devices import get_device
from workbench.costmodel.knobs import apply_knobs, get_knob
from workbench.costmodel.model import plan_cost
from workbench.ir.graph import Graph
from workbench.planner.diff import PlanDiff, diff_plans, flipped_decisions
from workbench.planner.heuristics import plan_graph
from workbench.planner.plan import Constraints, Plan


@dataclass(frozen=True)
class WhatIf:
    """A plan before and after knobs were set.

    Attributes
    ----------
    settings : dict
        The knobs set (name -> value).
    base_device, device : str
        The profile before, and with the knobs (``h100+launch_overhead_s=5e-06``).
    base_plan, plan : Plan
        The policy's plan on each profile.
    before_s, after_s : float
        Predicted per-call time of ``base_plan`` on the base profile, and of ``plan`` on the
        knobbed one.
    old_plan_after_s : float
        ``base_plan`` costed on the knobbed profile: what the knobs alone change, without
        re-planning (``after_s - old_plan_after_s`` is what re-planning gains).
    unfused_before_s, unfused_after_s : float
        The unfused baseline on each profile.
    flips : tuple of Flip
        Decisions taken on one profile and refused on the other.
    diff : PlanDiff
        ``base_plan`` (A) against ``plan`` (B), both costed on the knobbed profile.
    """

    settings: dict
    base_device: str
    device: str
    base_plan: Plan
    plan: Plan
    before_s: float
    after_s: float
    old_plan_after_s: float
    unfused_before_s: float
    unfused_after_s: float
    flips: tuple
    diff: PlanDiff

    @property
    def changed_groups(self) -> tuple[str, ...]:
        """Ids of the new plan's groups that the old plan does not have."""
        return self.diff.only_b

    def to_json(self) -> dict:
        return {"settings": dict(self.settings), "base_device": self.base_device,
                "device": self.device, "before_s": self.before_s, "after_s": self.after_s,
                "old_plan_after_s": self.old_plan_after_s,
                "unfused_before_s": self.unfused_before_s,
                "unfused_after_s": self.unfused_after_s,
                "kernels_before": self.diff.kernels_a, "kernels_after": self.diff.kernels_b,
                "flips": [f.to_json() for f in self.flips],
                "changed_groups": list(self.changed_groups), "diff": self.diff.to_json()}


def describe_groups(plan: Plan, group_ids, limit: int = 3) -> str:
    """Groups of ``plan`` by their ops, for a sentence: ``g4 (scores, broadcast.2,
    scores_scaled) and g5 (row, col, causal and 4 more)``. Group ids are the plan's own (two
    plans number their groups alike), so the ops say which group is meant."""
    parts = []
    for gid in group_ids:
        nodes = plan.group(gid).nodes
        more = f" and {len(nodes) - limit} more" if len(nodes) > limit else ""
        parts.append(f"{gid} ({', '.join(nodes[:limit])}{more})")
    if len(parts) <= 1:
        return "".join(parts) or "none"
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def what_if(graph: Graph, settings: dict, policy: str = "priority", device="cpu",
            constraints: Constraints | None = None, base_plan: Plan | None = None) -> WhatIf:
    """Plan ``graph`` with ``policy`` on ``device`` and on ``device`` with ``settings``.

    Parameters
    ----------
    graph : Graph
    settings : dict of str to number
        Knob name -> value (:data:`~workbench.costmodel.knobs.KNOBS`); may be empty.
    policy : str
    device : str or DeviceProfile
        The base profile (itself possibly knobbed).
    constraints : Constraints, optional
        Forbidden pairs and pins, honoured on both sides.
    base_plan : Plan, optional
        The plan on the base profile when the caller has it (saves planning it again).

    Returns
    -------
    WhatIf

    Raises
    ------
    InputError
        For an unknown knob, a bad value, a knob the profile lacks, an unknown policy or device.
    """
    base = get_device(device)
    knobbed = apply_knobs(base, settings)
    a = base_plan if base_plan is not None else plan_graph(graph, policy, base, constraints)
    b = plan_graph(graph, policy, knobbed, constraints) if settings else a
    cost_a, cost_b = plan_cost(graph, a, base), plan_cost(graph, b, knobbed)
    old_after = plan_cost(graph, a, knobbed)
    diff = diff_plans(graph, a, b, device=knobbed, a_label=f"{policy} on {base.name}",
                      b_label=f"{policy} on {knobbed.name}")
    return WhatIf(dict(settings), base.name, knobbed.name, a, b, cost_a.total.predicted_s,
                  cost_b.total.predicted_s, old_after.total.predicted_s,
                  cost_a.unfused_total.predicted_s, cost_b.unfused_total.predicted_s,
                  flipped_decisions(a, b), diff)


@dataclass(frozen=True)
class SweepPoint:
    """The plan at one value of a swept knob.

    Attributes
    ----------
    value : float
    predicted_s, unfused_s : float
        Predicted per-call time of the plan and of the unfused baseline at this value.
    kernels : int
        Per-call kernels of the plan.
    plan_fingerprint : str
    changed : bool
        The grouping differs from the previous value's (False for the first).
    flips : tuple of Flip
        Decisions flipped against the first value's plan.
    """

    value: float
    predicted_s: float
    unfused_s: float
    kernels: int
    plan_fingerprint: str
    changed: bool
    flips: tuple

    @property
    def speedup(self) -> float:
        """Unfused over fused predicted time."""
        return self.unfused_s / self.predicted_s if self.predicted_s else 1.0

    def to_json(self) -> dict:
        return {"value": self.value, "predicted_s": self.predicted_s,
                "unfused_s": self.unfused_s, "speedup": self.speedup,
                "kernels": self.kernels, "plan_fingerprint": self.plan_fingerprint,
                "changed": self.changed, "flips": [f.to_json() for f in self.flips]}


def knob_sweep(graph: Graph, knob: str, values, policy: str = "priority", device="cpu",
               constraints: Constraints | None = None, settings: dict | None = None
               ) -> list[SweepPoint]:
    """Plan ``graph`` at each value of one knob.

    Parameters
    ----------
    graph : Graph
    knob : str
        A knob name (:data:`~workbench.costmodel.knobs.KNOB_NAMES`).
    values : iterable of number
        In the order to plan them (the plot's x axis).
    policy, device, constraints
        As :func:`what_if`.
    settings : dict, optional
        Other knobs held fixed during the sweep.

    Returns
    -------
    list of SweepPoint

    Raises
    ------
    InputError
        For an unknown knob or a bad value (before anything is planned).
    """
    name = get_knob(knob).name
    base = apply_knobs(get_device(device), dict(settings or {}))
    profiles = [apply_knobs(base, {name: v}) for v in values]   # every value checked first
    points, first, prev = [], None, None
    for value, dev in zip(values, profiles):
        plan = plan_graph(graph, policy, dev, constraints)
        cost = plan_cost(graph, plan, dev)
        first = first or plan
        points.append(SweepPoint(
            float(value), cost.total.predicted_s, cost.unfused_total.predicted_s,
            sum(1 for g in plan.groups if g.role == "call"), plan.fingerprint,
            prev is not None and plan.fingerprint != prev.fingerprint,
            flipped_decisions(first, plan)))
        prev = plan
    return points

"""Plan diffs: two plans of one graph side by side, as data.

Groups are matched by their member sets: a group of A with exactly the members of a group of B
is in *both*; the rest are *only in A* or *only in B*. The unmatched groups fall into
*differences*: the connected pieces of the graph whose nodes the two plans group differently (a
group of A and a group of B are in one difference when they share a node), so that each
difference covers the same nodes on both sides and its costs compare like with like. Each
difference carries the predicted time of its A groups and of its B groups on one device (the
cost model, :func:`~workbench.costmodel.model.group_cost`), and, when the plans were profiled,
their measured times; the nodes it covers are *moved* nodes, each with its group on either side.

:func:`flipped_decisions` compares two decision logs (one policy on two device profiles, as the
what-if knobs make them): a decision about the same nodes taken on one side and refused on the
other has *flipped*.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from workbench.errors import PlanError
from workbench.ir.graph import Graph
from workbench.costmodel.model import plan_cost
from workbench.planner.plan import Plan


@dataclass(frozen=True)
class Difference:
    """One piece of the graph the two plans group differently.

    Attributes
    ----------
    a_groups, b_groups : tuple of str
        Group ids of plan A and plan B covering it (launch order).
    nodes : tuple of str
        The nodes they cover, in topological order.
    predicted_a_s, predicted_b_s : float
        Predicted seconds of those kernels of A and of B (one device).
    measured_a_s, measured_b_s : float or None
        Measured seconds (the kernels' median times), when both plans were profiled.
    """

    a_groups: tuple[str, ...]
    b_groups: tuple[str, ...]
    nodes: tuple[str, ...]
    predicted_a_s: float
    predicted_b_s: float
    measured_a_s: float | None = None
    measured_b_s: float | None = None

    @property
    def predicted_delta_s(self) -> float:
        """B minus A, predicted: negative when B is predicted faster."""
        return self.predicted_b_s - self.predicted_a_s

    @property
    def measured_delta_s(self) -> float | None:
        """B minus A, measured; None unless both sides were measured."""
        if self.measured_a_s is None or self.measured_b_s is None:
            return None
        return self.measured_b_s - self.measured_a_s

    def to_json(self) -> dict:
        return {"a_groups": list(self.a_groups), "b_groups": list(self.b_groups),
                "nodes": list(self.nodes), "predicted_a_s": self.predicted_a_s,
                "predicted_b_s": self.predicted_b_s,
                "predicted_delta_s": self.predicted_delta_s,
                "measured_a_s": self.measured_a_s, "measured_b_s": self.measured_b_s,
                "measured_delta_s": self.measured_delta_s}


@dataclass(frozen=True)
class Moved:
    """A node the two plans put in different groups: its group in A and in B (the group that
    writes it, or else first computes it)."""

    node: str
    a_group: str
    b_group: str

    def to_json(self) -> dict:
        return {"node": self.node, "a_group": self.a_group, "b_group": self.b_group}


@dataclass(frozen=True)
class PlanDiff:
    """Two plans of one graph compared (see the module notes).

    Attributes
    ----------
    a_label, b_label : str
        What the sides are (a policy's name, a plan file).
    graph : str
    device : str
        The device profile both sides are costed on.
    both : tuple of (str, str)
        Matched groups: (A's id, B's id).
    only_a, only_b : tuple of str
        Group ids in one plan only.
    differences : tuple of Difference
        In the order of their first node.
    moved : tuple of Moved
        Every node in a difference, in topological order.
    kernels_a, kernels_b : int
        Per-call kernels of each plan.
    predicted_a_s, predicted_b_s : float
        Predicted per-call totals.
    measured_a_s, measured_b_s : float or None
        Measured per-call totals (the sum of the kernels' medians), when profiled.
    """

    a_label: str
    b_label: str
    graph: str
    device: str
    both: tuple
    only_a: tuple
    only_b: tuple
    differences: tuple
    moved: tuple
    kernels_a: int
    kernels_b: int
    predicted_a_s: float
    predicted_b_s: float
    measured_a_s: float | None = None
    measured_b_s: float | None = None

    @property
    def same(self) -> bool:
        """True when the plans group every node alike."""
        return not self.differences

    def to_json(self) -> dict:
        return {"a": self.a_label, "b": self.b_label, "graph": self.graph,
                "device": self.device, "same": self.same,
                "both": [list(p) for p in self.both], "only_a": list(self.only_a),
                "only_b": list(self.only_b),
                "differences": [d.to_json() for d in self.differences],
                "moved": [m.to_json() for m in self.moved],
                "kernels_a": self.kernels_a, "kernels_b": self.kernels_b,
                "predicted_a_s": self.predicted_a_s, "predicted_b_s": self.predicted_b_s,
                "measured_a_s": self.measured_a_s, "measured_b_s": self.measured_b_s}


def diff_plans(graph: Graph, a: Plan, b: Plan, *, device=None, a_label: str | None = None,
               b_label: str | None = None, measured_a: dict | None = None,
               measured_b: dict | None = None) -> PlanDiff:
    """Compare plans ``a`` and ``b`` of ``graph``.

    Parameters
    ----------
    graph : Graph
    a, b : Plan
        Plans of ``graph``.
    device : str or DeviceProfile, optional
        The profile both are costed on (default: A's).
    a_label, b_label : str, optional
        Names of the sides (default: each plan's policy).
    measured_a, measured_b : dict of str to float, optional
        Group id -> measured seconds (a profile report's kernel medians), per plan.

    Returns
    -------
    PlanDiff

    Raises
    ------
    PlanError
        If either plan is for another graph.
    InputError
        For an unknown device.
    """
    for side, plan in (("A", a), ("B", b)):
        if plan.graph_fingerprint != graph.fingerprint:
            raise PlanError(f"plan {side} ({plan.policy}) is for graph {plan.graph_name!r} "
                            f"({plan.graph_fingerprint}), not for {graph.name!r} "
                            f"({graph.fingerprint})")
    dev = device if device is not None else a.device
    cost_a, cost_b = plan_cost(graph, a, dev), plan_cost(graph, b, dev)
    sets_b = {frozenset(g.nodes): g.id for g in b.groups}
    both = tuple((g.id, sets_b[frozenset(g.nodes)]) for g in a.groups
                 if frozenset(g.nodes) in sets_b)
    matched_a, matched_b = {p[0] for p in both}, {p[1] for p in both}
    only_a = tuple(g.id for g in a.groups if g.id not in matched_a)
    only_b = tuple(g.id for g in b.groups if g.id not in matched_b)
    pieces = _pieces(graph, a, b, only_a, only_b)
    diffs = tuple(_difference(graph, a, b, ga, gb, cost_a, cost_b, measured_a, measured_b)
                  for ga, gb in pieces)
    order = {n: i for i, n in enumerate(graph.topo_order)}
    moved_nodes = sorted({n for d in diffs for n in d.nodes}, key=order.__getitem__)
    moved = tuple(Moved(n, a.group_of(n).id, b.group_of(n).id) for n in moved_nodes)
    return PlanDiff(a_label or a.policy, b_label or b.policy, graph.name, cost_a.device, both,
                    only_a, only_b, diffs, moved, _calls(a), _calls(b),
                    cost_a.total.predicted_s, cost_b.total.predicted_s,
                    _measured_total(a, measured_a), _measured_total(b, measured_b))


def _calls(plan: Plan) -> int:
    return sum(1 for g in plan.groups if g.role == "call")


def _pieces(graph, a, b, only_a, only_b):
    """Connected pieces of the unmatched groups (A's and B's sharing a node are joined)."""
    g = nx.Graph()
    by_node: dict[str, list] = {}
    for side, plan, ids in (("a", a, only_a), ("b", b, only_b)):
        for gid in ids:
            g.add_node((side, gid))
            for n in plan.group(gid).nodes:
                by_node.setdefault(n, []).append((side, gid))
    for holders in by_node.values():
        for other in holders[1:]:
            g.add_edge(holders[0], other)
    rank_a = {gr.id: i for i, gr in enumerate(a.groups)}
    rank_b = {gr.id: i for i, gr in enumerate(b.groups)}
    out = []
    for comp in nx.connected_components(g):
        ga = tuple(sorted((x for s, x in comp if s == "a"), key=rank_a.__getitem__))
        gb = tuple(sorted((x for s, x in comp if s == "b"), key=rank_b.__getitem__))
        out.append((ga, gb))
    order = {n: i for i, n in enumerate(graph.topo_order)}

    def first(piece):
        ga, gb = piece
        nodes = [n for gid in ga for n in a.group(gid).nodes]
        nodes += [n for gid in gb for n in b.group(gid).nodes]
        return min(order[n] for n in nodes)
    return sorted(out, key=first)


def _difference(graph, a, b, ga, gb, cost_a, cost_b, measured_a, measured_b) -> Difference:
    order = {n: i for i, n in enumerate(graph.topo_order)}
    nodes = {n for gid in ga for n in a.group(gid).nodes}
    nodes |= {n for gid in gb for n in b.group(gid).nodes}
    return Difference(ga, gb, tuple(sorted(nodes, key=order.__getitem__)),
                      sum(cost_a.groups[g].predicted_s for g in ga if g not in cost_a.roles),
                      sum(cost_b.groups[g].predicted_s for g in gb if g not in cost_b.roles),
                      _measured_sum(ga, measured_a, cost_a.roles),
                      _measured_sum(gb, measured_b, cost_b.roles))


def _measured_sum(groups, measured, roles):
    if measured is None:
        return None
    calls = [g for g in groups if g not in roles]
    if any(measured.get(g) is None for g in calls):
        return None
    return sum(measured[g] for g in calls)


def _measured_total(plan, measured):
    if measured is None:
        return None
    calls = [g.id for g in plan.groups if g.role == "call"]
    if any(measured.get(g) is None for g in calls):
        return None
    return sum(measured[g] for g in calls)


# ----- decisions that flipped -------------------------------------------------------------------

@dataclass(frozen=True)
class Flip:
    """A decision about the same nodes that one plan took and the other refused.

    Attributes
    ----------
    action : str
        ``fuse``, ``sibling``, ``pattern`` ...
    nodes : tuple of str
        The nodes it concerns (producer first).
    fused_a, fused_b : bool
    message_a, message_b : str
        Each log's sentence.
    step_a, step_b : int
        Positions in the two logs.
    """

    action: str
    nodes: tuple[str, ...]
    fused_a: bool
    fused_b: bool
    message_a: str
    message_b: str
    step_a: int
    step_b: int

    def to_json(self) -> dict:
        return {"action": self.action, "nodes": list(self.nodes), "fused_a": self.fused_a,
                "fused_b": self.fused_b, "message_a": self.message_a,
                "message_b": self.message_b, "step_a": self.step_a, "step_b": self.step_b}


def flipped_decisions(a: Plan, b: Plan) -> tuple[Flip, ...]:
    """Decisions taken in one plan's log and refused in the other's, about the same step.

    Two decisions are about the same step when they have the same action and the same nodes
    (the producer and the consumers it was weighed against), or, failing an exact match, the
    same action and the same first node (the producer). Edits and the dead-code record are not
    compared.

    Returns
    -------
    tuple of Flip
        In the order of A's log.
    """
    def usable(d):
        return d.action not in ("edit", "dead") and d.nodes

    exact, first = {}, {}
    for d in b.decisions:
        if usable(d):
            exact.setdefault((d.action, d.nodes), d)
            first.setdefault((d.action, d.nodes[0]), d)
    flips, seen = [], set()
    for d in a.decisions:
        if not usable(d):
            continue
        other = exact.get((d.action, d.nodes)) or first.get((d.action, d.nodes[0]))
        if other is None or other.fused == d.fused or other.step in seen:
            continue
        seen.add(other.step)
        flips.append(Flip(d.action, d.nodes, d.fused, other.fused, d.message, other.message,
                          d.step, other.step))
    return tuple(flips)

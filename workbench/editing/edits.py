"""User edits of a plan, as records, and :func:`apply_edit` / :func:`apply_edits`.

An edit names nodes (or groups, by their plan id ``g3``) and produces a new plan; the old plan is
never changed, and an illegal edit raises :class:`~workbench.errors.LegalityError` with the
checker's reason code and sentence (the same checker the planner uses,
:func:`workbench.planner.legality.check_group`). Each applied edit is appended to the new plan's
decision log (``action="edit"``) with the full membership of the groups it made, so that
:func:`~workbench.planner.plan.replay` shows planner and user steps alike.

The edits:

``Merge(nodes)``    the groups holding these nodes (or these groups) become one kernel.
``Split(node)``     the group holding ``node`` becomes one kernel per op.
``Move(node, to)``  ``node`` leaves its group for the group ``to`` (a group id or a node in it).
``Forbid(a, b)``    ``a`` and ``b`` may never share a kernel (kept when re-planning); a group
                    holding both is split.
``Pin(node)``       the group holding ``node`` is kept exactly as it is when re-planning.
``Reject(node)``    the planner's group holding ``node`` is rejected: its ops become single-op
                    kernels, and re-planning will not fuse them together again.
``Reset()``         back to the planner's plan, without constraints.
``Replan()``        plan again with the current constraints (forbids and pins honoured).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations

from workbench.errors import CycleError, LegalityError, PlanError
from workbench.ir.attrs import Attrs
from workbench.ir.graph import Graph
from workbench.costmodel.model import group_cost
from workbench.ir.index import graph_index
from workbench.planner.legality import check_group
from workbench.planner.plan import Constraints, Decision, Plan, is_source, make_plan


@dataclass(frozen=True)
class Merge:
    """Fuse the groups holding ``nodes`` (node ids or group ids) into one kernel."""

    nodes: tuple[str, ...]

    def __post_init__(self):
        object.__setattr__(self, "nodes", tuple(self.nodes))


@dataclass(frozen=True)
class Split:
    """Split the group holding ``node`` into single-op kernels."""

    node: str


@dataclass(frozen=True)
class Move:
    """Move ``node`` from its group into the group ``to`` (a group id or a node id)."""

    node: str
    to: str


@dataclass(frozen=True)
class Forbid:
    """Never fuse ``a`` with ``b``."""

    a: str
    b: str


@dataclass(frozen=True)
class Pin:
    """Keep the group holding ``node`` as it is when re-planning."""

    node: str


@dataclass(frozen=True)
class Reject:
    """Reject the group holding ``node``: single-op kernels, not to be fused again."""

    node: str


@dataclass(frozen=True)
class Reset:
    """Back to the planner's plan with no constraints."""


@dataclass(frozen=True)
class Replan:
    """Plan again, honouring the current forbids and pins."""


EDITS = {"merge": Merge, "split": Split, "move": Move, "forbid": Forbid, "pin": Pin,
         "reject": Reject, "reset": Reset, "replan": Replan}
_GROUP_ID = re.compile(r"^g\d+$")


def edit_to_json(edit) -> dict:
    """An edit as a JSON-ready dict: ``{"edit": "merge", "nodes": [...]}``."""
    name = next(k for k, v in EDITS.items() if isinstance(edit, v))
    d = {"edit": name}
    for f in edit.__dataclass_fields__:
        v = getattr(edit, f)
        d[f] = list(v) if isinstance(v, tuple) else v
    return d


def edit_from_json(doc: dict):
    """The edit record of :func:`edit_to_json`'s dict.

    Raises
    ------
    PlanError
        If the dict is not a known edit.
    """
    try:
        cls = EDITS[doc["edit"]]
        return cls(**{k: v for k, v in doc.items() if k != "edit"})
    except (KeyError, TypeError) as exc:
        raise PlanError(f"not a plan edit: {doc!r:.120} ({exc})") from None


# ----- resolving names -------------------------------------------------------------------------

def _home(graph: Graph, plan: Plan, ref: str):
    """The group a reference names: a group id, or the group that writes a node."""
    if _GROUP_ID.match(ref) and ref not in graph:
        return plan.group(ref)
    if ref not in graph:
        raise PlanError(f"no node or group {ref!r} in the plan for graph {graph.name!r}",
                        node=ref)
    if is_source(graph, ref):
        raise PlanError(f"{ref} is a {graph.node(ref).op}, an input of kernels that belongs to "
                        "no group", node=ref)
    return plan.group_of(ref)


def _not_pinned(*groups) -> None:
    for g in groups:
        if g.pinned:
            raise LegalityError(f"group {g.id} is pinned; unpin it (reset) before editing it",
                                reason="pinned", node=g.nodes[0])


# ----- building the edited plan ----------------------------------------------------------------

def _rebuild(graph: Graph, plan: Plan, remove, add, edit_name: str, message: str, nodes,
             constraints: Constraints | None = None, check=True) -> Plan:
    """The plan with groups ``remove`` replaced by member sets ``add`` (checked)."""
    cons = constraints or plan.constraints
    add = [frozenset(s) for s in add if s]
    if check:
        for s in add:
            r = check_group(graph, s, plan.device, cons)
            if r is not None:
                raise r.error()
    gone = {g.id for g in remove}
    kept = [g for g in plan.groups if g.id not in gone]
    sets = add + [frozenset(g.nodes) for g in kept]
    patterns = {frozenset(g.nodes): g.pattern for g in kept if g.pattern}
    pinned = [frozenset(g.nodes) for g in kept if g.pinned]
    pinned += [frozenset(p) for p in cons.pinned if frozenset(p) in set(sets)]
    cost = [group_cost(graph, s, plan.device).predicted_s for s in add]
    step = Decision(len(plan.decisions), "edit", True, edit_name, message, tuple(nodes),
                    tuple(graph_index(graph).names(graph_index(graph).pos[n] for n in s)
                          for s in add),
                    Attrs(time_fused_s=float(f"{sum(cost):.6g}")),
                    tuple(g.nodes for g in remove))
    try:
        return make_plan(graph, sets, policy=plan.policy, device=plan.device,
                         decisions=plan.decisions + (step,), constraints=cons,
                         patterns=patterns, pinned=pinned)
    except CycleError as exc:
        raise LegalityError(f"{edit_name} refused: {exc.message}", reason="cycle") from None


def _singletons(graph: Graph, group) -> list[frozenset]:
    return [frozenset([n]) for n in group.nodes if not is_source(graph, n)]


def apply_edit(graph: Graph, plan: Plan, edit) -> Plan:
    """Apply one edit; returns the new plan (``plan`` itself is never changed).

    Raises
    ------
    LegalityError
        If the result breaks a legality rule (reason code and sentence from the checker), or
        would make the groups cyclic; or the edit touches a pinned group.
    PlanError
        If the edit names an unknown node or group, or a parameter/constant, or is not an edit.
    """
    if plan.graph_fingerprint != graph.fingerprint:
        raise PlanError(f"the plan is for graph {plan.graph_name!r}, not {graph.name!r}")
    handler = _HANDLERS.get(type(edit))
    if handler is None:
        raise PlanError(f"not a plan edit: {edit!r:.120}")
    return handler(graph, plan, edit)


def apply_edits(graph: Graph, plan: Plan, edits) -> Plan:
    """Apply edits in order; if one is illegal, raise and leave ``plan`` as it was."""
    for e in edits:
        plan = apply_edit(graph, plan, e)
    return plan


def _merge(graph, plan, e: Merge) -> Plan:
    groups = []
    for ref in e.nodes:
        g = _home(graph, plan, ref)
        if g not in groups:
            groups.append(g)
    if len(groups) < 2:
        return plan
    _not_pinned(*groups)
    union = frozenset().union(*(g.nodes for g in groups))
    ids = ", ".join(g.id for g in groups)
    return _rebuild(graph, plan, groups, [union], "merge",
                    f"you merged {ids} into one kernel of {len(union)} ops", e.nodes)


def _split(graph, plan, e: Split) -> Plan:
    g = _home(graph, plan, e.node)
    if g.size < 2:
        return plan
    _not_pinned(g)
    return _rebuild(graph, plan, [g], _singletons(graph, g), "split",
                    f"you split {g.id} into {g.size} single-op kernels", (e.node,))


def _move(graph, plan, e: Move) -> Plan:
    if e.node not in graph or is_source(graph, e.node):
        raise PlanError(f"move needs an op of the graph to move, not {e.node!r}", node=e.node)
    src, dst = _home(graph, plan, e.node), _home(graph, plan, e.to)
    if src.id == dst.id:
        return plan
    _not_pinned(src, dst)
    rest = frozenset(src.nodes) - {e.node}
    return _rebuild(graph, plan, [src, dst], [rest, frozenset(dst.nodes) | {e.node}], "move",
                    f"you moved {e.node} from {src.id} to {dst.id}", (e.node, e.to))


def _forbid(graph, plan, e: Forbid) -> Plan:
    for n in (e.a, e.b):
        _home(graph, plan, n)
    if e.a == e.b:
        raise PlanError("forbid needs two different ops", node=e.a)
    cons = plan.constraints.with_forbidden(e.a, e.b)
    both = [g for g in plan.groups if e.a in g.nodes and e.b in g.nodes]
    _not_pinned(*both)
    add = [s for g in both for s in _singletons(graph, g)]
    note = f"; {', '.join(g.id for g in both)} split into single ops" if both else ""
    return _rebuild(graph, plan, both, add, "forbid",
                    f"you forbade fusing {e.a} with {e.b}{note}", (e.a, e.b), cons, check=False)


def _pin(graph, plan, e: Pin) -> Plan:
    g = _home(graph, plan, e.node)
    cons = plan.constraints.with_pinned(g.nodes)
    return _rebuild(graph, plan, [g], [frozenset(g.nodes)], "pin",
                    f"you pinned {g.id} ({g.size} ops): re-planning keeps it as it is",
                    (e.node,), cons, check=False)


def _reject(graph, plan, e: Reject) -> Plan:
    g = _home(graph, plan, e.node)
    _not_pinned(g)
    ops = [n for n in g.nodes if not is_source(graph, n)]
    cons = plan.constraints
    for a, b in combinations(ops, 2):
        cons = cons.with_forbidden(a, b)
    return _rebuild(graph, plan, [g], _singletons(graph, g), "reject",
                    f"you rejected {g.id}: its {len(ops)} ops run as single kernels and will "
                    "not be fused together again", (e.node,), cons, check=False)


def _reset(graph, plan, e) -> Plan:
    from workbench.planner.heuristics import POLICIES, plan_graph

    policy = plan.policy if plan.policy in POLICIES else "priority"
    return plan_graph(graph, policy, plan.device)


def _replan(graph, plan, e) -> Plan:
    from workbench.planner.heuristics import POLICIES, plan_graph

    policy = plan.policy if plan.policy in POLICIES else "priority"
    return plan_graph(graph, policy, plan.device, plan.constraints)


_HANDLERS = {Merge: _merge, Split: _split, Move: _move, Forbid: _forbid, Pin: _pin,
             Reject: _reject, Reset: _reset, Replan: _replan}

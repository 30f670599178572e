"""Plan variants: the one-step changes autotuning tries from a plan.

From a plan, :func:`variants` makes every legal plan one change away, each costed by the cost
model (so that tuning measures the most promising first):

``merge``        a group fused into its only consumer group (vertical fusion);
``duplicate``    a group without a contraction or reduction copied into each of its several
                 consumer groups (the duplication priority fusion weighs);
``flip``         either of the two above where the planner's log refused exactly that step: the
                 description names the decision and its reason;
``split``        a group of several ops as one kernel per op;
``peel``         the first or the last op of a group of three or more taken out as its own
                 kernel (a prologue or an epilogue left unfused);
``unduplicate``  a duplicated producer computed once, in its own kernel, and read by the
                 groups that recomputed it.

Every new group goes through the one legality checker
(:func:`~workbench.planner.legality.check_group`, the user's constraints included) and every
plan through :func:`~workbench.planner.plan.make_plan` (a change that would make the groups
cyclic is dropped). Pinned groups are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.costmodel.model import plan_cost
from workbench.errors import PlanError, WorkbenchError
from workbench.ir.attrs import Attrs
from workbench.planner.legality import check_group
from workbench.planner.plan import Decision, Plan, make_plan


@dataclass(frozen=True)
class Variant:
    """A plan one change away from another.

    Attributes
    ----------
    kind : str
        ``merge``, ``duplicate``, ``flip``, ``split``, ``peel`` or ``unduplicate``.
    description : str
        The change in a sentence (group ids are the base plan's).
    plan : Plan
    predicted_s : float
        The new plan's predicted per-call time.
    nodes : tuple of str
        The nodes the change moves.
    """

    kind: str
    description: str
    plan: Plan
    predicted_s: float
    nodes: tuple = ()


def _consumers(plan: Plan, graph, g) -> list:
    """The groups that read a value ``g`` writes (not ``g`` itself), in plan order."""
    outs = set(g.outputs)
    ids = []
    for other in plan.groups:
        if other.id == g.id:
            continue
        if any(o in outs for n in other.nodes if n not in g.nodes
               for o in graph.node(n).operands):
            ids.append(other)
    return ids


def _refused(plan: Plan) -> dict:
    """Producer node -> the refused ``fuse`` decision about it (the planner's verdict)."""
    out = {}
    for d in plan.decisions:
        if d.action == "fuse" and not d.fused and d.nodes:
            out[d.nodes[0]] = d
    return out


def _build(graph, plan, device, remove, add, kind, text, nodes):
    """The variant replacing groups ``remove`` with member sets ``add``, or None when illegal."""
    add = [frozenset(s) for s in add if s]
    for s in add:
        if len(s) > 1 and check_group(graph, s, device, plan.constraints) is not None:
            return None
    gone = {g.id for g in remove}
    kept = [g for g in plan.groups if g.id not in gone]
    sets = [frozenset(g.nodes) for g in kept] + add
    step = Decision(len(plan.decisions), "tune", True, kind, text, tuple(nodes),
                    tuple(tuple(sorted(s)) for s in add), Attrs(),
                    tuple(g.nodes for g in remove))
    try:
        new = make_plan(graph, sets, policy="tuned", device=plan.device,
                        decisions=plan.decisions + (step,), constraints=plan.constraints,
                        patterns={frozenset(g.nodes): g.pattern for g in kept if g.pattern},
                        pinned=[frozenset(g.nodes) for g in kept if g.pinned])
    except WorkbenchError:   # a cycle, or a value no group provides any more
        return None
    cost = plan_cost(graph, new, device)
    return Variant(kind, text, new, cost.total.predicted_s, tuple(nodes))


def _fusions(graph, plan, device, g, refused):
    consumers = _consumers(plan, graph, g)
    if not consumers or any(c.pinned or c.role != "call" for c in consumers):
        return
    flip = next((refused[n] for n in g.nodes if n in refused), None)
    why = (f" (flips decision {flip.step}, refused as {flip.reason})" if flip else "")
    kind = "flip" if flip else None
    if len(consumers) == 1:
        c = consumers[0]
        yield _build(graph, plan, device, [g, c], [set(g.nodes) | set(c.nodes)],
                     kind or "merge", f"fuse {g.id} into its consumer {c.id}{why}", g.nodes)
    elif g.kind not in ("output", "input"):
        ids = ", ".join(c.id for c in consumers)
        yield _build(graph, plan, device, [g] + consumers,
                     [set(g.nodes) | set(c.nodes) for c in consumers], kind or "duplicate",
                     f"duplicate {g.id} into its {len(consumers)} consumers ({ids}){why}",
                     g.nodes)


def _splits(graph, plan, device, g):
    if g.size < 2:
        return
    yield _build(graph, plan, device, [g], [{n} for n in g.nodes], "split",
                 f"split {g.id} ({g.size} ops) into one kernel per op", g.nodes)
    if g.size >= 3:
        for n, where in ((g.nodes[0], "first"), (g.nodes[-1], "last")):
            rest = set(g.nodes) - {n}
            yield _build(graph, plan, device, [g], [rest, {n}], "peel",
                         f"take the {where} op of {g.id}, {n}, out as its own kernel", (n,))


def _unduplicate(graph, plan, device):
    seen = set()
    for g in plan.groups:
        for d in g.duplicated:
            if d in seen:
                continue
            seen.add(d)
            holders = [h for h in plan.groups if d in h.nodes]
            if any(h.pinned for h in holders):
                continue
            add = [set(h.nodes) - {d} for h in holders] + [{d}]
            yield _build(graph, plan, device, holders, add, "unduplicate",
                         f"compute {d} once, in its own kernel, instead of in "
                         f"{len(holders)} kernels ({', '.join(h.id for h in holders)})", (d,))


def variants(graph, plan: Plan, device=None) -> list[Variant]:
    """Every legal plan one change from ``plan`` (see the module notes), cheapest predicted
    first (ties in the order they were made), without duplicates of one another or of ``plan``.

    Parameters
    ----------
    graph : Graph
    plan : Plan
    device : str or DeviceProfile, optional
        The profile legality and costs use (default the plan's).

    Raises
    ------
    PlanError
        If the plan is for another graph.
    """
    if plan.graph_fingerprint != graph.fingerprint:
        raise PlanError(f"the plan is for graph {plan.graph_name!r}, not {graph.name!r}")
    device = device if device is not None else plan.device
    refused = _refused(plan)
    made = []
    for g in plan.groups:
        if g.pinned or g.role != "call":
            continue
        made += list(_fusions(graph, plan, device, g, refused))
        made += list(_splits(graph, plan, device, g))
    made += list(_unduplicate(graph, plan, device))
    seen, out = {plan.fingerprint}, []
    for v in made:
        if v is not None and v.plan.fingerprint not in seen:
            seen.add(v.plan.fingerprint)
            out.append(v)
    return sorted(out, key=lambda v: v.predicted_s)

"""What the app's callbacks do, without Dash: load, plan, edit, undo, view (tested directly).

Every function takes immutable values (a :class:`~workbench.app.state.Workspace`, a graph) and
returns new ones, or raises a :class:`~workbench.errors.WorkbenchError` whose message the app
shows next to the control that caused it, leaving the old state in place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workbench.app.fmt import plural
from workbench.app.graph_figure import grouping_from_plan, grouping_from_sets
from workbench.app.memo import PerObject
from workbench.app.state import Workspace
from workbench.errors import PlanError, WorkbenchError
from workbench.ir.graph import Graph
from workbench.planner.plan import Plan, replay, xla_plan

#: the planner policy and device profile a new session starts with
DEFAULT_POLICY = "priority"
DEFAULT_DEVICE = "cpu"
#: the policy whose plan ``workbench compare-xla`` compares by default (XLA:CPU's rules)
XLA_POLICY = "xla-cpu"
#: plans the undo history keeps (the oldest go first): a session's memory and the time of each
#: edit stay bounded however long it lasts
MAX_HISTORY = 100


def device_choices() -> tuple[str, ...]:
    """Every device profile of the cost model (``workbench.costmodel.model.DEVICES``, the
    profiles ``workbench devices`` lists)."""
    from workbench.costmodel.model import DEVICES

    return tuple(DEVICES)


def device_options(current: str | None) -> list[dict]:
    """Options of the device dropdown: every profile of the cost model, and ``current`` when it
    is none of them (a knobbed profile after *Use this plan*, ``h100+peak_flops=6.7e+10``),
    labelled as its base profile with knobs. The dropdown clears a value that is not among its
    options, and the cleared value would re-plan the session on no device: the name shown must
    be an option."""
    opts = [{"label": d, "value": d} for d in device_choices()]
    if current and current not in device_choices():
        base, _, knobs = str(current).partition("+")
        knobs = re.sub(r"\+(?=[a-z_])", ", ", knobs)   # not the + of an exponent
        opts.append({"label": f"{base} + knobs ({knobs})"[:120],
                     "value": current})
    return opts


def policies() -> tuple[str, ...]:
    """The planner's policies (``workbench.planner.POLICIES``)."""
    from workbench.planner import POLICIES

    return tuple(POLICIES)


def make_proposal(graph: Graph, policy: str, device: str, constraints=None) -> Plan:
    """The planner's plan for ``graph`` (``workbench.planner.plan_graph``)."""
    from workbench.planner import plan_graph

    return plan_graph(graph, policy=policy, device=device, constraints=constraints)


def open_workspace(graph_key: str, graph: Graph, source: str, policy: str = DEFAULT_POLICY,
                   device: str = DEFAULT_DEVICE, choice: str | None = None,
                   planner=make_proposal) -> Workspace:
    """A fresh workspace for ``graph``: the planner's proposal is the current plan.

    ``planner(graph, policy, device, constraints)`` makes the plan (:func:`make_proposal`, or
    a cached equivalent).

    Raises
    ------
    WorkbenchError
        If the planner refuses the graph.
    """
    plan = planner(graph, policy, device, None)
    return Workspace(graph_key=graph_key, source=source, policy=policy, device=device,
                     proposal=plan, history=(plan,), position=0, layout_plan=plan, choice=choice)


def push(ws: Workspace, plan: Plan, **changes) -> Workspace:
    """``ws`` with ``plan`` as the new current plan (redo history beyond it is dropped; of the
    history, the last :data:`MAX_HISTORY` plans are kept)."""
    history = ws.history[:ws.position + 1] + (plan,)
    dropped = max(0, len(history) - MAX_HISTORY)
    history = history[dropped:]
    return ws.replace(history=history, position=len(history) - 1,
                      dropped=ws.dropped + dropped, **changes)


def replan(ws: Workspace, graph: Graph, policy: str, device: str,
           planner=make_proposal) -> Workspace:
    """Re-run the planner with the current plan's constraints (forbidden pairs, pinned groups).

    The new proposal becomes the current plan (undo returns to the previous one) and the graph
    view is laid out afresh for it.
    """
    plan = planner(graph, policy, device, ws.plan.constraints)
    return push(ws, plan, proposal=plan, policy=policy, device=device, layout_plan=plan)


def apply_user_edit(ws: Workspace, graph: Graph, edit) -> Workspace:
    """Apply one edit record (``workbench.editing``) to the current plan; an edit that
    changes nothing (a split of a one-op group) adds no history step: ``ws`` is returned.

    Raises
    ------
    LegalityError
        With the legality checker's reason; nothing changes.
    """
    from workbench.editing import apply_edit

    plan = apply_edit(graph, ws.plan, edit)
    return ws if plan == ws.plan else push(ws, plan)


def undo(ws: Workspace) -> Workspace:
    """Back to the previous plan; raises :class:`PlanError` if there is none."""
    if ws.position == 0:
        if ws.dropped:
            raise PlanError(f"nothing more to undo: the history keeps the last {MAX_HISTORY} "
                            f"plans ({plural(ws.dropped, 'older one')} let go)")
        raise PlanError("nothing to undo")
    return ws.replace(position=ws.position - 1)


def redo(ws: Workspace) -> Workspace:
    """Forward to the plan undone last; raises :class:`PlanError` if there is none."""
    if ws.position >= len(ws.history) - 1:
        raise PlanError("nothing to redo")
    return ws.replace(position=ws.position + 1)


def reset(ws: Workspace) -> Workspace:
    """Back to the planner's proposal (an undoable step)."""
    if ws.plan is ws.proposal or ws.plan == ws.proposal:
        raise PlanError("the plan already is the planner's proposal")
    return push(ws, ws.proposal)


def fold_graph(graph: Graph):
    """``graph`` with its inference batch norms folded into the weights
    (``workbench.transforms.fold_batch_norms``): (new graph, FoldReport)."""
    from workbench.transforms import fold_batch_norms

    return fold_batch_norms(graph)


def fold_text(report) -> str:
    """What folding did: each batch norm and the op it was folded into, what runs offline."""
    what = ", ".join(f"{f.norm} into {f.conv}" for f in report.folded)
    text = f"folded {what}; the weight and bias computations run once, offline " \
           f"({plural(len(report.offline), 'op')}); choose the graph again to unfold"
    if report.skipped:
        text += "; not folded: " + ", ".join(f"{n} ({r})" for n, r in report.skipped)
    return text


# ----- what the graph view shows -------------------------------------------------------------

@dataclass(frozen=True)
class View:
    """What the canvas draws: groups (dicts for :mod:`.graph_figure`) and a banner line."""

    groups: list
    banner: str
    mode: str  # "plan", "replay" or "xla"
    step: int | None = None


def current_view(ws: Workspace, graph: Graph, step: int | None = None,
                 show_xla: bool = False, replayer=None, agreement: bool = False,
                 xla=None) -> View:
    """The groups to draw: the current plan, a step of the planner's replay, or XLA's grouping.

    Always a view of ``graph``: asked for XLA's grouping of a graph without XLA fusion tags
    (a toggle left on from another graph), it draws the current plan and says why.

    Parameters
    ----------
    step : int, optional
        Draw the groups after the current plan's first ``step`` decisions (the explain slider:
        the planner's, then the user's edits); None, or the number of decisions, draws the
        current plan.
    show_xla : bool
        Draw XLA's own grouping (an optimised HLO module only), each group named by its XLA
        fusion.
    replayer : callable, optional
        ``replayer(step) -> member sets`` (the app's :class:`~workbench.app.replay.ReplayIndex`
        ``.groups_at``); by default :func:`workbench.planner.plan.replay`.
    agreement : bool
        Mark each drawn group as ``both`` (XLA has the same fusion), ``ours`` or ``xla``
        (only one of the two has it): the ``xla`` key of the group dicts.
    xla : Plan, optional
        XLA's grouping (:func:`~workbench.planner.plan.xla_plan`), if already made.
    """
    banner = ""
    tagged = has_xla_grouping(graph)
    if show_xla and tagged:
        xp = xla if xla is not None else xla_plan(graph, ws.device)
        groups = xla_groups(graph, xp, ws.plan if agreement else None)
        return View(groups, f"XLA's own grouping: {plural(xp.num_kernels, 'kernel')}, named "
                    "by XLA's fusions", "xla")
    if show_xla:
        banner = (f"graph {graph.name!r} has no XLA fusion tags (only an optimised module, "
                  "*.after*.hlo, has them): showing the plan")
    n = len(ws.plan.decisions)
    if step is not None and 0 <= step < n:
        sets = (replayer or (lambda k: replay(ws.plan, graph, k)))(step)
        return View(grouping_from_sets(graph, sets),
                    f"Planner replay: step {step} of {n} ({plural(len(sets), 'kernel')})",
                    "replay", step)
    groups = grouping_from_plan(ws.plan, group_marks(ws.plan))
    if agreement and tagged:
        xp = xla if xla is not None else xla_plan(graph, ws.device)
        mark_agreement(groups, {frozenset(g.nodes) for g in xp.groups if g.size > 1}, "ours")
    return View(groups, banner, "plan")


def xla_fusion_name(graph: Graph, nodes) -> str | None:
    """The XLA fusion (``meta['xla_fusion']``) most of ``nodes`` came from, or None."""
    names = [graph.node(n).meta.get("xla_fusion") for n in nodes]
    names = [x for x in names if x]
    return max(set(names), key=names.count) if names else None


def xla_groups(graph: Graph, xp: Plan, ours: Plan | None = None) -> list[dict]:
    """XLA's grouping as drawable groups, each named by XLA's fusion (``name``); with
    ``ours``, each marked ``both`` or ``xla`` (:func:`mark_agreement`)."""
    groups = grouping_from_plan(xp)
    for g in groups:
        name = xla_fusion_name(graph, g["nodes"])
        if name:
            g["name"] = name
    if ours is not None:
        mark_agreement(groups, {frozenset(g.nodes) for g in ours.groups if g.size > 1}, "xla")
    return groups


def mark_agreement(groups: list[dict], other: set, alone: str) -> None:
    """Set each multi-op group's ``xla`` key: ``both`` when ``other`` (member sets of the
    plan compared with) has exactly its members, else ``alone`` (``ours`` or ``xla``)."""
    for g in groups:
        if len(g["nodes"]) > 1:
            g["xla"] = "both" if frozenset(g["nodes"]) in other else alone


def group_marks(plan: Plan) -> dict[str, str]:
    """Group id -> what the user's edits made of it: ``pinned`` (kept as it is when
    re-planning), ``rejected`` (an op of a group the user rejected, now alone), or
    ``kept apart`` (holds an op the user forbade fusing with another)."""
    rejected = {n for d in plan.decisions if d.action == "edit" and d.reason == "reject"
                for m in d.members for n in m}
    forbidden = {n for pair in plan.constraints.forbidden for n in pair}
    marks = {}
    for g in plan.groups:
        if g.pinned:
            marks[g.id] = "pinned"
        elif g.size == 1 and g.nodes[0] in rejected:
            marks[g.id] = "rejected"
        elif forbidden.intersection(g.nodes):
            marks[g.id] = "kept apart"
    return marks


def has_xla_grouping(graph: Graph) -> bool:
    """True for an optimised HLO module (its nodes carry XLA fusion tags); computed once per
    graph object."""
    return _XLA_TAGGED(graph)


_XLA_TAGGED = PerObject(lambda graph: bool(graph.meta.get("has_xla_fusions")) or any(
    "xla_fusion" in n.meta for n in graph.nodes))


#: an absolute file path in a message (its directories are the server's business)
_ABS_PATH = re.compile(r"(?<![\w.~-])~?/(?:[^\s/:'\"<>|]+/)+(?=[^\s/:'\"<>|]+)")
#: the longest message shown (a 200 KB literal echoed in an error is cut)
MAX_MESSAGE = 400


def scrub_paths(text: str) -> str:
    """``text`` with every absolute path shortened to its file name
    (``/srv/models/x.hlo:3:4`` -> ``x.hlo:3:4``), on one line of at most
    :data:`MAX_MESSAGE` characters: what the server shows names no folder of the server."""
    text = _ABS_PATH.sub("", " ".join(str(text).split()))
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "…"


#: the command line's advice on an input past a limit (importers.limits.exceeded), which a
#: browser's user cannot follow: the limits are the server's, set when it was started
_LIMIT_FLAG = re.compile(r"\(raise it with --[a-z0-9-]+\)")
SERVER_LIMIT = "(a limit of this server, set when it was started)"


def error_text(exc: WorkbenchError) -> str:
    """The message the app shows for an error (with the legality reason code when there is
    one), without server paths (:func:`scrub_paths`) and without the command line's flags (an
    input past a limit says the limit is the server's)."""
    reason = getattr(exc, "reason", None)
    text = _LIMIT_FLAG.sub(SERVER_LIMIT, f"{exc} [{reason}]" if reason else str(exc))
    return scrub_paths(text)


# ----- selection and edits ---------------------------------------------------------------------

def selection_nodes(selected_data) -> list[str]:
    """Graph node ids of the canvas selection (``selectedNodeData``): ops, and for a selected
    group box its first member. Parameters and constants are left out; order is kept."""
    out: list[str] = []
    for d in selected_data or ():
        node = d.get("node") if d.get("gid") else None
        node = node or d.get("rep")
        if node and node not in out:
            out.append(node)
    return out


def group_of_node(groups, node: str | None) -> dict | None:
    """The first drawn group containing ``node`` (groups as dicts)."""
    if not node:
        return None
    return next((g for g in groups if node in g["nodes"]), None)


def merge_nodes(plan: Plan, nodes: list[str], rows=()) -> list[str]:
    """The nodes whose groups *Merge* merges: a member of each group of ``rows`` (group ids
    selected in the group table; ids the plan does not have are left out) when that makes
    two or more, else ``nodes`` (the canvas selection)."""
    known = {g.id: g for g in plan.groups}
    picked = [known[r].nodes[0] for r in rows if r in known]
    return picked if len(picked) > 1 else list(nodes)


def make_edit(action: str, plan: Plan, nodes: list[str], selected: str | None,
              target: str | None = None, rows=()):
    """The edit record for a button press, from the selection.

    Parameters
    ----------
    action : str
        ``merge``, ``split``, ``move``, ``forbid``, ``pin``, ``reject``.
    plan : Plan
        The current plan.
    nodes : list of str
        The canvas selection (:func:`selection_nodes`).
    selected : str or None
        A member of the selected group (the group chosen in the list or on the canvas).
    target : str or None
        For ``move``: the id of the group to move into.
    rows : sequence of str
        The group ids selected in the group table; for ``merge``, two or more of them are
        merged instead of the canvas selection's groups (:func:`merge_nodes`).

    Raises
    ------
    PlanError
        If the selection does not fit the action (the message says what to select).
    """
    from workbench import editing

    if action == "merge":
        nodes = merge_nodes(plan, nodes, rows)
        if len({plan.group_of(n).id for n in nodes}) < 2:
            raise PlanError("select nodes of two or more groups to merge (shift-click them on "
                            "the graph, or drag a box with shift held), or two or more rows "
                            "of the group table (ctrl- or shift-click)")
        return editing.Merge(tuple(nodes))
    if action == "forbid":
        if len(nodes) != 2:
            raise PlanError("select exactly two nodes to forbid fusing them")
        return editing.Forbid(nodes[0], nodes[1])
    if action == "move":
        node = nodes[0] if len(nodes) == 1 else None
        if node is None or not target:
            raise PlanError("select one node on the graph and choose the group to move it to")
        return editing.Move(node, target)
    member = selected or (nodes[0] if nodes else None)
    if member is None:
        raise PlanError(f"select a group (in the list or on the graph) to {action}")
    record = {"split": editing.Split, "pin": editing.Pin, "reject": editing.Reject}[action]
    return record(member)


def accept_all(ws: Workspace, graph: Graph) -> Workspace:
    """Accept every group of the current plan: pin each multi-op group not pinned yet."""
    from workbench.editing import Pin, apply_edits

    multi = [g for g in ws.plan.groups if g.size > 1]
    pins = [Pin(g.nodes[0]) for g in multi if not g.pinned]
    if not multi:
        raise PlanError("nothing to accept: every op runs as its own kernel (no group of two "
                        "or more ops)")
    if not pins:
        raise PlanError(f"all {plural(len(multi), 'group')} of two or more ops are already "
                        "pinned")
    return push(ws, apply_edits(graph, ws.plan, pins))


def apply_plan_file(ws: Workspace, graph: Graph, doc: dict) -> Workspace:
    """Make a saved plan (the *Plan JSON* download, ``Plan.to_json()``) the current plan; an
    undoable step.

    Raises
    ------
    PlanError
        If the document is not a plan, or was made for another graph (the message names both).
    """
    from workbench.planner.plan import plan_from_json

    plan = plan_from_json(doc, graph)
    if plan == ws.plan:
        raise PlanError("the uploaded plan is the current plan already")
    return push(ws, plan)


def plan_costs(ws: Workspace, graph: Graph, plan: Plan | None = None):
    """The cost model's breakdown of a plan (the current one by default) on the session's
    device (``workbench.costmodel.model.plan_cost``)."""
    from workbench.costmodel.model import get_device, plan_cost

    return plan_cost(graph, plan or ws.plan, get_device(ws.device))


def offending_path(graph: Graph, members) -> list[str]:
    """A shortest path that leaves the node set ``members`` and comes back into it (why a
    merge of them would make a kernel that depends on itself): the member it leaves, the
    ops outside, the member it re-enters. Empty when there is none."""
    from collections import deque

    inside = set(members)
    prev: dict[str, str] = {}
    queue = deque()
    for m in graph.topo_order:
        if m in inside:
            for u in graph.users(m):
                if u not in inside and u not in prev:
                    prev[u] = m
                    queue.append(u)
    while queue:
        n = queue.popleft()
        for u in graph.users(n):
            if u in inside:
                path = [u, n]
                while path[-1] not in inside:
                    path.append(prev[path[-1]])
                return path[::-1]
            if u not in prev:
                prev[u] = n
                queue.append(u)
    return []


def refusal_marks(graph: Graph, plan: Plan, nodes: list[str], exc) -> dict | None:
    """What the canvas marks for a refused edit: for a merge refused as a cycle, the path out
    of the would-be group and back (``step``: drawing ids); else nothing."""
    from workbench.app.drawing import vertex_ids

    if getattr(exc, "reason", None) != "cycle" or len(nodes) < 2:
        return None
    members = set()
    for n in nodes:
        try:
            members.update(plan.group_of(n).nodes)
        except PlanError:
            return None
    path = offending_path(graph, members)
    vid = vertex_ids(graph)
    return {"step": [vid[n] for n in path if n in vid], "before": [], "after": [],
            "path": path} if path else None


def xla_agreement_text(ws: Workspace, graph: Graph, planner=make_proposal, xla=None) -> str:
    """How far the current plan agrees with XLA's own fusions
    (``planner.compare.compare_with_xla``), saying which plan that is; and, unless it is the
    xla-cpu policy's proposal already, the same for that proposal: the figure
    ``workbench compare-xla`` prints by default.

    ``planner(graph, policy, device, constraints)`` makes the xla-cpu plan (a cache in the app).
    """
    from workbench.planner.compare import compare_with_xla

    a = compare_with_xla(graph, ws.plan)
    edited = "" if ws.plan == ws.proposal else ", with your edits"
    text = (f"Agreement with XLA's fusions (pairs of ops in one kernel) of the current plan "
            f"(policy {ws.plan.policy}{edited}): {a.score_text()}; {len(a.extra_pairs)} pairs "
            f"only this plan fuses, {len(a.missing_pairs)} only XLA fuses.")
    if ws.plan.policy != XLA_POLICY or edited:
        x = compare_with_xla(graph, planner(graph, XLA_POLICY, ws.device, None))
        text += (f" The {XLA_POLICY} policy's plan (what `workbench compare-xla` reports by "
                 f"default): {x.score_text()}.")
    return text

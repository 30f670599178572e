"""What the plan panel says after an edit (no Dash): the edit in the decision log's words, what
undo took away or redo put back, the groups that kept their ops under new ids, and how many
decisions two plans share (the replay slider keeps a step up to there)."""

from __future__ import annotations

from workbench.app.fmt import plural
from workbench.errors import PlanError
from workbench.planner.plan import Plan


#: what the edit log calls each edit (``Decision.reason`` of an ``edit`` decision)
EDIT_NAMES = {"merge": "merge", "split": "split", "move": "move", "forbid": "forbid",
              "pin": "pin", "reject": "reject"}


def common_decisions(old: Plan, new: Plan) -> int:
    """How many first decisions ``old`` and ``new`` share (the replay steps that show the
    same groups in both): an edit appends one to the log, undo takes the last away."""
    a, b = old.decisions, new.decisions
    n = min(len(a), len(b))
    k = 0
    while k < n and (a[k] is b[k] or a[k] == b[k]):
        k += 1
    return k


def renamed_groups(old: Plan, new: Plan) -> list[tuple[str, str]]:
    """``(old id, new id)`` of each group that an edit left as it was (the same ops) but
    numbered anew: group ids follow the kernels' order (``g0..``), so a split before a group
    shifts the ids after it."""
    was = {frozenset(g.nodes): g.id for g in old.groups}
    out = []
    for g in new.groups:
        before = was.get(frozenset(g.nodes))
        if before is not None and before != g.id:
            out.append((before, g.id))
    return out


def _number(gid: str) -> int | None:
    return int(gid[1:]) if gid[:1] == "g" and gid[1:].isdigit() else None


def renamed_text(pairs, most: int = 4) -> str:
    """The renumbering in a few words: runs of ids shifted alike as one
    (``g6..g10 are now g12..g16``), single ones as ``g3 is now g7``, at most ``most`` of
    them (``and 3 more``); ``""`` for none."""
    runs: list[list] = []
    for a, b in pairs:
        na, nb = _number(a), _number(b)
        last = runs[-1] if runs else None
        if (last and None not in (na, nb, last[1], last[3]) and na == last[1] + 1
                and nb == last[3] + 1):
            last[1], last[3] = na, nb
        else:
            runs.append([a, na, b, nb, a, b])
    parts = []
    for a, na, b, nb, a0, b0 in runs[:most]:
        if na is not None and _number(a0) != na:
            parts.append(f"{a0}..g{na} are now {b0}..g{nb}")
        else:
            parts.append(f"{a0} is now {b0}")
    if len(runs) > most:
        parts.append(f"and {len(runs) - most} more")
    return ", ".join(parts)


def _last_edit(plan: Plan):
    d = plan.decisions[-1] if plan.decisions else None
    return d if d is not None and d.action == "edit" else None


#: the edits whose resulting group is named after their words (ids follow the kernels'
#: order, so the merged group, or the one moved into, may have an id none of its parts had)
NAMES_RESULT = ("merge", "move")


def _edit_words(d, plan: Plan) -> str:
    """An edit decision's words, with the id of the group it made in ``plan`` (the plan
    after it) for a merge or a move: ``you merged g3, g5 into one kernel of 7 ops, now
    group g3``."""
    if d.reason not in NAMES_RESULT or not d.members or not d.members[-1]:
        return d.message
    try:
        gid = plan.group_of(d.members[-1][0]).id
    except PlanError:
        return d.message
    return f"{d.message}, now group {gid}"


def edit_note(action: str, old: Plan, new: Plan) -> str:
    """What a taken edit did, in a line for the plan panel: the edit's own record (the
    decision it added, the words of the Explain log), or what undo took away or redo put
    back (the groups renumbered: :func:`renamed_note`).

    ``action``: ``edit`` (an edit button), ``undo``, ``redo``, ``reset`` or ``accept``.
    """
    if action in ("undo", "redo") and new == old:
        what = f"{'undid' if action == 'undo' else 'redid'} a step that changed nothing"
    elif action == "undo":
        d = _last_edit(old)
        what = (f"undid the {EDIT_NAMES.get(d.reason, d.reason)} ({d.message})" if d
                else "undid the last change")
    elif action == "redo":
        d = _last_edit(new)
        what = (f"redid the {EDIT_NAMES.get(d.reason, d.reason)} ({_edit_words(d, new)})"
                if d else "redid the change")
    elif action == "reset":
        what = f"back to the planner's proposal ({plural(new.num_kernels, 'kernel')})"
    elif action == "accept":
        pinned = sum(1 for g in new.groups if g.pinned) - sum(1 for g in old.groups if g.pinned)
        what = f"accepted the plan: pinned {plural(max(pinned, 0), 'more group')}"
    elif new == old:
        what = ("the plan did not change (nothing to split, move or merge there); no step "
                "was added to undo")
    else:
        d = _last_edit(new) if len(new.decisions) > len(old.decisions) else None
        what = _edit_words(d, new) if d else "edited the plan"
    return what


def renamed_note(old: Plan, new: Plan) -> str:
    """The groups an edit left as they were but numbered anew (ids follow the kernels'
    order), in a line: ``renumbered (the same ops): g6..g10 are now g12..g16``."""
    renamed = renamed_text(renamed_groups(old, new))
    return f"renumbered (the same ops, new ids): {renamed}" if renamed else ""

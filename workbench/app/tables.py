"""Rows for the app's tables (pure functions: plans, costs and reports in, dicts out).

Cost breakdowns and reports are read as JSON-ready dicts (``CostBreakdown.to_json()``,
``Report.to_json()``), so these functions can be tested with plain data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from workbench.app.fmt import fmt_bytes, fmt_count, fmt_ratio, fmt_seconds


def as_dict(obj) -> dict:
    """A record as a dict: ``obj.to_json()`` when it has one, else ``dict(obj)``."""
    if obj is None:
        return {}
    if isinstance(obj, Mapping):
        return dict(obj)
    return dict(obj.to_json())


def group_rows(groups: Sequence[Mapping], costs: Mapping | None = None,
               unfused: Mapping | None = None, marks: Mapping | None = None) -> list[dict]:
    """One row per group for the plan table (an AG Grid: numbers for sorting, text to show).

    Parameters
    ----------
    groups : sequence of dict
        ``FusionGroup.to_json()`` dicts (``id``, ``kind``, ``nodes``, ``pinned`` ...).
    costs, unfused : mapping, optional
        Group id -> CostBreakdown (or its dict): fused, and the same ops unfused.
    marks : mapping, optional
        Group id -> what the user's edits made of it (``pinned``, ``rejected``, ``kept apart``:
        :func:`workbench.app.controller.group_marks`), shown in the ``state`` column.

    Returns
    -------
    list of dict
        ``id``, ``order`` (launch position), ``kind``, ``state``, ``n_ops``, ``predicted_s``
        (seconds) and ``predicted`` (its text), ``bound``, ``saving_s`` and ``saving``,
        ``ops`` (the first members).
    """
    rows = []
    for k, g in enumerate(groups):
        c = as_dict((costs or {}).get(g["id"]))
        u = as_dict((unfused or {}).get(g["id"]))
        flags = [f for f, on in ((g.get("role") or "", g.get("role")),
                                 ("dup", g.get("duplicated")),
                                 (g.get("pattern") or "", g.get("pattern"))) if on]
        saving = (u["predicted_s"] - c["predicted_s"]) if c and u else None
        state = (marks or {}).get(g["id"]) or ("pinned" if g.get("pinned") else "")
        predicted = c.get("predicted_s") if c else None
        rows.append({
            "id": g["id"], "order": k, "kind": " · ".join([g["kind"], *flags]), "state": state,
            "n_ops": len(g["nodes"]),
            "predicted_s": predicted, "predicted": fmt_seconds(predicted),
            "bound": c.get("bound", "-") if c else "-",
            "saving_s": saving, "saving": fmt_seconds(saving) if saving is not None else "-",
            "ops": ", ".join(g["nodes"][:4]) + (" …" if len(g["nodes"]) > 4 else ""),
        })
    return rows


#: the choices of a table's *show* list: every row, or the top N by time
TOP_CHOICES = (("all", 0), ("top 10", 10), ("top 25", 25), ("top 100", 100))


def top_rows(rows: Sequence[Mapping], n: int | None, key: str) -> list[dict]:
    """The ``n`` rows with the largest ``key`` (a number; missing counts as 0), largest
    first; every row, in its order, for ``n`` 0 or None."""
    if not n:
        return list(rows)
    return sorted(rows, key=lambda r: -(r.get(key) or 0.0))[:int(n)]


#: the cost card's row of FLOP-equivalents (what the arithmetic intensity divides)
FLOP_EQ_LABEL = "FLOP-equivalents (FLOPs + transcendentals × their cost)"

#: the rows of a cost card: (label, key, formatter)
COST_FIELDS = (
    ("bytes read", "bytes_read", fmt_bytes),
    ("bytes written", "bytes_written", fmt_bytes),
    ("FLOPs", "flops", lambda v: fmt_count(v, "FLOP")),
    ("transcendentals", "transcendentals", lambda v: fmt_count(v)),
    # what compute time and the intensity count: the FLOPs plus each transcendental at the
    # device's cost in FLOPs (CostBreakdown.flop_equivalents), shown beside the FLOPs
    (FLOP_EQ_LABEL, "flop_equivalents", lambda v: fmt_count(v, "FLOP-eq")),
    ("arithmetic intensity", "arithmetic_intensity",
     lambda v: "-" if v is None else f"{v:.3g} FLOP-eq/B"),
    ("registers / thread", "registers_per_thread", lambda v: "-" if v is None else f"{v:g}"),
    ("occupancy", "occupancy", lambda v: "-" if v is None else f"{100 * v:.0f} %"),
    ("launch overhead", "launch_overhead_s", fmt_seconds),
    ("memory level", "memory_level", lambda v: {"l2": "L2 cache", "llc": "last-level cache",
                                                "dram": "DRAM / HBM"}.get(v, v or "-")),
    ("memory time", "memory_s", fmt_seconds),
    ("compute time", "compute_s", fmt_seconds),
    ("predicted time", "predicted_s", fmt_seconds),
    ("bound", "bound", lambda v: v or "-"),
    ("dominant term", "dominant", lambda v: v or "-"),
)


def _overlap_text(c: dict) -> str:
    """predicted − launch − memory − compute (≤ 0: the time memory and compute overlap), or
    ``-`` when a term is missing."""
    keys = ("predicted_s", "launch_overhead_s", "memory_s", "compute_s")
    if any(c.get(k) is None for k in keys):
        return "-"
    x = c["predicted_s"] - c["launch_overhead_s"] - c["memory_s"] - c["compute_s"]
    return "−" + fmt_seconds(-x) if x < 0 else fmt_seconds(x)


def cost_rows(fused, unfused=None) -> list[tuple[str, str, str]]:
    """(label, fused value, unfused value) rows for a cost card, plus the saving."""
    f, u = as_dict(fused), as_dict(unfused)
    rows = [(label, fmt(f.get(key)), fmt(u.get(key)) if u else "")
            for label, key, fmt in COST_FIELDS]
    # the row that makes the terms add up to the predicted time: memory and compute run at
    # once for part of the kernel (XLA's CombineComputeAndMemoryAccessTime, model.combine_times)
    at = [r[0] for r in rows].index("compute time") + 1
    rows.insert(at, ("overlap (memory and compute at once)", _overlap_text(f),
                     _overlap_text(u) if u else ""))
    if f and u and f.get("predicted_s") is not None and u.get("predicted_s") is not None:
        saving = u["predicted_s"] - f["predicted_s"]
        ratio = u["predicted_s"] / f["predicted_s"] if f["predicted_s"] else float("inf")
        rows.append(("saving", fmt_seconds(saving), ""))
        rows.append(("speedup (unfused / fused)", fmt_ratio(ratio), ""))
    return rows


def decision_rows(decisions, steps: Sequence[int] | None = None,
                  current: int | None = None) -> list[dict]:
    """One row per planner decision for the explain panel's log, numbered from 1 as the
    slider (and ``workbench plan --explain``) counts them: row ``k`` is the decision that
    slider step ``k`` replays. ``steps`` chooses which (all by default); the row of
    ``current`` has ``current`` true."""
    steps = range(1, len(decisions) + 1) if steps is None else steps
    rows = []
    for k in steps:
        d = decisions[k - 1]
        rows.append({"id": str(k), "step": k, "action": d.action, "fused": "yes" if d.fused else "no",
                     "reason": d.reason, "message": d.message, "nodes": ", ".join(d.nodes),
                     "current": k == current})
    return rows


#: the decision log shows this many decisions around the slider's step
LOG_WINDOW = 200


def decision_window(decisions, steps: Sequence[int], current: int,
                    reason: str | None = None) -> tuple[list, str, int | None]:
    """The log's rows around ``current``: up to :data:`LOG_WINDOW` of ``steps`` (sorted step
    numbers), with a line saying which, and the row index of ``current`` (or of the nearest
    step after it)."""
    import bisect

    at = bisect.bisect_left(steps, max(current, 1))
    lo = max(0, min(at - LOG_WINDOW // 4, len(steps) - LOG_WINDOW))
    shown = steps[lo:lo + LOG_WINDOW]
    rows = decision_rows(decisions, shown, current)
    of = f" of reason {reason}" if reason else ""
    if not shown:
        return rows, f"no decision{of}", None
    note = (f"decisions {shown[0]}–{shown[-1]}: {len(shown)} of the {len(steps)}{of} "
            f"({len(decisions)} in all); the slider, the jumps or a click move through them")
    return rows, note, min(at - lo, len(shown) - 1)


def reason_options(decisions) -> list[dict]:
    """The reason filter's choices: every reason in the log with its count, commonest first."""
    from collections import Counter

    counts = Counter(d.reason for d in decisions)
    return [{"label": f"{r} ({n})", "value": r} for r, n in counts.most_common()]


def decision_numbers(decision, change=None) -> list[tuple[str, str]]:
    """The numbers behind a decision, as (label, text) rows: the cost model's (seconds, bytes)
    and, for a taken step, the groups it replaced and the group it made."""
    rows = []
    for key, value in sorted(decision.numbers.items()):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            text = str(value)
        elif key.endswith("_s"):
            text = fmt_seconds(value)
        elif "bytes" in key:
            text = fmt_bytes(value)
        else:
            text = f"{value:g}"
        rows.append((key.replace("_s", "").replace("_", " "), text))
    if change is not None and change.after:
        rows.append(("groups before", "; ".join(_set_text(s) for s in change.before) or "-"))
        rows.append(("group after", "; ".join(_set_text(s) for s in change.after)))
    return rows


def _set_text(members, limit: int = 4) -> str:
    names = sorted(members)
    head = ", ".join(names[:limit]) + (f" … ({len(names)} ops)" if len(names) > limit else "")
    return f"{{{head}}}"


def decision_text(decisions, step: int) -> tuple[str, str, str]:
    """What the explain slider shows at ``step``: (status, headline, reason).

    At step k the canvas shows the groups after the first k decisions, so the text is about
    the k-th decision (row ``k`` of :func:`decision_rows`), the one just replayed; ``status`` is
    ``fused``, ``refused``, or ``""`` at step 0.
    """
    if step <= 0 or not decisions:
        return "", f"Step 0 of {len(decisions)}: every op is its own kernel.", ""
    d = decisions[min(step, len(decisions)) - 1]
    head = f"Step {step} of {len(decisions)}: {d.action} {', '.join(d.nodes)}"
    return ("fused" if d.fused else "refused"), head, f"{d.reason}: {d.message}"

"""Rows for the app's tables (pure functions: plans, costs and reports in, dicts out).

Cost breakdowns and reports are read as JSON-ready dicts (``CostBreakdown.to_json()``,
``Report.to_json()``), so these functions can be tested with plain data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from workbench.app.fmt import fmt_bytes, fmt_count, fmt_seconds


def as_dict(obj) -> dict:
    """A record as a dict: ``obj.to_json()`` when it has one, else ``dict(obj)``."""
    if obj is None:
        return {}
    if isinstance(obj, Mapping):
        return dict(obj)
    return dict(obj.to_json())


def group_rows(groups: Sequence[Mapping], costs: Mapping | None = None,
               unfused: Mapping | None = None, marks: Mapping | None = None) -> list[dict]:
    """One row per group for the plan table.

    Parameters
    ----------
    groups : sequence of dict
        ``FusionGroup.to_json()`` dicts (``id``, ``kind``, ``nodes``, ``pinned`` ...).
    costs, unfused : mapping, optional
        Group id -> CostBreakdown (or its dict): fused, and the same ops unfused.
    marks : mapping, optional
        Group id -> what the user's edits made of it (``pinned``, ``rejected``, ``kept apart``:
        :func:`workbench.app.controller.group_marks`), shown in the ``state`` column.
    """
    rows = []
    for g in groups:
        c = as_dict((costs or {}).get(g["id"]))
        u = as_dict((unfused or {}).get(g["id"]))
        flags = [f for f, on in ((g.get("role") or "", g.get("role")),
                                 ("dup", g.get("duplicated")),
                                 (g.get("pattern") or "", g.get("pattern"))) if on]
        saving = (u["predicted_s"] - c["predicted_s"]) if c and u else None
        state = (marks or {}).get(g["id"]) or ("pinned" if g.get("pinned") else "")
        rows.append({
            "id": g["id"], "kind": " · ".join([g["kind"], *flags]), "state": state,
            "n_ops": len(g["nodes"]),
            "predicted": fmt_seconds(c.get("predicted_s")) if c else "-",
            "bound": c.get("bound", "-") if c else "-",
            "saving": fmt_seconds(saving) if saving is not None else "-",
            "ops": ", ".join(g["nodes"][:4]) + (" …" if len(g["nodes"]) > 4 else ""),
        })
    return rows


#: the rows of a cost card: (label, key, formatter)
COST_FIELDS = (
    ("bytes read", "bytes_read", fmt_bytes),
    ("bytes written", "bytes_written", fmt_bytes),
    ("FLOPs", "flops", lambda v: fmt_count(v, "FLOP")),
    ("transcendentals", "transcendentals", lambda v: fmt_count(v)),
    ("arithmetic intensity", "arithmetic_intensity",
     lambda v: "-" if v is None else f"{v:.3g} FLOP/B"),
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


def cost_rows(fused, unfused=None) -> list[tuple[str, str, str]]:
    """(label, fused value, unfused value) rows for a cost card, plus the saving."""
    f, u = as_dict(fused), as_dict(unfused)
    rows = [(label, fmt(f.get(key)), fmt(u.get(key)) if u else "")
            for label, key, fmt in COST_FIELDS]
    if f and u and f.get("predicted_s") is not None and u.get("predicted_s") is not None:
        saving = u["predicted_s"] - f["predicted_s"]
        ratio = u["predicted_s"] / f["predicted_s"] if f["predicted_s"] else float("inf")
        rows.append(("saving", fmt_seconds(saving), f"{ratio:.2f}x"))
    return rows


def decision_rows(decisions) -> list[dict]:
    """One row per planner decision for the explain panel's log, numbered from 1 as the
    slider counts them: row ``k`` is the decision that slider step ``k`` replays."""
    return [{"step": k + 1, "action": d.action, "fused": "yes" if d.fused else "no",
             "reason": d.reason, "message": d.message, "nodes": ", ".join(d.nodes)}
            for k, d in enumerate(decisions)]


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


#: the decision log's rows: refused decisions greyed
LOG_STYLES = [{"if": {"filter_query": "{fused} = no"}, "color": "#8a8f98"}]


def log_styles(step: int) -> list[dict]:
    """The decision log's conditional styles, with the row of slider step ``step`` (the
    decision just replayed) highlighted."""
    return LOG_STYLES + [{"if": {"filter_query": f"{{step}} = {int(step)}"},
                          "backgroundColor": "#ddf4ff", "fontWeight": "600"}]

"""Readable text for plans: how the decision log names groups, and its summary.

The sentences of the decision log are written where the decisions are made, with these helpers,
so that the command line and the app show the same words: "fused broadcast.3 into multiply.7:
saves 2.1 µs (writes and re-reads 1.0 MiB) — memory-bound loop fusion". Number formats are in
:mod:`workbench.fmt`, the cost model's words in :mod:`workbench.costmodel.text`; the terminal
layout of ``workbench plan`` is the command line's (:mod:`workbench.cli.plan_text`).
"""

from __future__ import annotations

from workbench.fmt import plural


def describe(names, root: str | None = None, pattern: str | None = None) -> str:
    """How the log names a group from its member ids (topological order): ``multiply.7`` for
    one op, ``(a, b, c)`` for up to three, ``the 5-op fusion ending at x`` for more; a pattern
    group by its pattern."""
    if len(names) == 1:
        return names[0]
    last = root or names[-1]
    if pattern:
        return f"the {pattern} kernel ({last})"
    if len(names) <= 3:
        return "(" + ", ".join(names) + ")"
    return f"the {len(names)}-op fusion ending at {last}"


_PHASES = {
    "pin": "Pinned groups (kept as you left them)",
    "pattern": "Named patterns, matched first",
    ("fuse", True): "Producer-consumer fusion, most profitable first",
    ("fuse", False): "Kept separate",
    "sibling": "Sibling (multi-output) fusion of kernels that read the same input",
    "edit": "Your edits",
    "dead": "Dead code (left out of planning)",
}


def _phase(d, policy: str) -> str:
    if policy == "xla-cpu" and d.action == "fuse" and len(d.nodes) > 1:
        return f"The kernel rooted at {d.nodes[1]} (grown from its consumer end, as XLA:CPU does)"
    return _PHASES.get(d.action) or _PHASES.get((d.action, d.fused), d.action)


def summarize_decisions(plan) -> str:
    """One paragraph: how many fusions of each kind, and the commonest reasons for refusals."""
    from collections import Counter

    taken = Counter(d.action for d in plan.decisions if d.fused)
    refused = Counter(d.reason for d in plan.decisions if not d.fused and d.action != "dead")
    parts = [plural(n, what) for what, n in (
        ("pattern fusion", taken.get("pattern", 0)),
        ("producer-consumer fusion", taken.get("fuse", 0)),
        ("sibling fusion", taken.get("sibling", 0)), ("edit", taken.get("edit", 0))) if n]
    why = ", ".join(f"{n} {r}" for r, n in refused.most_common(4))
    text = f"{plural(len(plan.decisions), 'decision')}: " + (", ".join(parts) or "no fusion")
    if refused:
        text += f"; {plural(sum(refused.values()), 'refusal')} ({why})"
    dead = sum(len(d.nodes) for d in plan.decisions if d.action == "dead")
    if dead:
        text += f"; {plural(dead, 'dead op')} left unfused"
    return text + "."


def explain_decisions(plan) -> list[str]:
    """The decision log as numbered sentences under phase headings (+ taken, - refused)."""
    out, phase = ["  " + summarize_decisions(plan)], None
    for d in plan.decisions:
        if _phase(d, plan.policy) != phase:
            phase = _phase(d, plan.policy)
            out.append(f"  {phase}:")
        mark = "+" if d.fused else "-"
        out.append(f"  {d.step:4d} {mark} {d.message}")
    return out

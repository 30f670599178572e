"""Readable text for plans: number formats, decision sentences, and ``workbench plan``'s report.

The sentences of the decision log are written here, once, so that the command line and the app
show the same words: "fused broadcast.3 into multiply.7: saves 2.1 µs (writes and re-reads
1.0 MiB) — memory-bound loop fusion".
"""

from __future__ import annotations

from workbench.planner.cost_model import CostBreakdown, PlanCost


def fmt_time(s: float) -> str:
    """Seconds as ns / µs / ms / s with three significant digits."""
    a = abs(s)
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if a >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def fmt_bytes(n: float) -> str:
    """Bytes as B / KiB / MiB / GiB."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def fmt_count(n: float) -> str:
    """A count with k / M / G suffixes."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= scale:
            return f"{n / scale:.3g}{unit}"
    return f"{n:.0f}"


def name_list(names, limit: int = 4) -> str:
    """``a, b, c`` or ``a, b, c and 5 more``."""
    names = list(names)
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f" and {len(names) - limit} more"


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


def plural(n: int, word: str) -> str:
    """``1 fusion``, ``2 fusions``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def breakdown_line(c: CostBreakdown) -> str:
    """One line of cost numbers for a kernel or a total."""
    regs = "" if c.registers_per_thread is None else \
        f", {c.registers_per_thread} regs ({c.occupancy:.0%} occupancy)"
    return (f"read {fmt_bytes(c.bytes_read)}, write {fmt_bytes(c.bytes_written)}, "
            f"{fmt_count(c.flops)} FLOP" + (f" + {fmt_count(c.transcendentals)} transc."
                                             if c.transcendentals else "")
            + f", AI {c.arithmetic_intensity:.2f} FLOP/B{regs} -> {fmt_time(c.predicted_s)} "
            f"({c.bound}-bound)")


def plan_report(graph, plan, cost: PlanCost, explain: bool = False) -> str:
    """The text ``workbench plan`` prints: groups with their breakdowns, totals, and (with
    ``explain``) an account of the decisions."""
    lines = [f"plan for {plan.graph_name}: policy {plan.policy}, device {cost.device}, "
             f"{plan.num_kernels} kernels (unfused: {cost.unfused_total.kernels})", ""]
    for g in plan.groups:
        c, u = cost.groups[g.id], cost.unfused[g.id]
        tag = f" [{g.pattern}]" if g.pattern else ""
        pin = " (pinned)" if g.pinned else ""
        ops = ", ".join(f"{n}:{graph.node(n).op}" + ("*" if n in g.duplicated else "")
                        for n in g.nodes)
        lines.append(f"{g.id} {g.kind}{tag}{pin}  ->  writes {', '.join(g.outputs) or '-'}")
        lines.append(f"   ops: {ops}")
        lines.append(f"   fused:   {breakdown_line(c)}")
        if g.size > 1:
            lines.append(f"   unfused: {u.kernels} kernels, {fmt_time(u.predicted_s)}; saving "
                         f"{fmt_time(u.predicted_s - c.predicted_s)}")
    if any(g.duplicated for g in plan.groups):
        lines.append("(* duplicated: computed in every group that lists it)")
    t, b = cost.total, cost.unfused_total
    lines += ["", f"total fused:   {t.kernels} kernels, {fmt_bytes(t.bytes_total)} moved, "
                  f"{fmt_time(t.predicted_s)}",
              f"total unfused: {b.kernels} kernels, {fmt_bytes(b.bytes_total)} moved, "
              f"{fmt_time(b.predicted_s)}",
              f"saving: {fmt_time(cost.saving_s)} ({cost.speedup:.2f}x predicted speedup)"]
    if explain:
        lines += ["", "How the planner got there:"] + explain_decisions(plan)
    return "\n".join(lines)


_PHASES = {
    "pin": "Pinned groups (kept as you left them)",
    "pattern": "Named patterns, matched first",
    ("fuse", True): "Producer-consumer fusion, most profitable first",
    ("fuse", False): "Kept separate",
    "sibling": "Sibling (multi-output) fusion of kernels that read the same input",
    "edit": "Your edits",
}


def _phase(d, policy: str) -> str:
    if policy == "xla-cpu" and d.action == "fuse" and len(d.nodes) > 1:
        return f"The kernel rooted at {d.nodes[1]} (grown from its consumer end, as XLA:CPU does)"
    return _PHASES.get(d.action) or _PHASES.get((d.action, d.fused), d.action)


def summarize_decisions(plan) -> str:
    """One paragraph: how many fusions of each kind, and the commonest reasons for refusals."""
    from collections import Counter

    taken = Counter(d.action for d in plan.decisions if d.fused)
    refused = Counter(d.reason for d in plan.decisions if not d.fused)
    parts = [plural(n, what) for what, n in (
        ("pattern fusion", taken.get("pattern", 0)),
        ("producer-consumer fusion", taken.get("fuse", 0)),
        ("sibling fusion", taken.get("sibling", 0)), ("edit", taken.get("edit", 0))) if n]
    why = ", ".join(f"{n} {r}" for r, n in refused.most_common(4))
    text = f"{len(plan.decisions)} decisions: " + (", ".join(parts) or "no fusion")
    if refused:
        text += f"; {plural(sum(refused.values()), 'refusal')} ({why})"
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

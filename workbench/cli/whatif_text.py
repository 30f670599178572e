"""The text of ``workbench plan --set`` / ``--sweep`` and ``workbench diff``: what the knobs
changed, a sweep of one knob as a table, two plans side by side."""

from __future__ import annotations

from workbench.fmt import fmt_time, name_list, plural


def _knob_value(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def flip_lines(flips, a_name: str = "before", b_name: str = "after", limit: int = 12) -> list:
    """One line per flipped decision: what it concerns, and each side's sentence."""
    lines = []
    for f in flips[:limit]:
        lines.append(f"  {f.action} {name_list(f.nodes, 3)}: "
                     f"{'taken' if f.fused_a else 'refused'} {a_name}, "
                     f"{'taken' if f.fused_b else 'refused'} {b_name}")
        lines.append(f"     {a_name}: {f.message_a}")
        lines.append(f"     {b_name}: {f.message_b}")
    if len(flips) > limit:
        lines.append(f"  ... and {len(flips) - limit} more")
    return lines


def whatif_text(w, base_device) -> str:
    """What setting the knobs did to the plan (``workbench plan --set``), above the plan."""
    set_text = ", ".join(
        f"{k}={_knob_value(v)} (was {_knob_value(getattr(base_device, k))})"
        for k, v in w.settings.items())
    lines = [f"what-if: {set_text} on the {w.base_device} profile",
             f"  predicted per call: {fmt_time(w.before_s)} -> {fmt_time(w.after_s)} "
             f"({w.diff.kernels_a} -> {w.diff.kernels_b} kernels); the old plan on the new "
             f"profile: {fmt_time(w.old_plan_after_s)}; unfused: "
             f"{fmt_time(w.unfused_before_s)} -> {fmt_time(w.unfused_after_s)}"]
    if w.diff.same:
        lines.append("  the plan is unchanged"
                     + (" (no decision flipped)" if not w.flips else ""))
    else:
        from workbench.planner.whatif import describe_groups

        lines.append(f"  changed: {plural(len(w.diff.differences), 'difference')}; the new "
                     f"plan's {describe_groups(w.plan, w.changed_groups)} replace the old "
                     f"plan's {describe_groups(w.base_plan, w.diff.only_a)}")
    if w.old_plan_after_s < w.after_s:
        lines.append(f"  note: the new plan is predicted slower than keeping the old one on the "
                     f"new profile ({fmt_time(w.after_s)} vs {fmt_time(w.old_plan_after_s)}): "
                     "the planner decides one producer at a time, greedily")
    if w.flips:
        lines.append(f"  {plural(len(w.flips), 'decision')} flipped:")
        lines += flip_lines(w.flips)
    return "\n".join(lines)


def sweep_text(knob: str, points, device: str, policy: str) -> str:
    """A table of one knob's sweep (``workbench plan --sweep``)."""
    lines = [f"sweep of {knob} on the {device} profile, policy {policy}",
             f"{knob:>24s}  kernels  predicted   unfused     speedup  plan",
             ]
    for p in points:
        mark = "changed" if p.changed else ""
        flips = f"; {plural(len(p.flips), 'flip')} vs first" if p.flips else ""
        lines.append(f"{p.value:>24g}  {p.kernels:>7d}  {fmt_time(p.predicted_s):>10s}  "
                     f"{fmt_time(p.unfused_s):>10s}  {p.speedup:>6.2f}x  "
                     f"{p.plan_fingerprint[:8]} {mark}{flips}")
    return "\n".join(lines)


def _measured(x) -> str:
    return fmt_time(x) if x is not None else "-"


def diff_text(graph, d, limit: int = 20) -> str:
    """Two plans side by side (``workbench diff``): the totals, then each difference with the
    groups on either side, their nodes, and predicted (and measured) times."""
    lines = [f"diff of {d.graph} on the {d.device} profile: A = {d.a_label}, B = {d.b_label}",
             f"  A: {d.kernels_a} kernels, predicted {fmt_time(d.predicted_a_s)}"
             + (f", measured {_measured(d.measured_a_s)}" if d.measured_a_s is not None else ""),
             f"  B: {d.kernels_b} kernels, predicted {fmt_time(d.predicted_b_s)}"
             + (f", measured {_measured(d.measured_b_s)}" if d.measured_b_s is not None else ""),
             f"  groups in both: {len(d.both)}; only in A: {len(d.only_a)}; only in B: "
             f"{len(d.only_b)}; moved nodes: {len(d.moved)}"]
    if d.same:
        lines.append("  the two plans group every node alike")
        return "\n".join(lines)
    lines.append(f"{plural(len(d.differences), 'difference')} (B - A: negative when B is "
                 "faster):")
    for k, x in enumerate(d.differences[:limit]):
        meas = ""
        if x.measured_delta_s is not None:
            meas = (f"; measured {fmt_time(x.measured_a_s)} -> {fmt_time(x.measured_b_s)} "
                    f"({fmt_time(x.measured_delta_s)})")
        lines.append(f" {k + 1:3d}. A {','.join(x.a_groups) or '-'} | B "
                     f"{','.join(x.b_groups) or '-'}: {plural(len(x.nodes), 'node')} "
                     f"({name_list(x.nodes, 4)}); predicted {fmt_time(x.predicted_a_s)} -> "
                     f"{fmt_time(x.predicted_b_s)} ({fmt_time(x.predicted_delta_s)}){meas}")
    if len(d.differences) > limit:
        lines.append(f"  ... and {len(d.differences) - limit} more (--limit)")
    return "\n".join(lines)

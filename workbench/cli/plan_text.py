"""The text ``workbench plan`` prints: the device, each group's breakdown, totals, decisions, and
what ``--fold-bn`` folded."""

from __future__ import annotations

from workbench.costmodel import CostBreakdown, PlanCost, get_device
from workbench.costmodel.text import breakdown_line, device_line
from workbench.fmt import fmt_bytes, fmt_time, plural
from workbench.planner.explain import explain_decisions


def _role_total(label: str, c: CostBreakdown, why: str) -> str:
    return (f"{label}{plural(c.kernels, 'kernel')}, {fmt_bytes(c.bytes_total)} moved, "
            f"{fmt_time(c.predicted_s)} — {why}")


def plan_report(graph, plan, cost: PlanCost, explain: bool = False) -> str:
    """The text ``workbench plan`` prints: the device, groups with their breakdowns, totals, and
    (with ``explain``) an account of the decisions. Offline and dead groups are marked and
    summed apart from the per-call total."""
    t, b = cost.total, cost.unfused_total
    dev = get_device(cost.device)
    extra = "".join(f", {plural(c.kernels, what)}" for c, what in (
        (cost.offline_total, "offline kernel"), (cost.dead_total, "dead kernel"))
        if c is not None and c.kernels)
    lines = [f"plan for {plan.graph_name}: policy {plan.policy}, device {cost.device}, "
             f"{plural(t.kernels, 'kernel')} per call (unfused: {b.kernels}){extra}",
             device_line(cost.device), ""]
    for g in plan.groups:
        c, u = cost.groups[g.id], cost.unfused[g.id]
        tag = f" [{g.pattern}]" if g.pattern else ""
        pin = " (pinned)" if g.pinned else ""
        ops = ", ".join(f"{n}:{graph.node(n).op}" + ("*" if n in g.duplicated else "")
                        for n in g.nodes)
        lines.append(f"{g.id} {g.kind}{tag}{pin}{g.note()}  ->  writes "
                     f"{', '.join(g.outputs) or '-'}")
        lines.append(f"   ops: {ops}")
        lines.append(f"   fused:   {breakdown_line(c, dev)}")
        if g.size > 1:
            lines.append(f"   unfused: {plural(u.kernels, 'kernel')}, {fmt_time(u.predicted_s)}; "
                         f"saving {fmt_time(u.predicted_s - c.predicted_s)}")
    if any(g.duplicated for g in plan.groups):
        lines.append("(* duplicated: computed in every group that lists it)")
    lines += ["", f"total fused:   {plural(t.kernels, 'kernel')} per call, "
                  f"{fmt_bytes(t.bytes_total)} moved, {fmt_time(t.predicted_s)}",
              f"total unfused: {plural(b.kernels, 'kernel')} per call, "
              f"{fmt_bytes(b.bytes_total)} moved, {fmt_time(b.predicted_s)}",
              f"saving: {fmt_time(cost.saving_s)} ({cost.speedup:.2f}x predicted speedup)"]
    if cost.offline_total is not None and cost.offline_total.kernels:
        lines.append(_role_total("offline:       ", cost.offline_total,
                                 "weight folding, run once when the weights are loaded; not "
                                 "in the per-call totals"))
    if cost.dead_total is not None and cost.dead_total.kernels:
        one = cost.dead_total.kernels == 1
        lines.append(_role_total("dead:          ", cost.dead_total,
                                 f"no graph output depends on {'it' if one else 'them'}; XLA's "
                                 f"DCE would remove {'it' if one else 'them'}; not in the "
                                 "totals"))
    if explain:
        lines += ["", "How the planner got there:"] + explain_decisions(plan)
    return "\n".join(lines)


def fold_summary(report, cost: PlanCost, unfolded: PlanCost | None) -> list[str]:
    """What ``--fold-bn`` did, for ``workbench plan``: the batch norms folded (or why none
    could be), the offline kernels that compute the folded weights, and the per-call totals
    with and without folding (the same policy on the graph as loaded)."""
    head = "batch-norm folding (--fold-bn): "
    out = []
    if not report.folded:
        out.append(head + f"nothing folded: {report.reason}; the plan below is for the graph "
                          "as loaded")
    else:
        what = ", ".join(f"{f.norm} into {f.conv}" + (" (JAX's primitive form: "
                                                      f"{', '.join(f.ops)})"
                                                      if f.form == "primitive" else "")
                         for f in report.folded)
        out.append(head + f"folded {plural(len(report.folded), 'batch norm')}: {what}")
    for node, why in report.skipped:
        out.append(f"  not folded: {node}: {why}")
    if report.folded and unfolded is not None:
        off = cost.offline_total
        out.append(f"  offline: {plural(len(report.offline), 'op')} compute the folded weights "
                   f"and biases in {plural(off.kernels, 'kernel')} ({fmt_time(off.predicted_s)}),"
                   " run once when the weights are loaded, not per call")
        t, u = cost.total, unfolded.total
        delta = u.predicted_s - t.predicted_s
        verdict = (f"folding saves {fmt_time(delta)} per call" if delta > 0 else
                   f"folding costs {fmt_time(-delta)} more per call" if delta < 0 else
                   "the same time per call")
        out.append(f"  per call: {plural(t.kernels, 'kernel')}, {fmt_time(t.predicted_s)} folded; "
                   f"{plural(u.kernels, 'kernel')}, {fmt_time(u.predicted_s)} without folding: "
                   f"{verdict}")
    return out

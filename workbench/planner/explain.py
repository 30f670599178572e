"""Readable text for plans: number formats, decision sentences, and ``workbench plan``'s report.

The sentences of the decision log are written here, once, so that the command line and the app
show the same words: "fused broadcast.3 into multiply.7: saves 2.1 µs (writes and re-reads
1.0 MiB) — memory-bound loop fusion".
"""

from __future__ import annotations

from workbench.planner.cost_model import CostBreakdown, PlanCost


def _scaled(value: float, units) -> str:
    """``value`` in the largest of ``units`` ((suffix, scale), largest first) that keeps the
    mantissa at least 1, with three significant digits; a mantissa that rounds to 1000 moves up
    one unit (999.96e6 is ``1G``, not ``1e+03M``)."""
    a = abs(value)
    for k, (unit, scale) in enumerate(units):
        if a >= scale or k == len(units) - 1:
            text = f"{value / scale:.3g}"
            if abs(float(text)) >= 1000 and k > 0:
                up, up_scale = units[k - 1]
                text, unit = f"{value / up_scale:.3g}", up
            return f"{text}{unit}"
    raise AssertionError("unreachable")


def fmt_time(s: float) -> str:
    """Seconds as ns / µs / ms / s with three significant digits (``1.5 ms``, ``1 s``,
    ``4200 s``)."""
    if abs(s) >= 999.5:
        return f"{s:.0f} s"
    if s == 0:
        return "0 s"
    return _scaled(s, ((" s", 1.0), (" ms", 1e-3), (" µs", 1e-6), (" ns", 1e-9)))


_BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def fmt_bytes(n: float) -> str:
    """Bytes in binary units, B to EiB (``512 B``, ``1.5 KiB``, ``3.6 TiB``), one decimal."""
    k = 0
    while abs(n) >= 1024 and k < len(_BYTE_UNITS) - 1:
        n /= 1024
        k += 1
    if k == 0:
        return f"{n:.0f} B"
    text = f"{n:.1f}"
    if abs(float(text)) >= 1024 and k < len(_BYTE_UNITS) - 1:
        n, k = n / 1024, k + 1
        text = f"{n:.1f}"
    return f"{text} {_BYTE_UNITS[k]}"


_COUNT_UNITS = (("E", 1e18), ("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3),
                ("", 1.0))


def fmt_count(n: float) -> str:
    """A count with k / M / G / T / P / E suffixes and three significant digits (``1.23M``,
    ``1T``); below 1000 the plain number."""
    if abs(n) < 1000:
        return f"{n:.0f}"
    return _scaled(n, _COUNT_UNITS)


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


#: how the text names the memory levels of CostBreakdown.memory_level
LEVEL_NAMES = {"l2": "L2", "llc": "LLC", "dram": "DRAM"}


def bound_label(bound: str, level: str, device=None) -> str:
    """``memory-bound (LLC)``: the bound, and for a memory-bound kernel on a profile with
    cache ceilings, the memory level its bandwidth is that of; ``compute-bound``,
    ``launch-bound``, or ``memory-bound`` on a profile with one ceiling (GPUs)."""
    text = f"{bound}-bound"
    cached = device is None or len(device.memory_levels()) > 1
    if bound == "memory" and cached and level in LEVEL_NAMES:
        text += f" ({LEVEL_NAMES[level]})"
    return text


def breakdown_line(c: CostBreakdown, device=None) -> str:
    """One line of cost numbers for a kernel or a total. The arithmetic intensity counts
    FLOP-equivalents (transcendentals at the device's cost, as compute time does); a
    memory-bound kernel names its memory level when ``device`` has cache ceilings (or is not
    given)."""
    regs = "" if c.registers_per_thread is None else \
        f", {c.registers_per_thread} regs ({c.occupancy:.0%} occupancy)"
    unit = "FLOP-eq/B" if c.transcendentals else "FLOP/B"
    return (f"read {fmt_bytes(c.bytes_read)}, write {fmt_bytes(c.bytes_written)}, "
            f"{fmt_count(c.flops)} FLOP" + (f" + {fmt_count(c.transcendentals)} transc."
                                             if c.transcendentals else "")
            + f", AI {c.arithmetic_intensity:.2f} {unit}{regs} -> {fmt_time(c.predicted_s)}, "
            f"{bound_label(c.bound, c.memory_level, device)}")


def fmt_rate(x: float, unit: str) -> str:
    """``3.35 TB/s``, ``202 GFLOP/s``: decimal prefixes (as datasheets give them)."""
    for p, scale in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale * 0.9995:
            return f"{x / scale:.3g} {p}{unit}"
    return f"{x:.3g} {unit}"


def memory_ceilings(d) -> str:
    """A profile's memory ceilings: ``27 GB/s`` (one level), or ``L2 (up to 1.0 MiB) 103 GB/s,
    LLC (up to 32.0 MiB) 97 GB/s, DRAM 27 GB/s``."""
    levels = d.memory_levels()
    if len(levels) == 1:
        return fmt_rate(d.bandwidth_Bps, "B/s")
    return ", ".join(f"{LEVEL_NAMES[name]}" + (f" (up to {fmt_bytes(size)})" if size else "")
                     + f" {fmt_rate(bw, 'B/s')}" for name, size, bw in levels)


def core_text(d) -> str:
    """`` (one core: 80 GFLOP/s, for dots and convolutions writing under 2 MiB)`` for a profile
    with a one-core rate (:meth:`~workbench.planner.devices.DeviceProfile.flop_rate`), else
    ``""``."""
    if not (d.core_flops and d.parallel_min_bytes):
        return ""
    return (f" (one core: {fmt_rate(d.core_flops, 'FLOP/s')}, for dots and convolutions "
            f"writing under {fmt_bytes(d.parallel_min_bytes)})")


def device_line(device) -> str:
    """The device profile the costs use, with its numbers and where they come from."""
    from workbench.planner.devices import get_device

    d = get_device(device)
    text = (f"{d.name} profile: {memory_ceilings(d)}, "
            f"{fmt_rate(d.peak_flops, 'FLOP/s')} FP32{core_text(d)}, "
            f"{fmt_time(d.launch_overhead_s)} per "
            f"launch, a transcendental = {d.transcendental_flops:g} FLOP; {d.source}")
    if d.kind == "cpu":
        text += " (`workbench devices --refresh` measures again)"
    return text


def _role_total(label: str, c: CostBreakdown, why: str) -> str:
    return (f"{label}{plural(c.kernels, 'kernel')}, {fmt_bytes(c.bytes_total)} moved, "
            f"{fmt_time(c.predicted_s)} — {why}")


def plan_report(graph, plan, cost: PlanCost, explain: bool = False) -> str:
    """The text ``workbench plan`` prints: the device, groups with their breakdowns, totals, and
    (with ``explain``) an account of the decisions. Offline and dead groups are marked and
    summed apart from the per-call total."""
    from workbench.planner.devices import get_device

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

"""The text table ``workbench run`` prints for a :class:`~workbench.profiler.report.Report`."""

from __future__ import annotations

import math


def fmt_time(seconds) -> str:
    """Seconds as a short human string (``12.3 us``, ``4.56 ms``, ``1.20 s``); '-' if unknown."""
    if seconds is None or (isinstance(seconds, float) and not math.isfinite(seconds)):
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def _num(v, spec=".3g") -> str:
    return "-" if v is None else format(v, spec)


def format_report(report) -> str:
    """The report as an aligned text table with totals, correctness and notes."""
    cached = sum(1 for k in report.kernels if k.cached)
    lines = [f"graph {report.graph}  backend {report.backend}  policy {report.policy}  "
             f"({len(report.kernels)} kernels, {len(report.unfused_kernels)} unfused; compile "
             f"{report.compile_s:.2f} s, {cached} fused kernels from the cache)"]
    head = ("group", "kind", "ops", "median", "min", "spread", "predicted", "GB/s", "GFLOP/s",
            "regs", "spill B", "note")
    rows = [head]
    for k in report.kernels:
        note = "numpy fallback" if k.fallback else ""
        if k.role == "offline":
            note += " offline (once, not per call)"
        if k.predicted_registers is not None and k.registers is not None:
            note += f" (model: {k.predicted_registers} regs)"
        rows.append((k.group_id, k.kind, str(len(k.ops)), fmt_time(k.timing.median_s),
                     fmt_time(k.timing.min_s), fmt_time(k.timing.spread_s),
                     fmt_time(k.predicted_s), _num(k.gbps, ".1f"), _num(k.gflops, ".2f"),
                     _num(k.registers, "d"), _num(k.spill_bytes, "d"), note.strip()))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    lines.append(
        f"total: fused {fmt_time(report.fused.median_s)}  unfused "
        f"{fmt_time(report.unfused.median_s)} ({report.speedup:.2f}x)  numpy "
        f"{fmt_time(report.numpy.median_s)} ({_ratio(report.numpy.median_s, report.fused.median_s)})"
        f"  predicted {fmt_time(report.predicted_s)}")
    for o in report.outputs:
        status = "ok" if o.ok else f"MISMATCH ({o.mismatches} elements)"
        extra = ""
        if o.reference_error is not None:
            extra = f"  (f32 reference's own error {o.reference_error:.2g})"
        lines.append(f"output {o.index} {o.node}: {o.dtype}{list(o.shape)}  max abs error "
                     f"{o.max_abs_error:.3g}  max rel error {o.max_rel_error:.3g}  {status}{extra}")
    for e in report.errors:
        lines.append(f"error: {e.get('text', e.get('message'))}")
    for n in report.notes:
        lines.append(f"note: {n}")
    for k in report.kernels:
        if k.fallback and k.fallback_reason:
            lines.append(f"note: {k.group_id} ran through numpy: {k.fallback_reason}")
    return "\n".join(lines)


def _ratio(a, b) -> str:
    if not a or not b or not math.isfinite(a) or not math.isfinite(b):
        return "-"
    return f"{a / b:.2f}x"

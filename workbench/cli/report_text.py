"""The text table ``workbench run`` prints for a :class:`~workbench.profiler.report.Report`."""

from __future__ import annotations

import math

from workbench.fmt import fmt_seconds as fmt_time
from workbench.fmt import plural
from workbench.profiler.accuracy import MEASURED_WORDS



#: what the table's rate columns count, and how that differs from the prediction lines
RATES_LEGEND = ("(arg GB/s: the kernel's arguments, each read or written once, over its median "
                "time; GFLOP/s: its FLOPs without transcendentals. The prediction lines count "
                "what the cost model counts: its bytes moved and FLOP-equivalents, a "
                "transcendental at the device's cost.)")


def _num(v, spec=".3g") -> str:
    return "-" if v is None else format(v, spec)


def format_report(report) -> str:
    """The report as an aligned text table with totals, correctness and notes.

    ``ops`` counts the plan's ops (a composite such as ``layer_norm`` is one op, as in
    ``workbench plan`` and the app), with the kernel's primitive ops in brackets when the
    expansion differs; ``typical (p25)`` is the time ``typical/pred`` is made of (the 25th
    percentile of the runs, what the calibration fits), and a miss's line quotes it; a kernel
    or total whose runs disagree is marked ``noisy``, with why
    (:func:`~workbench.profiler.report.noisy_reason`); when the machine was busy or timings were noisy
    the last note (added by ``profile``, see :func:`~workbench.profiler.report.busy_note`) says so.
    """
    cached = sum(1 for k in report.kernels if k.cached)
    lines = [f"graph {report.graph}  backend {report.backend}  policy {report.policy}  "
             f"({plural(len(report.kernels), 'kernel')}, {len(report.unfused_kernels)} unfused; compile "
             f"{report.compile_s:.2f} s, {cached} fused kernels from the cache)"]
    head = ("group", "kind", "ops", "median", "min", "spread", MEASURED_WORDS, "predicted",
            "typical/pred",
            "arg GB/s", "GFLOP/s", "regs", "spill B", "note", "plan ops")
    rows = [head]
    for k in report.kernels:
        notes = []
        if k.fallback:
            notes.append("numpy fallback")
        if k.role == "offline":
            notes.append("offline (once, not per call)")
        if k.timing.noisy:
            why = k.timing.noisy_reason
            notes.append(f"noisy ({why})" if why else "noisy")
        pred = k.prediction or {}
        if pred.get("missed"):
            notes.append("MISS")
        if k.predicted_registers is not None and k.registers is not None:
            notes.append(f"(model: {k.predicted_registers} regs)")
        n_ops = str(len(k.ops))
        if k.primitive_ops and k.primitive_ops != len(k.ops):
            n_ops += f" ({k.primitive_ops} primitive)"
        rows.append((k.group_id, k.kind, n_ops, fmt_time(k.timing.median_s),
                     fmt_time(k.timing.min_s), fmt_time(k.timing.spread_s),
                     fmt_time(_typical(k, pred)), fmt_time(k.predicted_s), _ratio_cell(pred),
                     _num(k.gbps, ".1f"), _num(k.gflops, ".2f"),
                     _num(k.registers, "d"), _num(k.spill_bytes, "d"), " ".join(notes),
                     _op_names(k.ops)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    lines.append(RATES_LEGEND)
    lines.append(
        f"total: fused {_total(report.fused)}  unfused {_total(report.unfused)} "
        f"({report.speedup:.2f}x; min/min {_ratio(report.unfused.min_s, report.fused.min_s)})"
        f"  numpy {_total(report.numpy)} ({_ratio(report.numpy.median_s, report.fused.median_s)})"
        f"  predicted {fmt_time(report.predicted_s)}")
    if report.fused_wall is not None and report.unfused_wall is not None:
        lines.append(
            f"call (end-to-end wall time): fused {_total(report.fused_wall)}  unfused "
            f"{_total(report.unfused_wall)}; {_outside_text(report.outside_kernels_s)}")
    for o in report.outputs:
        status = "ok" if o.ok else f"MISMATCH ({o.mismatches} elements)"
        extra = ""
        if o.reference_error is not None:
            extra = f"  (f32 reference's own error {o.reference_error:.2g})"
        lines.append(f"output {o.index} {o.node}: {_type_text(o)}  {o.summary()}  "
                     f"{status}{extra}")
    lines += _miss_lines(report)
    for e in report.errors:
        lines.append(f"error: {e.get('text', e.get('message'))}")
    for n in report.notes:
        lines.append(f"note: {n}")
    for k in report.kernels:
        if k.fallback and k.fallback_reason:
            lines.append(f"note: {k.group_id} ran through numpy: {k.fallback_reason}")
    return "\n".join(lines)


def _typical(k, pred: dict):
    """The time the kernel's ratio is made of: its prediction check's measured figure (the 25th
    percentile of its runs, :func:`workbench.profiler.accuracy.measured_time`)."""
    from workbench.profiler.accuracy import measured_time

    got = pred.get("measured_s")
    return got if isinstance(got, float) and math.isfinite(got) else measured_time(k.timing)


def _ratio_cell(pred: dict) -> str:
    r = pred.get("ratio")
    return "-" if not isinstance(r, float) else f"{r:.2f}"


def _miss_lines(report) -> list[str]:
    """One line per kernel whose prediction missed (outside [0.5, 2]), saying which term was
    wrong (:func:`workbench.profiler.accuracy.check_prediction`), then how many were within."""
    from workbench.profiler.accuracy import MISS_RANGE

    checks = [k.prediction for k in report.kernels if k.prediction]
    missed = [(k.group_id, k.prediction) for k in report.kernels
              if k.prediction and k.prediction.get("missed")]
    lines = [f"prediction {gid}: {p['text']}" for gid, p in missed]
    if checks:
        lo, hi = MISS_RANGE
        lines.append(f"predictions: {len(checks) - len(missed)} of {len(checks)} kernels within "
                     f"[{lo:g}, {hi:g}] x their prediction (measured: the {MEASURED_WORDS} "
                     "column, the 25th percentile of the runs, the statistic the calibration "
                     "fits)")
    return lines


def _total(t) -> str:
    text = f"{fmt_time(t.median_s)} (min {fmt_time(t.min_s)})"
    return text + " noisy" if t.noisy else text


def _op_names(ops, width: int = 48) -> str:
    text = ", ".join(ops)
    return text if len(text) <= width else text[:width - 3] + "..."


def _type_text(o) -> str:
    """The output's type as the IR prints it (``f32[2,64,128]``)."""
    from workbench.ir import TensorType

    return str(TensorType(tuple(o.shape), o.dtype))


def _ratio(a, b) -> str:
    if not a or not b or not math.isfinite(a) or not math.isfinite(b):
        return "-"
    return f"{a / b:.2f}x"


def _outside_text(per_kernel_s: float) -> str:
    """The time a fused call spends outside its kernels, per kernel (min wall - min kernel
    sum); a negative difference is no time: the kernel sum's own per-kernel timers cost more
    than what runs between the kernels, so it is below what this measurement resolves."""
    if not math.isfinite(per_kernel_s):
        return "outside the kernels: not measured"
    if per_kernel_s < 0:
        return (f"outside the kernels: below what this measures (the call's min wall time is "
                f"{fmt_time(-per_kernel_s)} a kernel under the min kernel sum, whose per-kernel "
                "timers add that much)")
    return f"outside the kernels {fmt_time(per_kernel_s)} a kernel (min wall - min kernel sum)"

"""Compile & profile for the app (no Dash): run the profiler, keep its report, read it back.

:func:`run_profile` runs in a Dash background callback, i.e. in another process than the
callbacks that show the result, so what it produces is stored in the session store as plain
JSON-ready data (:func:`report_record`) under the session's key.
"""

from __future__ import annotations

import hashlib
import json

from workbench.app.fmt import fmt_seconds
from workbench.app.tables import as_dict


def plan_key(plan) -> str:
    """A short key of a plan's grouping (to tell whether a report is for the current plan)."""
    members = sorted(tuple(sorted(g.nodes)) for g in plan.groups)
    return hashlib.sha256(repr((plan.graph_fingerprint, members)).encode()).hexdigest()[:16]


def report_record(plan, report) -> dict:
    """What the app stores after a profile: the plan's key, the report, its trace, sources."""
    return {"plan": plan_key(plan), "report": as_dict(report),
            "trace": report.trace_events()}


def run_profile(graph, plan, progress=None, cancel=None):
    """Profile ``plan`` on this machine (``workbench.profiler.profile``, backend ``auto``).

    Raises
    ------
    WorkbenchError
        A compile error, a resource limit, or a cancellation, with its message.
    """
    from workbench.profiler import profile

    return profile(graph, plan, backend="auto", progress=progress, cancel=cancel)


def progress_text(stage: str, k: int, n: int, message: str = "") -> str:
    """The progress line: ``compiling group 3 of 12: g2``."""
    text = f"{stage} {k} of {n}"
    return f"{text}: {message}" if message else text


def kernel_rows(report: dict, plan) -> list[dict]:
    """Rows of the profile table and chart: one per kernel of the report."""
    kinds = {g.id: g.kind for g in plan.groups}
    rows = []
    for k in report.get("kernels", ()):
        measured, predicted = k.get("median_s"), k.get("predicted_s")
        ratio = measured / predicted if measured and predicted else None
        rows.append({"group": k.get("group"), "kind": kinds.get(k.get("group"), "?"),
                     "measured_s": measured, "predicted_s": predicted,
                     "measured": fmt_seconds(measured), "predicted": fmt_seconds(predicted),
                     "ratio": f"{ratio:.2f}" if ratio else "-",
                     "gbps": f"{k['achieved_Bps'] / 1e9:.2f}" if k.get("achieved_Bps") else "-",
                     "note": "numpy fallback" if k.get("fallback") else ""})
    return rows


def correctness_rows(report: dict) -> list[dict]:
    """Rows of the correctness table: each output's largest errors against the reference."""
    return [{"output": c.get("output"), "max_abs_error": f"{c.get('max_abs_error', 0):.3g}",
             "max_rel_error": f"{c.get('max_rel_error', 0):.3g}",
             "ok": "yes" if c.get("ok") else "NO"} for c in report.get("correctness", ())]


def summary_text(report: dict) -> str:
    """Fused vs unfused totals, the speedup, and the backend (with its note)."""
    totals = report.get("totals", {})
    fused, unfused = totals.get("fused_s"), totals.get("unfused_s")
    text = f"backend {report.get('backend', '?')}"
    if fused and unfused:
        text += (f" · fused {fmt_seconds(fused)} vs unfused {fmt_seconds(unfused)}: "
                 f"{unfused / fused:.2f}x speedup")
    notes = report.get("notes") or ()
    if notes:
        text += " · " + " ".join(str(n) for n in notes)
    return text


def mismatch_text(report: dict) -> str:
    """An error line if any output does not match the reference, else ``""``."""
    bad = [c for c in report.get("correctness", ()) if not c.get("ok")]
    if not bad:
        return ""
    return "Mismatch against the reference interpreter: " + "; ".join(
        f"{c.get('output')} max abs error {c.get('max_abs_error', 0):.3g}" for c in bad)


def measured_times(record: dict | None, plan) -> dict:
    """Group id -> measured seconds, if ``record`` is a report for ``plan``; else {}."""
    if not record or record.get("plan") != plan_key(plan):
        return {}
    return {k["group"]: k["median_s"] for k in record["report"].get("kernels", ())
            if k.get("median_s")}


def kernel_sources(report: dict) -> dict:
    """Group id -> generated source, from the report."""
    return {k["group"]: k["source"] for k in report.get("kernels", ()) if k.get("source")}


def sources_file(report: dict) -> str:
    """Every kernel's source in one text file, each under a header line."""
    parts = [f"# ---- kernel {gid} ----\n{src}" for gid, src in kernel_sources(report).items()]
    return "\n\n".join(parts) + "\n"


def trace_file(record: dict) -> str:
    """The Perfetto (Chrome trace-event) JSON of a stored report."""
    return json.dumps({"traceEvents": record.get("trace", [])})

"""Compile & profile for the app (no Dash): run the profiler, keep its report, read it back.

:func:`run_profile` runs in a Dash background callback, i.e. in another process than the
callbacks that show the result, so what it produces is stored in the session store as plain
JSON-ready data (:func:`report_record`) under the session's key.
"""

from __future__ import annotations

import hashlib
import json
import os

from workbench.app.fmt import fmt_ratio, fmt_seconds, plural
from workbench.exporters import trace_events


def plan_key(plan) -> str:
    """A short key of a plan's grouping (to tell whether a report is for the current plan)."""
    members = sorted(tuple(sorted(g.nodes)) for g in plan.groups)
    return hashlib.sha256(repr((plan.graph_fingerprint, members)).encode()).hexdigest()[:16]


def report_record(plan, report, requested: str = "auto", sources: dict | None = None,
                  where: str | None = None) -> dict:
    """What the app keeps after a profile (JSON-ready, so another process can read it).

    ``plan``: the key of the plan profiled (:func:`plan_key`); ``report``:
    ``Report.to_json()``; ``trace``: :func:`~workbench.exporters.perfetto.trace_events`; ``sources``: group id -> the
    kernel's generated source, read from the kernel cache files the report names;
    ``requested``: the backend asked for (``auto``, ``cpu``, ``cuda``). It names no file of
    the server: each kernel's ``source_path`` is replaced by ``source_file``, its base name.
    ``sources``: the sources when they were read where the job ran (a Ray node); ``where``:
    that place, added to the report's notes (``measured on the Ray cluster at HOST:PORT``).
    """
    doc = report.to_json()
    sources = read_sources(doc) if sources is None else dict(sources)
    if where:
        doc["notes"] = list(doc.get("notes") or ()) + [f"measured on {where}"]
    for k in doc.get("kernels", ()) + doc.get("unfused_kernels", ()):
        path = k.pop("source_path", None)   # a file of the server: not for the browser
        if path:
            k["source_file"] = os.path.basename(path)
    return {"plan": plan_key(plan), "report": doc, "trace": trace_events(report),
            "sources": sources, "requested": requested}


def read_sources(doc: dict, limit: int = 1 << 20) -> dict:
    """Group id -> generated source, read from each kernel's ``source_path`` (made by the code
    generator in its own cache, never a path from the browser); at most ``limit`` bytes each."""
    out = {}
    for k in doc.get("kernels", ()):
        path = k.get("source_path")
        if not path:
            continue
        try:
            with open(path, encoding="utf-8") as f:
                out[k["group_id"]] = f.read(limit)
        except OSError as exc:
            out[k["group_id"]] = f"# the source could not be read: {exc.strerror}"
    return out


def run_profile(graph, plan, backend="auto", progress=None, cancel=None, **options):
    """Profile ``plan`` on this machine (``workbench.profiler.profile``).

    ``backend``: ``auto`` (CUDA when a GPU is present, else the CPU), ``cpu`` or ``cuda``;
    ``options``: more keyword arguments of ``profile`` (``repeat``, ``warmup``, ``budget_s``).

    Raises
    ------
    WorkbenchError
        A compile error, a resource limit, or a cancellation, with its message; ``cuda`` on
        a machine without a usable GPU says so in the app's words (the backends it offers).
    """
    from workbench.errors import CompileError
    from workbench.profiler import profile

    if backend == "cuda":
        from workbench.codegen.backend import gpu_available

        if not gpu_available():
            raise CompileError(NO_GPU)
    return profile(graph, plan, backend=backend, progress=progress, cancel=cancel, **options)


#: what the app says when ``cuda`` is chosen on a machine without a usable GPU
NO_GPU = ("backend cuda: the machine running the workbench has no usable CUDA GPU; choose "
          "auto or cpu beside the button")


def progress_text(stage: str, k: int, n: int, message: str = "") -> str:
    """The progress line: ``compiling group 3 of 12: g2``."""
    text = f"{stage} {k} of {n}"
    return f"{text}: {message}" if message else text


def _num(v):
    """A number from the report (non-finite floats are written as strings there)."""
    return v if isinstance(v, (int, float)) else None


def noisy(timing: dict) -> bool:
    """True when a timing of the report (a kernel's or a total's JSON) is noisy by THE
    definition, :func:`workbench.profiler.report.noisy_reason` (the one ``workbench run``'s
    table and the report's own busy note use), judged from its stored statistics."""
    return bool(noisy_text(timing))


def noisy_text(timing: dict) -> str:
    """Why a timing of the report is noisy (``median 1.8x the min``), ``""`` when it is not
    (:func:`workbench.profiler.report.noisy_reason`)."""
    from workbench.profiler.report import noisy_reason

    samples = timing.get("samples")
    return noisy_reason(_num(timing.get("median_s")), _num(timing.get("min_s")),
                        _num(timing.get("spread_s")),
                        samples if isinstance(samples, int) else None)


def typical_time(k: dict) -> float | None:
    """The figure a kernel's prediction is compared with (seconds): the prediction check's
    ``measured_s`` where the report has one, else what
    :func:`workbench.profiler.accuracy.measured_time` takes from the kernel's timing (its 25th
    percentile; in a record made before that was stored, its median or, noisy, its min)."""
    import math

    from workbench.profiler.accuracy import measured_time
    from workbench.profiler.report import Timing

    got = _num((k.get("prediction") or {}).get("measured_s"))
    if got:
        return got

    def num(key):
        v = _num(k.get(key))
        return math.nan if v is None else float(v)

    t = Timing(num("median_s"), num("min_s"), num("spread_s"), 0, noisy=noisy(k),
               typical_s=num("typical_s"))
    v = measured_time(t)
    return v if math.isfinite(v) and v > 0 else None


def kernel_rows(report: dict, plan) -> list[dict]:
    """Rows of the profile table and chart: one per kernel of the fused plan.

    ``measured`` is the median, ``min`` the fastest run and ``typical`` (:func:`typical_time`,
    the 25th percentile) the figure the ratio is made of: ``ratio`` = typical / predicted, as
    the report's prediction check computed it. A noisy kernel (:func:`noisy`) says why in its
    note; ``spread_s`` and ``noisy`` are kept for the chart. A kernel outside [0.5, 2] x its
    prediction has ``miss``: how far, and which term of the cost model was wrong (the report's
    :class:`~workbench.profiler.accuracy.PredictionCheck` ``text``, what ``workbench run``
    prints, quoting the same typical and predicted times).
    """
    rows = []
    for k in report.get("kernels", ()):
        measured, predicted = _num(k.get("median_s")), _num(k.get("predicted_s"))
        typical = typical_time(k)
        check = k.get("prediction") or {}
        ratio = _num(check.get("ratio"))
        if ratio is None:
            ratio = typical / predicted if typical and predicted else None
        note = "numpy fallback" if k.get("fallback") else ("cached" if k.get("cached") else "")
        why = noisy_text(k)
        if why:
            note = " · ".join(x for x in (f"noisy: {why}", note) if x)
        rows.append({"id": k.get("group_id"), "group": k.get("group_id"),
                     "kind": k.get("kind", "?"),
                     "measured_s": measured, "predicted_s": predicted,
                     "min_s": _num(k.get("min_s")), "min": fmt_seconds(_num(k.get("min_s"))),
                     "typical_s": typical, "typical": fmt_seconds(typical),
                     "spread_s": _num(k.get("spread_s")), "noisy": bool(why),
                     "measured": fmt_seconds(measured), "predicted": fmt_seconds(predicted),
                     "ratio": f"{ratio:.2f}" if ratio else "-", "ratio_x": ratio,
                     "missed": bool(check.get("missed")),
                     "dominant": k.get("dominant") or "-",
                     # which term was wrong, as `workbench run` prints it (PredictionCheck.text)
                     "miss": (f"MISS: {check.get('text')}" if check.get("missed") else ""),
                     "gbps": f"{k['gbps']:.2f}" if _num(k.get("gbps")) else "-",
                     "gbps_x": _num(k.get("gbps")),
                     "note": note})
    return rows


def miss_lines(rows: list[dict]) -> list[str]:
    """Each missed prediction of :func:`kernel_rows`'s rows as a line with its kernel and
    the whole text of which term was wrong (the table's column is cut at the panel's
    edge; the app shows these lines, wrapped, under it)."""
    return [f"{r['group']} (ratio {r['ratio']}): {r['miss'].removeprefix('MISS: ')}"
            for r in rows if r.get("miss")]


def accuracy_text(report: dict) -> str:
    """How many of the fused plan's kernels ran within [0.5, 2] x their prediction, and which
    missed (``""`` without predictions)."""
    checks = [(k.get("group_id"), k["prediction"]) for k in report.get("kernels", ())
              if k.get("prediction")]
    if not checks:
        return ""
    missed = [g for g, c in checks if c.get("missed")]
    text = (f"predictions: {len(checks) - len(missed)} of {plural(len(checks), 'kernel')} "
            "within [0.5, 2] x their prediction")
    if missed:
        text += f"; missed (flagged in the table, with the term that was wrong): " \
                f"{', '.join(missed)}"
    return text


def correctness_rows(report: dict) -> list[dict]:
    """Rows of the correctness table: each output's largest errors against the reference."""
    return [{"id": f"out{o.get('index')}", "output": f"out{o.get('index')} {o.get('node')}",
             "max_abs_error": f"{_num(o.get('max_abs_error')) or 0:.3g}",
             "max_rel_error": f"{_num(o.get('max_rel_error')) or 0:.3g}",
             "nonfinite": nonfinite_text(o),
             "ok": "yes" if o.get("ok") else f"NO ({o.get('mismatches')} elements)"}
            for o in report.get("outputs", ())]


def nonfinite_text(output: dict) -> str:
    """An output's non-finite mismatches in the report's words (NaN, inf, a finite value where
    the reference has neither, and the first position), ``"none"`` when there are none."""
    from workbench.codegen.check import OutputCheck

    fields = ("nan_count", "inf_count", "finite_count")
    if not any(output.get(k) for k in fields):
        return "none"
    first = output.get("first_nonfinite")
    check = OutputCheck(0, "", "", (), 0.0, 0.0, 0.0, 0.0, 0, False,
                        **{k: int(output.get(k) or 0) for k in fields},
                        first_nonfinite=tuple(first) if first is not None else None)
    return check.nonfinite_text()


def backend_text(report: dict, requested: str = "auto") -> str:
    """The backend that ran, and why when it is the CPU (``auto`` picks CUDA when a GPU is
    present, so ``auto`` ending on the CPU means no usable GPU was found)."""
    backend = report.get("backend", "?")
    if backend == "cpu" and requested == "auto":
        return "backend cpu (auto: no usable CUDA GPU here)"
    if backend == "cpu" and requested == "cpu":
        return "backend cpu (as chosen)"
    return f"backend {backend}"


def _noisy_subjects(report: dict) -> list[str]:
    """What is noisy (:func:`noisy`): ``["2 kernels (marked in the table)", "the totals"]``."""
    totals = report.get("totals", {})
    shaky = [k.get("group_id") for k in report.get("kernels", ()) if noisy(k)]
    what = [f"{plural(len(shaky), 'kernel')} (marked in the table)"] if shaky else []
    if noisy(totals.get("fused", {})) or noisy(totals.get("unfused", {})):
        what.append("the totals")
    return what


def _noisy_sentence(what: list[str]) -> str:
    verb = "varies" if what == [f"{plural(1, 'kernel')} (marked in the table)"] else "vary"
    return f"noisy: {' and '.join(what)} {verb} widely from run to run"


def summary_lines(report: dict, requested: str = "auto") -> list[str]:
    """The profile's key figures, at most four short lines: the measured totals and the
    speedup (with the predicted one), how many kernels ran within their predictions, what
    was noisy, and the backend (the rest is :func:`summary_details`)."""
    totals = report.get("totals", {})
    fused = _num(totals.get("fused", {}).get("median_s"))
    unfused = _num(totals.get("unfused", {}).get("median_s"))
    pf, pu = _num(totals.get("predicted_s")), _num(totals.get("predicted_unfused_s"))
    lines = []
    if fused and unfused:
        line = (f"measured fused {fmt_seconds(fused)} vs unfused {fmt_seconds(unfused)}: "
                f"{fmt_ratio(unfused / fused)} speedup")
        lines.append(line + (f" (predicted {fmt_ratio(pu / pf)})" if pf and pu else ""))
    checks = [k["prediction"] for k in report.get("kernels", ()) if k.get("prediction")]
    if checks:
        missed = [k.get("group_id") for k in report.get("kernels", ())
                  if (k.get("prediction") or {}).get("missed")]
        lines.append(f"predictions: {len(checks) - len(missed)} of "
                     f"{plural(len(checks), 'kernel')} within [0.5, 2] x"
                     + (f"; missed: {', '.join(missed)}" if missed else ""))
    what = _noisy_subjects(report)
    if what:
        lines.append(_noisy_sentence(what))
    lines.append(backend_text(report, requested))
    return lines


def summary_details(report: dict) -> list[str]:
    """The rest of the summary, for its collapsed details: the predicted totals, what noisy
    means here, the predictions' whole sentence, and the profiler's notes."""
    totals = report.get("totals", {})
    out = []
    pf, pu = _num(totals.get("predicted_s")), _num(totals.get("predicted_unfused_s"))
    if pf and pu:
        out.append(f"predicted {fmt_seconds(pf)} fused vs {fmt_seconds(pu)} unfused "
                   f"({fmt_ratio(pu / pf)})")
    what = _noisy_subjects(report)
    if what:
        out.append(f"{_noisy_sentence(what)} (median above 1.5x the fastest run, or a spread "
                   "above half the median), as on a busy machine; profile again to compare")
    accuracy = accuracy_text(report)
    if accuracy:
        out.append(accuracy)
    return out + [str(n) for n in report.get("notes") or ()]


def summary_text(report: dict, requested: str = "auto") -> str:
    """The whole summary on one line: the backend, fused vs unfused measured totals and the
    speedup, the prediction, what was noisy, the predictions' accuracy and the notes (the app
    shows :func:`summary_lines` with the rest, :func:`summary_details`, collapsed)."""
    totals = report.get("totals", {})
    fused = _num(totals.get("fused", {}).get("median_s"))
    unfused = _num(totals.get("unfused", {}).get("median_s"))
    text = backend_text(report, requested)
    if fused and unfused:
        text += (f" · measured fused {fmt_seconds(fused)} vs unfused {fmt_seconds(unfused)}: "
                 f"{fmt_ratio(unfused / fused)} speedup")
    pf, pu = _num(totals.get("predicted_s")), _num(totals.get("predicted_unfused_s"))
    if pf and pu:
        text += f" · predicted {fmt_seconds(pf)} vs {fmt_seconds(pu)} ({fmt_ratio(pu / pf)})"
    what = _noisy_subjects(report)
    accuracy = accuracy_text(report)
    for part in ([summary_details(report)[1 if pf and pu else 0]] if what else []) \
            + ([accuracy] if accuracy else []):
        text += " · " + part
    notes = report.get("notes") or ()
    if notes:
        text += " · " + "; ".join(str(n) for n in notes)
    return text


def mismatch_text(report: dict) -> str:
    """The report's errors (mismatches, compile errors) as one line, or ``""``."""
    errors = [e.get("text") or e.get("message") or str(e) for e in report.get("errors", ())]
    bad = [o for o in report.get("outputs", ()) if not o.get("ok")]
    if bad and not errors:
        errors = [f"output {o.get('node')} differs from the reference (max abs error "
                  f"{o.get('max_abs_error')}"
                  + (f"; {nonfinite_text(o)}" if nonfinite_text(o) != "none" else "") + ")"
                  for o in bad]
    return "; ".join(errors)


def measured_times(record: dict | None, plan) -> dict:
    """Group id -> measured seconds, if ``record`` is a report for ``plan``; else {}."""
    if not record or record.get("plan") != plan_key(plan):
        return {}
    return {k["group_id"]: k["median_s"] for k in record["report"].get("kernels", ())
            if _num(k.get("median_s"))}


def sources_file(record: dict) -> str:
    """Every kernel's source in one text file, each under a header line."""
    parts = [f"# ---- kernel {gid} ----\n{src}"
             for gid, src in record.get("sources", {}).items()]
    return "\n\n".join(parts) + "\n"


def trace_file(record: dict) -> str:
    """The Perfetto (Chrome trace-event) JSON of a stored report."""
    return json.dumps(record.get("trace") or {"traceEvents": []})


def download(what: str, record: dict) -> tuple[str, str]:
    """(file name suffix, text) of a download from a stored report: ``sources`` (every kernel's
    source), ``trace`` (Perfetto JSON) or ``report`` (the report JSON). The kernel sources are
    a ``.txt`` file: browsers flag a downloaded ``.py`` as dangerous (it could be run)."""
    if what == "sources":
        return "kernels.py.txt", sources_file(record)
    if what == "trace":
        return "trace.json", trace_file(record)
    return "report.json", json.dumps(record["report"], indent=1)

"""A profile report as a Chrome trace: the JSON object form with a ``traceEvents`` list of
complete events (``"ph": "X"``, times in microseconds; Google's "Trace Event Format" document),
which Perfetto (ui.perfetto.dev) and chrome://tracing open: one track, one slice per kernel run.
"""

from __future__ import annotations

from workbench.profiler.report import finite as _finite


def trace_events(report) -> dict:
    """Every timed fused run as a Chrome trace (``{"traceEvents": [...]}``): one track, one
    slice per kernel run, at the time it ran, so that the table's median and min are the
    median and min of the slices' durations (the gaps between slices are Python's
    bookkeeping and the interleaved unfused runs, which the totals do not count)."""
    events = [
        {"name": "process_name", "ph": "M", "pid": 1, "tid": 1,
         "args": {"name": f"{report.graph} ({report.backend})"}},
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1,
         "args": {"name": "fused kernels (every timed run)"}},
    ]
    kinds = {k.group_id: k for k in report.kernels}
    for gid, start, dur, run in report.trace:
        k = kinds.get(gid)
        args = {"group": gid, "run": run}
        name = gid
        if k is not None:
            ops = "+".join(dict.fromkeys(k.ops))
            name = f"{gid} {k.kind}: {ops}" if ops else f"{gid} {k.kind}"
            args.update(kind=k.kind, ops=list(k.ops), fallback=k.fallback,
                        median_us=k.timing.median_s * 1e6, min_us=k.timing.min_s * 1e6,
                        noisy=k.timing.noisy, predicted_us=(
                            None if k.predicted_s is None else k.predicted_s * 1e6),
                        gbps=k.gbps, gflops=k.gflops)
        events.append({"name": name[:120], "cat": "kernel", "ph": "X", "pid": 1, "tid": 1,
                       "ts": start * 1e6, "dur": dur * 1e6, "args": _finite(args)})
    return {"traceEvents": events, "displayTimeUnit": "ms"}

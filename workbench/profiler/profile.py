"""profile(): compile a plan and its unfused baseline, check them, time them, report.

Timing method: after ``warmup`` untimed runs of each, the fused plan and its baseline (the plan
with one op per group, :func:`~workbench.planner.plan.unfused_plan`, compiled by the same
backend) run in alternating rounds, ``repeat`` rounds (or until a time budget is spent, with at
least three), so that load from other processes hits both alike; each kernel launch is timed on
its own (``time.perf_counter`` around a CPU call; CUDA events around a GPU launch), and a run's
total is the sum of its kernels' times, so Python's bookkeeping between launches is not
counted. numpy's time is the reference interpreter's, measured afterwards (its BLAS threads
spin-wait after each call and would disturb the kernels if interleaved with them).

Kernels that fall back to the numpy reference interpreter (a sort, a while loop, a scatter) run
in the same rounds, as the plan runs them, and the compiled kernels around them run colder for
it (the interpreter evicts their code, data and page-table entries: 0.5-1 µs instead of 30 ns
after a few ms of interpretation). This is kept in the measurement — it is what a call of the
plan costs on this backend — and the predictions are made in that context: the longest
fallback's measured seconds go into the launch term
(:func:`~workbench.costmodel.calibrated.interpreted_context`).

Each timing has a median, a min and a ``noisy`` flag
(:class:`~workbench.profiler.report.Timing`). The profiler also measures how busy the machine is: the share of all CPUs that *other*
processes used while it ran (compiling, checking and timing: ``/proc/stat`` minus this
process's CPU time, Linux) and the load average; the report calls the machine busy when others used more than
:data:`BUSY_OTHERS_FRACTION` of it or the load average exceeds the CPU count - 0.5.
"""

from __future__ import annotations

import os
import statistics
import time

from workbench.codegen import compile_plan, reference_outputs
from workbench.codegen.blas import numpy_blas_threads
from workbench.codegen.check import check_outputs
from workbench.costmodel import get_device, plan_cost
from workbench.costmodel.calibrated import interpreted_context
from workbench.errors import MismatchError, WorkbenchError
from workbench.ir import DEFAULT_MAX_BYTES, evaluate, make_inputs, peak_live_bytes
from workbench.planner.plan import unfused_plan
from workbench.profiler.accuracy import check_prediction
from workbench.profiler.report import Cancelled, KernelReport, Report, Timing, busy_note, drift_note

#: default repetitions and the time budget of each measured set (seconds)
REPEAT, WARMUP, BUDGET_S = 20, 2, 10.0
#: the machine is *busy* when other processes used more than this share of all its CPUs
#: while the kernels were timed (on 2 cores: another process using half a core)
BUSY_OTHERS_FRACTION = 0.25
#: shortest timing window (seconds) over which that share is trusted (10 ms ticks)
PROBE_MIN_S = 0.25


def profile(graph, plan, inputs=None, *, backend="auto", repeat=REPEAT, warmup=WARMUP,
            progress=None, cancel=None, device=None, exact_math=False, cache_dir=None,
            max_bytes=DEFAULT_MAX_BYTES, budget_s=BUDGET_S, seed=0) -> Report:
    """Compile, check and time ``plan`` against its unfused baseline and numpy.

    Parameters
    ----------
    graph : Graph
    plan : Plan
    inputs : sequence or mapping of arrays, optional
        Default: :func:`workbench.ir.make_inputs` with ``seed``.
    backend : {"auto", "cpu", "cuda", "cuda-sim"}
    repeat, warmup : int
        Timed rounds (each runs the fused plan, then its unfused baseline, once; at least one)
        and untimed runs of each plan first.
    progress : callable(stage, k, n, message), optional
        Stages ``compile``, ``compile-unfused`` (per group), ``check``, ``time`` and
        ``time-unfused`` (per kernel in the first round, then ``time`` per round with k = n; at
        most every 0.1 s), ``time-numpy``.
    cancel : callable() -> bool, optional
        Polled between steps; when it returns true, :class:`Cancelled` is raised.
    device : str, optional
        Cost-model device profile for predictions (default: ``cpu`` on the cpu backend, the
        GPU's own profile on cuda when the cost model knows it).
    exact_math : bool
        CPU: libm instead of the float32 approximations.
    cache_dir : path, optional
        Kernel cache directory.
    max_bytes : int or None
        Refuse, before allocating, plans or references whose live tensors exceed this.
    budget_s : float
        Stop the rounds after twice this many seconds (a budget per plan; at least 3 rounds),
        and numpy's runs after this many.

    Returns
    -------
    Report

    Raises
    ------
    Cancelled
    ResourceLimitError
        If a plan needs more memory than ``max_bytes``.
    CompileError
        If the backend cannot be used here.
    InputError
        If ``device`` names no cost-model profile (before any work).
    EvaluationError
        If the graph cannot be evaluated (an opaque op, bad inputs).
    """
    if device is not None:
        get_device(device)    # an unknown profile is refused before any compile or timing
    poll = _poller(cancel)
    poll()
    probe = _MachineProbe()   # from the start: the timing alone can be too short to sample
    fused = compile_plan(graph, plan, backend, exact_math, _stage(progress, "compile"),
                         cache_dir)
    poll()
    base = compile_plan(graph, unfused_plan(graph, plan.device), fused.backend, exact_math,
                        _stage(progress, "compile-unfused"), cache_dir)
    poll()
    _check_memory(graph, [fused, base], max_bytes)
    inputs = make_inputs(graph, seed) if inputs is None else inputs
    env = fused.prepare(inputs, max_bytes)
    outs = fused.execute(env)
    _report(progress, "check", "comparing with the reference interpreter")
    with numpy_blas_threads(1):  # no numpy BLAS worker left spinning while kernels are timed
        ref, exact = reference_outputs(graph, inputs, max_bytes)
    checks = check_outputs(graph, outs, ref, exact)
    poll()
    base_env = base.prepare(inputs, max_bytes)
    f_runs, u_runs, f_wall, u_wall, trace = _time_plans(fused, env, base, base_env, repeat,
                                                        warmup, budget_s, progress, poll)
    np_times = _time_numpy(graph, inputs, repeat, budget_s, progress, poll)
    machine = probe.finish()
    drift = _drift(fused.backend, device, cache_dir)
    if drift:
        machine["drift"] = drift
    # the compiled kernels run among the fallbacks' interpretation: part of their context
    with interpreted_context(graph, max(_interpreted_s(fused, f_runs),
                                        _interpreted_s(base, u_runs))):
        pred = _predictions(graph, plan, fused.backend, device)
        upred = _predictions(graph, unfused_plan(graph, plan.device), fused.backend, device)
    fused_t = Timing.of(sum(r) for r in f_runs)
    kernels = _kernel_reports(graph, fused, f_runs, pred)
    report = Report(
        graph=graph.name, policy=plan.policy, backend=fused.backend,
        device=pred["device"] if pred else device, kernels=kernels,
        unfused_kernels=_kernel_reports(graph, base, u_runs, upred),
        fused=fused_t, unfused=Timing.of(sum(r) for r in u_runs),
        numpy=Timing.of(np_times), predicted_s=pred["total"] if pred else None,
        predicted_unfused_s=upred["total"] if upred else None, outputs=checks,
        ok=all(c.ok for c in checks), notes=_notes(fused, pred),
        errors=_errors(fused, checks), trace=trace,
        compile_s=fused.compile_s + base.compile_s, machine=machine,
        fused_wall=Timing.of(f_wall), unfused_wall=Timing.of(u_wall))
    # the busy note last of the notes: the table's footer, and the app shows notes
    report.notes += [n for n in (drift_note(machine), busy_note(report)) if n]
    return report


# ----- steps ------------------------------------------------------------------------------------

def _poller(cancel):
    def poll():
        if cancel is not None and cancel():
            raise Cancelled("profiling was cancelled")
    return poll


def _report(progress, stage, message, k=1, n=1):
    if progress is not None:
        progress(stage, k, n, message)


def _stage(progress, stage):
    if progress is None:
        return None
    return lambda _s, k, n, msg: progress(stage, k, n, msg)


def _throttled(progress, stage, every_s=0.1):
    if progress is None:
        return None
    last = [0.0]

    def call(k, n, msg):
        now = time.perf_counter()
        if k == n or now - last[0] >= every_s:
            last[0] = now
            progress(stage, k, n, msg)
    call.__name__ = "unfused" if stage == "time-unfused" else "fused"
    return call


def _check_memory(graph, compiled, max_bytes):
    for c in compiled:
        c.check_memory(max_bytes)
    if max_bytes is not None:
        from workbench.errors import ResourceLimitError

        peak, at = peak_live_bytes(graph)
        if peak > max_bytes:
            raise ResourceLimitError(f"the reference needs {peak / 2**20:.1f} MiB of live "
                                     f"tensors, more than the cap of {max_bytes / 2**20:.1f} MiB",
                                     node=at)


def _time_plans(fused, env, base, base_env, repeat, warmup, budget_s, progress, poll):
    """Per-kernel seconds of each timed run of ``fused`` and ``base``, each plan's end-to-end
    wall time of a call, all in alternating rounds, and the trace: (group id, start, duration,
    run) of every fused kernel run.

    A round runs each plan twice: the instrumented driver (each kernel timed inside it) and
    the plain one (timed from the caller's side: the wall time of a call)."""
    plans = [(fused.bind(env), fused), (base.bind(base_env), base)]
    for _ in range(warmup):
        for bound, _c in plans:
            bound.run()
            bound.run_timed()
        poll()
    ticks = (_throttled(progress, "time"), _throttled(progress, "time-unfused"))
    runs, walls, trace = ([], []), ([], []), []
    t_start = time.perf_counter()
    rounds = max(repeat, 1)
    for r in range(rounds):
        for p, (bound, compiled) in enumerate(plans):
            _outs, secs, starts = bound.run_timed()
            runs[p].append(secs)
            t0 = time.perf_counter()
            bound.run()
            walls[p].append(time.perf_counter() - t0)
            if p == 0:
                trace.extend((k.group_id, s0 - t_start, dt, r)
                             for k, s0, dt in zip(compiled.call, starts, secs))
            _tick_kernels(ticks[p], compiled, r)
            poll()
        if ticks[0] is not None and r > 0:
            ticks[0](len(fused.call), len(fused.call),
                     f"round {r + 1} of {rounds}: fused ({len(fused.call)} kernels) and "
                     f"unfused ({len(base.call)})")
        if r >= 2 and time.perf_counter() - t_start > 2 * budget_s:
            break
    return runs[0], runs[1], walls[0], walls[1], trace


def _tick_kernels(tick, compiled, r):
    """Progress per kernel after the first round's run of a plan."""
    if tick is None or r != 0:
        return
    n = len(compiled.call)
    what = "kernel" if tick.__name__ != "unfused" else "unfused kernel"
    for k, kern in enumerate(compiled.call, 1):
        tick(k, n, f"timing {what} {k} of {n} ({kern.group_id}, {kern.kind})")


class _MachineProbe:
    """CPU time used by other processes between construction and :meth:`finish` (Linux
    ``/proc/stat``: all CPUs' busy time, steal included, minus this process's CPU time).

    ``/proc/stat`` counts in 10 ms ticks, so the share is only used to call the machine busy
    over a window of at least :data:`PROBE_MIN_S`; the load average is used always.
    """

    def __init__(self):
        self.cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
            else (os.cpu_count() or 1)
        self.load = _load_avg()
        self.busy0 = _system_busy_s()
        self.own0 = time.process_time()
        self.t0 = time.perf_counter()

    def finish(self) -> dict:
        wall = time.perf_counter() - self.t0
        busy1, own = _system_busy_s(), time.process_time() - self.own0
        others = None
        total_cpus = os.cpu_count() or self.cpus
        if self.busy0 is not None and busy1 is not None and wall > 0:
            others = max(0.0, min(1.0, (busy1 - self.busy0 - own) / (wall * total_cpus)))
        busy = bool((others is not None and wall >= PROBE_MIN_S
                     and others > BUSY_OTHERS_FRACTION)
                    or (self.load is not None and self.load > self.cpus - 0.5))
        return {"cpus": self.cpus, "load_avg": self.load, "others_cpu_fraction": others,
                "busy": busy, "window_s": wall}


def _load_avg():
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def _system_busy_s():
    """Seconds all CPUs have been busy since boot (``/proc/stat``), or None off Linux."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)    # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _time_numpy(graph, inputs, repeat, budget_s, progress, poll):
    times, t_start = [], time.perf_counter()
    for r in range(max(repeat, 1)):
        t0 = time.perf_counter()
        evaluate(graph, inputs, max_bytes=None)
        times.append(time.perf_counter() - t0)
        _report(progress, "time-numpy", f"numpy run {r + 1} of {repeat}", r + 1, repeat)
        poll()
        if r >= 2 and time.perf_counter() - t_start > budget_s:
            break
    return times


def _interpreted_s(compiled, runs) -> float:
    """The longest of ``compiled``'s fallback kernels (run by the numpy reference
    interpreter): its median seconds over the timed ``runs``; 0 without fallbacks or on a GPU
    backend."""
    if compiled.backend != "cpu":
        return 0.0
    fb = [k for k, kern in enumerate(compiled.call) if kern.fallback]
    if not fb or not runs:
        return 0.0
    return max(float(statistics.median(r[k] for r in runs)) for k in fb)


def _predictions(graph, plan, backend, device):
    """Cost-model predictions per group; an ``error`` instead when there are none (never
    made up)."""
    name = device or _default_device(backend)
    if name is None:
        return {"device": None, "total": None, "groups": {}, "registers": {},
                "error": f"no cost-model device profile for the {backend} backend (pass "
                         "--device NAME, e.g. --device h200; in Python: device='h200'): "
                         "predicted times are not shown"}
    try:
        dev = get_device(name)
        pc = plan_cost(graph, plan, dev)
    except WorkbenchError as exc:  # e.g. a plan the cost model refuses: report, keep the timings
        return {"device": name, "total": None, "groups": {}, "registers": {},
                "error": f"cost model failed: {exc}"}
    total = getattr(pc, "total", None)
    total = getattr(total, "predicted_s", total)
    return {"device": name, "total": total, "costs": dict(pc.groups),
            "groups": {g: c.predicted_s for g, c in pc.groups.items()},
            "registers": {g: getattr(c, "registers_per_thread", None)
                          for g, c in pc.groups.items()}}


def _default_device(backend):
    if backend == "cpu":
        return "cpu"
    if backend == "cuda":
        try:
            from numba import cuda

            name = cuda.get_current_device().name
            name = name.decode() if isinstance(name, bytes) else str(name)
        except Exception:
            return None
        for key in ("H200", "H100", "A100"):
            if key in name.upper():
                return key.lower()
    return None


def _kernel_reports(graph, compiled, runs, pred):
    """Per kernel, in launch order: per-call kernels timed over ``runs``; offline kernels
    (weight folding) by their one run in ``prepare``. ``ops`` are the plan's (composites as
    one op), ``primitive_ops`` the expanded kernel's count."""
    per_call = {k.group_id: [r[i] for r in runs] for i, k in enumerate(compiled.call)}
    offline = {k.group_id: [t] for k, t in zip(compiled.offline, compiled.offline_s)}
    groups = {g.id: g for g in compiled.plan.groups}
    out = []
    for k in compiled.kernels:
        t = Timing.of(per_call.get(k.group_id) or offline.get(k.group_id, []))
        moved = k.bytes_read + k.bytes_written
        g = groups.get(k.group_id)
        ops = tuple(graph.node(n).op for n in g.nodes) if g is not None else tuple(k.ops)
        cost = (pred or {}).get("costs", {}).get(k.group_id)
        check = None if k.fallback or k.role != "call" else check_prediction(t, cost)
        out.append(KernelReport(
            k.group_id, k.kind, k.backend, k.fallback, k.fallback_reason, t,
            (pred or {}).get("groups", {}).get(k.group_id), k.bytes_read, k.bytes_written,
            k.flops, k.transcendentals, _rate(moved, t.median_s), _rate(k.flops, t.median_s),
            k.registers, k.spill_bytes, k.shared_bytes,
            (pred or {}).get("registers", {}).get(k.group_id), k.source_path, k.compile_s,
            k.cached, ops, k.error, k.role, len(k.ops),
            cost.dominant if cost is not None else None,
            check.to_json() if check is not None else None))
    return out


def _rate(amount, seconds):
    return amount / seconds / 1e9 if seconds and seconds > 0 else 0.0


def _drift(backend, device, cache_dir) -> dict:
    """:func:`~workbench.profiler.calibrate.drift` on a calibrated CPU profile ({} otherwise,
    and when the profile cannot be read)."""
    if backend != "cpu":
        return {}
    from workbench.costmodel.devices import get_device
    from workbench.profiler.calibrate import drift

    try:
        d = get_device(device or "cpu")
    except WorkbenchError:
        return {}
    if d.kind != "cpu" or not d.calibration:
        return {}
    return drift(d.calibration, cache_dir)


def _calibration_note(device) -> list[str]:
    """A note when the predictions come from an uncalibrated CPU profile (the roofline terms
    of the quick probe, which miss most kernels of our backend by more than 2x: issue 11's
    measurements), saying how to calibrate; ``[]`` otherwise."""
    from workbench.costmodel.devices import get_device

    try:
        d = get_device(device) if device else None
    except WorkbenchError:
        return []
    if d is None or d.kind != "cpu" or d.calibration:
        return []
    return [f"the {d.name} profile is not calibrated: predictions use the quick probe's "
            "roofline terms (bandwidth, peak FLOP/s), which miss most kernels of this backend "
            "by more than 2x; `workbench run` and `plan` calibrate it first and `workbench "
            "serve` in the background (unless --no-calibrate or WORKBENCH_NO_CALIBRATE=1), "
            "`workbench devices --refresh` measures this machine's kernel classes again (several "
            "minutes the first time) and the predictions use them from then on"]


def _notes(compiled, pred):
    notes = list(compiled.notes)
    if pred is None:
        notes.append("no cost model available: predicted times are not shown")
    elif pred.get("error"):
        notes.append(pred["error"])
    else:
        notes += _calibration_note(pred.get("device"))
    fb = [k.group_id for k in compiled.kernels if k.fallback and not k.error]
    if compiled.offline:
        notes.append(f"{len(compiled.offline)} offline kernel(s) fold weights once, before the "
                     "timed runs; they are not in the per-call totals")
    if fb:
        notes.append(f"{len(fb)} group(s) ran through the numpy reference: {', '.join(fb)}")
    return notes


def _errors(compiled, checks):
    errors = [k.error for k in compiled.kernels if k.error]
    for c in checks:
        if not c.ok:
            errors.append(MismatchError(
                f"output {c.index} differs from the reference: "
                + (f"{c.nonfinite_text()}; " if c.nonfinite_text() else "")
                + f"max abs error {c.max_abs_error:.3g}, max rel error "
                f"{c.max_rel_error:.3g}, {c.mismatches} element(s) beyond atol {c.atol:.3g} + "
                f"rtol {c.rtol:g}",
                node=c.node).to_dict())
    return errors

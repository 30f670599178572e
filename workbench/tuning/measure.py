"""Compile and measure one plan: the unit of work of tuning and sweeps.

:func:`measure_plan` compiles a plan with the code generator, checks its outputs against the
reference interpreter (a measurement of a wrong result is never reported as a time), and times
``repeat`` runs after ``warmup`` untimed ones, each kernel launch timed on its own as the
profiler does (:meth:`~workbench.codegen.compiled.CompiledPlan.execute`). Unlike
:func:`~workbench.profiler.profile` it does not build and time the unfused baseline or numpy:
tuning compares plans with each other.

A measurement runs in a worker process (:func:`~workbench.tuning.runner.measure_in_worker`,
or a Ray task): generated
code that crashes the interpreter or never returns takes the worker down, not the caller.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from workbench.errors import MismatchError
from workbench.tuning.tasks import host_id

#: timed runs and untimed warm-up runs of a measurement
REPEAT, WARMUP = 10, 2


@dataclass(frozen=True)
class Measurement:
    """One plan, compiled and timed.

    Attributes
    ----------
    plan_fingerprint : str
    backend : str
        The backend it ran on (``cpu``, ``cuda``, ``cuda-sim``).
    best_s, median_s : float
        The fastest and the median of the timed runs' totals (each run's total is the sum of its
        kernels' launch times), seconds.
    runs : int
        Timed runs.
    kernels : tuple of (str, float)
        Group id -> median seconds of its kernel, in launch order.
    peak_bytes : int
        Bytes alive at once while it runs (the compiled plan's liveness, scratch included).
    compile_s : float
        Seconds spent compiling or loading the kernels from the cache.
    max_rel_error : float
        The largest relative error of an output against the reference (each within tolerance).
    fallbacks : int
        Kernels that ran through the numpy reference.
    host : str
        Where it ran (host name, machine, CPU count; the GPU's name on cuda).
    """

    plan_fingerprint: str
    backend: str
    best_s: float
    median_s: float
    runs: int
    kernels: tuple = ()
    peak_bytes: int = 0
    compile_s: float = 0.0
    max_rel_error: float = 0.0
    fallbacks: int = 0
    host: str = ""
    notes: tuple = field(default_factory=tuple)

    def to_json(self) -> dict:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["kernels"] = {g: t for g, t in self.kernels}
        d["notes"] = list(self.notes)
        return d


def measure_plan(graph, plan, *, backend: str = "cpu", repeat: int = REPEAT,
                 warmup: int = WARMUP, seed: int = 0, cache_dir=None) -> Measurement:
    """Compile ``plan``, check it against the reference and time it.

    Parameters
    ----------
    graph : Graph
    plan : Plan
    backend : {"cpu", "cuda", "cuda-sim"}
    repeat, warmup : int
        Timed runs (at least 1) and untimed runs before them.
    seed : int
        Seed of the random inputs (:func:`workbench.ir.make_inputs`).
    cache_dir : path, optional
        Kernel cache.

    Returns
    -------
    Measurement

    Raises
    ------
    MismatchError
        If an output differs from the reference beyond its tolerance (nothing is timed).
    CompileError, EvaluationError, ResourceLimitError
        From the code generator and the reference interpreter.
    """
    from statistics import median

    from workbench.codegen import compile_plan, reference_outputs
    from workbench.codegen.check import check_outputs
    from workbench.ir import make_inputs

    if backend == "cuda-sim":
        os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
    compiled = compile_plan(graph, plan, backend, cache_dir=cache_dir)
    inputs = make_inputs(graph, seed)
    env = compiled.prepare(inputs)
    outs = compiled.execute(env)
    ref, exact = reference_outputs(graph, inputs)
    checks = check_outputs(graph, outs, ref, exact)
    bad = [c for c in checks if not c.ok]
    if bad:
        c = bad[0]
        raise MismatchError(f"output {c.index} differs from the reference: max rel error "
                            f"{c.max_rel_error:.3g} (plan {plan.fingerprint})", node=c.node)
    for _ in range(warmup):
        compiled.execute(env)
    runs = []
    for _ in range(max(1, repeat)):
        times: list[float] = []
        compiled.execute(env, times)
        runs.append(times)
    totals = [sum(r) for r in runs]
    kernels = tuple((k.group_id, median(r[i] for r in runs))
                    for i, k in enumerate(compiled.call))
    return Measurement(plan.fingerprint, compiled.backend, min(totals), median(totals),
                       len(runs), kernels, compiled.peak_bytes, compiled.compile_s,
                       max((c.max_rel_error for c in checks), default=0.0),
                       sum(1 for k in compiled.kernels if k.fallback), host_id(compiled.backend),
                       tuple(compiled.notes))


def measure_task(graph, plan, backend="cpu", repeat=REPEAT, warmup=WARMUP, seed=0,
                 cache_dir=None) -> Measurement:
    """:func:`measure_plan` as a task an executor runs (the same arguments)."""
    return measure_plan(graph, plan, backend=backend, repeat=repeat, warmup=warmup, seed=seed,
                        cache_dir=cache_dir)


#: the task name executors run for a measurement
MEASURE = "workbench.tuning.measure:measure_task"


def wall_clock() -> float:
    """Seconds since the epoch (the store's time stamps)."""
    return time.time()


def profile_task(graph, plan, backend="cpu", options=None) -> tuple:
    """Compile & profile ``plan`` where the task runs (a Ray worker, for the app's
    ``workbench serve --executor ray``): :func:`workbench.profiler.profile` with ``options``
    (``repeat``...), and each kernel's generated source read there, since the kernel cache
    holding it is that machine's.

    Returns
    -------
    (Report, dict)
        The profiler's report and group id -> generated source (at most 1 MiB each).

    Raises
    ------
    WorkbenchError
        A compile error, a mismatch against the reference, a resource limit.
    """
    from workbench.profiler import profile

    report = profile(graph, plan, backend=backend, **(options or {}))
    sources = {}
    for k in report.to_json().get("kernels", ()):
        path = k.get("source_path")
        if path:
            try:
                with open(path, encoding="utf-8") as f:
                    sources[k["group_id"]] = f.read(1 << 20)
            except OSError as exc:
                sources[k["group_id"]] = f"# the source could not be read: {exc.strerror}"
    return report, sources


#: the remote compile & profile task (:func:`profile_task`)
PROFILE = "workbench.tuning.measure:profile_task"

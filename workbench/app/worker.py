"""What runs inside a worker process (:mod:`workbench.app.jobs`): its loop and its tasks.

A worker is a spawned interpreter. It reads ``(task id, kind, args)`` from its pipe, runs
``TASKS[kind](*args, progress=...)`` and sends back ``("progress", id, k, n, text)`` lines and
then ``("ok", id, result)`` or ``("error", id, error)``, where ``error`` is a
:class:`~workbench.errors.WorkbenchError` as a dict (:func:`error_dict`). Nothing here imports
Dash. The tasks:

- ``load``: read a graph from bytes (an upload) or a path the server chose, and plan it with
  the default policy: ``(graph, plan)``. Parsing untrusted input happens here, under the
  worker's address-space limit and the task's time-out, never on a request thread.
- ``lesson``: measure a lesson's stages on this machine (:func:`lesson_task`); the records go
  to the per-machine lesson cache on disk, where the server reads them.
- ``profile``: compile & profile a plan (:func:`workbench.app.profiling.run_profile`) and return
  the record the app stores (:func:`workbench.app.profiling.report_record`), which names no
  file of the server.
- ``tune``: measured autotuning of a plan (:func:`tune_task`, the What-if tab's *Tune*); the
  measurements go to the results store on disk, the :class:`~workbench.tuning.tune.TuneResult`
  comes back (the server makes its best plan the session's current one).
"""

from __future__ import annotations

import signal
import sys

from workbench.errors import ResourceLimitError, WorkbenchError


def error_dict(exc: BaseException) -> dict:
    """A WorkbenchError (or another exception, in words) as a picklable dict."""
    if isinstance(exc, WorkbenchError):
        d = {k: getattr(exc, k) for k in ("message", "file", "line", "column", "node")}
        d["class"] = type(exc).__name__
        if hasattr(exc, "reason"):
            d["reason"] = exc.reason
        return d
    if isinstance(exc, MemoryError):
        return {"class": "ResourceLimitError",
                "message": "the job ran out of memory (the worker's limit) and was stopped"}
    if isinstance(exc, RecursionError):
        return {"class": "WorkbenchError",
                "message": "the input is nested too deeply for the worker (RecursionError)"}
    return {"class": "WorkbenchError",
            "message": f"the job failed unexpectedly ({type(exc).__name__}); nothing was "
                       "changed"}


def rebuild_error(d: dict) -> WorkbenchError:
    """The WorkbenchError that :func:`error_dict` describes."""
    from workbench import errors

    cls = getattr(errors, str(d.get("class")), None)
    if not (isinstance(cls, type) and issubclass(cls, WorkbenchError)):
        cls = WorkbenchError
    where = {k: d[k] for k in ("file", "line", "column", "node") if d.get(k) is not None}
    if "reason" in d and issubclass(cls, errors.LegalityError):
        return cls(str(d.get("message")), reason=d["reason"], **where)
    return cls(str(d.get("message")), **where)


def load_task(data: bytes | None, name: str, path: str | None, policy: str, device: str,
              input_limits=None, progress=None):
    """Read a graph (from ``data`` named ``name``, or from the file ``path``) and plan it.

    ``input_limits``: the :class:`~workbench.importers.limits.Limits` to read under (the
    server's; default: the defaults).

    Returns
    -------
    (Graph, Plan)
        The graph without its cached views (they are rebuilt where used) and the planner's
        plan with ``policy`` on ``device``.

    Raises
    ------
    WorkbenchError
        What is wrong with the input, naming the file (``name``) and the place.
    """
    from workbench.importers import limits, load_bytes, load_graph
    from workbench.ir.graph import Graph
    from workbench.planner import plan_graph

    if progress:
        progress(0, 2, f"reading {name}")
    with limits.using(input_limits or limits.Limits()):
        graph = load_graph(path) if path is not None else load_bytes(data, name)
    if progress:
        progress(1, 2, f"planning {graph.name}")
    plan = plan_graph(graph, policy=policy, device=device)
    return Graph(graph.name, graph.nodes, graph.outputs, graph.meta), plan


def profile_task(graph, plan, backend: str, options: dict, ray_target=None, progress=None):
    """Compile & profile ``plan`` (``options``: keyword arguments of
    :func:`workbench.profiler.profile`, e.g. ``repeat``); returns the app's record of it.

    ``ray_target``: ``(address, words)`` to run it as a Ray task there instead
    (:func:`ray_profile`; ``workbench serve --executor ray``)."""
    from workbench.app.profiling import report_record, run_profile

    if ray_target is not None:
        return ray_profile(graph, plan, backend, options, ray_target, progress)

    def on_progress(stage, k, n, message=""):
        from workbench.app.profiling import progress_text

        if progress:
            progress(k, max(n, 1), progress_text(stage, k, n, message))

    report = run_profile(graph, plan, backend, on_progress, **options)
    return report_record(plan, report, backend)


#: this worker process's connections to Ray, by address (a worker is a spawned process that
#: serves one task at a time; the connection outlives a task, not the process)
_RAY_EXECUTORS: dict = {}


def _ray_executor(address: str):
    """This worker's connection to the Ray at ``address`` (made once, kept for its life)."""
    from workbench.tuning.ray_executor import RayExecutor

    ex = _RAY_EXECUTORS.get(address)
    if ex is None:
        ex = RayExecutor(address=address)
        ex.connect()
        _RAY_EXECUTORS[address] = ex
    return ex


class _LocalRayKeys:
    """A Ray executor joined at a *local* Ray's address whose measurements the results store
    keys as this machine's (as the app's own executor of that Ray would), not as a cluster's
    ``ray:<address>`` — a local Ray's address changes with every start."""

    def __init__(self, ex):
        self._ex = ex

    def __getattr__(self, name):
        return getattr(self._ex, name)

    def device_key(self, backend: str) -> str:
        from workbench.tuning.tasks import host_id

        return host_id(backend)


def tune_task(graph, plan, device: str, budget: int, ray_target=None, ray_local: bool = False,
              options: dict | None = None, progress=None) -> dict:
    """Measured autotuning of ``plan`` (:func:`workbench.tuning.tune.tune` from ``plan`` on
    the cost-model profile ``device``, at most ``budget`` variants), measuring in a fresh
    local executor (a worker process of its own, ended with the task), or as Ray tasks at
    ``ray_target = (address, words)`` (``ray_local``: that Ray runs on this machine; its
    measurements are stored as this machine's). ``options``: more keyword arguments of
    ``tune`` (the server's ``tune_options``: ``repeat``, ``min_gain``, ``timeout_s``...).
    Measurements are read from and written to the results store
    (:class:`~workbench.tuning.store.ResultsStore`, in the cache directory).

    Returns
    -------
    dict
        ``{"result": TuneResult, "start": fingerprint of plan}``.

    Raises
    ------
    WorkbenchError
        The results store cannot be opened, or the Ray cluster cannot be reached (one line).
    """
    from contextlib import nullcontext

    from workbench.tuning.executors import LocalExecutor
    from workbench.tuning.store import ResultsStore
    from workbench.tuning.tune import tune

    budget = max(1, int(budget))
    if progress:
        progress(0, budget, f"tuning: measuring the current plan, then up to {budget} "
                            "variant(s)…")
    if ray_target is not None:
        ex = _ray_executor(ray_target[0])
        executor = nullcontext(_LocalRayKeys(ex) if ray_local else ex)
    else:
        executor = LocalExecutor()
    measured = [0]

    def on_trial(trial):
        measured[0] += 1
        if progress:
            progress(min(measured[0], budget), budget,
                     f"tuning: {measured[0]} of {budget} variant(s) measured "
                     f"(last: {str(trial.description)[:80]}, {trial.status})…")

    with executor as ex, ResultsStore() as store:
        result = tune(graph, ex, store, start=plan, device=device, budget=budget,
                      progress=on_trial, **dict(options or {}))
    return {"result": result, "start": plan.fingerprint}


def ray_profile(graph, plan, backend: str, options: dict, ray_target, progress=None):
    """Compile & profile ``plan`` as a Ray task (the sweep's executor,
    :class:`~workbench.tuning.ray_executor.RayExecutor`: one CPU, or ``{"GPU": 1}`` for
    ``cuda``; no retries) at ``ray_target = (address, words)``; the kernels' sources are read
    on the node that compiled them.

    Raises
    ------
    WorkbenchError
        One line: the cluster cannot be reached, the task crashed or failed (a compile
        error, a mismatch), or it ran past its timeout.
    """
    from workbench.app.profiling import report_record
    from workbench.tuning.measure import PROFILE
    from workbench.tuning.tasks import TIMEOUT_S, Task

    address, words = ray_target
    if progress:
        progress(0, 1, f"compiling and profiling on {words}…")
    ex = _ray_executor(address)
    timeout = float(options.get("budget_s") or 0) + TIMEOUT_S
    (outcome,) = ex.run([Task(PROFILE, {"graph": graph, "plan": plan, "backend": backend,
                                        "options": options}, timeout_s=timeout,
                              backend="cuda" if backend == "cuda" else "cpu")])
    if not outcome.ok:
        raise WorkbenchError(f"compile & profile on {words}: {outcome.message}")
    report, sources = outcome.value
    return report_record(plan, report, backend, sources=sources, where=words)


def lesson_task(lesson_id: str, again: bool = False, progress=None) -> dict:
    """Measure a lesson's stages on this machine (:func:`workbench.teaching.measure.
    measure_lesson`: each measured stage compiled and profiled against its unfused
    baseline, the records stored in the per-machine lesson cache, which the server then
    reads); ``again`` measures even the stages that have a record.

    Returns
    -------
    dict
        ``{"lesson": id, "stages": [stage ids measured or found], "backend": name}``.

    Raises
    ------
    InputError
        If no lesson has the id ``lesson_id``.
    WorkbenchError
        A compile error, or a mismatch against the reference (nothing is stored then).
    """
    from workbench.app.profiling import progress_text
    from workbench.errors import InputError
    from workbench.teaching import LESSONS_BY_ID, measure
    from workbench.teaching.lesson import open_lesson

    lesson = LESSONS_BY_ID.get(lesson_id)
    if lesson is None:
        raise InputError(f"no lesson named {str(lesson_id)[:60]!r}")
    backend, device = measure.measuring()

    def on_progress(stage, k, n, message=""):
        if progress:
            progress(k, max(n, 1), "measuring… " + progress_text(stage, k, n, message))

    if progress:
        progress(0, 1, "measuring… (compiling the plans)")
    done = measure.measure_lesson(open_lesson(lesson, device), backend, on_progress,
                                  again=bool(again))
    return {"lesson": lesson.id, "stages": sorted(done), "backend": backend}


def _preload_load() -> None:
    import workbench.importers  # noqa: F401
    import workbench.planner  # noqa: F401


def _preload_profile() -> None:
    import workbench.app.profiling  # noqa: F401
    import workbench.profiler  # noqa: F401


def _preload_tune() -> None:
    import workbench.tuning.store  # noqa: F401
    import workbench.tuning.tune  # noqa: F401


def _preload_lesson() -> None:
    _preload_profile()
    import workbench.teaching  # noqa: F401


#: kind -> (function, what to import when the worker starts rather than at its first task)
TASKS = {
    "load": (load_task, _preload_load),
    "profile": (profile_task, _preload_profile),
    "lesson": (lesson_task, _preload_lesson),
    "tune": (tune_task, _preload_tune),
}


def _limit_address_space(limit: int | None) -> None:
    if not limit:
        return
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def worker_main(conn, kinds: tuple, address_space: int | None = None) -> None:
    """The worker's loop (the target of the spawned process): see the module docstring."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the server's to handle
    _limit_address_space(address_space)
    for kind in kinds:
        TASKS[kind][1]()
    while True:
        try:
            task_id, kind, args = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        fn = TASKS[kind][0]

        def progress(k, n, text="", _id=task_id):
            conn.send(("progress", _id, int(k), int(n), str(text)[:300]))

        try:
            result = fn(*args, progress=progress)
        except BaseException as exc:  # noqa: BLE001 - every outcome is reported, one line
            if isinstance(exc, (SystemExit, KeyboardInterrupt)):
                return
            if not isinstance(exc, (WorkbenchError, MemoryError, RecursionError)):
                print(f"workbench worker: {kind} task failed: {type(exc).__name__}: "
                      f"{str(exc)[:200]}", file=sys.stderr, flush=True)
            try:
                conn.send(("error", task_id, error_dict(exc)))
            except MemoryError:
                conn.send(("error", task_id, error_dict(ResourceLimitError("out of memory"))))
            continue
        try:
            conn.send(("ok", task_id, result))
        except Exception as exc:  # noqa: BLE001 - e.g. a result that cannot be pickled
            conn.send(("error", task_id, error_dict(exc)))


__all__ = ["worker_main", "TASKS", "error_dict", "rebuild_error", "load_task", "profile_task",
           "lesson_task", "tune_task"]

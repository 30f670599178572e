"""Measure plans through the results store: reuse what is stored, run the rest on an executor.

:func:`measure_all` is what tuning and sweeps share. Each (graph, plan) whose measurement the
store holds for this device, backend and version is answered from it (``fresh=False``); the
others become tasks for the executor (one compile-and-measure each, in its own worker process,
with a timeout), and each good result is written to the store by the driver. A failed task
(error, crash, timeout, no GPU) comes back with its one-line message and writes nothing. Plans
with one fingerprint are measured once.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.tuning.measure import MEASURE, REPEAT, Measurement
from workbench.tuning.tasks import TIMEOUT_S, Task


@dataclass(frozen=True)
class Measured:
    """A plan's measurement, or why there is none.

    Attributes
    ----------
    best_s, median_s : float or None
        Seconds per call (None when it failed).
    fresh : bool
        Measured now (False: read from the store).
    status : str
        ``ok``, or the executor's failure (``error``, ``crash``, ``timeout``, ``unavailable``).
    message : str
        One line, for a failure.
    kernels : dict
        Group id -> median seconds (fresh measurements and stored ones alike).
    peak_bytes : int or None
    """

    plan_fingerprint: str
    best_s: float | None
    median_s: float | None
    fresh: bool
    status: str = "ok"
    message: str = ""
    kernels: dict | None = None
    peak_bytes: int | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def measure_all(items, executor, store=None, *, backend: str = "cpu", repeat: int = REPEAT,
                timeout_s: float = TIMEOUT_S, labels=None, predicted=None,
                task: str = MEASURE) -> list[Measured]:
    """Measure each ``(graph, plan)`` of ``items``.

    Parameters
    ----------
    items : sequence of (Graph, Plan)
    executor : LocalExecutor or RayExecutor
    store : ResultsStore, optional
        Read before measuring, written after; None measures everything and stores nothing.
    backend : str
    repeat : int
        Timed runs of each fresh measurement.
    timeout_s : float
        Seconds each measurement may take.
    labels, predicted : sequence, optional
        Per item: how the store names it, and its predicted seconds (stored beside it).
    task : str
        The function that measures (``module:function`` taking ``graph``, ``plan``,
        ``backend``, ``repeat`` and returning a
        :class:`~workbench.tuning.measure.Measurement`; default
        :func:`~workbench.tuning.measure.measure_task`).

    Returns
    -------
    list of Measured
        In the order of ``items``.
    """
    items = list(items)
    device = executor.device_key(backend)
    out: list[Measured | None] = [None] * len(items)
    todo: dict[tuple, list[int]] = {}
    for i, (graph, plan) in enumerate(items):
        row = store.get(graph.fingerprint, plan.fingerprint, device, backend) if store else None
        if row is not None:
            out[i] = Measured(plan.fingerprint, row.best_s, row.median_s, False,
                              kernels=store.kernel_times(row), peak_bytes=row.peak_bytes)
        else:
            todo.setdefault((graph.fingerprint, plan.fingerprint), []).append(i)
    keys = list(todo)
    tasks = [Task(task, dict(graph=items[todo[k][0]][0], plan=items[todo[k][0]][1],
                                backend=backend, repeat=repeat), timeout_s, backend)
             for k in keys]
    for key, outcome in zip(keys, executor.run(tasks) if tasks else []):
        first = todo[key][0]
        graph, plan = items[first]
        result = _result(plan, outcome)
        if result.ok and store is not None:
            m: Measurement = outcome.value
            store.put(graph, plan, device, m, label=labels[first] if labels else "",
                      predicted_s=predicted[first] if predicted else None)
        for i in todo[key]:
            out[i] = result
    return out


def _result(plan, outcome) -> Measured:
    if not outcome.ok:
        return Measured(plan.fingerprint, None, None, True, outcome.status, outcome.message)
    m = outcome.value
    if not isinstance(m, Measurement) or m.plan_fingerprint != plan.fingerprint:
        return Measured(plan.fingerprint, None, None, True, "error",
                        "the worker returned a measurement of another plan")
    return Measured(plan.fingerprint, m.best_s, m.median_s, True, kernels=dict(m.kernels),
                    peak_bytes=m.peak_bytes)


def measure_in_worker(graph, plan, *, backend: str = "cpu", repeat: int = REPEAT,
                      timeout_s: float = 600.0) -> Measurement:
    """:func:`measure_plan` in a worker process of its own, waited for at most ``timeout_s``.

    Raises
    ------
    TuneError
        If the worker crashed or ran past the timeout; the error of the measurement itself
        (a mismatch, a compile error) otherwise.
    """
    from workbench.tuning.executors import LocalExecutor

    with LocalExecutor() as ex:
        (outcome,) = ex.run([Task(MEASURE, dict(graph=graph, plan=plan, backend=backend,
                                                repeat=repeat), timeout_s=timeout_s)])
    return outcome.value_or_raise()

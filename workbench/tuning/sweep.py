"""Sweeps: graphs x policies x device profiles x knob settings, planned here, measured on an
executor (worker processes, or Ray tasks on a cluster), recorded in the results store.

Every combination is planned in the driver (planning is milliseconds) and costed; the plans are
then measured together by :func:`~workbench.tuning.runner.measure_all`, so a Ray cluster runs
them in parallel, the store answers the ones measured before, and combinations that give one
plan (a knob that changes nothing) share one measurement. A combination whose measurement fails
keeps its row, with the one-line reason and no time.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

from workbench.costmodel.devices import get_device
from workbench.costmodel.knobs import apply_knobs
from workbench.costmodel.model import plan_cost
from workbench.planner.heuristics import plan_graph
from workbench.tuning.measure import REPEAT
from workbench.tuning.memory import plan_memory
from workbench.tuning.runner import measure_all
from workbench.tuning.tasks import TIMEOUT_S


@dataclass(frozen=True)
class SweepRow:
    """One combination of a sweep.

    Attributes
    ----------
    graph, policy : str
    device : str
        The cost-model profile the plan was made on (knobs in its name).
    settings : dict
        The knob values of this combination.
    plan_fingerprint : str
    kernels : int
    predicted_s : float
    peak_bytes : int
        The plan's peak live bytes (:func:`~workbench.tuning.memory.plan_memory`).
    recomputed_flops : int
    measured_s, median_s : float or None
        Best and median measured seconds per call (None when the measurement failed).
    fresh : bool
    status, message : str
    """

    graph: str
    policy: str
    device: str
    settings: dict
    plan_fingerprint: str
    kernels: int
    predicted_s: float
    peak_bytes: int
    recomputed_flops: int
    measured_s: float | None
    median_s: float | None
    fresh: bool
    status: str
    message: str

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class SweepResult:
    """A sweep's rows, in the order graphs x policies x devices x settings, and its cost."""

    rows: tuple
    seconds: float
    fresh: int
    reused: int
    executor: str
    backend: str

    def to_json(self) -> dict:
        return {"rows": [r.to_json() for r in self.rows], "seconds": self.seconds,
                "fresh": self.fresh, "reused": self.reused, "executor": self.executor,
                "backend": self.backend}


def settings_grid(knobs: dict | None) -> list[dict]:
    """Every combination of knob values: ``{"a": (1, 2), "b": (3,)}`` -> ``[{a:1,b:3},
    {a:2,b:3}]``; ``[{}]`` for none."""
    if not knobs:
        return [{}]
    names = list(knobs)
    return [dict(zip(names, combo)) for combo in itertools.product(*(knobs[n] for n in names))]


def sweep(graphs, executor, store=None, *, policies=("priority",), devices=("cpu",),
          knobs: dict | None = None, backend: str = "cpu", repeat: int = REPEAT,
          timeout_s: float = TIMEOUT_S, task: str | None = None) -> SweepResult:
    """Plan and measure every combination.

    Parameters
    ----------
    graphs : sequence of Graph
    executor : LocalExecutor or RayExecutor
    store : ResultsStore, optional
    policies : sequence of str
    devices : sequence of str
        Cost-model profiles to plan on.
    knobs : dict of str to sequence of numbers, optional
        Knob -> values; every combination is swept (:func:`settings_grid`).
    backend : str
        Where plans are measured; ``cuda`` asks Ray for a GPU per task.
    repeat, timeout_s
        Timed runs and time limit of each measurement.
    task : str, optional
        The measuring function (see :func:`~workbench.tuning.runner.measure_all`).

    Returns
    -------
    SweepResult

    Raises
    ------
    InputError
        For an unknown policy, device or knob, or a bad knob value (before anything runs).
    """
    t0 = time.perf_counter()
    grid = settings_grid(knobs)
    profiles = [(d, s, apply_knobs(get_device(d), s)) for d in devices for s in grid]
    combos = []
    for graph in graphs:
        for policy in policies:
            for _, settings, prof in profiles:
                plan = plan_graph(graph, policy, prof)
                combos.append((graph, policy, settings, prof, plan,
                               plan_cost(graph, plan, prof).total.predicted_s))
    results = measure_all([(c[0], c[4]) for c in combos], executor, store, backend=backend,
                          repeat=repeat, timeout_s=timeout_s,
                          labels=[f"sweep {c[1]}" for c in combos],
                          predicted=[c[5] for c in combos],
                          **({"task": task} if task else {}))
    rows, seen = [], set()
    for (graph, policy, settings, prof, plan, pred), m in zip(combos, results):
        mem = plan_memory(graph, plan)
        rows.append(SweepRow(graph.name, policy, prof.name, dict(settings), plan.fingerprint,
                             sum(1 for g in plan.groups if g.role == "call"), pred,
                             mem.peak_bytes, mem.recomputed_flops, m.best_s, m.median_s,
                             m.fresh, m.status, m.message))
    fresh = reused = 0
    for r in rows:
        key = r.plan_fingerprint
        if key in seen:
            continue
        seen.add(key)
        fresh += r.fresh
        reused += not r.fresh
    return SweepResult(tuple(rows), time.perf_counter() - t0, fresh, reused, executor.name,
                       backend)

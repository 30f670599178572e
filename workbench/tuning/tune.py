"""Measured autotuning: from the planner's proposal, measure plan variants and keep what is
faster.

The search is a hill climb over one-step changes (:mod:`~workbench.tuning.variants`): the
current plan's variants are ordered by the cost model's prediction, the most promising measured
first (compiled, checked against the reference and timed, each in a worker process with a
timeout, through the results store); a variant whose best measured time beats the current
plan's by more than ``min_gain`` (a share, default 5 %: below that, run-to-run noise on a shared
machine decides) becomes the current plan and its own variants are queued. The search stops at
``budget`` measurements of variants, after ``seconds``, or when no variant is left. The cost
model only *orders* the candidates; the decision to keep one is the measurement's. No search
library is needed for a greedy climb over a few dozen candidates (Optuna's samplers suit
continuous or categorical spaces, not this neighbourhood of plans).

The result lists every trial with its predicted and measured gain over the plan it changed, and
where the cost model's ranking was wrong: a variant predicted faster that measured slower (or
the reverse) by more than the noise margin, and the pairs of measured plans whose order the
prediction got wrong.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from workbench.costmodel.model import plan_cost
from workbench.planner.heuristics import plan_graph
from workbench.tuning.measure import REPEAT
from workbench.tuning.runner import measure_all
from workbench.tuning.tasks import TIMEOUT_S
from workbench.tuning.variants import variants

#: default share of the current time a variant must save to be kept
MIN_GAIN = 0.05
#: default number of variants measured
BUDGET = 8


@dataclass(frozen=True)
class Trial:
    """One measured variant.

    Attributes
    ----------
    step : int
        1, 2, ... in the order measured.
    kind, description : str
        The change (:class:`~workbench.tuning.variants.Variant`).
    plan_fingerprint, base_fingerprint : str
        The variant and the plan it changed.
    predicted_s, base_predicted_s : float
    measured_s, base_measured_s : float or None
        Best measured seconds per call of the variant and of its base (None when it failed).
    fresh : bool
        Measured in this run (False: the store had it).
    status, message : str
        ``ok`` or the failure, with its one-line reason.
    kept : bool
        It became the current plan.
    """

    step: int
    kind: str
    description: str
    plan_fingerprint: str
    base_fingerprint: str
    predicted_s: float
    base_predicted_s: float
    measured_s: float | None
    base_measured_s: float | None
    fresh: bool
    status: str = "ok"
    message: str = ""
    kept: bool = False

    @property
    def predicted_gain_s(self) -> float:
        """Base minus variant, predicted (positive: predicted faster)."""
        return self.base_predicted_s - self.predicted_s

    @property
    def measured_gain_s(self) -> float | None:
        """Base minus variant, measured (positive: measured faster)."""
        if self.measured_s is None or self.base_measured_s is None:
            return None
        return self.base_measured_s - self.measured_s

    def misranked(self, min_gain: float) -> bool:
        """The prediction and the measurement disagree on the sign of the gain, and the
        measured gain is larger than the noise margin (``min_gain`` of the base time)."""
        g = self.measured_gain_s
        if g is None or abs(g) <= min_gain * self.base_measured_s:
            return False
        return (g > 0) != (self.predicted_gain_s > 0)

    def to_json(self) -> dict:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d.update(predicted_gain_s=self.predicted_gain_s, measured_gain_s=self.measured_gain_s)
        return d


@dataclass(frozen=True)
class TuneResult:
    """What :func:`tune` found.

    Attributes
    ----------
    graph : str
    start, best : Plan
        The proposal and the fastest plan measured (``best is start`` when nothing beat it).
    start_s, best_s : float or None
        Their best measured seconds per call (None when the start could not be measured).
    start_predicted_s, best_predicted_s : float
    trials : tuple of Trial
    fresh, reused : int
        Measurements made in this run, and answered by the store (the start's included).
    min_gain : float
    executor, backend, device : str
    seconds : float
        Wall time of the search.
    start_status, start_message : str
        ``ok``, or why the proposal could not be measured (then no variant is tried).
    """

    graph: str
    start: object
    best: object
    start_s: float | None
    best_s: float | None
    start_predicted_s: float
    best_predicted_s: float
    trials: tuple
    fresh: int
    reused: int
    min_gain: float
    executor: str
    backend: str
    device: str
    seconds: float
    start_status: str = "ok"
    start_message: str = ""
    misordered_pairs: tuple = field(default_factory=tuple)

    @property
    def improved(self) -> bool:
        return self.best is not self.start

    @property
    def gain(self) -> float:
        """start / best measured time (1.0 when nothing was found)."""
        return self.start_s / self.best_s if self.improved and self.best_s else 1.0

    @property
    def misranked(self) -> tuple:
        """Trials where the cost model and the measurement disagree on the gain's sign."""
        return tuple(t for t in self.trials if t.misranked(self.min_gain))

    def to_json(self) -> dict:
        return {"graph": self.graph, "improved": self.improved, "gain": self.gain,
                "start_fingerprint": self.start.fingerprint,
                "best_fingerprint": self.best.fingerprint, "start_s": self.start_s,
                "best_s": self.best_s, "start_predicted_s": self.start_predicted_s,
                "best_predicted_s": self.best_predicted_s,
                "trials": [t.to_json() for t in self.trials], "fresh": self.fresh,
                "reused": self.reused, "min_gain": self.min_gain, "executor": self.executor,
                "backend": self.backend, "device": self.device, "seconds": self.seconds,
                "start_status": self.start_status, "start_message": self.start_message,
                "misranked_steps": [t.step for t in self.misranked],
                "misordered_pairs": [list(p) for p in self.misordered_pairs],
                "best_plan": self.best.to_json()}


def tune(graph, executor, store=None, *, start=None, policy: str = "priority", device="cpu",
         backend: str = "cpu", budget: int | None = BUDGET, seconds: float | None = None,
         min_gain: float = MIN_GAIN, repeat: int = REPEAT, timeout_s: float = TIMEOUT_S,
         batch: int = 1, progress=None, task: str | None = None) -> TuneResult:
    """Autotune ``graph``'s plan by measurement (see the module notes).

    Parameters
    ----------
    graph : Graph
    executor : LocalExecutor or RayExecutor
    store : ResultsStore, optional
        Measurements reused and recorded (None: measure everything, store nothing).
    start : Plan, optional
        Where to start (default: ``policy``'s plan on ``device``).
    policy : str
    device : str or DeviceProfile
        The cost model's profile (orders the candidates; legality).
    backend : str
        Where plans are measured (``cpu``, ``cuda``, ``cuda-sim``).
    budget : int or None
        Variants to measure at most (None: no limit but ``seconds``).
    seconds : float or None
        Stop starting measurements after this many seconds.
    min_gain : float
        Share of the current time a variant must save to be kept (0 <= min_gain < 1).
    repeat, timeout_s : int, float
        Timed runs and time limit of each measurement.
    batch : int
        Variants measured at once (more than one only pays on a Ray cluster).
    progress : callable(Trial), optional
        Told of each trial as it is measured.
    task : str, optional
        The measuring function (see :func:`~workbench.tuning.runner.measure_all`).

    Returns
    -------
    TuneResult
    """
    t0 = time.perf_counter()
    start = start if start is not None else plan_graph(graph, policy, device)
    common = dict(backend=backend, repeat=repeat, timeout_s=timeout_s)
    if task is not None:
        common["task"] = task
    (m0,) = measure_all([(graph, start)], executor, store, labels=["start"],
                        predicted=[plan_cost(graph, start, device).total.predicted_s], **common)
    counts = {"fresh": int(m0.fresh), "reused": int(not m0.fresh)}
    state = _Climb(graph, start, device, m0.best_s)
    if m0.ok:
        _climb(state, executor, store, common, counts, budget, seconds, min_gain, batch, t0,
               progress)
    best_pred = plan_cost(graph, state.plan, device).total.predicted_s
    return TuneResult(graph.name, start, state.plan, m0.best_s, state.measured,
                      state.start_pred, best_pred, tuple(state.trials), counts["fresh"],
                      counts["reused"], min_gain, executor.name, backend,
                      str(getattr(device, "name", device)), time.perf_counter() - t0,
                      m0.status, m0.message, _misordered(state, min_gain))


class _Climb:
    """The search's state: the current plan, its measured time, the queue, the trials."""

    def __init__(self, graph, start, device, measured):
        self.graph, self.device = graph, device
        self.plan, self.measured = start, measured
        self.start_pred = self.pred = plan_cost(graph, start, device).total.predicted_s
        self.tried = {start.fingerprint}
        self.trials: list[Trial] = []
        self.points = [(self.pred, measured, start.fingerprint)]
        self.queue = self._queue()

    def _queue(self):
        return [v for v in variants(self.graph, self.plan, self.device)
                if v.plan.fingerprint not in self.tried]

    def take(self, n: int):
        out = []
        while self.queue and len(out) < n:
            v = self.queue.pop(0)
            if v.plan.fingerprint not in self.tried:
                self.tried.add(v.plan.fingerprint)
                out.append(v)
        return out

    def accept(self, v, measured) -> None:
        self.plan, self.measured, self.pred = v.plan, measured, v.predicted_s
        self.queue = self._queue()


def _climb(state, executor, store, common, counts, budget, seconds, min_gain, batch, t0,
           progress) -> None:
    done = 0
    while budget is None or done < budget:
        if seconds is not None and time.perf_counter() - t0 >= seconds:
            break
        n = max(1, batch) if budget is None else min(max(1, batch), budget - done)
        picked = state.take(n)
        if not picked:
            break
        results = measure_all([(state.graph, v.plan) for v in picked], executor, store,
                              labels=[v.kind for v in picked],
                              predicted=[v.predicted_s for v in picked], **common)
        best = None
        for v, m in zip(picked, results):
            done += 1
            counts["fresh" if m.fresh else "reused"] += 1
            state.points.append((v.predicted_s, m.best_s, v.plan.fingerprint))
            trial = Trial(len(state.trials) + 1, v.kind, v.description, v.plan.fingerprint,
                          state.plan.fingerprint, v.predicted_s, state.pred, m.best_s,
                          state.measured, m.fresh, m.status, m.message)
            if m.ok and m.best_s < state.measured * (1 - min_gain) and (
                    best is None or m.best_s < best[1].best_s):
                best = (v, m, len(state.trials))
            state.trials.append(trial)
            if progress is not None:
                progress(trial)
        if best is not None:
            v, m, k = best
            t = state.trials[k]
            state.trials[k] = Trial(**{**{f: getattr(t, f) for f in t.__dataclass_fields__},
                                       "kept": True})
            state.accept(v, m.best_s)


def _misordered(state, min_gain: float) -> tuple:
    """Pairs of measured plans (fingerprints) that the prediction orders one way and the
    measurement the other, by more than the noise margin."""
    pts = [p for p in state.points if p[1] is not None]
    out = []
    for i, (pa, ma, fa) in enumerate(pts):
        for pb, mb, fb in pts[i + 1:]:
            if abs(ma - mb) > min_gain * min(ma, mb) and pa != pb and (pa < pb) != (ma < mb):
                out.append((fa, fb))
    return tuple(out)

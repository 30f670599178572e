"""Predicted against measured, per kernel: which predictions missed, and which term was wrong.

A kernel's prediction *misses* when its measured time is outside ``[0.5, 2]`` times the
prediction (:data:`MISS_RANGE`, the issue's "within 2x"). The measured time is the 25th
percentile of its runs (:func:`measured_time`), shown as the profile tables' ``typical (p25)``
column (:data:`MEASURED_WORDS`) and quoted by a miss's text. A miss names the
cost model's dominant term and the rate the kernel achieved against the rate the model assumed
(the words are :func:`workbench.costmodel.text.miss_text`'s); the profile table, the app and
``bench/bench_cost_model.py`` all show these records.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

#: measured / predicted outside this range is a miss
MISS_RANGE = (0.5, 2.0)
#: what the measured figure a prediction is compared with is called where it is shown: the
#: profile table's column (the app's and ``workbench run``'s) and a miss's text
MEASURED_WORDS = "typical (p25)"


@dataclass(frozen=True)
class PredictionCheck:
    """One kernel's measured time against the cost model's prediction.

    Attributes
    ----------
    measured_s, predicted_s : float
        Seconds (measured: :func:`measured_time`, the 25th percentile of the runs).
    ratio : float
        ``measured_s / predicted_s`` (NaN when either is unknown).
    missed : bool
        The ratio is outside :data:`MISS_RANGE`.
    dominant : str
        The term the model says dominates (``memory (L2)``, ``transcendental (sin)`` ...).
    text : str
        For a miss, which term was wrong and by how much; else ``""``.
    """

    measured_s: float
    predicted_s: float
    ratio: float
    missed: bool
    dominant: str
    text: str = ""

    def to_json(self) -> dict:
        d = asdict(self)
        return {k: (str(v) if isinstance(v, float) and not math.isfinite(v) else v)
                for k, v in d.items()}


def measured_time(timing) -> float:
    """The figure a kernel's timing is compared with its prediction by (seconds).

    The 25th percentile of its runs (``timing.typical_s``): the statistic the CPU probe fits
    the cost model's terms to (:func:`workbench.profiler.calibrate.typical`), so a prediction
    and its measurement are the same kind of number. Less disturbed by bursts of other work
    than the median and steadier than the single fastest run. A timing without it (a record
    made before it was stored) is judged as it was then: its median, or its min when noisy.
    """
    typical = getattr(timing, "typical_s", math.nan)
    if isinstance(typical, float) and math.isfinite(typical) and typical > 0:
        return typical
    return timing.min_s if timing.noisy else timing.median_s


def measured_words(measured_s: float, predicted_s: float) -> str:
    """``typical (p25) 1.5 ms against the predicted 500 µs``: the two figures a ratio is made
    of, written as the profile table's columns write them (:func:`workbench.fmt.fmt_time`)."""
    from workbench.fmt import fmt_time

    return f"{MEASURED_WORDS} {fmt_time(measured_s)} against the predicted {fmt_time(predicted_s)}"


def check_prediction(timing, breakdown) -> PredictionCheck | None:
    """Compare a kernel's ``timing`` (:class:`~workbench.profiler.report.Timing`) with its
    cost breakdown (:class:`~workbench.costmodel.CostBreakdown`); None without either."""
    from workbench.costmodel.text import miss_text, ratio_words

    if breakdown is None or timing is None:
        return None
    measured = measured_time(timing)
    predicted = breakdown.predicted_s
    if not (measured and predicted and math.isfinite(measured) and predicted > 0):
        return None
    ratio = measured / predicted
    missed = not (MISS_RANGE[0] <= ratio <= MISS_RANGE[1])
    text = f"{ratio_words(ratio)} ({measured_words(measured, predicted)}); " \
        f"{miss_text(breakdown, measured)}" if missed else ""
    return PredictionCheck(measured, predicted, ratio, missed, breakdown.dominant, text)


def summary(checks) -> dict:
    """``{"kernels", "within", "share_within", "missed"}`` over the checks that exist."""
    got = [c for c in checks if c is not None]
    within = sum(1 for c in got if not c.missed)
    return {"kernels": len(got), "within": within,
            "share_within": within / len(got) if got else None,
            "missed": len(got) - within}

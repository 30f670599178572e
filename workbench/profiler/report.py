"""The profile report: per-kernel timings and rates, totals, correctness.

``Report.to_json()`` is the record the app and ``workbench run --json`` show; the Perfetto
trace of every timed run is :func:`workbench.exporters.perfetto.trace_events`.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field

from workbench.errors import WorkbenchError


class Cancelled(WorkbenchError):
    """``profile`` stopped because its ``cancel()`` callback returned true."""

    code = "cancelled"


#: a measurement is *noisy* when its median is more than this many times its minimum (the
#: typical run is far from the best, so something else took the CPU during many runs) ...
NOISY_MEDIAN_OVER_MIN = 1.5
#: ... or its interquartile range is more than this fraction of its median (the runs scatter
#: widely: a quartile coefficient of dispersion, the robust form of pyperf's check that the
#: standard deviation stays within 10 % of the mean, loosened for a shared machine)
NOISY_IQR_OVER_MEDIAN = 0.5
#: differences below this (seconds) are timer and scheduling jitter, never called noisy
NOISY_FLOOR_S = 2e-6
#: fewer runs than this have no spread to judge
NOISY_MIN_SAMPLES = 3


def noisy_reason(median_s, min_s, spread_s, samples=None) -> str:
    """Why a timing is *noisy*, or ``""`` when it is not: THE definition of noisy, used by
    :class:`Timing` (so the CLI's table and :func:`busy_note`) and by the app's table and
    summary (:func:`workbench.app.profiling.noisy`), so that every count of noisy kernels agrees.

    A timing is noisy when its median is more than :data:`NOISY_MEDIAN_OVER_MIN` times its
    fastest run, or its interquartile range more than :data:`NOISY_IQR_OVER_MEDIAN` of its
    median, by more than :data:`NOISY_FLOOR_S`; with at least :data:`NOISY_MIN_SAMPLES` runs.
    Rationale: the median far above the minimum says other work took the CPU during many runs
    (Python's ``timeit`` docs advise the minimum for that reason); a wide IQR says the runs
    scatter (pyperf's ``check`` command warns on the same, with the standard deviation and
    the mean, https://pyperf.readthedocs.io/en/latest/analyze.html). Either way the median is
    no reliable figure.

    Parameters
    ----------
    median_s, min_s, spread_s : float or None
        Seconds: the median, the fastest run, the interquartile range (75th minus 25th
        percentile). A missing or non-finite one is not judged.
    samples : int or None
        Runs; None when not known (then taken as enough).

    Returns
    -------
    str
        ``median 1.8x the min`` or ``spread (IQR) 0.7x the median``; ``""`` when steady.
    """
    def ok(v):
        return isinstance(v, (int, float)) and math.isfinite(v)

    if samples is not None and samples < NOISY_MIN_SAMPLES:
        return ""
    if ok(median_s) and ok(min_s) and min_s > 0 and median_s > NOISY_MEDIAN_OVER_MIN * min_s \
            and median_s - min_s > NOISY_FLOOR_S:
        return f"median {median_s / min_s:.1f}x the min"
    if ok(median_s) and ok(spread_s) and median_s > 0 \
            and spread_s > NOISY_IQR_OVER_MEDIAN * median_s and spread_s > NOISY_FLOOR_S:
        return f"spread (IQR) {spread_s / median_s:.1f}x the median"
    return ""


@dataclass
class Timing:
    """Summary of repeated measurements (seconds).

    ``typical_s`` is the 25th percentile of the runs: the statistic the CPU probe fits its
    terms to (:data:`workbench.profiler.calibrate.TYPICAL_PERCENTILE`), so the one a prediction
    is compared with (:func:`workbench.profiler.accuracy.measured_time`); NaN in records made
    before it was stored. ``spread_s`` is the interquartile range (75th minus 25th
    percentile). ``noisy``: :func:`noisy_reason` found the runs disagree too much for the
    median to be a reliable figure (the one definition, which the app uses too); ``min_s``
    (the run least disturbed by other work, as ``timeit`` advises) is then the one to compare.
    """

    median_s: float
    min_s: float
    spread_s: float
    samples: int
    max_s: float = math.nan
    noisy: bool = False
    typical_s: float = math.nan

    @staticmethod
    def of(samples) -> "Timing":
        import numpy as np

        s = np.asarray(list(samples), dtype=float)
        if s.size == 0:
            return Timing(math.nan, math.nan, math.nan, 0)
        q25, q50, q75 = np.percentile(s, [25, 50, 75])
        lo, iqr = float(s.min()), float(q75 - q25)
        noisy = bool(noisy_reason(float(q50), lo, iqr, int(s.size)))
        return Timing(float(q50), lo, iqr, int(s.size), float(s.max()), noisy, float(q25))

    @property
    def noisy_reason(self) -> str:
        """Why the timing is noisy (:func:`noisy_reason`), ``""`` when it is not."""
        return noisy_reason(self.median_s, self.min_s, self.spread_s, self.samples)


@dataclass
class KernelReport:
    """One kernel of the fused plan, measured.

    Attributes
    ----------
    group_id, kind, backend : str
    fallback : bool
        Ran through the numpy reference (``fallback_reason`` says why).
    timing : Timing
        Seconds per run.
    predicted_s : float or None
        The cost model's prediction for the group (None when no cost model is available).
    bytes_read, bytes_written : int
        Bytes the kernel reads and writes (its arguments, each once).
    flops, transcendentals : int
    gbps, gflops : float
        Achieved rates at the median time: (bytes read + written) / time / 1e9 and
        FLOPs / time / 1e9.
    registers, spill_bytes, shared_bytes : int or None
        CUDA resource use read back from the compiled kernel.
    predicted_registers : int or None
        The cost model's register-pressure estimate, for comparison.
    source_path : str or None
    compile_s : float
    cached : bool
    ops : tuple of str
        The group's ops as the plan names them (a composite such as ``layer_norm`` is one op).
    error : dict or None
        The compile error, when numba failed and the group fell back.
    role : str
        ``call``, or ``offline`` (weight folding: timed once, not in the per-call totals).
    primitive_ops : int
        Ops of the kernel after composites are expanded (what the generated code computes).
    dominant : str or None
        The cost model's dominant term for the kernel (``memory (L2)``, ``contraction`` ...).
    prediction : dict or None
        Measured against predicted (:class:`~workbench.profiler.accuracy.PredictionCheck`,
        as JSON): ``ratio``, ``missed`` (outside [0.5, 2]) and, for a miss, ``text``: which
        term was wrong. None for fallbacks, offline kernels and without a cost model.
    """

    group_id: str
    kind: str
    backend: str
    fallback: bool
    fallback_reason: str | None
    timing: Timing
    predicted_s: float | None
    bytes_read: int
    bytes_written: int
    flops: int
    transcendentals: int
    gbps: float
    gflops: float
    registers: int | None = None
    spill_bytes: int | None = None
    shared_bytes: int | None = None
    predicted_registers: int | None = None
    source_path: str | None = None
    compile_s: float = 0.0
    cached: bool = False
    ops: tuple = ()
    error: dict | None = None
    role: str = "call"
    primitive_ops: int = 0
    dominant: str | None = None
    prediction: dict | None = None


@dataclass
class Report:
    """Everything ``profile`` measured for one plan.

    Attributes
    ----------
    graph, policy, backend, device : str
        What was run where (``device``: the cost-model profile predictions are for).
    kernels : list of KernelReport
        The fused plan's kernels, in launch order (dead groups have none).
    unfused_kernels : list of KernelReport
        The baseline's kernels (one op each, same backend).
    fused, unfused, numpy : Timing
        Whole-plan times: the sum of the kernels' times in each (instrumented) run; ``numpy``
        is the reference interpreter.
    fused_wall, unfused_wall : Timing or None
        The end-to-end wall time of a call (the plan's driver, from the caller's side: every
        kernel, and what runs between and around them), measured in the same rounds.
    predicted_s, predicted_unfused_s : float or None
        The cost model's totals.
    outputs : list of OutputCheck
        Per output: max_abs_error, max_rel_error, ok (see :mod:`workbench.codegen.check`).
    ok : bool
        Every output matched the reference.
    notes : list of str
    errors : list of dict
        Mismatches and compile errors, as WorkbenchError dicts.
    trace : list of (group_id, start_s, duration_s, run)
        Every timed run of every fused kernel: start (seconds since timing began, by the
        clock), duration (the time the table's statistics are made of) and run number.
    machine : dict
        How busy the machine was while profiling (see ``workbench.profiler.profile``): ``cpus``,
        ``load_avg`` (1-minute load average when profiling began), ``others_cpu_fraction`` (share of
        all CPUs used by other processes while profiling, None where unknown), ``busy``.
    """

    graph: str
    policy: str
    backend: str
    device: str | None
    kernels: list
    unfused_kernels: list
    fused: Timing
    unfused: Timing
    numpy: Timing
    predicted_s: float | None
    predicted_unfused_s: float | None
    outputs: list
    ok: bool
    notes: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    trace: list = field(default_factory=list)
    compile_s: float = 0.0
    machine: dict = field(default_factory=dict)
    fused_wall: Timing | None = None
    unfused_wall: Timing | None = None

    @property
    def outside_kernels_s(self) -> float:
        """Seconds a fused call spends outside its kernels, per kernel: (the call's minimum
        wall time - the minimum kernel sum) / kernels (launching, Python, the driver); NaN
        without wall times."""
        n = len([k for k in self.kernels if k.role != "offline"])
        if self.fused_wall is None or not n:
            return math.nan
        return (self.fused_wall.min_s - self.fused.min_s) / n

    @property
    def speedup(self) -> float:
        """Unfused median time over fused median time."""
        return self.unfused.median_s / self.fused.median_s if self.fused.median_s else math.nan

    def to_json(self) -> dict:
        """A JSON-ready dict (non-finite floats as strings)."""
        d = {
            "graph": self.graph, "policy": self.policy, "backend": self.backend,
            "device": self.device, "ok": self.ok, "speedup": self.speedup,
            "totals": {"fused": asdict(self.fused), "unfused": asdict(self.unfused),
                       "numpy": asdict(self.numpy), "predicted_s": self.predicted_s,
                       "predicted_unfused_s": self.predicted_unfused_s,
                       "fused_wall": asdict(self.fused_wall) if self.fused_wall else None,
                       "unfused_wall": asdict(self.unfused_wall) if self.unfused_wall
                       else None,
                       "outside_kernels_s": self.outside_kernels_s},
            "compile_s": self.compile_s, "machine": dict(self.machine),
            "noisy": [k.group_id for k in self.kernels if k.timing.noisy],
            "kernels": [_kernel_json(k) for k in self.kernels],
            "unfused_kernels": [_kernel_json(k) for k in self.unfused_kernels],
            "outputs": [o.to_json() for o in self.outputs],
            "notes": list(self.notes), "errors": list(self.errors),
        }
        return finite(d)

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1)


def _kernel_json(k: KernelReport) -> dict:
    d = asdict(k)
    d["ops"] = list(k.ops)
    timing = d.pop("timing")
    d.update(timing)
    return d


def finite(obj):
    """``obj`` with every non-finite float (NaN, inf) written as a string, for strict JSON."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


#: a probe kernel running this many times slower (or faster) than its calibration says
#: predictions can no longer be taken as they stand
DRIFT_FACTOR = 1.5
_DRIFT_WORDS = {"stream": "streaming kernel (1 MiB)", "dot": "256^3 dot"}


def drift_note(machine: dict) -> str:
    """A sentence when :func:`~workbench.profiler.calibrate.drift` found the machine running
    the probe's kernels :data:`DRIFT_FACTOR` times slower or faster than when the profile was
    calibrated ('' otherwise); ``profile`` appends it to the report's notes."""
    d = (machine or {}).get("drift") or {}
    off = [(k, d[k]) for k in ("stream", "dot")
           if isinstance(d.get(k), float) and not 1 / DRIFT_FACTOR <= d[k] <= DRIFT_FACTOR]
    if not off:
        return ""
    when = d.get("measured_at")
    at = f" ({time.strftime('%Y-%m-%d %H:%M', time.localtime(when))})" if when else ""
    what = " and ".join(f"the probe's {_DRIFT_WORDS[k]} {r:.1f}x "
                        f"{'slower' if r > 1 else 'faster'}" for k, r in off)
    return (f"this machine now runs {what} than when its profile was calibrated{at}: "
            "predictions of such kernels are off by about as much; `workbench devices "
            "--refresh` measures the machine again")


def busy_note(report) -> str:
    """A sentence when the timings are not to be trusted as they stand ('' otherwise): the
    machine was busy, or kernels or totals varied from run to run. ``profile`` appends it to
    the report's notes, which the table prints last and the app shows; both show the min
    column it points to (``workbench run``'s table, the app's profile table)."""
    m = report.machine or {}
    parts = []
    if m.get("busy"):
        what = []
        if m.get("others_cpu_fraction") is not None:
            what.append(f"other processes used {m['others_cpu_fraction']:.0%} of "
                        f"{m.get('cpus', '?')} CPUs while profiling")
        if m.get("load_avg") is not None:
            what.append(f"load average {m['load_avg']:.2f}")
        parts.append(f"the machine looks busy ({', '.join(what)})")
    noisy = [k.group_id for k in report.kernels if k.timing.noisy]
    totals = [name for name, t in (("fused", report.fused), ("unfused", report.unfused))
              if t.noisy]
    if noisy or totals:
        varied = ", ".join(totals + ([f"{len(noisy)} kernel(s)"] if noisy else []))
        parts.append(f"run-to-run variation is large ({varied} noisy)")
    if not parts:
        return ""
    return ("; ".join(parts) + ": medians may be inflated; compare the min column (each "
            "kernel's fastest run), or run again on a quieter machine")

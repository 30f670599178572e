"""The calibrated CPU model bound to a profile and a graph: knobs over the measurements, the
per-node costs of a graph, the context its kernels run in.

:mod:`~workbench.costmodel.calibration` holds what the probe measured and the formula of a
kernel's time; this module gives the :class:`~workbench.costmodel.calibration.Calibration` a
profile predicts with (:func:`calibration_of`), the per-node costs the planner sums
(:func:`node_costs_of`) and a graph's profiling context (:func:`graph_traffic`, with the
interpreter's seconds between two calls of a kernel when a caller that ran the plan gives them:
:func:`interpreted_context`).

**What-if knobs on a calibrated profile.** A calibrated ``cpu`` profile predicts from measured
tables, not from its roofline fields, yet its fields are the knobs
(:mod:`~workbench.costmodel.knobs`): when a knob moves a field away from the value it had when
the calibration was stored (``calibration["profile"]``, written by
:func:`~workbench.costmodel.devices.with_calibration`), the tables are rescaled by the ratio, so
that a knob changes the calibrated prediction as it changes the roofline's:

* ``launch_overhead_s``: every launch time (warm, cold, in context, after the interpreter)
  times new / measured;
* ``bandwidth_Bps``, ``llc_bandwidth_Bps``, ``l2_bandwidth_Bps``, ``l2_bytes``, ``llc_bytes``:
  each point of the stream curve times (the measured ceiling of the level its working set fell
  in) / (the ceiling of the level it falls in now); a larger cache moves the points it now holds
  to that cache's ceiling; the levels take the new sizes and bandwidths;
* ``core_flops``: per-element costs (one core's), the native kernels' constants and one-core
  contractions (a result under ``CPU_PARALLEL_MIN_BYTES``) divided by new / measured; ``peak_flops``: the kernels spread
  over the cores (the parallel speedup) and the blocked contractions the same way;
* ``transcendental_flops``: each transcendental class's per-element cost times new / measured;
* ``overlap``: the share of the shorter of compute and memory hidden under the longer.

The register budget does not apply to the CPU (the knob refuses it).
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import replace

from workbench.costmodel.calibration import (OVERLAP, TRANSCENDENTAL_CLASSES, Calibration,
                                             NodeCosts, node_costs)
from workbench.costmodel.devices import CPU_PARALLEL_MIN_BYTES, KNOB_FIELDS, DeviceProfile
from workbench.costmodel.native import DEFAULTS, with_native
from workbench.ir.index import GraphIndex

_CALIBRATIONS: dict = {}


def calibration_of(device) -> Calibration | None:
    """The :class:`~workbench.costmodel.calibration.Calibration` a calibrated CPU profile
    predicts with, the knobs set on it applied (see the module notes); read once per profile
    object. None for a GPU, an uncalibrated CPU, or a malformed calibration (the roofline
    terms then predict)."""
    if device is None or device.kind != "cpu" or not device.calibration:
        return None
    key = id(device)
    hit = _CALIBRATIONS.get(key)
    if hit is None or hit[0] is not device:
        try:
            cal = Calibration.from_json(device.calibration)
            base = device.calibration.get("profile") or {}
            hit = (device, with_knobs(cal, base, device))
        except (KeyError, TypeError, ValueError, AttributeError):
            hit = (device, None)
        _CALIBRATIONS[key] = hit
    return hit[1]


def _ratio(new, old) -> float:
    """``new / old`` for two positive numbers, else 1 (a field one side lacks)."""
    if new is None or old is None or old <= 0:
        return 1.0
    return float(new) / float(old)


def with_knobs(cal: Calibration, base: dict, device: DeviceProfile) -> Calibration:
    """``cal`` rescaled for the fields of ``device`` that differ from ``base`` (the profile's
    fields when the calibration was stored); ``cal`` itself when none does."""
    changed = {f for f in KNOB_FIELDS if f in base and getattr(device, f) != base[f]}
    if device.overlap != OVERLAP:
        changed.add("overlap")
    if not changed:
        return cal
    out = replace(cal, overlap=float(device.overlap))
    r = _ratio(device.launch_overhead_s, base.get("launch_overhead_s"))
    if r != 1.0:
        out = replace(out, launch_s=cal.launch_s * r,
                      launch_cold=tuple((s, t * r) for s, t in cal.launch_cold),
                      launch_ctx=tuple((k, s, t * r) for k, s, t in cal.launch_ctx),
                      launch_interp=tuple((s, t * r) for s, t in cal.launch_interp))
    if changed & {"bandwidth_Bps", "llc_bandwidth_Bps", "l2_bandwidth_Bps", "l2_bytes",
                  "llc_bytes"}:
        known = {f: base[f] for f in KNOB_FIELDS if f in base}
        old = replace(device, **known)
        stream = tuple((b, t * old.memory_level(b)[1] / device.memory_level(b)[1])
                       for b, t in cal.stream)
        out = replace(out, stream=stream, levels=_levels(cal.levels, device))
    core = _ratio(device.core_flops, base.get("core_flops"))
    peak = _ratio(device.peak_flops, base.get("peak_flops"))
    trans = _ratio(device.transcendental_flops, base.get("transcendental_flops"))
    if device.transcendental_flops == 0:
        trans = 0.0
    if (core, peak, trans) != (1.0, 1.0, 1.0):
        per = {k: tuple((b, s * (trans if k in TRANSCENDENTAL_CLASSES else 1.0) / core)
                        for b, s in pts) for k, pts in cal.per_element.items()}
        dots = {k: tuple((f, ob, s / (core if ob < CPU_PARALLEL_MIN_BYTES else peak))
                         for f, ob, s in pts) for k, pts in cal.contraction.items()}
        out = replace(out, per_element=per, contraction=dots,
                      parallel_speedup=cal.parallel_speedup * peak / core,
                      native=_native_knob(cal.native, core))
    return out


def _native_knob(native: dict, core: float) -> dict:
    """The native kernels' constants (one core's seconds) over ``core`` (new / measured
    ``core_flops``), the defaults of :mod:`~workbench.costmodel.native` included, so that the
    knob moves a calibration without the probe's ``native`` too."""
    if core == 1.0:
        return native
    return {k: v / core for k, v in {**DEFAULTS, **native}.items()}


def _levels(levels, device: DeviceProfile) -> tuple:
    """The calibration's levels with the sizes and ceilings of ``device``'s fields (the
    innermost cache is the profile's ``l2``, the outermost its ``llc``, as
    :func:`~workbench.costmodel.devices.levels_to_fields` maps them)."""
    out = [dict(lv) for lv in levels]
    caches = out[:-1]
    if caches and device.llc_bytes and device.llc_bandwidth_Bps:
        caches[-1].update(up_to=int(device.llc_bytes), Bps=float(device.llc_bandwidth_Bps))
    if len(caches) > 1 and device.l2_bytes and device.l2_bandwidth_Bps:
        caches[0].update(up_to=int(device.l2_bytes), Bps=float(device.l2_bandwidth_Bps))
    if out:
        out[-1]["Bps"] = float(device.bandwidth_Bps)
    return tuple(out)


def node_costs_of(index: GraphIndex, device: DeviceProfile, cal) -> NodeCosts:
    """The per-node calibrated costs of ``index`` on ``device`` (computed once per
    calibration, kept on the index)."""
    store = index.__dict__.setdefault("_calibrated_costs", {})
    key = id(cal)
    hit = store.get(key)
    if hit is None or hit[0] is not cal:
        costs = node_costs(index, cal, CPU_PARALLEL_MIN_BYTES)
        hit = (cal, with_native(index, costs, cal, CPU_PARALLEL_MIN_BYTES,
                                lambda ix: node_costs_of(ix, device, cal)))
        store[key] = hit
    return hit[1]


@contextmanager
def interpreted_context(graph, seconds: float):
    """Within the ``with`` block, the kernels of ``graph`` are costed as the profiler runs
    them among fallback kernels: ``seconds`` is the longest stretch of the numpy reference
    interpreter (one fallback kernel's measured time: the model does not predict the
    interpreter) between two compiled kernels of a call, and it joins the launch context
    (:meth:`~workbench.costmodel.calibration.Calibration.launch_after_interpreter`). One
    stretch, not their sum: on the 2-core VM the compiled kernels of a plan with two 65 µs
    scatters ran warm (30-45 ns), those of a plan with one 1.3 ms while loop cold (0.5 µs).
    Outside the block (the planner's predictions) it is 0.

    Parameters
    ----------
    graph : Graph
    seconds : float
        The longest fallback kernel's seconds per call, of the fused or the unfused plan.

    Raises
    ------
    InputError
        For a negative or non-finite number of seconds.
    """
    from workbench.errors import InputError
    from workbench.ir.index import graph_index

    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) \
            or not math.isfinite(seconds) or seconds < 0:
        raise InputError(f"interpreter seconds must be finite and >= 0, not {seconds!r}")
    index = graph_index(graph)
    old = index.__dict__.get("_interpreted_s", 0.0)
    index.__dict__["_interpreted_s"] = float(seconds)
    try:
        yield
    finally:
        index.__dict__["_interpreted_s"] = old


#: plans a profiling round runs, each with its own buffers and its own copy of the inputs
#: (:func:`workbench.profiler.profile` alternates the fused and the unfused plan)
PLANS_PER_ROUND = 2


def graph_traffic(index: GraphIndex) -> tuple:
    """The context a kernel of this graph runs in as the profiler times it: (footprint, kernels
    per round). The footprint is the working set a profiling round keeps touching:
    :data:`PLANS_PER_ROUND` times the peak bytes of values alive at once (parameters included,
    :func:`~workbench.ir.interpreter.peak_live_bytes`), since each plan holds its own buffers
    and its own copy of the inputs. Kernels per round is what runs between two calls of one
    kernel, :data:`PLANS_PER_ROUND` times the graph's per-call ops (free ops, which launch
    nothing, and offline ones left out). The launch term grows with both (see
    :mod:`~workbench.costmodel.calibration`). Inside :func:`interpreted_context` a third
    number follows: the longest stretch of the interpreter between two compiled kernels.

    Measured on the 2-core VM: the shared transformer block's round touched 5.2 MiB (the fused
    plan's buffers 0.94, the unfused plan's 2.59, two copies of 0.82 MiB of inputs) against a
    peak of 1.31 MiB alive, beyond the 4 MiB last-level cache the probe found; its one-element
    kernels ran in 0.6-1.7 us (the probe's plans of 64 kernels and 4 MiB: 1.2 us), which the
    single peak had put at 0.14 us. Counting both plans took the tune split from 86.7 % to
    87.7 % of kernels within 2x on the same measurements (holdout 90.2 -> 90.4 %)."""
    hit = index.__dict__.get("_context")
    if hit is None:
        from workbench.ir.interpreter import peak_live_bytes

        params = sum(index.nbytes[i] for i in range(len(index))
                     if index.ops[i] == "parameter")
        ops = sum(1 for i in range(len(index)) if not index.source[i] and index.live[i]
                  and not index.free[i] and not index.offline[i])
        hit = (PLANS_PER_ROUND * max(peak_live_bytes(index.graph)[0], params),
               PLANS_PER_ROUND * ops)
        index.__dict__["_context"] = hit
    interp = index.__dict__.get("_interpreted_s", 0.0)
    return hit + (interp,) if interp > 0 else hit

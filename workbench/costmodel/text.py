"""The cost model's words: bounds, memory levels, a breakdown on one line, a device profile.

The decision log (:mod:`workbench.planner`), ``workbench plan``/``devices`` and the app's cost card
all name a kernel's bound and a device's ceilings with these functions, so they agree.
"""

from __future__ import annotations

import math
import re

from workbench.costmodel.devices import LEVEL_WORDS
from workbench.costmodel.model import CostBreakdown
from workbench.fmt import fmt_bytes, fmt_count, fmt_rate, fmt_time


#: how the text names the memory levels of CostBreakdown.memory_level
LEVEL_NAMES = LEVEL_WORDS


def bound_label(bound: str, level: str, device=None) -> str:
    """``memory-bound (LLC)``: the bound, and for a memory-bound kernel on a profile with
    cache ceilings, the memory level its bandwidth is that of; ``compute-bound``,
    ``launch-bound``, or ``memory-bound`` on a profile with one ceiling (GPUs)."""
    text = f"{bound}-bound"
    cached = device is None or len(device.memory_levels()) > 1
    if bound == "memory" and cached and level in LEVEL_NAMES:
        text += f" ({LEVEL_NAMES[level]})"
    return text


def breakdown_line(c: CostBreakdown, device=None) -> str:
    """One line of cost numbers for a kernel or a total. The arithmetic intensity counts
    FLOP-equivalents (transcendentals at the device's cost, as compute time does); a
    memory-bound kernel names its memory level when ``device`` has cache ceilings (or is not
    given)."""
    regs = "" if c.registers_per_thread is None else \
        f", {c.registers_per_thread} regs ({c.occupancy:.0%} occupancy)"
    unit = "FLOP-eq/B" if c.transcendentals else "FLOP/B"
    return (f"read {fmt_bytes(c.bytes_read)}, write {fmt_bytes(c.bytes_written)}, "
            f"{fmt_count(c.flops)} FLOP" + (f" + {fmt_count(c.transcendentals)} transc."
                                             if c.transcendentals else "")
            + f", AI {c.arithmetic_intensity:.2f} {unit}{regs} -> {fmt_time(c.predicted_s)}, "
            f"{bound_label(c.bound, c.memory_level, device)}" + _dominant_note(c))


def _dominant_note(c: CostBreakdown) -> str:
    """``; dominant term: transcendental (sin)`` when the calibrated terms name a compute class
    the bound alone does not say."""
    d = c.dominant or ""
    if not d or d.split(" (")[0] in ("memory", "launch", "compute"):
        return ""
    return f"; dominant term: {d}"


def memory_ceilings(d) -> str:
    """A profile's memory ceilings: ``27 GB/s`` (one level), or ``L2 (up to 1.0 MiB) 103 GB/s,
    LLC (up to 32.0 MiB) 97 GB/s, DRAM 27 GB/s``."""
    levels = d.memory_levels()
    if len(levels) == 1:
        return fmt_rate(d.bandwidth_Bps, "B/s")
    return ", ".join(f"{LEVEL_NAMES[name]}" + (f" (up to {fmt_bytes(size)})" if size else "")
                     + f" {fmt_rate(bw, 'B/s')}" for name, size, bw in levels)


def core_text(d) -> str:
    """`` (one core: 80 GFLOP/s, for dots and convolutions writing under 2 MiB)`` for a profile
    with a one-core rate (:meth:`~workbench.costmodel.devices.DeviceProfile.flop_rate`), else
    ``""``."""
    if not (d.core_flops and d.parallel_min_bytes):
        return ""
    return (f" (one core: {fmt_rate(d.core_flops, 'FLOP/s')}, for dots and convolutions "
            f"writing under {fmt_bytes(d.parallel_min_bytes)})")


#: the list of levels a profile measured before this version kept in its source text
#: ("levels where their bandwidth drops: L1 up to 512.0 KiB, L2 up to 8.0 MiB, ..."): the
#: probe's own names, which the profile's line (memory_ceilings) names again, differently
_OLD_LEVEL_LIST = re.compile(r"levels where their bandwidth drops: [^;]*")


def source_text(source: str) -> str:
    """A profile's source without the level list of a profile measured before this version
    (the line names the levels once, with their ceilings)."""
    return _OLD_LEVEL_LIST.sub("memory levels where their bandwidth drops", source)


def device_line(device) -> str:
    """The device profile the costs use, with its numbers and where they come from."""
    from workbench.costmodel.devices import get_device

    d = get_device(device)
    text = (f"{d.name} profile: {memory_ceilings(d)}, "
            f"{fmt_rate(d.peak_flops, 'FLOP/s')} FP32{core_text(d)}, "
            f"{fmt_time(d.launch_overhead_s)} per "
            f"launch, a transcendental = {d.transcendental_flops:g} FLOP; "
            f"{source_text(d.source)}")
    if d.kind == "cpu":
        text += " (`workbench devices --refresh` measures again)"
    return text


def term_words(key: str, c: CostBreakdown) -> str:
    """How the text names a term of ``c.terms``: ``memory (LLC)``, ``transcendental (sin)``,
    ``contraction``, ``launch``, ``compute``."""
    from workbench.costmodel.calibration import dominant_term

    return dominant_term({key: 1.0}, LEVEL_WORDS.get(c.memory_level, c.memory_level))


def miss_text(c: CostBreakdown, measured_s: float) -> str:
    """Which term of ``c`` was wrong when a kernel took ``measured_s``: its dominant term, with
    the rate the kernel achieved against the rate the model assumed, e.g. ``memory (LLC): ran
    at 3.1 GB/s, the model assumed 25 GB/s`` or ``transcendental (sin): 6.4 ns per element,
    the model assumed 0.9 ns``, with the amount and the time the rate is made of; the whole
    time beyond the launch is put on that term."""
    key = c.dominant_key
    if not key:
        return ""
    name = term_words(key, c)
    assumed_s = c.terms[key]
    amount, unit = c.term_units.get(key, (0, ""))
    if key == "launch" or not amount or assumed_s <= 0:
        return (f"{name}: the kernel took {fmt_time(measured_s)}, the model assumed "
                f"{fmt_time(c.predicted_s)} ({fmt_time(c.terms.get('launch', 0.0))} of it "
                "launch)")
    spent = max(measured_s - c.terms.get("launch", 0.0), measured_s * 0.05)
    # the amount and the time the rate is made of are stated, so that the rate can be checked
    # against the table (whose GB/s counts the kernel's arguments at the median time)
    if unit not in ("B", "FLOP"):
        # elements, or what a native kernel's compute is counted in (trips, comparisons, taps)
        return (f"{name}: {fmt_time(spent / amount)} per {unit} ({fmt_count(amount)} {unit}s "
                f"in {fmt_time(spent)} beyond the launch), the model assumed "
                f"{fmt_time(assumed_s / amount)}")
    rate_unit = "B/s" if unit == "B" else f"{unit}/s"
    counted = fmt_bytes(amount) if unit == "B" else f"{fmt_count(amount)} {unit}"
    return (f"{name}: ran at {fmt_rate(amount / spent, rate_unit)} ({counted} the model "
            f"counts, in {fmt_time(spent)} beyond the launch), the model assumed "
            f"{fmt_rate(amount / assumed_s, rate_unit)}")


def ratio_words(ratio: float) -> str:
    """``2.4x slower than predicted`` / ``3.1x faster than predicted`` / ``as predicted``."""
    if ratio >= 1.005:
        return f"{ratio:.1f}x slower than predicted"
    if ratio <= 1 / 1.005:
        return f"{1 / ratio:.1f}x faster than predicted"
    return "as predicted"


def calibration_lines(d) -> list[str]:
    """What a calibrated ``cpu`` profile measured, a few lines for ``workbench devices``: the
    launch (warm and cold), the per-element cost of each class, the dots' rates; ``[]`` for a
    profile without calibration."""
    from workbench.costmodel.calibration import CLASS_WORDS

    cal = getattr(d, "calibration", None)
    if not cal:
        return []
    cold = cal.get("launch_cold") or []
    lines = [f"calibrated launch: {fmt_time(cal['launch_s'])} warm"
             + (f", {fmt_time(cold[-1][1])} with {fmt_bytes(cold[-1][0])} streamed between "
                "calls" if cold else "")
             + f"; parallel speedup {cal.get('parallel_speedup', 1):.2f}"]
    per = []
    for klass, pts in sorted((cal.get("per_element") or {}).items()):
        base, short = klass.split("@")[0], "@" in klass
        cost = min(pts, key=lambda p: abs(math.log(max(p[0], 1) / 65536)))[1]
        per.append(f"{CLASS_WORDS.get(base, base)}{' over short rows' if short else ''} "
                   + (fmt_time(cost) if cost >= 1e-12 else "free (under memory)"))
    if per:
        lines.append("per element on one core (about 64 KiB working set): " + ", ".join(per))
    loops = cal.get("loop") or {}
    if loops:
        lines.append("loops beyond streaming, per element by row length: " + "; ".join(
            f"{kind} " + ", ".join(f"{n}: {fmt_time(t)}" for n, t in pts)
            for kind, pts in sorted(loops.items())))
    half = cal.get("half") or {}
    if half:
        lines.append("half precision per element: " + ", ".join(
            f"{dt} write {fmt_time(v.get('write', 0))}, read {fmt_time(v.get('read', 0))}"
            for dt, v in sorted(half.items())))
    native = cal.get("native") or {}
    if native:
        lines.append("native kernels: " + ", ".join(
            f"{k[:-2].replace('_', ' ')} {fmt_time(v)}" for k, v in sorted(native.items())))
    for kind, pts in sorted((cal.get("contraction") or {}).items()):
        if pts:
            rates = [f / s for f, _, s in pts if s > 0]
            lines.append(f"{kind}: {fmt_rate(min(rates), 'FLOP/s')} to "
                         f"{fmt_rate(max(rates), 'FLOP/s')} over {len(pts)} shapes")
    return lines

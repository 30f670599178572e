"""The cost model's words: bounds, memory levels, a breakdown on one line, a device profile.

The decision log (:mod:`workbench.planner`), ``workbench plan``/``devices`` and the app's cost card
all name a kernel's bound and a device's ceilings with these functions, so they agree.
"""

from __future__ import annotations

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
            f"{bound_label(c.bound, c.memory_level, device)}")


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


def device_line(device) -> str:
    """The device profile the costs use, with its numbers and where they come from."""
    from workbench.costmodel.devices import get_device

    d = get_device(device)
    text = (f"{d.name} profile: {memory_ceilings(d)}, "
            f"{fmt_rate(d.peak_flops, 'FLOP/s')} FP32{core_text(d)}, "
            f"{fmt_time(d.launch_overhead_s)} per "
            f"launch, a transcendental = {d.transcendental_flops:g} FLOP; {d.source}")
    if d.kind == "cpu":
        text += " (`workbench devices --refresh` measures again)"
    return text

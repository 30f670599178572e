"""What-if knobs: the cost model's terms as named settings laid over a device profile.

A knob is one field of :class:`~workbench.costmodel.devices.DeviceProfile` that the cost model
reads (launch overhead, the bandwidth of each memory level, the compute peak, the cost of a
transcendental, XLA's compute/memory overlap, the register budget, the cache sizes). Setting
knobs gives a *new* profile (profiles are immutable values): ``apply_knobs(get_device("h100"),
{"launch_overhead_s": 5e-6})``. Its name records the settings, ``h100+launch_overhead_s=5e-06``,
and :func:`~workbench.costmodel.devices.get_device` reads such a name back, so a plan made on a
knobbed profile says which profile it was costed on and can be costed again from its file.

Every value is checked: an unknown knob is refused with the list of known ones, a value must be
a finite number in the knob's range, and a knob the profile does not have (a register budget on
the CPU, an L2 ceiling on a GPU, whose datasheet gives none) is refused with the reason. The
planner and the cost model see nothing but a profile: no code path knows a knob was turned.

This module imports nothing of the workbench but :mod:`workbench.errors` (the device module
imports it to read knobbed names).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from workbench.errors import InputError


@dataclass(frozen=True)
class Knob:
    """One what-if setting.

    Attributes
    ----------
    name : str
        The :class:`DeviceProfile` field it sets (also the name on the command line).
    unit : str
        ``s``, ``B/s``, ``FLOP/s``, ``FLOP``, ``B``, ``registers`` or ``fraction``.
    low, high : float
        The accepted range (inclusive; ``high`` may be ``inf``).
    integer : bool
        Whole numbers only (register budget, cache sizes).
    help : str
        What it changes in the model, in a sentence.
    """

    name: str
    unit: str
    low: float
    high: float
    integer: bool
    help: str


#: the knobs, in the order the app and ``--help`` list them
KNOBS = (
    Knob("launch_overhead_s", "s", 0.0, 1.0, False,
         "fixed cost of launching one kernel, added to every kernel's time"),
    Knob("bandwidth_Bps", "B/s", 1e6, 1e16, False,
         "DRAM (HBM) bandwidth: the memory ceiling of kernels whose bytes fit in no cache"),
    Knob("llc_bandwidth_Bps", "B/s", 1e6, 1e16, False,
         "last-level-cache bandwidth (CPU profiles with cache ceilings)"),
    Knob("l2_bandwidth_Bps", "B/s", 1e6, 1e16, False,
         "L2 bandwidth (CPU profiles with an L2 ceiling below the last-level cache)"),
    Knob("peak_flops", "FLOP/s", 1e6, 1e18, False,
         "FP32 compute peak of the whole device"),
    Knob("core_flops", "FLOP/s", 1e6, 1e18, False,
         "one core's FP32 rate, for small dots and convolutions (CPU profiles)"),
    Knob("transcendental_flops", "FLOP", 0.0, 1e4, False,
         "FLOP-equivalents charged per transcendental (exp, tanh, rsqrt ...)"),
    Knob("overlap", "fraction", 0.0, 1.0, False,
         "share of the shorter of compute and memory time hidden under the longer (XLA's "
         "kMemoryComputeParallelism, 0.95)"),
    Knob("max_registers_per_thread", "registers", 1, 255, True,
         "register budget per thread: a fusion estimated above it is refused (GPU profiles)"),
    Knob("l2_bytes", "B", 1, 2**40, True,
         "size of the L2 (CPU profiles with an L2 ceiling; on a GPU, reads that fit in it get "
         "XLA's L2 read speedup)"),
    Knob("llc_bytes", "B", 1, 2**44, True, "size of the last-level cache (CPU profiles)"),
)

KNOB_NAMES = tuple(k.name for k in KNOBS)
_BY_NAME = {k.name: k for k in KNOBS}

#: what a knob needs the profile to have already (a field that is None on the profile)
#: (a GPU profile has an L2 size, for XLA's read-time speedups, but no L2 bandwidth: NVIDIA
#: publishes none, so its L2 bandwidth is refused and its L2 size accepted)
_NEEDS = {"llc_bandwidth_Bps": "llc_bytes", "l2_bandwidth_Bps": "l2_bandwidth_Bps",
          "l2_bytes": "l2_bytes", "llc_bytes": "llc_bandwidth_Bps",
          "core_flops": "core_flops", "max_registers_per_thread": "max_registers_per_thread"}


def get_knob(name: str) -> Knob:
    """The knob called ``name``.

    Raises
    ------
    InputError
        For an unknown name; the message lists the known knobs (and the nearest name).
    """
    import difflib

    knob = _BY_NAME.get(name)
    if knob is None:
        near = difflib.get_close_matches(name, KNOB_NAMES, n=1)
        hint = f"did you mean {near[0]}? " if near else ""
        raise InputError(f"unknown knob {name!r} ({hint}known: {', '.join(KNOB_NAMES)})")
    return knob


def check_value(knob: Knob, value) -> float | int:
    """``value`` as the knob's number, checked against its range.

    Raises
    ------
    InputError
        If it is not a finite number, not whole for an integer knob, or out of range.
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"knob {knob.name}: {value!r} is not a number") from None
    if not math.isfinite(number):
        raise InputError(f"knob {knob.name}: {value!r} is not a finite number")
    if knob.integer:
        if number != int(number):
            raise InputError(f"knob {knob.name}: {value!r} is not a whole number")
        number = int(number)
    if not knob.low <= number <= knob.high:
        raise InputError(f"knob {knob.name}: {value!r} is out of range "
                         f"[{knob.low:g}, {knob.high:g}] {knob.unit}")
    return number


def parse_setting(text: str) -> tuple[str, float | int]:
    """``NAME=VALUE`` (as ``workbench plan --set`` takes it) as a checked ``(name, value)``.

    Raises
    ------
    InputError
        If there is no ``=``, the knob is unknown, or the value is bad.
    """
    name, eq, value = str(text).partition("=")
    name = name.strip()
    if not eq:
        raise InputError(f"expected NAME=VALUE, got {text!r} (knobs: {', '.join(KNOB_NAMES)})")
    knob = get_knob(name)
    return knob.name, check_value(knob, value.strip())


def parse_values(text: str) -> tuple[str, tuple]:
    """``NAME=V1,V2,...`` (``workbench sweep --set``, ``plan --sweep``) as ``(name, values)``.

    Raises
    ------
    InputError
        As :func:`parse_setting`, for any of the values, or when no value is given.
    """
    name, eq, values = str(text).partition("=")
    knob = get_knob(name.strip())
    items = [v.strip() for v in values.split(",") if v.strip()] if eq else []
    if not items:
        raise InputError(f"expected NAME=V1,V2,... for knob {knob.name}, got {text!r}")
    return knob.name, tuple(check_value(knob, v) for v in items)


def knob_value(profile, name: str):
    """The profile's current value of knob ``name`` (``None`` where it has none)."""
    return getattr(profile, get_knob(name).name)


def settings_text(settings: dict) -> str:
    """``launch_overhead_s=5e-06+overlap=0.5``: settings in knob order, as profile names hold
    them (``repr`` of each number, so that reading the name back gives the same value)."""
    return "+".join(f"{k}={settings[k]!r}" for k in KNOB_NAMES if k in settings)


def apply_knobs(profile, settings: dict):
    """A copy of ``profile`` with the knobs in ``settings`` set.

    Parameters
    ----------
    profile : DeviceProfile
    settings : dict of str to number
        Knob name -> value (units as :data:`KNOBS` gives them: seconds, B/s, FLOP/s ...).

    Returns
    -------
    DeviceProfile
        ``profile`` itself when ``settings`` is empty; else a copy named
        ``<base>+<name>=<value>...`` (the base profile's name and every knob now set on it), so
        that :func:`~workbench.costmodel.devices.get_device` can rebuild it.

    Raises
    ------
    InputError
        For an unknown knob, a bad value, or a knob the profile does not have (``None`` on it:
        the register budget on a CPU, a cache ceiling on a GPU).
    """
    if not settings:
        return profile
    base, earlier = split_name(profile.name)
    merged = dict(earlier)
    changes = {}
    for name, value in settings.items():
        knob = get_knob(name)
        need = _NEEDS.get(knob.name)
        if need is not None and getattr(profile, need) is None:
            raise InputError(f"knob {knob.name} does not apply to the {profile.name} profile: "
                             f"it has no {need.replace('_', ' ')} ({knob.help})")
        changes[knob.name] = merged[knob.name] = check_value(knob, value)
    return replace(profile, name=f"{base}+{settings_text(merged)}", **changes)


def split_name(name: str) -> tuple[str, dict]:
    """``("h100", {"launch_overhead_s": 5e-06})`` from ``h100+launch_overhead_s=5e-06``.

    Raises
    ------
    InputError
        If a part after ``+`` is not a valid setting.
    """
    base, *parts = str(name).split("+")
    return base, dict(parse_setting(p) for p in parts)

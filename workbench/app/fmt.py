"""Number formatting for the app's labels and tables (bytes, seconds, FLOPs, rates)."""

from __future__ import annotations

import math


def fmt_bytes(n: float | None) -> str:
    """Bytes with a binary prefix: ``512 B``, ``64.0 KiB``, ``1.5 MiB``."""
    if n is None:
        return "-"
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover - the loop always returns


def fmt_seconds(s: float | None) -> str:
    """A duration with the unit that keeps 3 significant digits: ``12.3 µs``, ``1.20 ms``."""
    if s is None or (isinstance(s, float) and math.isnan(s)):
        return "-"
    a = abs(s)
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if a >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def fmt_count(n: float | None, unit: str = "") -> str:
    """A count with an SI prefix: ``1.23 G`` + unit (``FLOP``, ``FLOP/s``)."""
    if n is None:
        return "-"
    a = abs(float(n))
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= scale:
            return f"{n / scale:.3g} {prefix}{unit}"
    return f"{n:.3g} {unit}".rstrip()


"""Number formatting for the app's labels and tables (bytes, seconds, FLOPs, rates, plurals).

The formats are the workbench's (:mod:`workbench.fmt`), so that the app, the decision
log and ``workbench plan`` print the same numbers the same way (``1 µs``, not ``1e+03 ns``);
this module only adds ``-`` for a missing value.
"""

from __future__ import annotations

from workbench.fmt import fmt_bytes as _bytes
from workbench.fmt import fmt_rate as _rate
from workbench.fmt import fmt_seconds, plural
from workbench.fmt import is_missing as _missing

__all__ = ["fmt_bytes", "fmt_count", "fmt_ratio", "fmt_seconds", "plural"]


def fmt_bytes(n: float | None) -> str:
    """Bytes with a binary prefix: ``512 B``, ``64.0 KiB``, ``1.5 MiB``; ``-`` if unknown."""
    return "-" if _missing(n) else _bytes(n)


def fmt_count(n: float | None, unit: str = "") -> str:
    """A count with a decimal prefix: ``1.23 GFLOP``, ``1 kFLOP`` for 999.6; ``-`` if unknown."""
    if _missing(n):
        return "-"
    return _rate(float(n), unit).rstrip()


def fmt_ratio(x: float | None) -> str:
    """A ratio with the precision it deserves: ``1.25x``, ``12.5x``, ``447x``, ``44,691x``
    (``44691.30x`` said nothing its first digits did not); ``-`` if unknown or not finite."""
    import math

    if _missing(x) or not math.isfinite(float(x)):
        return "-"
    x = float(x)
    if abs(x) < 10:
        return f"{x:.2f}x"
    if abs(x) < 100:
        return f"{x:.1f}x"
    return f"{x:,.0f}x"

"""Number formats shared by the command line, the app and the core's sentences.

One place for how a time, a byte count, a count and a rate are written, so that ``workbench
plan``, the decision log and the app's cost card say ``1.5 ms`` and ``3.0 MiB`` the same way.
This module imports nothing of the workbench; every package may import it.
"""

from __future__ import annotations

import math


def _scaled(value: float, units) -> str:
    """``value`` in the largest of ``units`` ((suffix, scale), largest first) that keeps the
    mantissa at least 1, with three significant digits; a mantissa that rounds to 1000 moves up
    one unit (999.96e6 is ``1G``, not ``1e+03M``)."""
    a = abs(value)
    for k, (unit, scale) in enumerate(units):
        if a >= scale or k == len(units) - 1:
            text = f"{value / scale:.3g}"
            if abs(float(text)) >= 1000 and k > 0:
                up, up_scale = units[k - 1]
                text, unit = f"{value / up_scale:.3g}", up
            return f"{text}{unit}"
    raise AssertionError("unreachable")


def is_missing(v) -> bool:
    """True for a value that is not known: ``None``, NaN or an infinity."""
    return v is None or (isinstance(v, float) and not math.isfinite(v))


def fmt_seconds(s: float | None) -> str:
    """:func:`fmt_time`, or ``-`` for a time that is not known (``None``, NaN, inf)."""
    return "-" if is_missing(s) else fmt_time(s)


def fmt_time(s: float) -> str:
    """Seconds as ns / µs / ms / s with three significant digits (``1.5 ms``, ``1 s``,
    ``4200 s``)."""
    if abs(s) >= 999.5:
        return f"{s:.0f} s"
    if s == 0:
        return "0 s"
    return _scaled(s, ((" s", 1.0), (" ms", 1e-3), (" µs", 1e-6), (" ns", 1e-9)))


_BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def fmt_bytes(n: float) -> str:
    """Bytes in binary units, B to EiB (``512 B``, ``1.5 KiB``, ``3.6 TiB``), one decimal."""
    k = 0
    while abs(n) >= 1024 and k < len(_BYTE_UNITS) - 1:
        n /= 1024
        k += 1
    if k == 0:
        return f"{n:.0f} B"
    text = f"{n:.1f}"
    if abs(float(text)) >= 1024 and k < len(_BYTE_UNITS) - 1:
        n, k = n / 1024, k + 1
        text = f"{n:.1f}"
    return f"{text} {_BYTE_UNITS[k]}"


_COUNT_UNITS = (("E", 1e18), ("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3),
                ("", 1.0))


def fmt_count(n: float) -> str:
    """A count with k / M / G / T / P / E suffixes and three significant digits (``1.23M``,
    ``1T``); below 1000 the plain number."""
    if abs(n) < 1000:
        return f"{n:.0f}"
    return _scaled(n, _COUNT_UNITS)


def name_list(names, limit: int = 4) -> str:
    """``a, b, c`` or ``a, b, c and 5 more``."""
    names = list(names)
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f" and {len(names) - limit} more"


def plural(n: int, word: str) -> str:
    """``1 fusion``, ``2 fusions``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def fmt_rate(x: float, unit: str) -> str:
    """``3.35 TB/s``, ``202 GFLOP/s``: decimal prefixes (as datasheets give them)."""
    for p, scale in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale * 0.9995:
            return f"{x / scale:.3g} {p}{unit}"
    return f"{x:.3g} {unit}"

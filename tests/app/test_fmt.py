"""The app's number formats: the planner's, with ``-`` for a missing value."""

from __future__ import annotations

import pytest

from workbench.app.fmt import fmt_bytes, fmt_count, fmt_seconds, plural


@pytest.mark.parametrize("seconds, text", [
    (999.6e-9, "1 µs"), (999.6e-6, "1 ms"), (999.6e-3, "1 s"),  # not "1e+03 ns"
    (12.34e-6, "12.3 µs"), (1.2e-3, "1.2 ms"), (250e-9, "250 ns"), (-2e-6, "-2 µs"),
    (None, "-"), (float("nan"), "-"),
])
def test_times_just_under_a_unit_move_up_to_it(seconds, text):
    assert fmt_seconds(seconds) == text


def test_counts_bytes_and_plurals():
    assert fmt_count(999.6e3, "FLOP") == "1 MFLOP"
    assert fmt_count(1.23e9, "FLOP/s") == "1.23 GFLOP/s"
    assert fmt_count(512) == "512" and fmt_count(None) == "-"
    assert fmt_bytes(65536) == "64.0 KiB" and fmt_bytes(512) == "512 B"
    assert fmt_bytes(None) == "-"
    assert plural(1, "kernel") == "1 kernel" and plural(2, "op") == "2 ops"

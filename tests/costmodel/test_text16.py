"""The device profile's line names each memory level once (issue 13's review: the CPU profile's
line named the levels twice, in its ceilings and again, by other names, in its source)."""

from __future__ import annotations

from dataclasses import replace

from workbench.costmodel import get_device
from workbench.costmodel.cpu_probe import probe_source
from workbench.costmodel.text import device_line


def test_the_profile_line_names_each_level_once_even_for_an_older_stored_profile():
    old = ("measured on vm (2 CPUs) at 2026-12-02 10:29: numpy copies of 32.0 KiB to 128.0 MiB "
           "(5780 trials), levels where their bandwidth drops: L1 up to 512.0 KiB, L2 up to "
           "8.0 MiB, LLC up to 16.0 MiB, DRAM; the better of a 512^3 sgemm (best of 76)")
    d = replace(get_device("cpu"), source=old)
    line = device_line(d)
    assert "L1 up to" not in line and "L2 up to 8.0 MiB" not in line
    assert line.count("DRAM") <= 1 and "memory levels where their bandwidth drops;" in line
    assert "the better of a 512^3 sgemm (best of 76)" in line


def test_a_new_probe_source_counts_the_levels_without_naming_them():
    best = {"peak": (1.0, 7), "peak1": (1.0, 9), "exp": (1.0, 3)}
    levels = [{"name": "L1", "up_to": 1 << 19}, {"name": "L2", "up_to": 1 << 23},
              {"name": "DRAM", "up_to": None}]
    text = probe_source(best, levels, 100, 20.0, False, False)
    assert "memory levels where their bandwidth drops (3 found)" in text
    assert "L1" not in text and "DRAM" not in text

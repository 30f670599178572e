"""Helpers for the planner tests: sample graphs, XLA's HLO files, the fixed cpu profile."""

from pathlib import Path

import pytest

from workbench.planner.devices import DeviceProfile

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_graphs"
HLO = ROOT.parent / "shared" / "hlo"

#: the cpu profile every planner test sees: 20 GB/s, 100 GFLOP/s, 2 us per kernel launch
FIXED_CPU = DeviceProfile("cpu", "cpu", 20e9, 100e9, None, None, None, 2e-6,
                          "fixed profile for tests", transcendental_flops=10.0)


def sample(name):
    from workbench.importers import load_graph

    return load_graph(SAMPLES / f"{name}.json")


def hlo(name):
    from workbench.importers import load_graph

    path = HLO / name
    if not path.exists():
        pytest.skip(f"{path} is not here (the repository is expected beside ../shared)")
    return load_graph(path)

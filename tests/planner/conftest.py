"""Planner tests: a fixed ``cpu`` profile (no probe, numbers that do not depend on the machine)
and helpers to load sample graphs and XLA's HLO files."""

from pathlib import Path

import pytest

from workbench.planner.devices import DeviceProfile, write_cpu_profile

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_graphs"
HLO = ROOT.parent / "shared" / "hlo"

#: the cpu profile every planner test sees: 20 GB/s, 100 GFLOP/s, 2 us per kernel launch
FIXED_CPU = DeviceProfile("cpu", "cpu", 20e9, 100e9, None, None, None, 2e-6,
                          "fixed profile for tests", transcendental_flops=10.0)


@pytest.fixture(autouse=True, scope="session")
def fixed_cpu_profile(tmp_path_factory):
    import os

    d = tmp_path_factory.mktemp("workbench-cache")
    old = os.environ.get("WORKBENCH_CACHE_DIR")
    os.environ["WORKBENCH_CACHE_DIR"] = str(d)
    write_cpu_profile(FIXED_CPU, d)
    yield FIXED_CPU
    if old is None:
        os.environ.pop("WORKBENCH_CACHE_DIR", None)
    else:
        os.environ["WORKBENCH_CACHE_DIR"] = old


def sample(name):
    from workbench.importers import load_graph

    return load_graph(SAMPLES / f"{name}.json")


def hlo(name):
    from workbench.importers import load_graph

    path = HLO / name
    if not path.exists():
        pytest.skip(f"{path} is not here (the repository is expected beside ../shared)")
    return load_graph(path)

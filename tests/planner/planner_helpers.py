"""Helpers for the planner and editing tests: sample graphs, XLA's HLO files (../shared/hlo,
beside the checkout, as in CI), and a fixed ``cpu`` device profile so that no test runs the
probe or depends on the machine's numbers."""

import os

import pytest

from tests.conftest import SAMPLES_DIR as SAMPLES
from tests.conftest import SHARED_HLO as HLO
from tests.conftest import shared_hlo_dir
from workbench.costmodel.devices import DeviceProfile, write_cpu_profile

#: the cpu profile every planner test sees: 20 GB/s, 100 GFLOP/s, 2 us per kernel launch
FIXED_CPU = DeviceProfile("cpu", "cpu", 20e9, 100e9, None, None, None, 2e-6,
                          "fixed profile for tests", transcendental_flops=10.0)

__all__ = ["FIXED_CPU", "HLO", "SAMPLES", "fixed_cpu_profile", "hlo", "sample"]


def sample(name):
    from workbench.importers import load_graph

    return load_graph(SAMPLES / f"{name}.json")


def hlo(name):
    """A graph from ../shared/hlo (the test fails, loudly, if the directory is missing)."""
    from workbench.importers import load_graph

    return load_graph(shared_hlo_dir() / name)


@pytest.fixture(autouse=True, scope="session")
def fixed_cpu_profile(tmp_path_factory):
    """Point ``$WORKBENCH_CACHE_DIR`` at a temporary cache holding :data:`FIXED_CPU`."""
    d = tmp_path_factory.mktemp("workbench-cache")
    saved = os.environ.get("WORKBENCH_CACHE_DIR")
    os.environ["WORKBENCH_CACHE_DIR"] = str(d)
    write_cpu_profile(FIXED_CPU, d)
    yield FIXED_CPU
    if saved is None:
        os.environ.pop("WORKBENCH_CACHE_DIR", None)
    else:
        os.environ["WORKBENCH_CACHE_DIR"] = saved

"""Editing tests plan with a fixed ``cpu`` profile (no probe; see tests/planner/conftest.py)."""

import os
from pathlib import Path

import pytest

from workbench.planner.devices import DeviceProfile, write_cpu_profile

SAMPLES = Path(__file__).resolve().parents[2] / "sample_graphs"


@pytest.fixture(autouse=True, scope="session")
def fixed_cpu_profile(tmp_path_factory):
    d = tmp_path_factory.mktemp("workbench-cache")
    saved = os.environ.get("WORKBENCH_CACHE_DIR")
    os.environ["WORKBENCH_CACHE_DIR"] = str(d)
    write_cpu_profile(DeviceProfile("cpu", "cpu", 20e9, 100e9, None, None, None, 2e-6,
                                    "fixed profile for tests"), d)
    yield
    os.environ.pop("WORKBENCH_CACHE_DIR") if saved is None else \
        os.environ.__setitem__("WORKBENCH_CACHE_DIR", saved)

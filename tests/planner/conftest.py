"""Planner tests plan with a fixed ``cpu`` profile: no probe, numbers that do not depend on
the machine (see planner_helpers.FIXED_CPU)."""

import os

import pytest
from planner_helpers import FIXED_CPU

from workbench.planner.devices import write_cpu_profile


@pytest.fixture(autouse=True, scope="session")
def fixed_cpu_profile(tmp_path_factory):
    d = tmp_path_factory.mktemp("workbench-cache")
    saved = os.environ.get("WORKBENCH_CACHE_DIR")
    os.environ["WORKBENCH_CACHE_DIR"] = str(d)
    write_cpu_profile(FIXED_CPU, d)
    yield FIXED_CPU
    if saved is None:
        os.environ.pop("WORKBENCH_CACHE_DIR", None)
    else:
        os.environ["WORKBENCH_CACHE_DIR"] = saved

"""Shared fixtures: the repository root, the sample graphs, and ../shared/hlo beside the repo."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# the suite keeps the quick probe's cpu profile: calibrating on first use (run, plan, serve:
# workbench/profiler/first_use.py) takes minutes; tests/profiler/test_first_use.py covers that
# path with a mocked probe. Set here, so that the commands tests start in subprocesses see it.
os.environ["WORKBENCH_NO_CALIBRATE"] = "1"

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLES_DIR = REPO_ROOT / "sample_graphs"
SHARED_HLO = REPO_ROOT.parent / "shared" / "hlo"
MODELS = ("chain10", "chain10_transc", "layernorm_gelu", "mlp", "resnet_block", "softmax",
          "transformer_block")


def shared_hlo_dir() -> Path:
    """../shared/hlo beside the checkout; tests that need it fail loudly when it is missing."""
    if not SHARED_HLO.is_dir():
        pytest.fail(f"{SHARED_HLO} not found: the real XLA inputs must be beside the checkout "
                    "(../shared/hlo), as in CI")
    return SHARED_HLO


@pytest.fixture(scope="session")
def shared_hlo() -> Path:
    return shared_hlo_dir()


def sample_paths():
    return sorted(SAMPLES_DIR.glob("*.json"))


#: test files whose tests share one process-wide resource, so pytest-xdist keeps each group on
#: one worker (``--dist loadgroup``, as scripts/test.sh runs it): a local Ray cluster (the
#: session's ``ray_executor``, shared by the sweep tests and the app's Ray executor test)
_SERIAL_FILES = {"tests/tuning/test_ray.py": "ray", "tests/app/test_ray_app.py": "ray"}


def pytest_collection_modifyitems(config, items):
    """Group the tests that cannot run beside each other under pytest-xdist: every browser test
    (dash[testing]'s ``dash_duo`` serves the app on port 8050 and drives one Chromium) in the
    ``browser`` group, and the files of :data:`_SERIAL_FILES` in theirs. Without xdist the
    marker does nothing."""
    for item in items:
        group = _SERIAL_FILES.get(item.nodeid.split("::")[0])
        if "dash_duo" in getattr(item, "fixturenames", ()):
            group = "browser"
        if group:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session")
def ray_executor():
    """One local Ray (two CPUs) for the whole run, shared by the sweep tests
    (tests/tuning/test_ray.py) and the app's Ray executor test (tests/app/test_ray_app.py);
    shut down at the end. Tests that use it skip when Ray is not installed."""
    from workbench.tuning.executors import ray_available
    from workbench.tuning.ray_executor import RayExecutor

    if not ray_available():
        pytest.skip("Ray is not installed")
    ex = RayExecutor(num_cpus=2)
    ex.connect()
    yield ex
    ex.close()
    import ray

    assert not ray.is_initialized()

"""Shared fixtures: the repository root, the sample graphs, and ../shared/hlo beside the repo."""

from __future__ import annotations

from pathlib import Path

import pytest

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

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


#: test files whose tests pytest-xdist keeps together on one worker (``--dist loadgroup``, as
#: scripts/test.sh runs it), file -> group: the two files that share one local Ray cluster (the
#: session's ``ray_executor``: the sweep tests and the app's Ray executor test), and the files
#: whose tests share an expensive module-scoped fixture, which each worker that runs one of the
#: file's tests would otherwise make again (the CUDA simulator runs of test_cuda_sim*.py, about a
#: minute each; the cut-down calibration probe; the profiled softmax report). Browser tests are
#: not grouped: ``dash_duo`` serves each worker's apps on ports of its own (tests/app/conftest.py)
#: and each test drives a Chromium of its own.
_SERIAL_FILES = {"tests/tuning/test_ray.py": "ray", "tests/app/test_ray_app.py": "ray"}
_SERIAL_FILES.update({f: f for f in (
    "tests/codegen/test_cuda_sim.py", "tests/codegen/test_cuda_sim_corpus.py",
    "tests/profiler/test_calibrate.py", "tests/profiler/test_profile.py",
    "tests/tuning/test_executors_store.py", "tests/test_bad_inputs.py")})


def xdist_group_of(nodeid: str) -> str | None:
    """The xdist group of the test ``nodeid`` (see :data:`_SERIAL_FILES`), or None."""
    return _SERIAL_FILES.get(nodeid.split("::")[0].split("@")[0])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` with the groups of :func:`xdist_group_of`, read from the test ids.

    pytest-xdist's own loadgroup reads ``xdist_group`` markers by appending the group to each
    item's ``_nodeid`` on the workers, which pytest 9.2 no longer reads (node ids are
    ``Node._id`` there): with pytest 9.2 and pytest-xdist 3.8 no group took effect and every
    grouped file was split between the workers (two Ray clusters, each simulator fixture made
    twice). The controller groups by file here instead, whatever the versions."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class FileGroupScheduling(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_group_of(nodeid) or super()._split_scope(nodeid)

    return FileGroupScheduling(config, log)


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

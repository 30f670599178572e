"""Sweeps on a local Ray (skipped when Ray is not installed: ``pip install -e '.[ray]'``,
which scripts/test.sh does). One local Ray for the test run (tests/conftest.py's ``ray_executor``,
two CPUs, shut down at the end)."""

import pytest

from tests.conftest import SAMPLES_DIR
from workbench.errors import InputError
from workbench.importers import load_graph
from workbench.tuning.executors import ray_available
from workbench.tuning.ray_executor import RayExecutor, check_reachable
from workbench.tuning.store import ResultsStore
from workbench.tuning.sweep import sweep
from workbench.tuning.tasks import Task

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not ray_available(), reason="Ray is not installed")]


def test_a_sweep_of_three_graphs_and_two_policies_on_local_ray(ray_executor, tmp_path):
    graphs = [load_graph(SAMPLES_DIR / f"{n}.json") for n in ("chain10", "softmax", "mlp")]
    store = ResultsStore(tmp_path / "r.sqlite")
    result = sweep(graphs, ray_executor, store, policies=("priority", "greedy"), repeat=3)
    assert len(result.rows) == 6 and result.executor == "ray"
    assert [(r.graph, r.policy) for r in result.rows] == [
        (g.name, p) for g in graphs for p in ("priority", "greedy")]
    assert all(r.status == "ok" and r.measured_s > 0 for r in result.rows), [
        (r.graph, r.policy, r.message) for r in result.rows]
    plans = {r.plan_fingerprint for r in result.rows}
    assert result.fresh == len(plans) and store.count() == len(plans)
    # every task asked Ray for one CPU (CUDA timing asks for a GPU) and was not retried
    assert ray_executor.requests[-len(plans):] == [{"num_cpus": 1, "max_retries": 0}] * len(plans)
    again = sweep(graphs, ray_executor, store, policies=("priority", "greedy"), repeat=3)
    assert again.fresh == 0 and again.reused == len(plans)
    assert [r.measured_s for r in again.rows] == [r.measured_s for r in result.rows]


def test_ray_tasks_crash_and_time_out_on_one_line(ray_executor):
    n = len(ray_executor.requests)
    crash, hang = ray_executor.run([Task("tests.tuning.faulty:crash"),
                                    Task("tests.tuning.faulty:hang", timeout_s=3.0)])
    assert crash.status == "crash" and "died" in crash.message and "\n" not in crash.message
    assert hang.status == "timeout" and hang.message.startswith("timed out after 3 s")
    # a CUDA timing task asks for {"GPU": 1}; this cluster has none: refused, not queued
    (gpu,) = ray_executor.run([Task("tests.tuning.faulty:double", {"x": 1}, backend="cuda")])
    assert gpu.status == "unavailable" and "{'GPU': 1}" in gpu.message
    assert len(ray_executor.requests) == n + 2


def test_an_unreachable_cluster_is_one_line():
    with pytest.raises(InputError) as e:
        check_reachable("127.0.0.1:1", timeout_s=2)
    assert "cannot reach the Ray cluster at 127.0.0.1:1" in str(e.value)
    with pytest.raises(InputError, match="is not HOST:PORT"):
        RayExecutor(address="nonsense").connect()

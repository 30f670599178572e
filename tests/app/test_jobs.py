"""The worker pools: every task ends (done, failed, cancelled or timed out, with a message),
limits per owner and in all, a dead or bloated worker replaced, errors that keep their place."""

from __future__ import annotations

import time

import pytest

from tests.conftest import SAMPLES_DIR
from workbench.app.jobs import JobLimitError, WorkerPool
from workbench.errors import ParseError, WorkbenchError
from workbench.importers import load_graph
from workbench.planner import plan_graph


@pytest.fixture
def pools():
    made = []

    def make(*args, **kwargs):
        p = WorkerPool(*args, **kwargs)
        made.append(p)
        return p
    yield make
    for p in made:
        p.close()


def profile_args(name="transformer_block", **options):
    g = load_graph(SAMPLES_DIR / f"{name}.json")
    return (g, plan_graph(g), "cpu", options)


def test_a_load_task_returns_the_graph_and_its_plan_and_errors_keep_their_place(pools):
    pool = pools("load", ("load",))
    data = (SAMPLES_DIR / "mlp.json").read_bytes()
    graph, plan = pool.run("a", "load", (data, "mlp.json", None, "priority", "cpu"))
    assert graph.name == "mlp" and plan.graph_fingerprint == graph.fingerprint
    with pytest.raises(ParseError) as err:
        pool.run("a", "load", (b'{"nodes": [ }', "bad.json", None, "priority", "cpu"))
    assert (err.value.file, err.value.line) == ("bad.json", 1)
    # the worker is still there: the next task is served
    assert pool.run("b", "load", (data, "mlp.json", None, "xla-cpu", "cpu"))[1].policy == "xla-cpu"


def test_a_task_past_its_time_out_is_stopped_and_the_pool_goes_on(pools):
    pool = pools("profile", ("profile",), timeout_s=1.0)
    task = pool.submit("s", "profile", profile_args())
    assert task.done.wait(60)
    assert task.state == "timed out"
    assert "longer than its limit of 1 s" in str(task.error)
    quick = pool.submit("s", "profile", profile_args("chain10", repeat=1, warmup=0,
                                                     budget_s=0.1), timeout_s=120)
    assert quick.done.wait(150) and quick.state == "done", quick.error
    assert quick.result["report"]["ok"] is True


def test_limits_per_owner_and_in_all(pools):
    pool = pools("profile", ("profile",), max_queued=2, per_owner=1)
    first = pool.submit("a", "profile", profile_args())
    with pytest.raises(JobLimitError, match="this session has 1 profile job"):
        pool.submit("a", "profile", profile_args())
    pool.submit("b", "profile", profile_args())
    with pytest.raises(JobLimitError, match="2 profile jobs queued or running, its limit"):
        pool.submit("c", "profile", profile_args())
    # cancel: the queued one at once, the running one by ending its worker
    second = pool.latest("b")
    assert pool.cancel("b") is second and second.state == "cancelled"
    assert pool.cancel("a") is first and first.state == "cancelled"
    assert pool.cancel("a") is None and pool.active() == 0
    assert pool.submit("c", "profile", profile_args()).state in ("queued", "running")


def test_a_worker_that_dies_fails_its_task_in_words_and_is_replaced(pools):
    pool = pools("profile", ("profile",))
    task = pool.submit("s", "profile", profile_args())
    end = time.monotonic() + 60
    while task.state != "running" and time.monotonic() < end:
        time.sleep(0.05)
    pool._live[0].proc.kill()
    assert task.done.wait(30) and task.state == "failed"
    assert "killed by signal 9" in str(task.error)
    again = pool.submit("s", "profile", profile_args("chain10", repeat=1, warmup=0,
                                                     budget_s=0.1))
    assert again.done.wait(150) and again.state == "done", again.error


def test_a_worker_past_its_memory_limit_is_stopped(pools):
    pool = pools("profile", ("profile",), memory_bytes=32 << 20)  # below an idle worker's size
    task = pool.submit("s", "profile", profile_args("chain10"))
    assert task.done.wait(60) and task.state == "failed"
    assert "more than its limit of 32.0 MiB" in str(task.error)


def test_tasks_left_in_the_queue_when_the_pool_closes_are_cancelled(pools):
    pool = pools("profile", ("profile",), max_queued=4, per_owner=4)
    tasks = [pool.submit("s", "profile", profile_args()) for _ in range(3)]
    pool.close()
    assert all(t.over for t in tasks)
    assert {t.state for t in tasks[1:]} == {"cancelled"}
    with pytest.raises(WorkbenchError, match="stopped"):
        pool.submit("s", "profile", profile_args())


def test_workers_are_never_forked():
    with pytest.raises(ValueError, match="never forked"):
        WorkerPool("x", ("load",), start_method="fork")

"""``workbench serve --executor ray``: the app's compile & profile job as a Ray task (on the
test run's local Ray, tests/conftest.py's ``ray_executor``), and an unreachable cluster as one
line before anything is served."""

from __future__ import annotations

import pytest

from tests.conftest import SAMPLES_DIR
from workbench.cli import main
from workbench.tuning.executors import ray_available

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not ray_available(), reason="Ray is not installed")]


def test_the_apps_profile_job_runs_as_a_ray_task(ray_executor, make_app):
    from workbench.app.callbacks_load import start_session
    from workbench.app.callbacks_profile import submit_job

    app = make_app(SAMPLES_DIR / "multi_consumer.json", executor="ray", profile_options={"repeat": 2})
    services = app.services
    # the app found the test run's Ray running (it did not start one), and its profile
    # workers join it at its GCS address
    assert services.ray_target == (ray_executor.gcs_address(), "a local Ray on this machine")
    sid = start_session(services)
    task = submit_job(services, sid, "cpu")
    assert task.done.wait(300), task.progress
    assert task.state == "done", task.error
    record = task.result
    assert "measured on a local Ray on this machine" in record["report"]["notes"]
    assert all(o["ok"] for o in record["report"]["outputs"])
    kernels = {k["group_id"] for k in record["report"]["kernels"] if not k.get("fallback")}
    # the sources were read on the node that compiled them, and name no file of it
    assert kernels and kernels <= set(record["sources"])
    assert all("def " in src for src in record["sources"].values())
    assert all("source_path" not in k for k in record["report"]["kernels"])
    services.close()
    assert services.ray is None
    import ray

    assert ray.is_initialized()      # the app leaves alone a Ray it did not start


def test_an_unreachable_ray_cluster_is_one_line_before_serving(capsys):
    assert main(["serve", "--executor", "ray", "--address", "127.0.0.1:1", "--port",
                 "8051"]) == 2
    out, err = capsys.readouterr()
    assert "http://" not in out                        # nothing was served
    assert err.startswith("error: cannot reach the Ray cluster at 127.0.0.1:1") and \
        err.count("\n") == 1, err
    assert main(["serve", "--address", "127.0.0.1:1", "--port", "8051"]) == 2
    assert "--address is for --executor ray" in capsys.readouterr().err


def test_the_apps_tune_runs_as_ray_tasks_and_stores_this_machines_times(ray_executor, make_app,
                                                                         private_cache):
    """``serve --executor ray`` on a local Ray: *Tune*'s job measures its variants as Ray
    tasks, and the results store keys them as this machine's (as the CLI's local Ray does),
    not by the local Ray's address, which changes with every start."""
    from workbench.app.callbacks_load import start_session
    from workbench.app.callbacks_whatif import submit_tune, tune_owner
    from workbench.tuning.store import ResultsStore
    from workbench.tuning.tasks import host_id

    app = make_app(SAMPLES_DIR / "chain10.json", executor="ray")
    services = app.services
    sid = start_session(services)
    task = submit_tune(services, sid, 2)
    assert services.jobs.latest(tune_owner(sid)) is task
    assert task.done.wait(300), task.progress
    assert task.state == "done", task.error
    result = task.result["result"]
    assert result.executor == "ray" and result.start_status == "ok", result.start_message
    assert len(result.trials) == 2 and result.fresh == 3
    with ResultsStore(private_cache / "results.sqlite") as store:
        rows = store.history(services.session(sid)[1].fingerprint)
    assert len(rows) == 3 and {r.device for r in rows} == {host_id("cpu")}

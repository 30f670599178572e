"""Executors (worker processes with a timeout), the results store, measure_all."""

import pytest

from tests.conftest import SAMPLES_DIR
from workbench.importers import load_graph
from workbench.planner import plan_graph, unfused_plan
from workbench.tuning.executors import LocalExecutor, Task, make_executor
from workbench.tuning.runner import measure_all
from workbench.tuning.store import ResultsStore
from workbench.errors import InputError


@pytest.fixture(scope="module")
def local():
    with LocalExecutor() as ex:
        yield ex


def test_worker_outcomes_ok_error_crash_timeout(local):
    ok, err, crash, hang, after = local.run([
        Task("tests.tuning.faulty:double", {"x": 2.5}),
        Task("workbench.costmodel:get_device", {"device": "tpu"}),
        Task("tests.tuning.faulty:crash"),
        Task("tests.tuning.faulty:hang", timeout_s=1.0),
        Task("tests.tuning.faulty:double", {"x": 5})])
    assert ok.ok and ok.value == 5
    assert err.status == "error" and "unknown device 'tpu'" in err.message
    assert crash.status == "crash" and "killed by signal SIGSEGV" in crash.message
    assert hang.status == "timeout" and hang.message == ("timed out after 1 s; the worker was "
                                                         "killed")
    assert 1.0 <= hang.seconds < 10
    assert after.ok and after.value == 10         # a new worker took over
    for o in (err, crash, hang):
        assert "\n" not in o.message


def test_make_executor_refuses_an_address_without_ray():
    with pytest.raises(InputError, match="--address is for --executor ray"):
        make_executor("local", "127.0.0.1:6379")
    with pytest.raises(InputError, match="unknown executor 'dask'"):
        make_executor("dask")


def test_measure_all_stores_good_measurements_and_reuses_them(local, tmp_path):
    g = load_graph(SAMPLES_DIR / "chain10.json")
    fused, unfused = plan_graph(g), unfused_plan(g)
    store = ResultsStore(tmp_path / "r.sqlite")
    first = measure_all([(g, fused), (g, unfused), (g, fused)], local, store, repeat=3)
    assert [m.fresh for m in first] == [True, True, True] and all(m.ok for m in first)
    assert first[0] is first[2]                      # one fingerprint, one measurement
    assert store.count() == 2
    assert 0 < first[0].best_s <= first[0].median_s
    assert set(first[1].kernels) == {x.id for x in unfused.groups}
    again = measure_all([(g, fused), (g, unfused)], local, store, repeat=3)
    assert [m.fresh for m in again] == [False, False]
    assert again[0].best_s == first[0].best_s and again[0].kernels == first[0].kernels
    rows = store.history(g.fingerprint)
    assert {r.plan_fp for r in rows} == {fused.fingerprint, unfused.fingerprint}
    assert {r.kernels for r in rows} == {1, len(unfused.groups)}


def test_failed_measurements_store_nothing(local, tmp_path):
    g = load_graph(SAMPLES_DIR / "chain10.json")
    store = ResultsStore(tmp_path / "r.sqlite")
    plans = [plan_graph(g), unfused_plan(g)]
    out = measure_all([(g, plans[0])], local, store, task="tests.tuning.faulty:crash")
    out += measure_all([(g, plans[1])], local, store, task="tests.tuning.faulty:hang",
                       timeout_s=0.5)
    out += measure_all([(g, plans[0])], local, store, task="tests.tuning.faulty:wrong")
    assert [m.status for m in out] == ["crash", "timeout", "error"]
    assert "another plan" in out[2].message
    assert store.count() == 0


def test_store_refuses_a_wrong_row(tmp_path):
    from workbench.tuning.measure import Measurement

    g = load_graph(SAMPLES_DIR / "chain10.json")
    p = plan_graph(g)
    store = ResultsStore(tmp_path / "r.sqlite")
    with pytest.raises(ValueError, match="stored as"):
        store.put(g, p, "dev", Measurement("0" * 16, "cpu", 1e-3, 1e-3, 1))
    with pytest.raises(ValueError, match="not a valid measurement"):
        store.put(g, p, "dev", Measurement(p.fingerprint, "cpu", 0.0, 1e-3, 1))
    store.put(g, p, "dev", Measurement(p.fingerprint, "cpu", 1e-3, 2e-3, 5))
    row = store.get(g.fingerprint, p.fingerprint, "dev", "cpu")
    assert (row.best_s, row.median_s, row.runs, row.version) == (1e-3, 2e-3, 5, store.version)
    other = ResultsStore(tmp_path / "r.sqlite", version="9.9")   # another version: its own rows
    assert other.get(g.fingerprint, p.fingerprint, "dev", "cpu") is None
    with pytest.raises(InputError, match="cannot open the results store"):
        ResultsStore(tmp_path)                                  # a directory

"""The server-side session store: isolation between sessions, keys, expiry, processes."""

from __future__ import annotations

import multiprocessing as mp
import pickle

from tests.conftest import SAMPLES_DIR
from workbench.app.state import (SessionStore, Workspace, graph_key, new_session_id,
                                 valid_session_id)
from workbench.importers import load_graph
from workbench.planner import unfused_plan


def workspace(graph, source="test"):
    plan = unfused_plan(graph)
    return Workspace(graph_key=graph_key(graph), source=source, policy="priority",
                     device="cpu", proposal=plan, history=(plan,), position=0,
                     layout_plan=plan)


def test_two_sessions_never_see_each_other(tmp_path):
    store = SessionStore(str(tmp_path))
    mlp, softmax = load_graph(SAMPLES_DIR / "mlp.json"), load_graph(SAMPLES_DIR / "softmax.json")
    a, b = new_session_id(), new_session_id()
    assert a != b and valid_session_id(a)
    store.put_graph(mlp)
    store.put_graph(softmax)
    store.put_workspace(a, workspace(mlp, "a"))
    store.put_workspace(b, workspace(softmax, "b"))
    store.put_report(a, {"plan": "x", "report": {"backend": "cpu"}})
    assert store.workspace(a).source == "a" and store.workspace(b).source == "b"
    assert store.graph(store.workspace(b).graph_key).name == "softmax"
    assert store.report(b) is None and store.report(a)["report"]["backend"] == "cpu"
    store.put_report(a, None)
    assert store.report(a) is None


def test_forged_or_unknown_keys_get_nothing(tmp_path):
    store = SessionStore(str(tmp_path))
    g = load_graph(SAMPLES_DIR / "mlp.json")
    store.put_graph(g)
    sid = new_session_id()
    store.put_workspace(sid, workspace(g))
    for bad in (None, "", "x" * 42, "../" * 15, 42, sid[:-1] + "!", new_session_id()):
        assert store.workspace(bad) is None
        assert store.report(bad) is None


def test_graph_key_separates_graphs_that_differ_only_in_meta():
    g = load_graph(SAMPLES_DIR / "mlp.json")
    moved = g.replace(meta={"source": "elsewhere.json"})
    assert g.fingerprint == moved.fingerprint and graph_key(g) != graph_key(moved)


def test_entries_expire(tmp_path):
    store = SessionStore(str(tmp_path), expire_s=0.05)
    g = load_graph(SAMPLES_DIR / "mlp.json")
    sid = new_session_id()
    store.put_workspace(sid, workspace(g))
    import time

    time.sleep(0.1)
    assert store.workspace(sid) is None


def _read_in_child(store, sid, queue):
    ws = store.workspace(sid)
    queue.put(ws.source)
    store.put_report(sid, {"plan": "p", "report": {"from": "child"}})


def test_another_process_reads_and_writes_the_same_sessions(tmp_path):
    """What the profile's background callback relies on."""
    store = SessionStore(str(tmp_path))
    g = load_graph(SAMPLES_DIR / "mlp.json")
    sid = new_session_id()
    store.put_graph(g)
    store.put_workspace(sid, workspace(g, "parent"))
    clone = pickle.loads(pickle.dumps(store))
    assert clone.directory == store.directory
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_read_in_child, args=(clone, sid, q))
    p.start()
    p.join(60)
    assert p.exitcode == 0 and q.get(timeout=5) == "parent"
    assert store.report(sid)["report"] == {"from": "child"}


def test_a_restarted_server_does_not_resume_old_sessions(tmp_path):
    g = load_graph(SAMPLES_DIR / "mlp.json")
    sid = new_session_id()
    first = SessionStore(str(tmp_path))
    first.put_graph(g)
    first.put_workspace(sid, workspace(g))
    assert first.workspace(sid) is not None
    assert SessionStore(str(tmp_path)).workspace(sid) is None  # a new server start
    assert SessionStore(str(tmp_path), namespace=first.namespace).workspace(sid) is not None


def test_a_forked_job_reads_its_session_even_when_the_servers_lock_was_held(tmp_path):
    """Dash forks background jobs from the threaded server; a lock a request thread held at
    that instant stays held in the child. The profile job reads through ``reopened()``."""
    from workbench.app.server import AppConfig, Services

    services = Services(AppConfig(store_dir=str(tmp_path)))
    g = load_graph(SAMPLES_DIR / "mlp.json")
    sid = new_session_id()
    services.store.put_workspace(sid, workspace(g, "parent"))
    services.store.put_graph(g)
    ctx = mp.get_context("fork")
    with services.store._lock:  # as if a request thread were inside store.graph() at the fork
        q = ctx.Queue()
        p = ctx.Process(target=_read_through_reopened, args=(services, sid, q))
        p.start()
        p.join(60)
    assert p.exitcode == 0 and q.get(timeout=5) == ("parent", g.name)


def _read_through_reopened(services, sid, q):
    ws, graph = services.session(sid, services.store.reopened())
    q.put((ws.source, graph.name))

"""The server-side session store: isolation between sessions, keys, expiry, its bounds."""

from __future__ import annotations

import time

import pytest

from tests.conftest import SAMPLES_DIR
from workbench.app import controller
from workbench.app.state import (SessionStore, Workspace, graph_bytes, graph_key,
                                 new_session_id, valid_session_id, workspace_bytes)
from workbench.importers import load_graph
from workbench.planner import unfused_plan


def workspace(graph, source="test"):
    plan = unfused_plan(graph)
    return Workspace(graph_key=graph_key(graph), source=source, policy="priority",
                     device="cpu", proposal=plan, history=(plan,), position=0,
                     layout_plan=plan)


def test_two_sessions_never_see_each_other():
    store = SessionStore()
    mlp, softmax = load_graph(SAMPLES_DIR / "mlp.json"), load_graph(SAMPLES_DIR / "softmax.json")
    a, b = new_session_id(), new_session_id()
    assert a != b and valid_session_id(a)
    store.put_workspace(a, workspace(mlp, "a"), mlp)
    store.put_workspace(b, workspace(softmax, "b"), softmax)
    store.put_report(a, {"plan": "x", "report": {"backend": "cpu"}})
    assert store.workspace(a).source == "a" and store.workspace(b).source == "b"
    assert store.graph(store.workspace(b).graph_key).name == "softmax"
    assert store.report(b) is None and store.report(a)["report"]["backend"] == "cpu"
    store.put_report(a, None)
    assert store.report(a) is None


def test_forged_or_unknown_keys_get_nothing():
    store = SessionStore()
    g = load_graph(SAMPLES_DIR / "mlp.json")
    sid = new_session_id()
    store.put_workspace(sid, workspace(g), g)
    for bad in (None, "", "x" * 42, "../" * 15, 42, sid[:-1] + "!", new_session_id(),
                sid[:-1] + "\u0663", [sid], {"sid": sid}):
        assert store.workspace(bad) is None
        assert store.report(bad) is None
        assert not valid_session_id(bad) or bad not in (sid,)
    with pytest.raises(ValueError):
        store.put_workspace("not a key", workspace(g))


def test_graph_key_separates_graphs_that_differ_only_in_meta():
    g = load_graph(SAMPLES_DIR / "mlp.json")
    moved = g.replace(meta={"source": "elsewhere.json"})
    assert g.fingerprint == moved.fingerprint and graph_key(g) != graph_key(moved)


def test_entries_expire_and_the_user_is_told_why():
    store = SessionStore(expire_s=0.05)
    g = load_graph(SAMPLES_DIR / "mlp.json")
    sid = new_session_id()
    store.put_workspace(sid, workspace(g), g)
    time.sleep(0.1)
    assert store.workspace(sid) is None
    assert store.gone(sid) == "expired"
    assert store.gone(new_session_id()) is None


def test_the_least_recently_used_sessions_go_first_when_the_budget_is_passed():
    g = load_graph(SAMPLES_DIR / "transformer_block.json")
    one = workspace_bytes(workspace(g))
    # room for the graph and about three workspaces
    store = SessionStore(budget_bytes=graph_bytes(g) + 3 * one + one // 2)
    sids = [new_session_id() for _ in range(6)]
    for sid in sids[:3]:
        store.put_workspace(sid, workspace(g), g)
    assert all(store.workspace(s) is not None for s in sids[:3])
    store.workspace(sids[0])                     # used again: now the most recent
    store.put_workspace(sids[3], workspace(g), g)
    assert store.workspace(sids[1]) is None and store.gone(sids[1]) == "evicted"
    assert store.workspace(sids[0]) is not None and store.workspace(sids[3]) is not None
    assert store.used_bytes() <= store.budget_bytes
    # the graph stays while a session refers to it
    assert store.graph(graph_key(g)) is not None


def test_at_most_max_sessions_are_kept():
    g = load_graph(SAMPLES_DIR / "mlp.json")
    store = SessionStore(max_sessions=5)
    sids = [new_session_id() for _ in range(12)]
    for sid in sids:
        store.put_workspace(sid, workspace(g), g)
    assert len(store) == 5
    assert [store.workspace(s) is not None for s in sids] == [False] * 7 + [True] * 5
    assert {store.gone(s) for s in sids[:7]} == {"evicted"}


def test_a_graph_no_session_refers_to_is_let_go_over_budget():
    mlp, tb = load_graph(SAMPLES_DIR / "mlp.json"), load_graph(SAMPLES_DIR / "transformer_block.json")
    store = SessionStore(budget_bytes=graph_bytes(tb) + workspace_bytes(workspace(tb)) + 1024)
    a, b = new_session_id(), new_session_id()
    store.put_workspace(a, workspace(mlp), mlp)
    store.put_workspace(b, workspace(tb), tb)      # over budget: a goes, and mlp with it
    assert store.workspace(a) is None and store.graph(graph_key(mlp)) is None
    assert store.graph(graph_key(tb)) is not None


def test_the_undo_history_is_bounded_and_says_so():
    g = load_graph(SAMPLES_DIR / "chain10.json")
    ws = controller.open_workspace(graph_key(g), g, "chain10")
    plans = [unfused_plan(g), ws.plan]
    for k in range(controller.MAX_HISTORY + 30):
        ws = controller.push(ws, plans[k % 2])
    assert len(ws.history) == controller.MAX_HISTORY and ws.dropped == 31
    for _ in range(controller.MAX_HISTORY - 1):
        ws = controller.undo(ws)
    with pytest.raises(Exception, match=f"keeps the last {controller.MAX_HISTORY} plans"):
        controller.undo(ws)
    size = workspace_bytes(ws)
    assert size < 200 * workspace_bytes(controller.open_workspace(graph_key(g), g, "c"))

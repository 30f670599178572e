"""The replay index: the planner's replay at every step, jumps, reasons, what a step did."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SAMPLES_DIR, shared_hlo_dir
from workbench.app import replay as replay_mod
from workbench.app.replay import ReplayIndex
from workbench.importers import load_graph
from workbench.planner import plan_graph, replay

MODEL = Path(__file__).parent / "data" / "transformer12_fwd.before.hlo"


@pytest.mark.parametrize("path", [SAMPLES_DIR / "transformer_block.json",
                                  shared_hlo_dir() / "transformer_block.after_noynn.hlo",
                                  MODEL], ids=lambda p: p.name)
def test_every_step_is_the_planners_replay(path, monkeypatch):
    monkeypatch.setattr(replay_mod, "SNAPSHOT_EVERY", 7)  # many stored states, even here
    g = load_graph(path)
    plan = plan_graph(g)
    index = ReplayIndex(plan, g)
    n = len(plan.decisions)
    steps = range(n + 1) if n < 200 else list(range(0, n + 1, 37)) + [n - 1, n]
    for k in steps:
        assert index.groups_at(k) == replay(plan, g, k), k


def test_jumps_reasons_and_what_a_step_changed():
    g = load_graph(MODEL)
    plan = plan_graph(g)
    index = ReplayIndex(plan, g)
    ds = plan.decisions
    first_taken = next(k for k, d in enumerate(ds, 1) if d.fused)
    first_refused = next(k for k, d in enumerate(ds, 1) if not d.fused)
    assert index.next_step(0) == first_taken
    assert index.next_step(0, taken=False) == first_refused
    assert index.next_step(first_refused, forward=False, taken=False) is None
    later = index.next_step(first_refused, taken=False)
    assert later > first_refused and not ds[later - 1].fused
    reason = ds[first_refused - 1].reason
    assert all(ds[k - 1].reason == reason for k in index.matching(False, reason))
    assert sum(index.reasons.values()) == len(ds)
    change = index.change(first_taken)
    assert change.after and set().union(*change.after) == set().union(
        *change.before) | set(ds[first_taken - 1].nodes)
    before, after = index.groups_at(first_taken - 1), index.groups_at(first_taken)
    assert all(s in before for s in change.before) and all(s in after for s in change.after)
    assert index.change(first_refused).after == ()
    assert index.next_step(len(ds)) is None

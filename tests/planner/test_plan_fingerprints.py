"""The planner's plans — groups and the whole decision log — are those of the recorded
fingerprints (tests/planner/data/plan_fingerprints.json, written by tools/plan_fingerprints.py
from the planner before its issue-14 speed work): a change meant only to make the planner faster
must not change a single plan or decision on the samples, ../shared/hlo, the XLA cases, the
corpus or the synthetic layered graphs, under any policy or device profile. One test per graph
(all its policies and devices), so that pytest-xdist shares the 37 s of planning between its
workers."""

import json

import pytest

from tools.plan_fingerprints import (DEFAULT_OUT, POLICIES, devices, graph_fingerprints,
                                     graph_keys, load, plan_hash)

RECORDED = json.loads(DEFAULT_OUT.read_text())


def test_the_recorded_graphs_policies_and_devices_are_todays():
    now = {f"{key}|{policy}|{dname}" for key in graph_keys() for policy in POLICIES
           for dname in devices()}
    assert now == set(RECORDED), "graphs or policies were added or removed"


@pytest.mark.parametrize("key", graph_keys())
def test_every_recorded_plan_is_planned_again_the_same(key):
    now = graph_fingerprints(key, load(key))
    assert now and all(k in RECORDED for k in now), "graphs or policies were added or removed"
    changed = sorted(k for k in now if now[k] != RECORDED[k])
    assert not changed, f"{len(changed)} plans changed, e.g. {changed[:5]}"


def test_the_fingerprint_sees_a_changed_decision():
    from tests.planner.planner_helpers import sample
    from workbench.planner import plan_graph

    plan = plan_graph(sample("chain10"), "priority", "h100")
    d = plan.decisions[0]
    other = plan.replace(decisions=(d.__class__(d.step, d.action, d.fused, "other-reason",
                                                d.message, d.nodes),) + plan.decisions[1:])
    assert plan_hash(other) != plan_hash(plan)
    assert RECORDED["sample_graphs/chain10.json|priority|h100"] == plan_hash(plan)

"""Shared fixtures for the code generator's tests.

Kernels are compiled into one temporary cache directory per test session, so a kernel that
several tests need (the same op at the same shape) is compiled once.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def kernel_cache(tmp_path_factory):
    """A kernel cache directory shared by the whole session."""
    return tmp_path_factory.mktemp("kernels")


def one_group_plan(graph):
    """Every non-source node in one group: the most a plan can fuse (stresses lowering)."""
    from workbench.planner.plan import is_source, make_plan

    return make_plan(graph, [[n for n in graph.topo_order if not is_source(graph, n)]],
                     policy="test")


def planner_plan(graph):
    """The planner's plan when the planner is installed, else None."""
    try:
        from workbench.planner import plan_graph
    except ImportError:
        return None
    return plan_graph(graph, "priority")


def assert_matches(graph, outputs, inputs, what=""):
    """Outputs equal the reference interpreter's within tolerance (with the f64 oracle)."""
    from workbench.codegen import check_outputs, reference_outputs

    ref, exact = reference_outputs(graph, inputs)
    checks = check_outputs(graph, outputs, ref, exact)
    bad = [c for c in checks if not c.ok]
    assert not bad, f"{graph.name} {what}: {bad}"
    return checks

"""Shared fixtures for the code generator's tests.

Kernels are compiled into one cache directory for the whole run, so a kernel that several tests
need (the same op at the same shape) is compiled once, whichever pytest-xdist worker needs it
first: ``$WORKBENCH_CACHE_DIR`` when it is set (scripts/test.sh and CI set it; the app's and the
profiler's tests compile there too, and a fresh clone's is empty), else a temporary directory of
this run shared by its workers. The cache is keyed by the generated source, which names the
hashes of the helper modules it calls (fastmath, intrinsics, native), so a cached kernel is the
one this checkout would compile.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def kernel_cache(tmp_path_factory):
    """The kernel cache directory of the whole run (both xdist workers; see the module notes)."""
    import os

    if os.environ.get("WORKBENCH_CACHE_DIR"):
        from workbench.codegen import default_cache_dir

        return default_cache_dir()
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent                     # popen-gwN's parent: the run's, shared
    path = base / "kernels"
    path.mkdir(exist_ok=True)
    return path


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

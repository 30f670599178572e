"""The cost model's serial-or-parallel choice for a CPU kernel is the backend's: the model
counts the statements the lowered kernel executes (``node_work`` plus a load or store per 4
bytes moved) as ``nest_work`` does, and compares them with the same threshold. Checked against
the code the backend generates (its ``PARALLEL`` flag) on kernels either side of the
threshold, and on the shared chain10_transc model's fused chain, which two per node had
predicted parallel (it runs serially: 2.6x slower than predicted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.costmodel.test_calibration import CAL
from tests.planner.planner_helpers import FIXED_CPU
from workbench.codegen import compile_plan
from workbench.codegen.cpu import PARALLEL_MIN_WORK
from workbench.costmodel import group_cost
from workbench.costmodel.calibrated import calibration_of, node_costs_of
from workbench.costmodel.calibration import speedup
from workbench.costmodel.devices import with_calibration
from workbench.importers import load_graph
from workbench.ir import GraphBuilder, verify
from workbench.ir.index import graph_index
from workbench.planner import plan_graph
from workbench.planner.plan import make_plan

DEV = with_calibration(FIXED_CPU, dict(CAL, parallel_min_work=PARALLEL_MIN_WORK))
SHARED = Path(__file__).resolve().parents[3] / "shared" / "hlo"


def _model_parallel(graph, nodes) -> bool:
    ix = graph_index(graph)
    cal = calibration_of(DEV)
    costs = node_costs_of(ix, DEV, cal)
    mem = [ix.pos[n] for n in nodes if not ix.source[ix.pos[n]]]
    c = group_cost(graph, nodes, DEV)
    return speedup(cal, sum(costs.work[m] for m in mem), 2,
                   c.bytes_read + c.bytes_written) > 1.0


def _backend_parallel(graph, plan, tmp_path) -> dict:
    compiled = compile_plan(graph, plan, "cpu", cache_dir=tmp_path)
    return {k.group_id: "PARALLEL = True" in (k.source or "") for k in compiled.kernels}


def _chain(n: int, ops: int):
    """``ops`` elementwise ops (a multiply and an add by constants, alternately) on ``n``
    float32 elements: ``ops`` statements, a load and a store per element."""
    b = GraphBuilder(f"chain{n}_{ops}")
    y = b.parameter("x", (4, n // 4))
    for k in range(ops):
        y = b.op("multiply" if k % 2 == 0 else "add", [y, b.splat(1.0 + k, (4, n // 4))])
    return verify(b.build([y]))


@pytest.mark.parametrize("n, ops, parallel", [
    (65536, 13, False),     # 15 statements per element: 983,040 < 2^20
    (65536, 15, True),      # 17: 1,114,112
    (262144, 2, True),      # 4: 1,048,576
    (131072, 4, False),     # 6: 786,432
])
def test_a_fused_chain_runs_serially_or_in_parallel_as_the_model_says(tmp_path, n, ops,
                                                                       parallel):
    g = _chain(n, ops)
    nodes = [x for x in g.topo_order if g.node(x).op not in ("parameter", "constant")]
    plan = make_plan(g, [nodes], policy="test")
    (got,) = _backend_parallel(g, plan, tmp_path).values()
    assert got is parallel
    assert _model_parallel(g, nodes) is parallel


@pytest.mark.parametrize("dims, parallel", [((1,), True), ((0,), False)])
def test_a_broadcast_operand_is_loaded_in_the_loop_of_its_innermost_dimension(tmp_path, dims,
                                                                              parallel):
    # x - broadcast(r) on 512 x 512: along the rows' elements (dims (1,)) r is loaded per
    # element, 4 statements per element (load x, load r, subtract, store): 2^20, parallel;
    # along the rows (dims (0,)) the load is hoisted out of the inner loop, once per row:
    # 3 per element and 512 loads, serial
    b = GraphBuilder("sub_row")
    x = b.parameter("x", (512, 512))
    r = b.op("broadcast", [b.parameter("r", (512,))], shape=(512, 512), dimensions=dims)
    g = verify(b.build([b.op("subtract", [x, r], node_id="s")]))
    nodes = [n for n in g.topo_order if g.node(n).op not in ("parameter", "constant")]
    plan = make_plan(g, [nodes], policy="test")
    (got,) = _backend_parallel(g, plan, tmp_path).values()
    assert got is parallel
    assert _model_parallel(g, nodes) is parallel


@pytest.mark.skipif(not (SHARED / "chain10_transc.before.hlo").exists(),
                    reason="needs ../shared/hlo")
def test_the_shared_transcendental_chain_is_predicted_serial_as_it_runs(tmp_path):
    g = load_graph(SHARED / "chain10_transc.before.hlo")
    plan = plan_graph(g, "priority", DEV)
    (grp,) = [grp for grp in plan.groups if len(grp.nodes) > 5]
    backend = _backend_parallel(g, make_plan(g, [list(grp.nodes)], policy="test"), tmp_path)
    assert list(backend.values()) == [False]
    assert _model_parallel(g, list(grp.nodes)) is False


def test_a_reshape_or_a_broadcast_scalar_costs_no_arithmetic_in_a_fused_kernel():
    # the elementwise class's per-op cost is charged to ops that lower to arithmetic only: a
    # reshape is an index, a broadcast scalar a literal
    per_op = 0.02e-9
    dev = with_calibration(FIXED_CPU, dict(CAL, per_element=dict(
        CAL["per_element"], elementwise=[[1024, per_op], [1 << 30, per_op]])))
    b = GraphBuilder("mul_reshape")
    x = b.parameter("x", (64, 64))
    m = b.op("multiply", [x, b.splat(3.0, (64, 64))], node_id="m")
    r = b.op("reshape", [m], shape=(4096,), node_id="r")
    g = verify(b.build([b.op("negate", [r], node_id="n")]))
    ix = graph_index(g)
    costs = node_costs_of(ix, dev, calibration_of(dev))
    assert costs.compute_s[ix.pos["m"]] == pytest.approx(4096 * per_op)
    assert costs.compute_s[ix.pos["n"]] == pytest.approx(4096 * per_op)
    assert costs.compute_s[ix.pos["r"]] == 0.0
    splat = [n for n in g.topo_order if g.node(n).op == "broadcast"]
    assert [costs.compute_s[ix.pos[s]] for s in splat] == [0.0]

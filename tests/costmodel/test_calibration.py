"""The calibrated CPU model: interpolation, the inversion the probe uses, memory levels, the
terms of a kernel and the one that dominates. Numbers by hand on a hand-made calibration."""

from __future__ import annotations

from dataclasses import replace

import pytest

from workbench.fmt import fmt_bytes, fmt_time

from tests.planner.planner_helpers import FIXED_CPU
from workbench.costmodel import group_cost, op_cost, plan_cost
from workbench.costmodel.calibration import (Calibration, combine, compute_beyond_memory,
                                             interp_loglog, node_class)
from workbench.costmodel.devices import with_calibration
from workbench.costmodel.text import miss_text
from workbench.ir import GraphBuilder, verify
from workbench.ir.index import graph_index
from workbench.planner import plan_graph

KiB, MiB = 1 << 10, 1 << 20

#: 1 us warm launch, 4 us when the plan's working set is 64 MiB; streaming at 100 GB/s up to
#: 1 MiB, 50 GB/s to 32 MiB, 20 GB/s beyond; exp 1 ns, sin 5 ns, cheap ops 0.1 ns per element
CAL = {
    "version": 1, "launch_s": 1e-6, "launch_cold": [[MiB, 1e-6], [64 * MiB, 4e-6]],
    "stream": [[64 * KiB, 64 * KiB / 100e9], [MiB, MiB / 100e9], [32 * MiB, 32 * MiB / 50e9],
               [256 * MiB, 256 * MiB / 20e9]],
    "levels": [{"name": "L2", "up_to": MiB, "Bps": 100e9},
               {"name": "LLC", "up_to": 32 * MiB, "Bps": 50e9},
               {"name": "DRAM", "up_to": None, "Bps": 20e9}],
    "per_element": {"elementwise": [[128 * KiB, 1e-10]], "exponential": [[128 * KiB, 1e-9]],
                    "sine": [[128 * KiB, 5e-9]],
                    "reduce_col": [[64 * KiB, 1e-9], [8 * MiB, 8e-9]]},
    "parallel_speedup": 2.0, "parallel_min_work": 1 << 20,
    "contraction": {"dot": [[1e6, 4096, 1e-5], [1e9, 1 << 20, 1e-2], [4e9, 4 << 20, 2e-2]]},
    "source": "hand-made calibration",
}
DEV = with_calibration(FIXED_CPU, CAL)


def test_interpolation_is_log_log_and_proportional_outside():
    pts = [(1.0, 1.0), (100.0, 10.0)]
    assert interp_loglog(pts, 10.0) == pytest.approx(10 ** 0.5)
    assert interp_loglog(pts, 1000.0) == pytest.approx(100.0)       # proportional beyond
    assert interp_loglog(pts, 1000.0, extrapolate_linear=False) == 10.0
    assert interp_loglog(pts, 0.5) == pytest.approx(0.5)


@pytest.mark.parametrize("c,m", [(3.0, 1.0), (0.5, 1.0), (0.0, 1.0), (2.0, 2.0)])
def test_the_probe_inverts_the_combination_exactly(c, m):
    assert compute_beyond_memory(combine(c, m), m) == pytest.approx(c)


def test_the_profile_takes_its_levels_and_launch_from_the_calibration():
    assert [n for n, _, _ in DEV.memory_levels()] == ["l2", "llc", "dram"]
    assert (DEV.l2_bytes, DEV.llc_bytes, DEV.bandwidth_Bps) == (MiB, 32 * MiB, 20e9)
    assert DEV.launch_overhead_s == 1e-6 and DEV.source.startswith("hand-made calibration")


def _exp_chain(n):
    b = GraphBuilder("exp_chain")
    x = b.parameter("x", (n,))
    y = b.op("exponential", [b.op("add", [x, x], node_id="a")], node_id="e")
    return verify(b.build([y]))


def test_a_kernel_is_launch_plus_compute_combined_with_memory():
    n = 16384
    g = _exp_chain(n)
    c = group_cost(g, ["a", "e"], DEV)
    # 64 KiB in, 64 KiB out: 128 KiB at 100 GB/s; an add at 0.1 ns and an exp at 1 ns per
    # element, serial (work 4n < 2^20); footprint 128 KiB: the warm launch
    memory = 128 * KiB / 100e9
    compute = n * 1e-10 + n * 1e-9
    assert c.terms["memory"] == pytest.approx(memory)
    assert c.terms["elementwise"] == pytest.approx(n * 1e-10)
    assert c.terms["exponential"] == pytest.approx(n * 1e-9)
    assert c.predicted_s == pytest.approx(1e-6 + combine(compute, memory))
    assert c.dominant == "transcendental (exp)" and c.memory_level == "l2"
    assert c.term_units["exponential"] == (n, "element")


def test_a_big_kernel_runs_in_parallel_and_its_launch_is_cold():
    n = 1 << 22                                  # 16 MiB in, 16 MiB out: work 4n > 2^20
    g = _exp_chain(n)
    c = group_cost(g, ["a", "e"], DEV)
    assert c.terms["exponential"] == pytest.approx(n * 1e-9 / 2.0)      # speedup 2
    # 32 MiB moved, at the bandwidth of the round's working set: 32 MiB alive in each of the
    # two plans a profiling round runs (PLANS_PER_ROUND)
    memory = 32 * MiB * interp_loglog(CAL["stream"], 64 * MiB) / (64 * MiB)
    assert memory > interp_loglog(CAL["stream"], 32 * MiB)
    assert c.terms["memory"] == pytest.approx(memory)
    # the launch: the same 64 MiB
    assert c.terms["launch"] == pytest.approx(interp_loglog(CAL["launch_cold"], 64 * MiB,
                                                            extrapolate_linear=False))
    assert c.dominant == "transcendental (exp)" and c.memory_level == "llc"


def test_column_reductions_cost_by_their_working_set():
    b = GraphBuilder("colsum")
    x = b.parameter("x", (2048, 1024))
    r = b.reduce(x, (0,), "add", 0.0)
    g = verify(b.build([r]))
    ix = graph_index(g)
    assert node_class(ix, ix.pos[r]) == "reduce_col"
    c = op_cost(g, r, DEV)
    assert c.terms["reduce_col"] == pytest.approx(2048 * 1024 * 8e-9 / 2.0)
    assert c.dominant == "reduction (column reduction)"


def test_dots_take_the_rate_of_their_regime():
    b = GraphBuilder("dot")
    x, w = b.parameter("x", (512, 512)), b.parameter("w", (512, 512))
    d = b.op("dot", [x, w], lhs_contracting_dims=(1,), rhs_contracting_dims=(0,),
             lhs_batch_dims=(), rhs_batch_dims=())
    g = verify(b.build([d]))
    c = op_cost(g, d, DEV)
    flops = 2 * 512 ** 3
    # result 1 MiB < 2 MiB: one BLAS call, the rate of the points under 2 MiB (interpolated
    # between 1e6 FLOP at 1e11 FLOP/s and 1e9 at 1e11 FLOP/s: 1e11)
    assert c.terms["contraction"] == pytest.approx(flops / 1e11)
    assert c.dominant == "contraction"


def test_the_planner_times_groups_as_group_cost_does():
    g = _exp_chain(16384)
    plan = plan_graph(g, "priority", DEV)
    pc = plan_cost(g, plan, DEV)
    (d,) = [d for d in plan.decisions if d.fused]
    (grp,) = plan.groups
    assert d.numbers["time_fused_s"] == pytest.approx(pc.groups[grp.id].predicted_s, rel=1e-5)
    assert d.numbers["time_unfused_s"] == pytest.approx(pc.unfused[grp.id].predicted_s,
                                                        rel=1e-5)


def test_a_miss_names_the_term_that_was_wrong():
    g = _exp_chain(16384)
    c = group_cost(g, ["a", "e"], DEV)
    text = miss_text(c, 10 * c.predicted_s)
    assert text.startswith("transcendental (exp): ")
    assert "per element (16.4k elements in " in text and "the model assumed 1 ns" in text
    b = GraphBuilder("copy")
    x = b.parameter("x", (1 << 22,))
    y = b.op("negate", [x])
    mem = op_cost(verify(b.build([y])), y, replace(DEV, name="cpu"))
    assert mem.dominant.startswith("memory (")
    assert "ran at" in miss_text(mem, 5 * mem.predicted_s) and "B/s" in miss_text(mem, 1.0)
    # the rate is stated with what it is made of: the bytes the model counts and the time
    # beyond the launch (so it can be checked against the table's GB/s, which differs)
    one = miss_text(mem, 1.0)
    assert f"({fmt_bytes(mem.bytes_total)} the model counts, in " in one
    assert fmt_time(1.0 - mem.terms["launch"]) + " beyond the launch" in one


def test_a_malformed_calibration_falls_back_to_the_roofline():
    bad = with_calibration(FIXED_CPU, {"launch_s": 1e-6})
    g = _exp_chain(1024)
    c = group_cost(g, ["a", "e"], bad)
    assert c.terms.keys() == {"launch", "memory", "compute"}
    assert Calibration.from_json(CAL).parallel_speedup == 2.0


def test_a_transpose_that_keeps_the_last_dimension_is_a_copy_of_rows():
    b = GraphBuilder("heads")
    x = b.parameter("x", (4, 16, 8, 64))
    rows = b.op("transpose", [x], dimensions=(0, 2, 1, 3))
    cols = b.op("transpose", [x], dimensions=(0, 1, 3, 2))
    ix = graph_index(verify(b.build([rows, cols])))
    assert node_class(ix, ix.pos[rows]) == "elementwise"
    assert node_class(ix, ix.pos[cols]) == "transpose"


def test_the_launch_grows_with_the_kernels_and_the_footprint_of_the_plan():
    cal = Calibration.from_json(dict(CAL, launch_ctx=[[1, 0, 1e-6], [1, 32 * MiB, 2e-6],
                                                      [64, 0, 3e-6], [64, 32 * MiB, 6e-6]]))
    assert cal.launch((0, 1)) == pytest.approx(1e-6)
    assert cal.launch((32 * MiB, 64)) == pytest.approx(6e-6)
    assert cal.launch((32 * MiB, 8)) == pytest.approx(interp_loglog([(1, 2e-6), (64, 6e-6)], 8))
    assert cal.launch((64 * MiB, 200)) == pytest.approx(6e-6)      # clamped beyond the table


def test_a_dot_with_an_epilogue_runs_at_the_output_fusions_measured_rate():
    slow = with_calibration(FIXED_CPU, dict(CAL, contraction=dict(
        CAL["contraction"], dot_fused=[[1e6, 4096, 2e-5], [1e9, 1 << 20, 2e-2]])))
    b = GraphBuilder("dot_relu")
    x, w = b.parameter("x", (512, 512)), b.parameter("w", (512, 512))
    d = b.op("dot", [x, w], lhs_contracting_dims=(1,), rhs_contracting_dims=(0,),
             lhs_batch_dims=(), rhs_batch_dims=(), node_id="d")
    r = b.op("maximum", [d, b.splat(0.0, (512, 512))], node_id="r")
    g = verify(b.build([r]))
    alone = op_cost(g, "d", slow).terms["contraction"]
    fused = group_cost(g, [n for n in g.topo_order if g.node(n).op != "parameter"
                           and g.node(n).op != "constant"], slow).terms["contraction"]
    assert alone == pytest.approx(2 * 512 ** 3 / 1e11)
    assert fused == pytest.approx(2 * alone)
    # the planner prices the fusion the same way: fusing the relu into the dot does not pay
    plan = plan_graph(g, "priority", slow)
    assert len([grp for grp in plan.groups]) == 2


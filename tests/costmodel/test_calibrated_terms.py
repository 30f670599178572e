"""The calibrated terms for what the backend does beyond streaming and per-element costs: loops
over short rows, half-precision rounding, small batched dots, the launch of a small plan,
transcendentals over short rows. Numbers by hand on a hand-made calibration."""

from __future__ import annotations

import pytest

from tests.costmodel.test_calibration import CAL, KiB, MiB
from tests.planner.planner_helpers import FIXED_CPU
from workbench.costmodel import group_cost, op_cost, plan_cost
from workbench.costmodel.calibration import (LAUNCH_FOOTPRINT_FLOOR, SHORT_LOOP, Calibration,
                                             interp_loglog, node_loop)
from workbench.costmodel.devices import with_calibration
from workbench.costmodel.text import miss_text
from workbench.ir import GraphBuilder, verify
from workbench.ir.index import graph_index
from workbench.planner import plan_graph

#: a binary loop costs 0.8 ns per element beyond streaming over rows of 12 to 47, 0.05 ns over
#: rows of 48 and more (the cliff the 2-core VM showed); a unary one 0.5 ns over rows of 12-63
LOOPS = {"binary": [[8, 0.05e-9], [12, 0.8e-9], [48, 0.05e-9], [256, 0.05e-9]],
         "unary": [[8, 0.03e-9], [12, 0.5e-9], [64, 0.03e-9], [256, 0.03e-9]]}
HALF = {"bf16": {"write": 20e-9, "read": 4e-9}}
DEV = with_calibration(FIXED_CPU, dict(CAL, loop=LOOPS, half=HALF))


def _binary(rows: int, cols: int, dtype: str = "f32"):
    b = GraphBuilder(f"mul{rows}x{cols}")
    x, y = b.parameter("x", (rows, cols), dtype=dtype), b.parameter("y", (rows, cols), dtype=dtype)
    m = b.op("multiply", [x, y], node_id="m")
    a = b.op("add", [m, y], node_id="a")
    return verify(b.build([a]))


def test_a_loop_over_short_rows_costs_what_the_probe_measured_there():
    short, long = _binary(256, 16), _binary(16, 256)        # 4,096 elements each
    c = op_cost(short, "m", DEV)
    # rows of 16 fall at the measurement for 12: (0.8 - 0.05) ns per element more than long rows
    assert c.terms[SHORT_LOOP] == pytest.approx(4096 * 0.75e-9)
    assert c.dominant == "loop (short rows, not vectorised)"
    assert SHORT_LOOP not in op_cost(long, "m", DEV).terms
    # with a 1 us launch, the short rows' kernel takes about three times the long rows' one
    assert op_cost(short, "m", DEV).predicted_s > 2.5 * op_cost(long, "m", DEV).predicted_s
    # a miss names the loop's achieved cost per element against the assumed one
    assert "short rows, not vectorised" in miss_text(c, 10 * c.predicted_s)


def test_the_loop_kind_counts_the_arrays_a_node_streams():
    g = _binary(256, 16)
    ix = graph_index(g)
    assert node_loop(ix, ix.pos["m"]) == ("binary", 16)
    b = GraphBuilder("bcast")
    s = b.parameter("s", (256,))
    inner = b.op("broadcast", [s], shape=(256, 16), dimensions=(0,), node_id="inner")
    outer = b.op("broadcast", [b.parameter("t", (16,))], shape=(256, 16), dimensions=(1,),
                 node_id="outer")
    ix = graph_index(verify(b.build([inner, outer])))
    # along the inner dimension each row stores one loaded value; along the outer it copies
    assert node_loop(ix, ix.pos["inner"]) == ("store", 16)
    assert node_loop(ix, ix.pos["outer"]) == ("unary", 16)


def test_a_fused_kernel_is_taken_to_be_vectorised_and_the_planner_agrees():
    g = _binary(256, 16)
    fused = group_cost(g, ["m", "a"], DEV)
    assert SHORT_LOOP not in fused.terms
    plan = plan_graph(g, "priority", DEV)
    pc = plan_cost(g, plan, DEV)
    (d,) = [d for d in plan.decisions if d.fused]
    (grp,) = plan.groups
    assert d.numbers["time_fused_s"] == pytest.approx(pc.groups[grp.id].predicted_s, rel=1e-5)
    assert d.numbers["time_unfused_s"] == pytest.approx(pc.unfused[grp.id].predicted_s,
                                                        rel=1e-5)
    assert pc.unfused[grp.id].terms[SHORT_LOOP] == pytest.approx(2 * 4096 * 0.75e-9)


def test_half_precision_values_are_rounded_and_widened_in_software():
    g = _binary(16, 256, "bf16")
    c = op_cost(g, "m", DEV)
    # 4,096 results written as bf16, two bf16 operands of 4,096 elements read, on top of the
    # multiply's own 0.1 ns per element
    assert c.terms["half_precision"] == pytest.approx(4096 * (20e-9 + 2 * 4e-9 + 1e-10))
    assert c.dominant == "dtype (bf16/f16 rounding in software)"
    assert "half_precision" not in op_cost(_binary(16, 256), "m", DEV).terms
    b = GraphBuilder("bcast_bf16")
    out = b.op("broadcast", [b.parameter("s", (), dtype="bf16")], shape=(64, 64),
               dimensions=(), node_id="o")
    g = verify(b.build([out]))
    assert "half_precision" not in op_cost(g, "o", DEV).terms   # one scalar, encoded once


def test_a_small_batched_dot_is_one_call_per_batch():
    dots = {"dot": [[512, 128, 2e-7], [4096, 512, 3e-7], [1e9, 1 << 20, 1e-2]]}
    dev = with_calibration(FIXED_CPU, dict(CAL, contraction=dots))
    b = GraphBuilder("bdot")
    x, y = b.parameter("x", (8, 8, 8)), b.parameter("y", (8, 8, 8))
    d = b.op("dot", [x, y], lhs_contracting_dims=(2,), rhs_contracting_dims=(1,),
             lhs_batch_dims=(0,), rhs_batch_dims=(0,), node_id="d")
    g = verify(b.build([d]))
    # eight calls of 2 * 8^3 = 1,024 FLOPs each, at the rate interpolated at 1,024 FLOPs
    rate = interp_loglog([(512, 512 / 2e-7), (4096, 4096 / 3e-7)], 1024,
                         extrapolate_linear=False)
    assert op_cost(g, "d", dev).terms["contraction"] == pytest.approx(8 * 1024 / rate)


def test_a_small_batched_dot_costs_its_calls_at_the_probes_per_batch_rate():
    """With the probe's batched points (per batch: one call's FLOPs, result bytes, seconds),
    a batched dot's calls are charged at that rate, not as dots alone; a dot without batch
    dimensions still uses the ``dot`` points."""
    dots = {"dot": [[512, 128, 9e-7], [4096, 512, 1.3e-6], [1e9, 1 << 20, 1e-2]],
            "dot_batched": [[512, 128, 3.7e-7], [4096, 512, 7.3e-7]]}
    dev = with_calibration(FIXED_CPU, dict(CAL, contraction=dots))
    b = GraphBuilder("bdot2")
    x, y = b.parameter("x", (8, 8, 8)), b.parameter("y", (8, 8, 8))
    u, v = b.parameter("u", (8, 8)), b.parameter("v", (8, 8))
    d = b.op("dot", [x, y], lhs_contracting_dims=(2,), rhs_contracting_dims=(1,),
             lhs_batch_dims=(0,), rhs_batch_dims=(0,), node_id="d")
    e = b.op("dot", [u, v], lhs_contracting_dims=(1,), rhs_contracting_dims=(0,),
             lhs_batch_dims=(), rhs_batch_dims=(), node_id="e")
    g = verify(b.build([d, e]))
    per_call = 1024 / interp_loglog([(512, 512 / 3.7e-7), (4096, 4096 / 7.3e-7)], 1024,
                                    extrapolate_linear=False)
    assert op_cost(g, "d", dev).terms["contraction"] == pytest.approx(8 * per_call)
    assert 8 * per_call < 8 * 9e-7          # cheaper than eight dots alone
    alone = 1024 / interp_loglog([(512, 512 / 9e-7), (4096, 4096 / 1.3e-6)], 1024,
                                 extrapolate_linear=False)
    assert op_cost(g, "e", dev).terms["contraction"] == pytest.approx(alone)


def test_a_plan_whose_footprint_stays_in_cache_launches_as_the_probes_small_plans():
    cal = Calibration.from_json(dict(CAL, launch_s=1e-8,
                                     launch_ctx=[[1, 0, 2e-8], [1, 4 * MiB, 8e-8],
                                     [64, 0, 2e-8], [64, 4 * MiB, 8e-8]]))
    assert LAUNCH_FOOTPRINT_FLOOR == MiB
    for footprint in (0, 4 * KiB, 200 * KiB, MiB):
        assert cal.launch((footprint, 16)) == pytest.approx(2e-8)
    # between the floor and 4 MiB the launch is interpolated log-log from the floor
    assert cal.launch((2 * MiB, 16)) == pytest.approx(4e-8)
    assert cal.launch((4 * MiB, 16)) == pytest.approx(8e-8)


def test_a_transcendental_over_short_rows_costs_its_scalar_measurement():
    dev = with_calibration(FIXED_CPU, dict(CAL, loop=LOOPS, per_element=dict(
        CAL["per_element"], **{"exponential@short": [[128 * KiB, 4e-9]]})))

    def exp(rows, cols):
        b = GraphBuilder(f"exp{rows}x{cols}")
        e = b.op("exponential", [b.parameter("x", (rows, cols))], node_id="e")
        return op_cost(verify(b.build([e])), "e", dev).terms["exponential"]

    assert exp(256, 16) == pytest.approx(4096 * 4e-9)     # rows of 16: scalar code
    assert exp(16, 256) == pytest.approx(4096 * 1e-9)     # long rows: the vectorised cost
    assert exp(512, 8) == pytest.approx(4096 * 1e-9)      # rows of 8: vectorised as well


def test_a_kernel_in_a_plan_bigger_than_a_cache_streams_at_the_plans_bandwidth():
    cal = Calibration.from_json(CAL)
    alone = cal.memory(64 * KiB)
    assert alone == pytest.approx(64 * KiB / 100e9)            # the innermost level, warm
    assert cal.memory(64 * KiB, (16 * KiB, 10)) == pytest.approx(alone)   # a small plan
    # a 32 MiB footprint streams at the 32 MiB point's 50 GB/s: so does a small kernel in it
    assert cal.memory(64 * KiB, (32 * MiB, 10)) == pytest.approx(64 * KiB / 50e9)
    assert cal.memory(64 * MiB, (32 * MiB, 10)) == pytest.approx(cal.memory(64 * MiB))


#: a one-element kernel after 0.1, 1 and 10 ms of the reference interpreter (the 2-core VM's
#: shape: no difference after 0.1 ms, ~0.3 us after 1 ms, ~0.9 us after 10 ms)
INTERP = [[1e-4, 3e-8], [1e-3, 3e-7], [1e-2, 9e-7]]


def test_a_kernel_after_the_interpreter_launches_as_the_probe_measured_there():
    from workbench.costmodel.calibrated import interpreted_context

    dev = with_calibration(FIXED_CPU, dict(CAL, launch_s=1e-8, launch_ctx=[], launch_cold=[],
                                           launch_interp=INTERP))
    b = GraphBuilder("after_sort")
    x = b.parameter("x", (16,))
    n = b.op("negate", [x], node_id="n")
    g = verify(b.build([n]))
    plain = op_cost(g, "n", dev).terms["launch"]
    assert plain == pytest.approx(1e-8)
    # a fallback of 1 ms in the plan: the probe's launch after 1 ms of interpretation
    with interpreted_context(g, 1e-3):
        c = op_cost(g, "n", dev)
        assert c.terms["launch"] == pytest.approx(3e-7)
        assert plan_cost(g, plan_graph(g, "priority", dev), dev).total.terms["launch"] == \
            pytest.approx(3e-7)
    # log-log between the points (3 ms: between 1 and 10 ms), constant beyond the last
    with interpreted_context(g, 3e-3):
        want = interp_loglog(INTERP, 3e-3, extrapolate_linear=False)
        assert op_cost(g, "n", dev).terms["launch"] == pytest.approx(want)
        assert 3e-7 < want < 9e-7
    with interpreted_context(g, 1.0):
        assert op_cost(g, "n", dev).terms["launch"] == pytest.approx(9e-7)
    # below the first point, and outside the block (the planner's context), nothing changes
    with interpreted_context(g, 5e-5):
        assert op_cost(g, "n", dev).terms["launch"] == pytest.approx(1e-8)
    assert op_cost(g, "n", dev).terms["launch"] == pytest.approx(plain)


def test_interpreter_seconds_are_checked_and_a_launch_knob_scales_the_curve():
    from workbench.costmodel.calibrated import calibration_of, interpreted_context
    from workbench.errors import InputError

    dev = with_calibration(FIXED_CPU, dict(CAL, launch_interp=INTERP))
    g = _binary(4, 4)
    for bad in (-1.0, float("nan"), "1ms", True):
        with pytest.raises(InputError, match="interpreter seconds"):
            with interpreted_context(g, bad):
                pass
    from dataclasses import replace

    slow = replace(dev, launch_overhead_s=2 * dev.launch_overhead_s)
    assert calibration_of(slow).launch_after_interpreter(1e-2) == pytest.approx(2 * 9e-7)
    assert calibration_of(dev).launch_after_interpreter(1e-2) == pytest.approx(9e-7)


def test_a_broadcast_of_a_constant_costs_the_constant_store_the_probe_measured():
    loops = dict(LOOPS, store=[[8, 0.0], [12, 0.28e-9], [24, 0.125e-9], [128, 0.0]],
                 store_const=[[8, 0.02e-9], [12, 0.28e-9], [128, 0.02e-9], [256, 0.0]])
    dev = with_calibration(FIXED_CPU, dict(CAL, loop=loops))
    b = GraphBuilder("bconst")
    k = b.op("broadcast", [b.constant(1.5)], shape=(10, 64), dimensions=(), node_id="k")
    p = b.op("broadcast", [b.parameter("s", ())], shape=(10, 64), dimensions=(), node_id="p")
    g = verify(b.build([k, p]))
    ix = graph_index(g)
    assert node_loop(ix, ix.pos["k"]) == ("store_const", 64)
    assert node_loop(ix, ix.pos["p"]) == ("store", 64)
    # rows of 64: the constant's store at 0.28 ns, the loaded scalar's at 0.125 ns per element
    assert op_cost(g, "k", dev).terms[SHORT_LOOP] == pytest.approx(640 * 0.28e-9)
    assert op_cost(g, "p", dev).terms[SHORT_LOOP] == pytest.approx(640 * 0.125e-9)
    # a calibration without the constant's kind prices it as the plain store
    old = with_calibration(FIXED_CPU, dict(CAL, loop=dict(LOOPS, store=loops["store"])))
    assert op_cost(g, "k", old).terms[SHORT_LOOP] == pytest.approx(640 * 0.125e-9)


def test_a_copy_of_half_values_costs_the_probes_copy_not_a_write_and_a_read():
    half = {"bf16": {"write": 20e-9, "read": 4e-9, "copy": 8e-9}}
    dev = with_calibration(FIXED_CPU, dict(CAL, half=half))
    b = GraphBuilder("bf16copy")
    x = b.parameter("x", (256,), dtype="bf16")
    bc = b.op("broadcast", [x], shape=(16, 256), dimensions=(1,), node_id="bc")
    neg = b.op("negate", [bc], node_id="neg")
    g = verify(b.build([neg]))
    from workbench.costmodel.calibration import HALF

    # the class term is the op's own per-element cost plus the half-precision one
    plain = with_calibration(FIXED_CPU, dict(CAL))

    def extra(node, d):
        c0 = op_cost(g, node, plain)
        own = sum(v for k, v in c0.terms.items() if k not in ("launch", "memory"))
        return op_cost(g, node, d).terms[HALF] - own

    assert extra("bc", dev) == pytest.approx(4096 * 8e-9)
    # an op that computes rounds its result and widens its operand
    assert extra("neg", dev) == pytest.approx(4096 * (20e-9 + 4e-9))
    # without the copy measurement, a copy is a write and a read
    old = with_calibration(FIXED_CPU, dict(CAL, half={"bf16": {"write": 20e-9, "read": 4e-9}}))
    assert extra("bc", old) == pytest.approx(4096 * 24e-9)

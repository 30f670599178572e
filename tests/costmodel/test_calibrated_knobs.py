"""What-if knobs on a calibrated CPU profile rescale the measured tables
(workbench/costmodel/calibrated.py): each knob moves the calibrated prediction by its ratio."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.costmodel.test_calibration import CAL, _exp_chain
from tests.planner.planner_helpers import FIXED_CPU
from workbench.costmodel import group_cost, op_cost
from workbench.costmodel.calibrated import calibration_of
from workbench.costmodel.calibration import combine, interp_loglog
from workbench.costmodel.devices import get_device, with_calibration
from workbench.costmodel.knobs import apply_knobs
from workbench.ir import GraphBuilder, verify

MiB = 1 << 20
DEV = with_calibration(replace(FIXED_CPU, core_flops=50e9, parallel_min_bytes=2 * MiB), CAL)
N = 16384                                   # 128 KiB moved: the L2, serial, warm launch


def _cost(settings, n=N):
    return group_cost(_exp_chain(n), ["a", "e"], apply_knobs(DEV, settings))


def test_no_knob_leaves_the_calibration_as_measured():
    assert calibration_of(DEV) is calibration_of(DEV)
    assert calibration_of(DEV).launch_s == CAL["launch_s"]
    assert DEV.calibration["profile"]["launch_overhead_s"] == 1e-6


def test_launch_overhead_scales_every_launch():
    base, more = _cost({}), _cost({"launch_overhead_s": 3e-6})
    assert more.terms["launch"] == pytest.approx(3 * base.terms["launch"])
    assert more.predicted_s - base.predicted_s == pytest.approx(2e-6)
    assert _cost({"launch_overhead_s": 0.0}).terms["launch"] == 0.0


def test_overlap_zero_adds_compute_and_memory():
    c = _cost({"overlap": 0.0})
    compute = c.terms["elementwise"] + c.terms["exponential"]
    assert c.predicted_s == pytest.approx(c.terms["launch"] + compute + c.terms["memory"])
    b = _cost({})
    assert b.predicted_s == pytest.approx(b.terms["launch"] + combine(compute, b.terms["memory"]))


def test_a_bandwidth_knob_rescales_the_stream_curve_at_its_level():
    # 128 KiB moved sits in the L2 (100 GB/s measured): halving the L2 ceiling doubles it
    assert _cost({"l2_bandwidth_Bps": 50e9}).terms["memory"] == pytest.approx(
        2 * _cost({}).terms["memory"])
    assert _cost({"bandwidth_Bps": 1e9}).terms["memory"] == pytest.approx(
        _cost({}).terms["memory"])                                   # DRAM not touched
    big = 1 << 25                     # 256 MiB moved: DRAM, the curve's last point
    slow = _cost({"bandwidth_Bps": 10e9}, big).terms["memory"]
    assert slow == pytest.approx(2 * _cost({}, big).terms["memory"])


def test_a_bigger_cache_holds_more_at_its_ceiling():
    big = 1 << 24                                                    # 128 MiB moved
    roomy = _cost({"llc_bytes": 512 * MiB}, big)
    # the 256 MiB point of the curve (20 GB/s) now sits in the LLC (50 GB/s)
    want = interp_loglog([(p[0], p[1] * (20e9 / 50e9 if p[0] > 32 * MiB else 1))
                          for p in CAL["stream"]], 128 * MiB)
    assert roomy.terms["memory"] == pytest.approx(want)
    assert roomy.memory_level == "llc"
    cal = calibration_of(apply_knobs(DEV, {"llc_bytes": 512 * MiB}))
    assert cal.level(128 * MiB) == {"name": "LLC", "up_to": 512 * MiB, "Bps": 50e9}
    assert calibration_of(DEV).level(128 * MiB)["name"] == "DRAM"


def test_compute_knobs_scale_the_per_element_costs():
    base = _cost({})
    fast = _cost({"core_flops": 100e9})                              # twice the measured core
    assert fast.terms["elementwise"] == pytest.approx(base.terms["elementwise"] / 2)
    assert fast.terms["exponential"] == pytest.approx(base.terms["exponential"] / 2)
    cheap = _cost({"transcendental_flops": 5.0})                     # half the measured 10
    assert cheap.terms["exponential"] == pytest.approx(base.terms["exponential"] / 2)
    assert cheap.terms["elementwise"] == pytest.approx(base.terms["elementwise"])
    # a big kernel runs over the cores: the peak knob scales it, the core knob does not
    n = 1 << 22
    par = _cost({}, n).terms["exponential"]
    assert _cost({"peak_flops": 200e9}, n).terms["exponential"] == pytest.approx(par / 2)
    assert _cost({"core_flops": 100e9, "peak_flops": 100e9}, n).terms["exponential"] == \
        pytest.approx(par)


def test_core_flops_scale_a_one_core_dot():
    b = GraphBuilder("dot")
    # a [64, 64] result (16 KiB) is under CPU_PARALLEL_MIN_BYTES: one core
    x, w = b.parameter("x", (64, 4096)), b.parameter("w", (4096, 64))
    d = b.op("dot", [x, w], lhs_contracting_dims=(1,), rhs_contracting_dims=(0,),
             lhs_batch_dims=(), rhs_batch_dims=())
    g = verify(b.build([d]))
    base = op_cost(g, d, DEV).terms["contraction"]
    assert op_cost(g, d, apply_knobs(DEV, {"core_flops": 25e9})).terms["contraction"] == \
        pytest.approx(2 * base)
    # a knobbed profile's name rebuilds it: get_device on the name gives the same prediction
    knobbed = apply_knobs(DEV, {"core_flops": 25e9})
    assert knobbed.name == "cpu+core_flops=25000000000.0"
    assert get_device(knobbed) is knobbed

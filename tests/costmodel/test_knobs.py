"""What-if knobs: a validated overlay on a device profile (workbench/costmodel/knobs.py)."""

import pytest

from workbench.costmodel import get_device, group_cost, plan_cost
from workbench.costmodel.knobs import (KNOB_NAMES, apply_knobs, parse_setting, parse_values,
                                       split_name)
from workbench.errors import InputError
from workbench.importers import load_graph
from workbench.planner import plan_graph
from tests.conftest import SAMPLES_DIR


def test_a_knob_makes_a_new_named_profile_that_get_device_rebuilds():
    base = get_device("h100")
    d = apply_knobs(base, {"launch_overhead_s": 5e-6, "overlap": 0.5})
    assert d.name == "h100+launch_overhead_s=5e-06+overlap=0.5"
    assert (d.launch_overhead_s, d.overlap, d.bandwidth_Bps) == (5e-6, 0.5, base.bandwidth_Bps)
    assert base.launch_overhead_s == 1e-6 and base.overlap == 0.95     # unchanged
    assert get_device(d.name) == d
    again = apply_knobs(d, {"overlap": 0.25})                          # knobs accumulate
    assert again.name == "h100+launch_overhead_s=5e-06+overlap=0.25"
    assert split_name(again.name) == ("h100", {"launch_overhead_s": 5e-6, "overlap": 0.25})
    assert apply_knobs(base, {}) is base


def test_unknown_knob_is_refused_with_the_known_ones():
    with pytest.raises(InputError) as e:
        apply_knobs(get_device("h100"), {"launch_overhead": 1e-6})
    msg = str(e.value)
    assert "unknown knob 'launch_overhead'" in msg and "did you mean launch_overhead_s?" in msg
    assert all(k in msg for k in KNOB_NAMES) and "\n" not in msg


@pytest.mark.parametrize("text, why", [
    ("overlap=2", r"out of range \[0, 1\]"), ("peak_flops=abc", "is not a number"),
    ("launch_overhead_s=nan", "not a finite number"), ("launch_overhead_s=-1", "out of range"),
    ("max_registers_per_thread=31.5", "not a whole number"), ("overlap", "expected NAME=VALUE")])
def test_bad_values_are_one_line_errors(text, why):
    with pytest.raises(InputError, match=why):
        parse_setting(text)


def test_a_knob_the_profile_does_not_have_is_refused():
    with pytest.raises(InputError, match="does not apply to the h100 profile"):
        apply_knobs(get_device("h100"), {"l2_bandwidth_Bps": 1e12})
    with pytest.raises(InputError, match="does not apply to the cpu profile"):
        apply_knobs(get_device("cpu"), {"max_registers_per_thread": 64})


def test_parse_values():
    assert parse_values("launch_overhead_s=0,1e-6, 5e-6") == ("launch_overhead_s",
                                                             (0.0, 1e-6, 5e-6))
    with pytest.raises(InputError, match="expected NAME=V1,V2"):
        parse_values("overlap=")


def test_knobs_move_the_prediction_by_the_model_formula():
    g = load_graph(SAMPLES_DIR / "chain10.json")
    plan = plan_graph(g, "priority", "h100")
    base = plan_cost(g, plan, "h100").total
    more = plan_cost(g, plan, apply_knobs(get_device("h100"), {"launch_overhead_s": 4e-6}))
    # one kernel per call: the prediction moves by the launch-overhead change, exactly
    assert more.total.kernels == 1
    assert more.total.predicted_s - base.predicted_s == pytest.approx(3e-6, rel=1e-9)
    # overlap 0: compute and memory times add up instead of overlapping
    members = plan.groups[0].nodes
    c = group_cost(g, members, "h100")
    c0 = group_cost(g, members, apply_knobs(get_device("h100"), {"overlap": 0.0}))
    assert c0.predicted_s == pytest.approx(c.compute_s + c.memory_s + c.launch_overhead_s)
    assert c.predicted_s == pytest.approx(c.compute_s + c.memory_s
                                          - 0.95 * min(c.compute_s, c.memory_s)
                                          + c.launch_overhead_s)

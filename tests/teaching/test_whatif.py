"""What-if questions: a knob of the cost model moved, and where two plans cross."""

from __future__ import annotations

import dataclasses

import pytest

from workbench.costmodel.model import get_device
from workbench.errors import InputError
from workbench.teaching.whatif import (BY_ID, QUESTIONS, _times, answer_text, sweep,
                                       with_knob)


def test_with_knob_changes_one_field_only():
    base = get_device("h100")
    new = with_knob(base, "launch_overhead_s", 5e-6)
    assert new.launch_overhead_s == 5e-6
    assert dataclasses.replace(new, name=base.name,
                               launch_overhead_s=base.launch_overhead_s) == base
    with pytest.raises(InputError, match="a what-if question moves one of"):
        with_knob(base, "peak", 1.0)
    with pytest.raises(InputError):  # the cost model's own range check
        with_knob(base, "transcendental_flops", 1e9)
    assert new.name.startswith("h100+launch_overhead_s=")


def test_the_crossing_is_where_the_predicted_times_meet():
    s = sweep(BY_ID["duplication-transcendental"], "h100")
    assert s.crossing is not None and s.values[0] < s.crossing < s.values[-1]
    a, b = _times(s.question, "h100", s.crossing)
    assert a == pytest.approx(b, rel=1e-4)
    below, above = s.crossing / 2, s.crossing * 2
    assert s.winner_at(below) != s.winner_at(above)
    text = answer_text(s)
    assert "cross at" in text and f"{s.crossing:.3g} FLOP" in text


def test_a_chain_pays_to_fuse_at_any_launch_overhead():
    s = sweep(BY_ID["chain-launch"], "cpu")
    assert s.crossing is None
    assert all(a < b for a, b in zip(s.times_a, s.times_b))
    assert "do not cross" in answer_text(s)
    # the gap grows with the launch overhead: the unfused plan launches more kernels
    gaps = [b - a for a, b in zip(s.times_a, s.times_b)]
    assert gaps[-1] > gaps[0] and s.kernels[0] < s.kernels[1]


@pytest.mark.parametrize("device", ["cpu", "h100"])
def test_the_chain_question_is_answered_by_the_launch_overhead_where_its_savings_are_equal(device):
    """Review 19: "at what launch overhead would fusing the chain stop being worth it?" could
    never be answered (raising it only makes fusing pay more). The question asks instead where
    the launches fusing saves are worth as much as the traffic it saves; the answer is computed
    from the cost model's launch term, and the text states it."""
    from workbench.teaching.whatif import saving_split

    q = BY_ID["chain-launch"]
    s = sweep(q, device)
    assert s.answer is not None and s.values[0] < s.answer < s.values[-1]
    launch, rest = saving_split(q, device, s.answer)
    assert launch == pytest.approx(rest, rel=1e-6)
    below, above = (saving_split(q, device, s.answer * f) for f in (0.5, 2.0))
    assert below[0] < below[1] and above[0] > above[1]
    # the launch part is the kernels fusing removes times the knob: the cost model's own term
    own_launch, _ = saving_split(q, device, s.own_value)
    assert own_launch == pytest.approx((s.kernels[1] - s.kernels[0]) * s.own_value, rel=1e-9)
    text = answer_text(s)
    from workbench.teaching.facts import Fact

    assert Fact(s.answer, "seconds", "cost model").text() in text
    assert "worth as much as the rest" in text and "only adds to what fusing saves" in text
    assert sweep(q, device).to_json()["answer"] == s.answer
    # a question without a solve of its own has no such answer
    assert sweep(BY_ID["duplication-launch"], device).answer is None


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
def test_every_question_sweeps_on_every_profile(question):
    for device in ("cpu", "h100"):
        s = sweep(question, device)
        assert len(s.values) == len(s.times_a) == len(s.times_b)
        assert s.values[0] < s.own_value < s.values[-1]


def test_the_sweep_records_what_the_planner_itself_makes_at_each_value():
    from workbench.planner.whatif import knob_sweep

    q = BY_ID["duplication-launch"]
    s = sweep(q, "cpu")
    points = knob_sweep(q.build(), q.knob, s.values, device="cpu")
    assert s.planner_kernels == tuple(p.kernels for p in points)
    assert s.planner_changes == [p.value for p in points if p.changed
                                 and p.kernels != points[points.index(p) - 1].kernels]
    assert "Re-planned at each value" in answer_text(s)
    # the range stays inside the knob's own limits
    t = sweep(BY_ID["duplication-transcendental"], "cpu")
    assert t.values[-1] <= 1e4


def test_a_sweep_clamped_at_the_knobs_bound_ends_exactly_on_it(monkeypatch):
    # a machine whose transcendental cost times SPAN passes the knob's upper bound (10,000 FLOP:
    # a quick probe measured 147.9 on the 2-core VM): the last log-spaced value rounded to
    # 10000.000000000002, which the knob refused, and the app's what-if page never answered
    import workbench.costmodel.model as model
    from workbench.costmodel.knobs import get_knob
    from workbench.teaching.whatif import SPAN

    q = BY_ID["duplication-transcendental"]
    high = get_knob(q.knob).high
    slow = dataclasses.replace(get_device("cpu"), transcendental_flops=147.9)
    real = model.get_device
    monkeypatch.setattr(model, "get_device", lambda name: slow if name == "cpu" else real(name))
    s = sweep(q, "cpu")
    assert slow.transcendental_flops * SPAN > high
    assert s.values[-1] == high and s.values[0] == pytest.approx(slow.transcendental_flops / SPAN)
    assert all(b > a for a, b in zip(s.values, s.values[1:]))

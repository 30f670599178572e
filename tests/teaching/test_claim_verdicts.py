"""Property tests of the claim checks (review 19): for every lesson and claim, over measured
times drawn at random, the mark (holds, fails, pending; ✓/✗ in the app, +/! in the terminal)
and the verdict's words come from one verdict, and a "faster" (or "slower-than") claim holds
only beyond the stated margin: at least :data:`~workbench.teaching.facts.FASTER_MARGIN` and
more than the spread of the runs."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.teaching.conftest import fake_record
from workbench.teaching import LESSONS
from workbench.teaching.claims import FAILS, HOLDS, PENDING, check_all, faster_beyond_noise
from workbench.teaching.facts import FASTER_MARGIN
from workbench.teaching.lesson import open_lesson
from workbench.teaching.template import plain

MEASURED = [lesson for lesson in LESSONS if lesson.measure]
#: phrases that say a claim does not hold, and one that says it does
NEGATIVE = ("does not hold", "premise does not")
POSITIVE = "Holds here"

times = st.floats(min_value=1e-6, max_value=1e-2, allow_nan=False)
ratios = st.floats(min_value=0.3, max_value=4.0, allow_nan=False)
spreads = st.floats(min_value=0.0, max_value=0.2, allow_nan=False)


def _records(run, t, ratio, spread, noisy):
    out = {}
    for k, s in enumerate(run.measured_stages):
        r = fake_record(s, t * (1 + 0.07 * k), t * (1 + 0.07 * k) * ratio, noisy=noisy)
        r["fused_spread_s"] = r["fused_s"] * spread
        out[s.id] = r
    return out


def assert_one_verdict(claim):
    verdict = plain(claim.verdict)
    if claim.status == HOLDS:
        assert verdict.startswith("Holds here. ")
        assert not any(n in verdict.lower() for n in NEGATIVE), verdict
    elif claim.status == FAILS:
        assert verdict.startswith("Does not hold here. ")
        assert POSITIVE not in verdict, verdict
    else:
        assert claim.status == PENDING
        assert POSITIVE not in verdict and "Does not hold" not in verdict


@pytest.mark.parametrize("lesson", MEASURED, ids=lambda x: x.id)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=times, ratio=ratios, spread=spreads, noisy=st.booleans())
def test_the_mark_and_the_verdict_agree_and_faster_needs_the_margin(lesson, t, ratio, spread,
                                                                   noisy):
    run = open_lesson(lesson, "cpu")
    measured = run.with_records(_records(run, t, ratio, spread, noisy))
    facts = measured.facts()
    for claim, result in zip(lesson.claims, check_all(measured)):
        assert_one_verdict(result)
        if claim.kind == "faster":
            fast = facts[f"{claim.stage}.measured"].value
            slow = facts[f"{claim.stage}.measured_unfused"].value
            beyond = slow / fast >= FASTER_MARGIN and slow - fast > facts[
                f"{claim.stage}.spread"].value
            assert (result.status == HOLDS) == beyond, (slow / fast, plain(result.verdict))
            assert facts["rule.faster_margin"].text() in plain(result.verdict)
        if claim.kind == "slower-than":
            slow = facts[f"{claim.stage}.measured"].value
            fast = facts[f"{claim.other}.measured"].value
            if result.status == HOLDS:
                assert slow / fast >= FASTER_MARGIN
    # unmeasured, every measured claim waits, and says neither verdict
    for result in check_all(run):
        assert_one_verdict(result)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda x: x.id)
def test_the_terminal_and_the_app_mark_each_claim_by_its_verdict(lesson):
    """The +/! of ``workbench learn`` and the ✓/✗ of the Learn page are the status the verdict's
    words were written for."""
    from workbench.app.callbacks_learn import claims_children
    from workbench.cli.learn_text import MARK, lesson_text
    from workbench.teaching.documents import lesson_document

    run = open_lesson(lesson, "cpu")
    if lesson.measure:  # a margin-deep speedup (a fail) and a clear one (a pass, mostly)
        run = run.with_records(_records(run, 1e-4, 1.02, 0.01, False))
    doc = lesson_document(run)
    text = lesson_text(doc)
    icon = {"holds": "✓", "fails": "✗", "pending": "…"}
    children = claims_children(run)
    for c, child in zip(doc["claims"], children):
        start = {"holds": "Holds here.", "fails": "Does not hold here."}.get(c["status"], "")
        assert c["verdict"].startswith(start)
        assert f"{MARK[c['status']]} " + " ".join(c["statement"].split()[:3]) in text
        assert child.children[0].children == icon[c["status"]]
        assert child.className == f"claim {c['status']}"
    if lesson.measure:
        faster = [c for c in doc["claims"] if c["kind"] == "faster"]
        assert all(c["status"] == FAILS for c in faster)  # 1.02x: within the margin


def test_the_margin_rule():
    assert faster_beyond_noise(1.0, FASTER_MARGIN * 1.001, 0.0)
    assert not faster_beyond_noise(1.0, FASTER_MARGIN * 0.999, 0.0)
    assert not faster_beyond_noise(1.0, 1.5, 0.6)  # saves 0.5, the runs spread over 0.6
    assert faster_beyond_noise(1.0, 1.5, 0.4)
    assert not faster_beyond_noise(0.0, 1.0, None) and not faster_beyond_noise(1.0, 0.0, None)

"""Lessons: no figure typed by hand, every figure a fact with a source, stages from unfused to
fused, claims checked against the facts."""

from __future__ import annotations

import re

import pytest

from tests.teaching.conftest import fake_record
from workbench.teaching import LESSONS, LESSONS_BY_ID, QUESTIONS, EXERCISES
from workbench.teaching.claims import FAILS, HOLDS, PENDING, check_all
from workbench.teaching.facts import SOURCES
from workbench.teaching.glossary import TERMS
from workbench.teaching.lesson import open_lesson
from workbench.teaching.template import literal_figures, placeholders, plain, render

DIGIT = re.compile(r"\d")


def all_texts():
    """Every piece of teaching prose: lesson paragraphs and claims, what-if questions,
    exercise prompts, glossary entries."""
    for lesson in LESSONS:
        for p in lesson.text:
            yield f"lesson {lesson.id}", p
        for c in lesson.claims:
            yield f"lesson {lesson.id} claim", c.statement
    for q in QUESTIONS:
        yield f"question {q.id}", q.text
    for e in EXERCISES:
        yield f"exercise {e.id}", e.prompt
    for t in TERMS.values():
        yield f"term {t.id}", t.short + " " + t.text


def test_no_lesson_text_types_a_figure():
    bad = [(where, literal_figures(text)) for where, text in all_texts() if literal_figures(text)]
    assert bad == []


def test_the_figure_check_finds_typed_figures():
    assert literal_figures("ten reads and ten writes become one of each") == ["ten", "ten"]
    assert literal_figures("fusion can give more than 2x") == ["2"]
    assert literal_figures("twice as fast, half the bytes") == ["twice", "half"]
    assert literal_figures("saves {fused.saved_bytes} in {fused.kernels} kernel") == []


def measured(run, fast=True):
    recs = {}
    for s in run.measured_stages:
        t = s.cost.total.predicted_s
        recs[s.id] = fake_record(s, t if fast else 3 * t, 3 * t if fast else t)
    return run.with_records(recs)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda x: x.id)
def test_every_number_a_lesson_shows_is_a_fact_with_a_source(lesson):
    """Rendered with and without measurements, every digit on the page is inside a fact's
    value, and every fact comes from the graph, the planner, the cost model, a transform or
    the profile."""
    run = open_lesson(lesson, "cpu")
    for r in (run, measured(run)):
        facts = r.facts()
        parts = [seg for p in lesson.text for seg in render(p, facts)]
        parts += [seg for c in check_all(r) for seg in c.statement + c.verdict]
        for seg in parts:
            if seg.fact is None:
                assert not DIGIT.search(seg.text), (lesson.id, seg.text)
            else:
                assert seg.fact.source in SOURCES and seg.fact.what
        keys = {k for p in lesson.text for k in placeholders(p)}
        pending = {k for k in keys if facts[k].pending}
        assert all(facts[k].source == "profile" for k in pending)  # only measurements wait
        if r is not run or not lesson.measure:
            assert pending == set()
            assert PENDING not in {c.status for c in check_all(r)}


def test_the_figures_are_the_cost_models_own():
    from workbench.costmodel.model import get_device, plan_cost
    from workbench.planner import plan_graph
    from workbench.planner.plan import unfused_plan
    from workbench.teaching import graphs

    run = open_lesson(LESSONS_BY_ID["vertical"], "cpu")
    facts = run.facts()
    g = graphs.vertical()
    dev = get_device("cpu")
    fused = plan_cost(g, plan_graph(g, "priority", dev), dev).total
    unfused = plan_cost(g, unfused_plan(g), dev).total
    assert facts["fused.bytes_moved"].value == fused.bytes_read + fused.bytes_written
    assert facts["unfused.bytes_moved"].value == unfused.bytes_read + unfused.bytes_written
    assert facts["fused.saved_bytes"].value == g.node("product").type.nbytes * 2
    assert facts["fused.predicted"].value == pytest.approx(fused.predicted_s)
    assert facts["unfused.kernels"].value == 2 and facts["fused.kernels"].value == 1
    text = plain(render(LESSONS_BY_ID["vertical"].text[1], facts))
    assert f"{facts['unfused.bytes_moved'].text()} to {facts['fused.bytes_moved'].text()}" in text


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda x: x.id)
def test_stages_step_from_unfused_to_the_planners_plan(lesson):
    run = open_lesson(lesson, "cpu")
    ids = [s.id for s in run.stages]
    assert ids[0] == "unfused" and "fused" in ids
    first, fused = run.stages[0], run.stage("fused")
    assert first.plan.num_kernels == sum(1 for n in run.graph.nodes
                                         if n.op not in ("parameter", "constant"))
    assert fused.plan is run.plan
    steps = run.stages[:ids.index("fused") + 1]
    assert [s.decision.step for s in steps[1:]] == list(range(len(run.plan.decisions)))
    kernels = [s.plan.num_kernels for s in steps]
    assert kernels == sorted(kernels, reverse=True)  # groups only merge along the replay


def test_the_chain_moves_fewer_bytes_at_every_taken_step():
    run = open_lesson(LESSONS_BY_ID["loop"], "cpu")
    moved = [s.cost.total.bytes_read + s.cost.total.bytes_written for s in run.stages]
    assert moved == sorted(moved, reverse=True) and moved[-1] < moved[0]


def test_claims_wait_for_the_profile_then_hold_or_fail_with_a_reason():
    run = open_lesson(LESSONS_BY_ID["vertical"], "cpu")
    before = {c.kind: c.status for c in check_all(run)}
    assert before["faster"] == PENDING and before["fewer-bytes"] == PENDING
    fast = {c.kind: c for c in check_all(measured(run, fast=True))}
    assert fast["faster"].status == HOLDS and fast["fewer-bytes"].status == HOLDS
    slow = {c.kind: c for c in check_all(measured(run, fast=False))}
    assert slow["faster"].status == FAILS
    verdict = plain(slow["faster"].verdict)
    assert verdict.startswith("Does not hold here.")
    facts = measured(run, fast=False).facts()
    assert facts["fused.measured"].text() in verdict and "Why" in verdict or \
        "terms" in verdict


def test_a_noisy_measurement_compares_the_fastest_runs_and_says_so():
    run = open_lesson(LESSONS_BY_ID["vertical"], "cpu")
    s = run.stage("fused")
    rec = fake_record(s, 2e-4, 1e-4, noisy=True)
    facts = run.with_records({"fused": rec}).facts()
    assert facts["fused.measured"].value == rec["fused_min_s"]
    assert "fastest run" in facts["fused.measured"].what
    faster = next(c for c in check_all(run.with_records({"fused": rec})) if c.kind == "faster")
    assert faster.status == FAILS and "noisy" in plain(faster.verdict)


def test_the_textbook_claim_names_a_compute_bound_kernel_when_it_fails():
    run = open_lesson(LESSONS_BY_ID["output"], "cpu")
    facts = run.facts()
    if not str(facts["fused.bound"].value).startswith("compute"):
        pytest.skip("the fused dense layer is not compute-bound on this machine's profile")
    s = run.stage("fused")
    t = s.cost.total.predicted_s
    slow = run.with_records({"fused": fake_record(s, t, t * 1.01)})
    claim = next(c for c in check_all(slow) if c.kind == "memory-bound-ideal")
    assert claim.status == FAILS and "compute-bound" in plain(claim.verdict)


def test_the_textbook_claim_compares_the_time_saved_with_the_bytes_saved():
    """Time follows bytes when fusion removes the same share of both: a speedup of 1.02x where
    a third of the bytes go does not follow them (a ratio of speedups, 1.02 / 1.5, would
    have passed within a factor of two)."""
    run = open_lesson(LESSONS_BY_ID["vertical"], "a100")
    s = run.stage("fused")
    facts = run.facts()
    ratio = facts["fused.bytes_ratio"].value
    assert facts["fused.bytes_saved_share"].text() == "33 %" and ratio == pytest.approx(1.5)
    t = s.cost.total.predicted_s

    def verdict(speedup):
        held = run.with_records({"fused": fake_record(s, t, t * speedup)})
        claim = next(c for c in check_all(held) if c.kind == "memory-bound-ideal")
        return claim.status, plain(claim.verdict), held.facts()

    status, text, f = verdict(1.02)
    assert status == FAILS and f["fused.time_saved_share"].text() == "2 %"
    assert "removes 33 % of the bytes moved" in text and "it removes 2 % of the time" in text
    status, text, f = verdict(ratio)
    assert status == HOLDS and f["fused.time_saved_share"].text() == "33 %"
    assert "within the rule's margin" in text
    # 20 % of the time against 33 % of the bytes: within a factor of two of each other, but
    # 1.25x is not 1.5x by the lessons' rule for comparing times (review: "ratio agrees")
    status, text, _ = verdict(1.25)
    assert status == FAILS and "falls short of the ratio of the bytes" in text
    assert verdict(1.5 * 1.02)[0] == HOLDS     # 2 %: within the rule's 5 % margin
    assert verdict(1.8)[0] == FAILS and "beats the ratio" in verdict(1.8)[1]


def test_the_input_lessons_textbook_claim_follows_its_numbers():
    """The input-fusion lesson measured 2.72x where the bytes' ratio is 3.50x (a newcomer's
    review): the verdict said "the ratio agrees"; by the rule for comparing times it does not."""
    run = open_lesson(LESSONS_BY_ID["input"], "a100")
    s = run.stage("fused")
    assert run.facts()["fused.bytes_ratio"].text() == "3.50x"
    t = s.cost.total.predicted_s
    held = run.with_records({"fused": fake_record(s, t, t * 2.72)})
    claim = next(c for c in check_all(held) if c.kind == "memory-bound-ideal")
    text = plain(claim.verdict)
    assert claim.status == FAILS and "agrees" not in text
    assert "a speedup of 3.50x" in text and "a speedup of 2.72x" in text
    assert "falls short of the ratio of the bytes" in text


def test_the_textbook_claim_on_a_compute_bound_kernel_does_not_hold_though_the_ratio_agrees():
    """Sine and cosine fused: the measured speedup may come near the bytes ratio while the
    cost model finds the kernel compute-bound; the claim (premise and all) then does not hold,
    and the verdict says both in its numbers, with no second reason after it (review 19: a
    mark of "holds" beside a text saying the premise does not)."""
    from workbench.costmodel import get_device
    from workbench.costmodel.knobs import apply_knobs

    # a datasheet profile with knobs, where the planner fuses the siblings and finds the
    # kernel compute-bound (this machine's calibrated cpu profile decides for itself)
    device = apply_knobs(get_device("h100"), {"launch_overhead_s": 1e-7, "peak_flops": 1e12})
    run = open_lesson(LESSONS_BY_ID["sibling"], device)
    facts = run.facts()
    assert facts["fused.kernels"].value == 1
    assert str(facts["fused.bound"].value).startswith("compute")
    s = run.stage("fused")
    t, ratio = s.cost.total.predicted_s, facts["fused.bytes_ratio"].value
    held = run.with_records({"fused": fake_record(s, t, t * ratio)})
    claim = next(c for c in check_all(held) if c.kind == "memory-bound-ideal")
    verdict = plain(claim.verdict)
    assert claim.status == FAILS and verdict.startswith("Does not hold here.")
    assert "the premise does not" in verdict and "Why:" not in verdict
    f = held.facts()
    for key in ("fused.bound", "fused.kernel_compute", "fused.kernel_memory",
                "fused.measured_vs_predicted"):
        assert f[key].text() in verdict, key
    # a memory-bound kernel's verdict has no such note
    run = open_lesson(LESSONS_BY_ID["vertical"], "a100")  # datasheet: memory-bound
    s = run.stage("fused")
    t, ratio = s.cost.total.predicted_s, run.facts()["fused.bytes_ratio"].value
    assert str(run.facts()["fused.bound"].value).startswith("memory")
    held = run.with_records({"fused": fake_record(s, t, t * ratio)})
    claim = next(c for c in check_all(held) if c.kind == "memory-bound-ideal")
    assert claim.status == HOLDS and "premise" not in plain(claim.verdict)


def test_folding_slower_than_fusing_is_explained_by_plans_predicted_alike():
    """The folded plan measured slower than the fused one: the plans are named by their
    titles, and the reason is that the cost model predicts them nearly alike (not a
    compute-bound argument about bytes, which the two plans share)."""
    run = open_lesson(LESSONS_BY_ID["conv-bn"], "cpu")
    fused, folded = run.stage("fused"), run.stage("folded")
    a, b = fused.cost.total.predicted_s, folded.cost.total.predicted_s
    assert abs(a - b) < 0.1 * max(a, b)
    recs = {"fused": fake_record(fused, a, 2 * a), "folded": fake_record(folded, 2 * a, 2 * a)}
    claim = next(c for c in check_all(run.with_records(recs)) if c.kind == "slower-than")
    verdict = plain(claim.verdict)
    assert claim.status == FAILS
    assert f"for {fused.title} against" in verdict and f"for {folded.title} (" in verdict
    assert "nearly the same time" in verdict and "compute-bound" not in verdict
    assert run.with_records(recs).facts()["fused.spread"].text() in verdict


def test_batch_norm_folding_and_why_not_in_training():
    run = open_lesson(LESSONS_BY_ID["conv-bn"], "cpu")
    facts = run.facts()
    folded = run.stage("folded")
    assert facts["fold.count"].value == 1
    assert any(g.role == "offline" for g in folded.plan.groups)
    assert facts["folded.kernels"].value == 1 and facts["fused.kernels"].value == 1
    assert facts["training.fold_reason"].source == "transform" and facts[
        "training.fold_reason"].value
    assert facts["training.refusal"].source == "planner"
    assert "conv" in facts["training.refusal"].value
    assert facts["training.kernels"].value >= 2


def test_the_sibling_lesson_quotes_the_planner_whether_it_fuses_or_not():
    """On a profile where one kernel is no faster than two the planner keeps sine and cosine
    apart; the lesson then says so in the planner's words (its text said "2 kernels become
    2" as if they had been fused)."""
    for device in ("h100", "cpu"):
        run = open_lesson(LESSONS_BY_ID["sibling"], device)
        facts = run.facts()
        decision = next(d for d in run.plan.decisions if d.action == "sibling")
        text = " ".join(plain(render(p, facts)) for p in run.lesson.text)
        assert f"\u201c{decision.message}\u201d" in text
        assert (facts["fused.kernels"].value == 1) == decision.fused


def test_the_rules_lesson_quotes_the_planners_records():
    run = open_lesson(LESSONS_BY_ID["rules"], "cpu")
    facts = run.facts()
    messages = {d.message for d in run.plan.decisions}
    for key in ("rules.duplicate", "rules.reduction", "rules.output", "rules.sibling",
                "rules.cycle"):
        assert facts[key].value in messages, key
    assert "duplicating" in facts["rules.duplicate"].value


def test_register_pressure_is_costed_on_a_capped_gpu():
    run = open_lesson(LESSONS_BY_ID["registers"], "cpu")
    assert run.device.name == "h100-r20" and run.measured_stages == []
    facts = run.facts()
    assert facts["fused.registers"].value <= facts["device.cap"].value < facts[
        "uncapped.registers"].value
    assert "register" in facts["regs.refusal"].value
    claim = check_all(run)[0]
    assert claim.status == HOLDS


def test_folding_slower_than_every_op_alone_says_what_was_measured_and_why():
    """The folded plan measured slower than the lesson graph unfused (as it did here once:
    564 µs against 489 µs): the lesson's text says so, in the profile's own figures, and a
    claim fails with the reason: its heaviest kernel took longer than the same ops as separate
    kernels, which the cost model counts as nearly the same work."""
    run = open_lesson(LESSONS_BY_ID["conv-bn"], "cpu")
    fused, folded, unfused = run.stage("fused"), run.stage("folded"), run.stage("unfused")
    t = fused.cost.total.predicted_s
    base = fake_record(fused, t, 3 * t)
    base["unfused_kernels"] = [{"group": g.id, "measured_s": t, "min_s": t}
                               for g in unfused.plan.groups]
    slow = fake_record(folded, 4 * t, 4 * t)
    heavy = next(g.id for g in folded.plan.groups if "conv" in g.nodes)
    slow["kernels"] = [{"group": heavy, "measured_s": 4 * t, "min_s": 4 * t}]
    run = run.with_records({"fused": base, "folded": slow})
    facts = run.facts()
    text = " ".join(plain(render(p, facts)) for p in run.lesson.text)
    assert facts["unfused.measured"].text() in text and facts["folded.measured"].text() in text
    assert "slower than every op alone" in text
    assert facts["folded.measured_speedup_lesson"].value == pytest.approx(0.75)
    claim = next(c for c in check_all(run) if c.kind == "beats-unfused")
    verdict = plain(claim.verdict)
    assert claim.status == FAILS
    assert facts["folded.same_ops_unfused"].value == \
        pytest.approx(3 * t)  # conv, bn and relu, each its own kernel
    for key in ("folded.heavy_measured", "folded.same_ops_unfused", "folded.heavy_op_unfused",
                "folded.heavy_flops", "folded.same_ops_flops"):
        assert facts[key].text() in verdict, key
    assert "separate profiles" in verdict and "conv alone" in verdict
    # measured faster, the claim holds and the text says so
    fast = fake_record(folded, t, t)
    fast["kernels"] = [{"group": heavy, "measured_s": t, "min_s": t}]
    held = run.with_records({"fused": base, "folded": fast})
    assert next(c for c in check_all(held) if c.kind == "beats-unfused").status == HOLDS
    assert "faster than every op alone" in " ".join(plain(render(p, held.facts()))
                                                    for p in held.lesson.text)

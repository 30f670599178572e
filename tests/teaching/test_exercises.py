"""Exercises and scoring: the set, an answer checked group by group, differences explained by
the planner's (and for a real module, XLA's) decision records."""

from __future__ import annotations

import pytest

from tests.conftest import shared_hlo_dir
from workbench.errors import InputError
from workbench.planner import xla_plan
from workbench.teaching import EXERCISES, EXERCISES_BY_ID
from workbench.teaching.scoring import planner_key, read_answer, score_answer


def test_at_least_twelve_exercises_easy_to_hard_with_two_real_modules():
    assert len(EXERCISES) >= 12
    levels = [e.level for e in EXERCISES]
    assert levels == sorted(levels) and levels[0] == 1 and levels[-1] == 5
    real = [e for e in EXERCISES if e.real_module]
    assert len(real) >= 2
    shared_hlo_dir()
    for e in real:
        assert e.available() and e.path().parent == shared_hlo_dir()
        xla_plan(e.graph())  # the module carries XLA's fusions


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_the_keys_own_answer_scores_full_marks(exercise):
    key = planner_key(exercise)
    groups = [g.nodes for g in key.groups if g.size > 1 and not g.duplicated]
    score = score_answer(exercise, groups)
    assert score.refused == ()
    planner = score.comparisons[0]
    if not any(g.duplicated for g in key.groups):
        assert planner.f1 == 1.0 and planner.exact and planner.differences == ()


def test_an_illegal_group_is_refused_with_its_reason_and_the_other_groups_are_kept():
    """Done when: an exercise answer with an illegal group gets the legality reason and the
    student's other groups are kept."""
    ex = EXERCISES_BY_ID["prologue"]
    score = score_answer(ex, [["scaled", "matmul"], ["bias_add", "relu"]])
    assert [(r.group, r.code) for r in score.refused] == [(("scaled", "matmul"),
                                                           "contraction-prologue")]
    assert "reads its operands from memory" in score.refused[0].message
    assert score.groups == (("bias_add", "relu"),)
    c = score.main
    assert c.agreed == 1 and c.answer_pairs == 1 and 0 < c.f1 < 1
    # what the key fused and the answer did not: the planner's own records
    key = planner_key(ex)
    messages = {d.message for d in key.decisions}
    assert c.differences and all(d.side == "key" and d.explanation in messages
                                 for d in c.differences)


def test_a_group_closing_a_cycle_with_the_others_is_refused_too():
    ex = EXERCISES_BY_ID["transformer-block"]
    score = score_answer(ex, [["qkv_matmul", "qkv"], ["ln1", "ln2"]])
    assert [r.code for r in score.refused] == ["cycle"]
    assert score.groups == (("qkv_matmul", "qkv"),)


def test_a_wrong_but_legal_group_is_explained_by_a_refusal_in_the_key():
    ex = EXERCISES_BY_ID["xla-softmax"]
    right = ["broadcast.3", "multiply.1"]
    wrong = ["sub.1", "sub.0", "exp.0", "reduce-window.3"]
    score = score_answer(ex, [right, wrong])
    assert score.refused == ()
    xla = next(c for c in score.comparisons if c.against == "xla")
    ours = {tuple(sorted(p)) for d in xla.differences for p in d.pairs if d.side == "answer"}
    assert ("exp.0", "reduce-window.3") in ours
    why = next(d for d in xla.differences if d.side == "answer")
    assert why.source == "decision" and why.reason == "expensive-reuse"
    assert ("broadcast.3", "multiply.1") not in {p for d in xla.differences for p in d.pairs}
    exact = score_answer(ex, [g.nodes for g in xla_plan(ex.graph()).groups if g.size > 1])
    assert next(c for c in exact.comparisons if c.against == "xla").exact


def test_bad_answers_name_the_group_and_the_node():
    g = EXERCISES_BY_ID["chain"].graph()
    with pytest.raises(InputError, match=r"group 2 of the answer names 'nope'"):
        read_answer({"groups": [["mul1"], ["nope"]]}, g)
    with pytest.raises(InputError, match="group 1 of the answer is not a list"):
        read_answer({"groups": ["mul1"]}, g)
    with pytest.raises(InputError, match="an answer is a list of groups"):
        read_answer({"answer": 1}, g)
    saved = planner_key(EXERCISES_BY_ID["chain"]).to_json()  # a plan saved by the app
    assert read_answer(saved, g) == [tuple(saved["groups"][0]["nodes"])]


def test_inputs_in_a_group_are_left_out_with_a_note():
    score = score_answer(EXERCISES_BY_ID["producer-consumer"], [["x", "product", "sum"]])
    assert score.groups == (("product", "sum"),) and "x" in score.notes[0]
    assert score.main.exact


def test_the_key_says_which_profile_it_is_planned_on_and_why_not_the_lessons_cpu_one():
    """Review 19: exercises were scored "(priority policy, h100 profile)" while the lessons use
    the cpu profile, with no reason given. The key's label names the profile and says why, and
    the key is the planner's plan on that profile (not on cpu)."""
    from workbench.planner import plan_graph
    from workbench.teaching.exercises import KEY_DEVICE, KEY_DEVICE_REASON

    ex = EXERCISES_BY_ID["chain"]
    score = score_answer(ex, [])
    planner = next(c for c in score.comparisons if c.against == "planner")
    assert f"{KEY_DEVICE} profile" in planner.label and KEY_DEVICE_REASON in planner.label
    assert "cpu profile" in KEY_DEVICE_REASON and "measured" in KEY_DEVICE_REASON
    assert ex.to_json()["key_device_reason"] == KEY_DEVICE_REASON
    key = planner_key(ex)
    assert [g.nodes for g in key.groups] == [
        g.nodes for g in plan_graph(ex.graph(), ex.policy, KEY_DEVICE).groups]

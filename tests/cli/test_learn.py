"""``workbench learn``: the catalogue, a lesson, an exercise's answer scored, a what-if answer,
and bad input."""

from __future__ import annotations

import json

from workbench.cli import main


def test_learn_json_lists_lessons_and_exercises(capsys):
    assert main(["learn", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"lessons", "exercises"}
    assert len(doc["lessons"]) >= 10 and len(doc["exercises"]) >= 12
    assert {"vertical", "sibling", "loop", "input", "output", "conv", "conv-bn", "layernorm",
            "rules", "cost-model"} <= {x["id"] for x in doc["lessons"]}
    cost = next(x for x in doc["lessons"] if x["id"] == "cost-model")
    assert {q["knob"] for q in cost["questions"]} == {"launch_overhead_s",
                                                       "transcendental_flops"}
    real = [e for e in doc["exercises"] if "xla" in e["scored_against"]]
    assert len(real) >= 2 and all(e["source"].startswith("hlo:") for e in real)


def test_learn_lists_in_words(capsys):
    assert main(["learn"]) == 0
    out = capsys.readouterr().out
    assert "Lessons (workbench learn LESSON [--measure]):" in out
    assert "xla-softmax" in out and "level 5 (real model)" in out


def test_a_lesson_in_the_terminal_waits_for_its_measurement(capsys):
    assert main(["learn", "vertical"]) == 0
    out = capsys.readouterr().out
    assert "Vertical fusion: a producer into its consumer" in out
    assert "2 kernels become 1" in out and "measuring…" in out
    assert "? The fused plan is faster than the unfused one." in out
    assert "run with --measure" in out
    assert main(["learn", "vertical", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["facts"]["fused.kernels"] == {"value": 1, "text": "1", "unit": "count",
                                             "source": "cost model",
                                             "what": doc["facts"]["fused.kernels"]["what"]}
    assert [s["id"] for s in doc["stages"]] == ["unfused", "fused"]


def test_an_answer_with_an_illegal_group_is_scored_with_the_reason(capsys, tmp_path):
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"groups": [["scaled", "matmul"], ["bias_add", "relu"]]}))
    assert main(["learn", "prologue", "--answer", str(answer)]) == 0
    out = capsys.readouterr().out
    assert "refused [scaled, matmul] (contraction-prologue)" in out
    assert "your other groups are kept" in out and "[bias_add, relu]" in out
    assert "F1 0.400" in out
    assert main(["learn", "prologue", "--answer", str(answer), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["groups"] == [["bias_add", "relu"]] and doc["refused"][0]["reason"] == \
        "contraction-prologue"


def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"groups": [["mul1",')
    assert main(["learn", "chain", "--answer", str(bad)]) == 2
    assert f"error: {bad}:1:" in capsys.readouterr().err
    unknown = tmp_path / "unknown.json"
    unknown.write_text('{"groups": [["mul1", "zz"]]}')
    assert main(["learn", "chain", "--answer", str(unknown)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "node 'zz'" in err and str(unknown) in err
    assert main(["learn", "nope"]) == 2
    assert "no lesson, exercise or what-if question named 'nope'" in capsys.readouterr().err
    assert main(["learn", "vertical", "--answer", str(bad)]) == 2
    assert "--answer scores an exercise" in capsys.readouterr().err
    assert main(["learn", "chain", "--answer", str(tmp_path / "missing.json")]) == 2
    assert "no such answer file" in capsys.readouterr().err


def test_a_what_if_question_in_the_terminal(capsys):
    assert main(["learn", "duplication-transcendental", "--device", "h100"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the answer is wrapped
    assert "The plans cross at" in out and "on the h100 profile" in out
    assert main(["learn", "chain-launch", "--device", "h100", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["crossing"] is None and doc["kernels"] == [1, 14]
    assert main(["learn", "chain-launch", "--device", "tpu"]) == 2
    assert "unknown device" in capsys.readouterr().err


def test_an_exercise_lists_every_operand_inputs_and_constants_too(capsys):
    """Each op names all it reads, the graph's parameters (and constants) among them, and the
    inputs are listed above the ops: mul1 = multiply(x, y), add1 = add(mul1, x)."""
    assert main(["learn", "chain"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")
             and line.split()}
    assert lines["mul1"].endswith("<- x, y") and lines["add1"].endswith("<- mul1, x")
    assert "parameter" in lines["x"] and "constant" in lines["constant.1"]
    assert lines["broadcast.2"].endswith("<- constant.1")
    assert main(["learn", "chain", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [p["id"] for p in doc["inputs"]] == ["x", "y"]
    ops = {op["id"]: op for op in doc["ops"]}
    assert ops["mul1"]["operands"] == ["x", "y"] and "x" not in ops  # inputs are not ops


def test_an_answer_is_read_from_a_pipe_or_standard_input(capsys, monkeypatch, tmp_path):
    """``--answer -`` reads standard input and a named pipe (``/dev/stdin``, ``<(...)``) is
    read like a file; both were refused as "no such answer file"."""
    import io
    import os
    import sys
    import threading

    answer = json.dumps({"groups": [["mul1", "add1"]]}).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(answer)))
    assert main(["learn", "chain", "--answer", "-"]) == 0
    assert "[mul1, add1]" in capsys.readouterr().out
    fifo = tmp_path / "answer.pipe"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "wb") as f:
            f.write(answer)
    writer = threading.Thread(target=write)
    writer.start()
    assert main(["learn", "chain", "--answer", str(fifo)]) == 0
    writer.join(10)
    assert "[mul1, add1]" in capsys.readouterr().out
    # an empty or broken answer on standard input: one line naming standard input
    for text, message in ((b"", "the answer is empty"), (b'{"groups": [', "malformed JSON")):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))
        assert main(["learn", "chain", "--answer", "-"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: standard input") and message in err and "\n" not in err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(
        json.dumps({"groups": [["mul1", "nope"]]}).encode())))
    assert main(["learn", "chain", "--answer", "-"]) == 2
    assert capsys.readouterr().err.startswith("error: standard input")
    assert main(["learn", "chain", "--answer", str(tmp_path)]) == 2
    assert "a folder, not an answer file" in capsys.readouterr().err


def test_a_lesson_wraps_its_stage_reasons_and_never_cuts_them(capsys, monkeypatch):
    """Review 19: ``learn loop`` cut the planner's sentences off mid-phrase ("(writes and
    re-reads 1.0") whatever the terminal's width. Every stage title of the JSON document is in
    the text whole (wrapped: compare with the whitespace folded), and no line is longer than
    the layout's width."""
    from workbench.cli.learn_text import WIDTH

    monkeypatch.setenv("COLUMNS", "300")
    assert main(["learn", "loop", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert main(["learn", "loop"]) == 0
    out = capsys.readouterr().out
    folded = " ".join(out.split())
    titles = [s["title"] for s in doc["stages"]]
    assert any(len(t) > 60 for t in titles)  # the ones the old layout cut
    for t in titles:
        assert " ".join(t.split()) in folded, t
    assert max(len(line) for line in out.splitlines()) <= WIDTH


def test_measure_says_when_stored_figures_were_measured_and_which_are_new(
        capsys, tmp_path, monkeypatch):
    """``learn LESSON --measure`` reuses stored figures: it says when they were measured (and
    that they were read back), and which stages it measured just now."""
    from tests.teaching.conftest import fake_record
    from workbench.teaching import LESSONS_BY_ID, measure
    from workbench.teaching.lesson import open_lesson

    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path))
    backend, device = measure.measuring()
    run = open_lesson(LESSONS_BY_ID["vertical"], device)
    (stage,) = run.measured_stages
    t = stage.cost.total.predicted_s
    measure.store("vertical", stage, backend, fake_record(stage, t, 2 * t))
    assert main(["learn", "vertical", "--measure"]) == 0
    out = capsys.readouterr().out
    assert (f"measured {stage.id}: here at 2026-01-01 00:00:00 (stored; `--measure --again` "
            "measures again)") in out

    def fresh(run_, stage_, backend_=None, progress=None, cancel=None):
        return dict(fake_record(stage_, t, 2 * t), measured_at="2026-12-02 18:30:00")

    monkeypatch.setattr(measure, "measure_stage", fresh)
    assert main(["learn", "vertical", "--measure", "--again", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["measured_now"] == [stage.id]
    assert main(["learn", "vertical", "--measure", "--again"]) == 0
    assert f"measured {stage.id}: here at 2026-12-02 18:30:00 (just now)" in \
        capsys.readouterr().out

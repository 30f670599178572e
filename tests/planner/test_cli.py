"""``workbench plan`` and ``workbench compare-xla``."""

import json

import pytest

from tests.planner.planner_helpers import HLO, SAMPLES
from workbench.cli import main


def test_plan_prints_groups_totals_and_explanation(capsys):
    assert main(["plan", str(SAMPLES / "transformer_block.json"), "--device", "h100",
                 "--explain"]) == 0
    out = capsys.readouterr().out
    assert "policy priority, device h100, 11 kernels (unfused: 35)" in out
    assert "g1 output [matmul+bias]" in out and "total unfused: 35 kernels" in out
    assert "How the planner got there:" in out
    assert "kept ln1 separate from" in out and "reads its operands from memory" in out


def test_plan_json_and_sample_name(capsys, tmp_path):
    out_file = tmp_path / "plan.json"
    assert main(["plan", "chain10", "--json", "--policy", "greedy", "--out", str(out_file)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["plan"]["policy"] == "greedy" and len(doc["plan"]["groups"]) == 1
    # unfused: the 10 ops and the 4 broadcasts of their constants, each its own kernel
    assert doc["cost"]["total"]["kernels"] == 1 and doc["cost"]["unfused_total"]["kernels"] == 14
    assert json.loads(out_file.read_text())["format"] == "fusion-workbench-plan"


def test_compare_xla_json_keys(capsys):
    path = HLO / "softmax.after_noynn.hlo"
    if not path.exists():
        pytest.skip("../shared/hlo is not here")
    assert main(["compare-xla", str(path), "--policy", "xla-cpu", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {"precision", "recall", "f1"} <= set(doc) and doc["f1"] == 1.0


def test_compare_xla_text(capsys):
    path = HLO / "mlp.after_noynn.hlo"
    if not path.exists():
        pytest.skip("../shared/hlo is not here")
    assert main(["compare-xla", str(path), "--policy", "priority"]) == 0
    out = capsys.readouterr().out
    assert "precision 0.600  recall 1.000  F1 0.750" in out
    assert "fused by the plan, not by XLA: 12 pairs" in out


def test_user_errors_exit_2(capsys, tmp_path):
    assert main(["plan", str(tmp_path / "missing.json")]) == 2
    assert "error:" in capsys.readouterr().err
    assert main(["compare-xla", str(SAMPLES / "chain10.json")]) == 2
    assert "no XLA fusion tags" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["plan", "chain10", "--policy", "fastest"])
    assert exc.value.code == 2

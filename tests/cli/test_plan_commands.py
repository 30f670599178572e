"""``workbench plan`` and ``workbench compare-xla``."""

import json

import pytest

from tests.planner.planner_helpers import HLO, SAMPLES
from workbench.cli import main


def test_plan_prints_groups_totals_and_explanation(capsys):
    assert main(["plan", str(SAMPLES / "transformer_block.json"), "--device", "h100",
                 "--explain"]) == 0
    out = capsys.readouterr().out
    assert "policy priority, device h100, 11 kernels per call (unfused: 35)" in out
    assert "h100 profile: 3.35 TB/s, 67 TFLOP/s FP32, 1 µs per launch" in out
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
    err = capsys.readouterr().err
    assert "no XLA fusion tags" in err and err.startswith(f"error: {SAMPLES / 'chain10.json'}: ")
    with pytest.raises(SystemExit) as exc:
        main(["plan", "chain10", "--policy", "fastest"])
    assert exc.value.code == 2


def test_compare_xla_records_policy_and_device(capsys):
    path = HLO / "softmax.after_noynn.hlo"
    assert main(["compare-xla", str(path), "--policy", "priority", "--device", "h100"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("jit_softmax: policy priority on device h100 vs XLA's fusions")
    assert main(["compare-xla", str(path), "--policy", "priority", "--device", "h100",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["policy"] == "priority" and doc["device"] == "h100"
    assert doc["device_source"].startswith("NVIDIA H100")


def test_compare_xla_help_shows_defaults_and_limit_refuses_negatives(capsys):
    with pytest.raises(SystemExit):
        main(["compare-xla", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: cpu)" in text and "(default: 12)" in text and "(default: xla-cpu)" in text
    with pytest.raises(SystemExit) as exc:
        main(["compare-xla", str(HLO / "softmax.after_noynn.hlo"), "--limit", "-1"])
    assert exc.value.code == 2
    assert "argument --limit: must be 0 or more, got -1" in capsys.readouterr().err


def test_compare_xla_limit_zero_lists_counts_only(capsys):
    assert main(["compare-xla", str(HLO / "mlp.after_noynn.hlo"), "--policy", "priority",
                 "--limit", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "fused by the plan, not by XLA: 12 pairs" in out
    assert "  ... and 12 more" in out
    assert not any(line.startswith("  ") and "+" in line for line in out)


def test_compare_xla_on_an_unoptimised_module_names_both_file_kinds(capsys):
    assert main(["compare-xla", str(HLO / "softmax.before.hlo")]) == 2
    err = capsys.readouterr().err
    assert "*.after_noynn.hlo" in err and "*.after.hlo" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("bad, why", [
    ("/nonexistent-dir/p.json", "directory '/nonexistent-dir' does not exist"),
    ("{tmp}/", "this is a directory, not a file name"),
    ("{tmp}", "this is a directory, not a file name"),
])
def test_plan_out_errors_are_one_line_exit_2(capsys, tmp_path, bad, why):
    path = bad.format(tmp=tmp_path)
    assert main(["plan", "chain10", "--out", path]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {path}: cannot write the plan: {why}"


def test_devices_lists_every_profile_with_its_source(capsys):
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    for name in ("cpu", "h100", "h200", "a100"):
        assert f"\n{name} " in "\n" + out
    assert "source: fixed profile for tests" in out          # the cached (test) cpu profile
    assert "3.35 TB/s" in out and "source: NVIDIA H100 SXM5 datasheet" in out
    assert "`workbench devices --refresh` measures it again" in out
    assert main(["devices", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in doc["profiles"]] == ["cpu", "h100", "h200", "a100"]


def test_plan_text_uses_singular_for_one(capsys):
    assert main(["plan", "chain10", "--policy", "greedy", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "1 kernel per call (unfused: 14)" in out and "total fused:   1 kernel per call" in out
    assert "1 kernels" not in out


def test_a_plan_file_of_another_graph_is_named_in_the_error(capsys, tmp_path):
    """run, export and tune given softmax's plan for chain10 name the plan file (they said
    only "the plan was made for graph 'softmax' ..."); plan given a saved plan as its graph
    says what it is."""
    from workbench.importers import load_graph
    from workbench.planner import plan_graph

    plan = tmp_path / "softmax_plan.json"
    plan.write_text(json.dumps(plan_graph(load_graph(SAMPLES / "softmax.json")).to_json()))
    chain = str(SAMPLES / "chain10.json")
    out = tmp_path / "x.hlo"
    for argv in (["run", chain, "--plan", str(plan)],
                 ["export", chain, "--format", "hlo", "--plan", str(plan), "--out", str(out)],
                 ["tune", chain, "--plan", str(plan), "--budget", "1"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"error: {plan}: the plan was made for graph 'softmax'"), err
        assert "\n" not in err
    assert not out.exists()
    assert main(["plan", str(plan)]) == 2
    err = capsys.readouterr().err
    assert f"{plan}: this is a saved plan, not a graph" in err and "--plan" in err

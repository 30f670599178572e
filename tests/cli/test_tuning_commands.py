"""``plan --set/--sweep``, ``diff``, ``tune``, ``sweep`` and ``export`` on the command line,
bad input included (one line, exit status 2, nothing stored)."""

import json

import pytest

from tests.planner.planner_helpers import HLO, SAMPLES
from workbench.cli import main
from workbench.tuning.store import ResultsStore


def _err_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def test_plan_set_shows_flips_and_the_totals(capsys):
    assert main(["plan", "multi_consumer", "--device", "h100", "--set", "peak_flops=1e9"]) == 0
    out = capsys.readouterr().out
    assert "what-if: peak_flops=1e+09 (was 6.7e+13) on the h100 profile" in out
    assert "2 decisions flipped:" in out and "fuse producer" in out
    assert "policy priority, device h100+peak_flops=1000000000.0, 2 kernels" in out
    assert main(["plan", "multi_consumer", "--device", "h100", "--set", "peak_flops=1e9",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["what_if"]["kernels_before"] == 1 and doc["what_if"]["kernels_after"] == 2
    assert doc["plan"]["device"] == "h100+peak_flops=1000000000.0"


def test_unknown_knob_is_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        main(["plan", "chain10", "--set", "launch=1e-6"])
    assert e.value.code == 2
    err = _err_line(capsys)
    assert "unknown knob 'launch'" in err and "launch_overhead_s" in err


def test_plan_sweep_table_and_json(capsys):
    assert main(["plan", "multi_consumer", "--device", "h100", "--sweep",
                 "peak_flops=6.7e13,1e9", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [p["kernels"] for p in doc["points"]] == [1, 2]
    assert [p["changed"] for p in doc["points"]] == [False, True]


def test_diff_text_and_json_list_the_same_differences(capsys):
    path = str(HLO / "transformer_block.after_noynn.hlo")
    assert main(["diff", path, "--a", "priority", "--b", "xla-cpu", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert main(["diff", path, "--a", "priority", "--b", "xla-cpu", "--limit", "100"]) == 0
    out = capsys.readouterr().out
    assert f"{len(doc['differences'])} differences" in out
    for k, d in enumerate(doc["differences"], 1):
        assert f" {k:3d}. A {','.join(d['a_groups'])} | B {','.join(d['b_groups'])}:" in out


def test_diff_with_a_plan_file_for_another_graph_is_one_line(capsys, tmp_path):
    plan_file = tmp_path / "p.json"
    assert main(["plan", "softmax", "--out", str(plan_file)]) == 0
    capsys.readouterr()
    assert main(["diff", "chain10", "--a", "priority", "--b", str(plan_file)]) == 2
    err = _err_line(capsys)
    assert "the plan was made for graph 'softmax'" in err and "not for 'chain10'" in err
    assert main(["diff", "chain10", "--a", "priority", "--b", "fastest"]) == 2
    assert "neither a plan file nor a plan name" in _err_line(capsys)


def test_tune_twice_on_the_command_line(capsys, tmp_path):
    store = tmp_path / "r.sqlite"
    args = ["tune", "chain10", "--budget", "1", "--repeat", "3", "--store", str(store),
            "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)
    assert (first["fresh"], first["reused"]) == (2, 0)
    assert (second["fresh"], second["reused"]) == (0, 2)
    assert ResultsStore(store).count() == 2


def test_tune_that_times_out_stores_nothing(capsys, tmp_path):
    store = tmp_path / "r.sqlite"
    assert main(["tune", "chain10", "--timeout", "0.05", "--store", str(store)]) == 0
    out = capsys.readouterr().out
    assert "the proposal could not be measured (timeout): timed out after 0.05 s" in out
    assert ResultsStore(store).count() == 0


def test_sweep_on_an_unreachable_ray_cluster_is_one_line(capsys):
    pytest.importorskip("ray")
    assert main(["sweep", "chain10", "--executor", "ray", "--address", "127.0.0.1:1"]) == 2
    assert "cannot reach the Ray cluster at 127.0.0.1:1" in _err_line(capsys)


def test_export_formats(capsys, tmp_path):
    hlo = tmp_path / "m.hlo"
    assert main(["export", str(HLO / "mlp.before.hlo"), "--format", "hlo", "--out",
                 str(hlo)]) == 0
    out = capsys.readouterr().out
    assert "gives back the plan exactly: F1 1.000" in out and hlo.read_text().startswith(
        "HloModule")
    me = tmp_path / "m.json"
    assert main(["export", "mlp", "--format", "model-explorer", "--out", str(me),
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["written"] == [str(me)] + [str(tmp_path / f"m.{k}.json")
                                          for k in ("predicted_us", "bytes", "kind")]
    plan = tmp_path / "p.json"
    assert main(["export", "mlp", "--format", "plan", "--policy", "greedy", "--out",
                 str(plan)]) == 0
    assert json.loads(plan.read_text())["policy"] == "greedy"
    assert main(["export", "mlp", "--format", "hlo", "--out", str(tmp_path / "no" / "x")]) == 2
    assert "does not exist" in _err_line(capsys)

"""The command line: inspect, eval, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import MODELS, REPO_ROOT, shared_hlo_dir
from workbench.cli import main


def cli(*args, cwd=REPO_ROOT):
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=120)


def test_inspect_lists_xla_fusions_of_the_transformer_block(capsys):
    path = shared_hlo_dir() / "transformer_block.after_noynn.hlo"
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "XLA fusions (26):" in out
    assert "subtract_exponential_fusion [kLoop]" in out
    assert "arg0  x.1: f32[2,64,128]" in out


def test_inspect_json(capsys):
    assert main(["inspect", "softmax", "--json"]) == 0       # a sample graph by name
    info = json.loads(capsys.readouterr().out)
    assert info["name"] == "softmax"
    assert info["categories"]["reduction"] == 2
    assert info["inputs"] == [{"id": "x", "index": 0, "type": "f32[256,1024]"}]
    assert info["parameter_bytes"] == 256 * 1024 * 4


@pytest.mark.parametrize("model", MODELS)
def test_eval_matches_jax(model, tmp_path, capsys):
    io = shared_hlo_dir() / f"{model}.io.npz"
    out = tmp_path / "out.npz"
    assert main(["eval", str(shared_hlo_dir() / f"{model}.before.hlo"), "--inputs", str(io),
                 "--out", str(out)]) == 0
    with np.load(io) as ref, np.load(out) as got:
        outs = [k for k in ref.files if k.startswith("out")]
        assert sorted(got.files) == sorted(outs)
        for k in outs:
            np.testing.assert_allclose(got[k], ref[k], rtol=1e-4, atol=1e-5)
    printed = capsys.readouterr().out
    assert all(f"{k} matches {k} of {io}" in printed for k in outs)


def test_eval_compares_with_the_expected_outputs_of_the_inputs_file(tmp_path, capsys):
    corpus = REPO_ROOT / "corpus"
    hlo, io = corpus / "moe_router.after_noynn.hlo", corpus / "moe_router.io.npz"
    assert main(["eval", str(hlo), "--inputs", str(io)]) == 0
    out = capsys.readouterr().out
    assert "out0 matches out0 of" in out and "f32 tolerance" in out
    assert "out1 matches out1 of" in out and "equal (s32)" in out
    with np.load(io) as data:
        arrays = {k: data[k] for k in data.files}
    moved = dict(arrays, out0=arrays["out0"] * np.float32(1.01))
    np.savez(tmp_path / "moved.npz", **moved)
    assert main(["eval", str(hlo), "--inputs", str(tmp_path / "moved.npz")]) == 1
    out = capsys.readouterr().out
    assert "out0 DIFFERS from out0 of" in out and "out1 matches" in out
    np.savez(tmp_path / "shape.npz", **dict(arrays, out0=arrays["out0"][:3]))
    r = cli("eval", hlo, "--inputs", tmp_path / "shape.npz")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "out0 is float32[3, 32], output 'dot_general.7' is f32[16,32]" in r.stderr


def test_an_op_without_a_reference_is_one_line_naming_op_node_file_and_line(tmp_path):
    bad = tmp_path / "cc.hlo"
    bad.write_text("HloModule m\n\nENTRY main {\n  p = f32[4] parameter(0)\n"
                   "  c = f32[4] custom-call(p), custom_call_target=\"my_lib_op\"\n"
                   "  ROOT r = f32[4] add(c, p)\n}\n")
    for cmd in ("eval", "run"):
        r = cli(cmd, bad, *(("--repeat", "1") if cmd == "run" else ()))
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert r.stderr.startswith(f"error: {bad}:5: node 'c': cannot evaluate custom-call "
                                   "'my_lib_op': custom-call target 'my_lib_op' is a library"), \
            r.stderr


def test_errors_are_one_line_exit_2_no_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"nodes": [ }')
    r = cli("inspect", bad)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"error: {bad}:1:")
    r = cli("eval", REPO_ROOT / "sample_graphs" / "chain10.json", "--inputs", tmp_path / "no.npz")
    assert r.returncode == 2 and "cannot read inputs" in r.stderr and "Traceback" not in r.stderr


def test_python_dash_m_and_help():
    r = cli("--help")
    assert r.returncode == 0 and "inspect" in r.stdout and "eval" in r.stdout


def test_every_commands_help_says_its_defaults(capsys):
    """``workbench run --help`` showed no defaults: every option of every command with a
    default says it (argparse's own, or its help's words), never ``(default: None)``."""
    import argparse

    from workbench.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        formatter = sub._get_formatter()
        text = sub.format_help()
        assert "(default: None)" not in text and "(default: False)" not in text, name
        for action in sub._actions:
            shown = action.default not in (None, False, "", (), [], argparse.SUPPRESS)
            if action.option_strings and shown:
                assert "default" in formatter._get_help_string(action), (name, action.dest)
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for said in ("for tests; slow) (default: auto)", "once; >= 1) (default: 20)",
                 "(>= 0) (default: 2)", "random inputs (default: 0)", "(default: 4096)",
                 "'unfused' (default: priority)", "(default: $WORKBENCH_CACHE_DIR, else "
                 "~/.cache/fusion-workbench/kernels)"):
        assert said in out, said


@pytest.mark.parametrize("argv, message", [
    (("frob",), "invalid choice: 'frob'"),
    (("inspect",), "the following arguments are required: file"),
    (("eval", "chain10", "--max-memory-mib", "lots"), "--max-memory-mib"),
    (("plan", "chain10", "--policy", "bogus"), "invalid choice: 'bogus'"),
    (("compare-xla", "x.hlo", "--limit", "-1"), "--limit"),
    (("run", "chain10", "--repeat", "x"), "expected a whole number, got 'x'"),
    (("serve", "--port", "port"), "--port"),
])
def test_every_command_reports_a_bad_argument_on_one_line(argv, message, capsys):
    from workbench.cli import main

    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "usage:" not in err
    assert err.startswith(f"workbench {argv[0]}: error:" if argv[0] != "frob"
                          else "workbench: error:")


@pytest.mark.parametrize("argv, message", [
    (("run", "softmax", "--trace", "/nonexistent-dir/t.json", "--repeat", "1"),
     "cannot write the trace: directory '/nonexistent-dir' does not exist"),
    (("run", "softmax", "--trace", "/tmp", "--repeat", "1"),
     "cannot write the trace: this is a directory"),
    (("eval", "chain10", "--out", "/nonexistent-dir/x"),
     "cannot write the outputs: directory '/nonexistent-dir' does not exist"),
])
def test_an_output_path_that_cannot_be_written_is_refused_before_any_work(argv, message, capsys,
                                                                          monkeypatch):
    import workbench.ir.interpreter as interpreter
    import workbench.profiler as profiler

    def must_not_run(*a, **k):
        raise AssertionError("ran before checking the output path")

    monkeypatch.setattr(profiler, "profile", must_not_run)
    monkeypatch.setattr(interpreter, "check_memory", must_not_run)
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err

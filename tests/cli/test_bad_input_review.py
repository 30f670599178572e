"""Bad input found by a newcomer's review: each gets one clear error, nothing crashes."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import REPO_ROOT, shared_hlo_dir
from tests.cli.test_graph_commands import cli
from workbench.errors import (AttributeError_, EvaluationError, GraphError, InputError,
                              ParseError, ResourceLimitError)
from workbench.importers import load_bytes, parse_hlo, parse_json
from workbench.ir import evaluate, make_inputs

HUGE = {"format": "fusion-workbench-graph", "version": 1, "name": "huge", "nodes": [
    {"id": "x", "op": "parameter", "type": {"shape": [100000, 100000], "dtype": "f32"},
     "attrs": {"index": 0}},
    {"id": "e", "op": "exponential", "operands": ["x"]}], "outputs": ["e"]}


def test_eval_refuses_huge_random_inputs_before_allocating(tmp_path):
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(HUGE))
    r = cli("eval", path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "more than the cap of 4096.0 MiB" in r.stderr


def test_make_inputs_checks_the_cap():
    g = parse_json(json.dumps(HUGE))
    with pytest.raises(ResourceLimitError, match="the inputs need 38147.0 MiB") as e:
        make_inputs(g, max_bytes=1 << 30)
    assert e.value.node == "x"


def test_recursive_call_is_a_syntax_error():
    text = ("HloModule m\nf {\n  p = f32[2]{0} parameter(0)\n"
            "  ROOT c = f32[2]{0} call(p), to_apply=f\n}\n"
            "ENTRY main {\n  x = f32[2]{0} parameter(0)\n  ROOT y = f32[2]{0} call(x), to_apply=f\n}\n")
    with pytest.raises(ParseError, match="calls itself \\(main -> f -> f\\)") as e:
        parse_hlo(text, "rec.hlo")
    assert e.value.line == 2


def test_duplicate_instruction_name_and_second_root():
    dup = ("HloModule m\nENTRY main {\n  x = f32[2]{0} parameter(0)\n  y = f32[2]{0} negate(x)\n"
           "  y = f32[2]{0} abs(x)\n  ROOT z = f32[2]{0} add(x, y)\n}\n")
    with pytest.raises(ParseError, match=r"'y' is used twice .*\(first at line 4\)") as e:
        parse_hlo(dup, "dup.hlo")
    assert e.value.line == 5
    roots = ("HloModule m\nENTRY main {\n  x = f32[2]{0} parameter(0)\n  ROOT y = f32[2]{0} "
             "negate(x)\n  ROOT z = f32[2]{0} abs(x)\n}\n")
    with pytest.raises(ParseError, match="second ROOT"):
        parse_hlo(roots, "roots.hlo")


def test_root_tuple_with_a_repeated_element_keeps_every_output():
    text = ("HloModule m\nENTRY main {\n  x = f32[4]{0} parameter(0)\n  y = f32[4]{0} negate(x)\n"
            "  ROOT t = (f32[4]{0}, f32[4]{0}, f32[4]{0}) tuple(y, x, y)\n}\n")
    g = parse_hlo(text, "t.hlo")
    assert g.outputs == ("y", "x", "y")
    outs = evaluate(g, [np.ones(4, np.float32)])
    assert [o.tolist() for o in outs] == [[-1] * 4, [1] * 4, [-1] * 4]


def test_opcode_typo_is_an_error_with_a_suggestion_and_real_xla_ops_are_opaque():
    text = ("HloModule m\nENTRY main {\n  x = f32[4]{0} parameter(0)\n"
            "  ROOT y = f32[4]{0} multiplly(x, x)\n}\n")
    with pytest.raises(ParseError, match="unknown HLO opcode 'multiplly' \\(did you mean "
                                         "multiply\\?\\)") as e:
        parse_hlo(text, "typo.hlo")
    assert e.value.line == 4
    chol = text.replace("multiplly(x, x)", "cholesky(x), lower=true")
    assert parse_hlo(chol, "chol.hlo").node("y").op == "opaque"


def test_byte_order_mark_and_content_sniffing():
    hlo = (shared_hlo_dir() / "chain10.before.hlo").read_bytes()
    assert len(load_bytes(b"\xef\xbb\xbf" + hlo, "bom.hlo").nodes) == 20
    js = (REPO_ROOT / "sample_graphs" / "softmax.json").read_bytes()
    assert load_bytes(b"\xef\xbb\xbf" + js, "bom.json").name == "softmax"
    # the content decides when it is clear, whatever the extension says
    assert load_bytes(js, "misnamed.hlo").name == "softmax"
    assert load_bytes(hlo, "misnamed.json").name == "jit_chain10"


def test_json_ids_with_control_characters_and_duplicate_keys():
    doc = dict(HUGE, nodes=[dict(HUGE["nodes"][0], id="x\ny")], outputs=["x\ny"])
    with pytest.raises(InputError, match="control or invisible character '\\\\n'"):
        parse_json(json.dumps(doc), "c.json")
    with pytest.raises(ParseError, match="'op' appears twice") as e:
        parse_json('{"nodes": [\n {"id": "x",\n  "op": "parameter",\n  "op": "constant"}]}',
                   "k.json")
    assert e.value.line == 4


def test_unknown_attributes_and_bad_attribute_values():
    base = {"name": "a", "outputs": ["y"], "nodes": [
        {"id": "x", "op": "parameter", "type": {"shape": [4], "dtype": "f32"},
         "attrs": {"index": 0}}]}
    doc = dict(base, nodes=base["nodes"] + [{"id": "y", "op": "negate", "operands": ["x"],
                                             "attrs": {"foo": 1}}])
    with pytest.raises(AttributeError_, match="unknown attribute\\(s\\) foo for negate "
                                              "\\(allowed: none\\)") as e:
        parse_json(json.dumps(doc), "a.json")
    assert e.value.node == "y"
    doc = dict(base, nodes=base["nodes"] + [{"id": "y", "op": "gelu", "operands": ["x"],
                                             "attrs": {"approximate": "maybe"}}])
    with pytest.raises(AttributeError_, match="approximate= must be true or false"):
        parse_json(json.dumps(doc), "a.json")


def test_repeated_parameter_index_names_the_node_and_line():
    text = ("HloModule m\nENTRY main {\n  a = f32[2]{0} parameter(0)\n  b = f32[2]{0} parameter(0)\n"
            "  ROOT c = f32[2]{0} add(a, b)\n}\n")
    with pytest.raises(GraphError, match="parameter index 0 is used twice") as e:
        parse_hlo(text, "p.hlo")
    assert (e.value.node, e.value.line) == ("b", 4)


def test_inputs_convert_same_kind_and_refuse_strangers():
    g = parse_json(json.dumps(dict(HUGE, nodes=[
        {"id": "x", "op": "parameter", "type": {"shape": [3], "dtype": "f32"},
         "attrs": {"index": 0}}, {"id": "e", "op": "negate", "operands": ["x"]}])))
    assert evaluate(g, {"arg0": np.array([1, 2, 3], np.int32)})[0].tolist() == [-1, -2, -3]
    with pytest.raises(EvaluationError, match="inputs foo match no parameter"):
        evaluate(g, {"arg0": np.zeros(3), "foo": np.zeros(3)})
    # expected outputs in an io.npz are not inputs
    assert evaluate(g, {"arg0": np.zeros(3), "out0": np.zeros(3)})[0].shape == (3,)
    with pytest.raises(EvaluationError, match="does not convert to f32"):
        evaluate(g, {"arg0": np.array(["a", "b", "c"])})


def test_random_weights_keep_activations_at_unit_scale():
    from workbench.importers import load_graph

    g = load_graph(REPO_ROOT / "sample_graphs" / "mlp.json")
    out = evaluate(g, make_inputs(g, seed=0))[0]
    assert 0.05 < float(out.std()) < 5.0         # not ~1e3 as with unscaled weights


def test_cli_output_problems(tmp_path):
    r = cli("eval", "chain10", "--out", tmp_path / "missing" / "o.npz")
    assert r.returncode == 2 and "cannot write the outputs: directory" in r.stderr and "Traceback" not in r.stderr
    r = cli("eval", "chain10", "--out", tmp_path / "noext")
    assert r.returncode == 0 and f"to {tmp_path / 'noext'}.npz" in r.stdout
    assert (tmp_path / "noext.npz").exists()
    r = cli("eval", "chain10", "--seed", "-1")
    assert r.returncode == 2 and "must be 0 or more, got -1" in r.stderr
    r = cli("eval", "chain10", "--max-memory-mib", "nan")
    assert r.returncode == 2 and "finite number" in r.stderr
    r = cli("inspect", "softmx")
    assert r.returncode == 2 and "did you mean the sample softmax" in r.stderr
    r = cli("eval", "chain10", "--inputs", REPO_ROOT / "sample_graphs" / "chain10.json")
    assert r.returncode == 2 and "not an .npz archive of arrays" in r.stderr


def test_broken_pipe_is_quiet():
    cmd = (f"{sys.executable} -m workbench inspect {shared_hlo_dir()}/transformer_block.after_noynn.hlo"
           " | head -1")
    r = subprocess.run(cmd, shell=True, cwd=REPO_ROOT, capture_output=True, text=True,
                       env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert r.stdout.startswith("graph jit_transformer_block")
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr

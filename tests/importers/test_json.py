"""The JSON graph format: round trip, type inference, and one test per bad-input class."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import REPO_ROOT, sample_paths
from workbench.errors import (ArityError, CycleError, DanglingReferenceError, DuplicateIdError,
                              InputError, ParseError, ResourceLimitError, ShapeError,
                              UnknownOpError, WorkbenchError)
from workbench.importers import dumps, load_graph, parse_json
from workbench.ir import GraphBuilder, evaluate


def doc(nodes, outputs=("y",)):
    return json.dumps({"format": "fusion-workbench-graph", "version": 1, "name": "t",
                       "nodes": nodes, "outputs": list(outputs)}, indent=1)


X = {"id": "x", "op": "parameter", "type": {"shape": [4], "dtype": "f32"}, "attrs": {"index": 0}}


@pytest.mark.parametrize("path", sample_paths(), ids=lambda p: p.stem)
def test_round_trip_is_identity(path):
    g = load_graph(path)
    text = dumps(g)
    again = parse_json(text, str(path))
    assert dumps(again) == text
    assert again.fingerprint == g.fingerprint
    assert path.read_text() == text            # the committed files are in canonical form


def test_types_are_inferred_when_omitted_and_checked_when_given():
    g = parse_json(doc([X, {"id": "y", "op": "exponential", "operands": ["x"]}]), "t.json")
    assert str(g.node("y").type) == "f32[4]"
    bad = doc([X, {"id": "y", "op": "exponential", "operands": ["x"],
                   "type": {"shape": [5], "dtype": "f32"}}])
    with pytest.raises(ShapeError, match="declared type f32\\[5\\]") as e:
        parse_json(bad, "t.json")
    assert e.value.node == "y" and e.value.line is not None


def test_non_finite_constants_round_trip():
    b = GraphBuilder("c")
    c = b.constant([1.0, float("-inf"), float("nan")], (3,))
    g = b.build([c])
    again = parse_json(dumps(g))
    out = evaluate(again, [])[0]
    assert out[0] == 1 and out[1] == -np.inf and np.isnan(out[2])
    assert again.fingerprint == g.fingerprint


def test_malformed_json_reports_line_and_column():
    text = '{\n  "nodes": [\n    {"id": "x",, "op": "parameter"}\n  ]\n}'
    with pytest.raises(ParseError, match="malformed JSON") as e:
        parse_json(text, "m.json")
    assert (e.value.file, e.value.line, e.value.column) == ("m.json", 3, 16)


def test_unknown_op():
    with pytest.raises(UnknownOpError, match="unknown op 'exp'.*exponential") as e:
        parse_json(doc([X, {"id": "y", "op": "exp", "operands": ["x"]}]), "u.json")
    assert e.value.node == "y" and e.value.file == "u.json"
    text = doc([X, {"id": "y", "op": "exp", "operands": ["x"]}])
    assert text.splitlines()[e.value.line - 1].strip() == '"id": "y",'


def test_wrong_arity():
    with pytest.raises(ArityError, match="takes 2 operand") as e:
        parse_json(doc([X, {"id": "y", "op": "add", "operands": ["x"]}]), "a.json")
    assert e.value.node == "y"


def test_mismatched_shapes():
    z = {"id": "z", "op": "parameter", "type": {"shape": [3], "dtype": "f32"},
         "attrs": {"index": 1}}
    with pytest.raises(ShapeError, match="equal shapes") as e:
        parse_json(doc([X, z, {"id": "y", "op": "add", "operands": ["x", "z"]}]), "s.json")
    assert e.value.node == "y"


def test_cycle():
    nodes = [X, {"id": "a", "op": "add", "operands": ["x", "y"]},
             {"id": "y", "op": "negate", "operands": ["a"]}]
    with pytest.raises(CycleError, match="cycle") as e:
        parse_json(doc(nodes), "c.json")
    assert e.value.node in ("a", "y")


def test_dangling_and_duplicate_ids():
    with pytest.raises(DanglingReferenceError, match="'w' names no node") as e:
        parse_json(doc([X, {"id": "y", "op": "add", "operands": ["x", "w"]}]), "d.json")
    assert e.value.node == "y"
    with pytest.raises(DuplicateIdError) as e:
        parse_json(doc([X, {"id": "y", "op": "negate", "operands": ["x"]},
                        {"id": "y", "op": "negate", "operands": ["x"]}]), "d.json")
    assert e.value.node == "y"


def test_structural_problems():
    with pytest.raises(InputError, match="nodes: expected a non-empty list"):
        parse_json('{"nodes": {}, "outputs": []}', "s.json")
    with pytest.raises(InputError, match="unsupported version 7"):
        parse_json('{"version": 7, "nodes": [], "outputs": []}', "s.json")
    with pytest.raises(InputError, match="unknown key"):
        parse_json(doc([X, {"id": "y", "op": "negate", "operands": ["x"], "bogus": 1}]), "s.json")
    with pytest.raises(InputError, match="JSON object"):
        parse_json("[1, 2]", "s.json")


def test_over_memory_cap_when_evaluated():
    huge = {"id": "x", "op": "parameter", "type": {"shape": [1 << 16, 1 << 14], "dtype": "f32"},
            "attrs": {"index": 0}}
    g = parse_json(doc([huge, {"id": "y", "op": "exponential", "operands": ["x"]}]), "h.json")
    with pytest.raises(ResourceLimitError, match="8192.0 MiB") as e:
        evaluate(g, [], max_bytes=1 << 30)      # refused before inputs are even looked at
    assert e.value.node in ("x", "y")


@pytest.mark.parametrize("node, path, says", [
    ({"type": {"shape": "4", "dtype": "f32"}}, "nodes[1].type.shape",
     "expected a list of integers, got '4'"),
    ({"type": {"shape": [4, "x"], "dtype": "f32"}}, "nodes[1].type.shape[1]",
     "bad dimension 'x' in shape [4, 'x'] (expected an integer >= 0)"),
    ({"type": {"shape": [4], "dtype": "f99"}}, "nodes[1].type.dtype", "unknown dtype 'f99'"),
    ({"type": {"shape": [4]}}, "nodes[1].type", "a type needs 'shape' and 'dtype'"),
    ({"type": {"tuple": [{"shape": [4], "dtype": "f32"}, {"shape": [-1], "dtype": "f32"}]}},
     "nodes[1].type.tuple[1].shape[0]", "bad dimension -1"),
    ({"operands": "x"}, "nodes[1].operands", "expected a list of node ids"),
    ({"op": 7}, "nodes[1].op", "expected a string, got int"),
    ({"op": "frob"}, "nodes[1].op", "unknown op 'frob'"),
    ({"attrs": [1]}, "nodes[1].attrs", "expected an object, got list"),
    ({"bogus": 1}, "nodes[1]", "unknown key(s) ['bogus']"),
    ({"operands": ["x", "w"], "op": "add"}, "nodes[1]", "operand 'w' names no node"),
])
def test_a_bad_value_is_named_by_its_key_path_after_file_line_and_node(node, path, says):
    """The newcomer review: an error said the file and the node but not which key was wrong."""
    y = {"id": "y", "op": "negate", "operands": ["x"], **node}
    text = doc([X, y])
    with pytest.raises(WorkbenchError) as e:
        parse_json(text, "graph.json")
    err = e.value
    assert (err.file, err.node) == ("graph.json", "y")
    assert text.splitlines()[err.line - 1].strip() == '"id": "y",'
    assert str(err).startswith(f"graph.json:{err.line}: node 'y': {path}: {says}"), str(err)


def test_a_node_without_an_id_and_a_nested_computation_name_their_path():
    with pytest.raises(InputError) as e:
        parse_json(doc([X, {"op": "negate", "operands": ["x"]}]), "graph.json")
    assert str(e.value) == "graph.json: nodes[1].id: expected a non-empty string, got None"
    # newton_while's body is a nested computation: its node's path starts at it
    d = json.loads(dumps(load_graph(REPO_ROOT / "corpus" / "newton_while.before.hlo")))
    body = d["computations"]["region_0.1"]["nodes"]
    k = next(k for k, n in enumerate(body) if n["op"] == "divide")
    body[k]["type"]["dtype"] = "f3"
    with pytest.raises(ShapeError) as e:
        parse_json(json.dumps(d, indent=1), "graph.json")
    assert f"node '{body[k]['id']}': computations.region_0.1.nodes[{k}].type.dtype: unknown " \
           "dtype 'f3'" in str(e.value)



"""Name scopes: HLO metadata op_name and a JSON node's ``scope`` are kept as ``meta['scope']``."""

from __future__ import annotations

import json

import pytest

from tests.conftest import shared_hlo_dir
from workbench.errors import InputError
from workbench.importers import dumps, load_graph, parse_hlo, parse_json

HLO = """HloModule m

ENTRY main {
  p0 = f32[4]{0} parameter(0), metadata={op_name="x"}
  e = f32[4]{0} exponential(p0), metadata={op_name="jit(f)/block_3/attn/exp" source_file="a.py" source_line=3}
  ROOT n = f32[4]{0} negate(e)
}
"""


def test_hlo_op_name_is_the_nodes_scope():
    g = parse_hlo(HLO, "m.hlo")
    assert g.node("e").meta["scope"] == "jit(f)/block_3/attn/exp"
    assert "scope" not in g.node("n").meta          # no metadata: no scope
    assert "scope" not in g.node("p0").meta         # a parameter's op_name is its argument name


def test_real_optimised_module_keeps_fusion_members_scopes():
    g = load_graph(shared_hlo_dir() / "transformer_block.after_noynn.hlo")
    scoped = [n for n in g.nodes if n.meta.get("scope", "").startswith("jit(transformer_block)/")]
    assert len(scoped) > 100
    assert any("xla_fusion" in n.meta for n in scoped)


def _doc(scope):
    return json.dumps({"format": "fusion-workbench-graph", "version": 1, "name": "t", "nodes": [
        {"id": "x", "op": "parameter", "type": {"shape": [4], "dtype": "f32"},
         "attrs": {"index": 0}},
        {"id": "y", "op": "exponential", "operands": ["x"], "scope": scope}], "outputs": ["y"]})


def test_json_scope_key_round_trips_through_meta():
    g = parse_json(_doc("enc/block_0/y"), "t.json")
    assert g.node("y").meta["scope"] == "enc/block_0/y"
    again = parse_json(dumps(g), "t2.json")
    assert again.node("y").meta["scope"] == "enc/block_0/y"


def test_json_scope_must_be_a_string():
    with pytest.raises(InputError, match=r"nodes\[1\]\.scope: expected a string") as err:
        parse_json(_doc(["block_0"]), "t.json")
    assert err.value.node == "y" and err.value.file == "t.json"

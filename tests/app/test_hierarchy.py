"""Layers from the name stack: the tree, inferred layers, where groups and inputs sit, search."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SAMPLES_DIR
from workbench.app.hierarchy import (ROOT, build_layers, find_layers, find_nodes,
                                     majority_layer, place, plurality_layer, scope_layers)
from workbench.importers import load_graph
from workbench.ir import GraphBuilder, verify
from workbench.planner import plan_graph

MODEL = Path(__file__).parent / "data" / "transformer12_fwd.before.hlo"


@pytest.fixture(scope="module")
def model():
    g = load_graph(MODEL)
    return g, build_layers(g), plan_graph(g)


def scoped():
    """x -> (enc/a/exp) -> (enc/b/neg) -> (dec/add) -> (unscoped tanh)."""
    b = GraphBuilder("scoped")
    x = b.parameter("x", (8,))
    a = b.op("exponential", [x], node_id="a", meta={"scope": "jit(f)/enc/a/exp"})
    n = b.op("negate", [a], node_id="n", meta={"scope": "jit(f)/enc/b/neg"})
    s = b.op("add", [n, a], node_id="s", meta={"scope": "jit(f)/dec/add"})
    t = b.op("tanh", [s], node_id="t")
    return verify(b.build([t]))


def test_scope_layers_drop_the_ops_own_name_and_merged_names():
    assert scope_layers("jit(f)/block_3/attn/dot_general") == ("jit(f)", "block_3", "attn")
    assert scope_layers("reduce_sum") == ()
    assert scope_layers("jit(f)/a/mul;jit(f)/b/mul") == ("jit(f)", "a")
    assert scope_layers(None) == () and scope_layers("") == ()


def test_layers_form_a_tree_under_the_shared_prefix():
    lay = build_layers(scoped())
    assert lay.prefix == ("jit(f)",) and lay.layers[ROOT].name == "jit(f)"
    names = {lay.layers[x].name: x for x in lay.layers}
    assert set(names) == {"jit(f)", "enc", "a", "b", "dec"}
    assert lay.children[ROOT] == [names["enc"], names["dec"]]
    assert lay.children[names["enc"]] == [names["a"], names["b"]]
    assert lay.node_layer["a"] == names["a"] and lay.node_layer["s"] == names["dec"]
    assert lay.ops_in[ROOT] == 4 and lay.ops_in[names["enc"]] == 2
    assert lay.path_text(names["b"]) == "enc › b"
    assert lay.lca([names["a"], names["b"]]) == names["enc"]
    assert lay.lca([names["a"], names["dec"]]) == ROOT


def test_an_unscoped_op_sits_with_its_consumers_or_else_its_operands():
    lay = build_layers(scoped())
    # t has no scope and no consumer: the deepest layer of its operand s (dec)
    assert lay.node_layer["t"] == lay.node_layer["s"] and "t" in lay.inferred
    assert "a" not in lay.inferred


def test_a_graph_without_scopes_has_only_the_root():
    g = load_graph(SAMPLES_DIR / "mlp.json")
    lay = build_layers(g)
    assert not lay.has_layers and set(lay.node_layer.values()) == {ROOT}


def test_the_transformer_has_twelve_blocks_each_with_attention_and_mlp(model):
    g, lay, _ = model
    assert lay.prefix == ("jit(forward)",)
    blocks = [lay.layers[x].name for x in lay.children[ROOT]]
    assert blocks == [f"block_{k}" for k in range(12)]
    for b in lay.children[ROOT]:
        assert [lay.layers[x].name for x in lay.children[b]] == ["attn", "mlp"]
    attn = lay.children[lay.children[ROOT][3]][0]
    # jnp.einsum names its own scope after its subscripts
    assert {"layer_norm", "softmax"} <= {lay.layers[x].name for x in lay.children[attn]}
    in_blocks = sum(lay.ops_in[b] for b in lay.children[ROOT])
    assert lay.ops_in[ROOT] - 10 <= in_blocks < lay.ops_in[ROOT]  # a few ops directly at the top


def test_groups_sit_where_most_of_their_ops_are(model):
    g, lay, plan = model
    groups = [grp.nodes for grp in plan.groups]
    placement = place(lay, g, groups)
    for members, lid in zip(groups, placement.group_layer):
        inside = sum(1 for n in members if lay.is_within(lay.node_layer[n], lid))
        for child in lay.children[lid]:
            below = sum(1 for n in members if lay.is_within(lay.node_layer[n], child))
            assert below < inside or below <= inside - below
    # most groups of a 12-block model are inside a block, not at the root
    assert sum(1 for lid in placement.group_layer if lid != ROOT) > 0.8 * len(groups)
    # a weight read by one kernel sits in that kernel's layer
    wqkv_like = [n for n, lid in placement.source_layer.items() if lid != ROOT]
    assert len(wqkv_like) > 100


def test_majority_and_plurality():
    lay = build_layers(scoped())
    a, b, dec = lay.node_layer["a"], lay.node_layer["n"], lay.node_layer["s"]
    assert majority_layer(lay, [a, a, b]) == a
    assert majority_layer(lay, [a, b, dec]) == lay.layers[a].parent  # enc holds two of three
    assert majority_layer(lay, [a, dec]) == ROOT             # no layer holds more than half
    assert plurality_layer(lay, [a, b, dec]) == lay.layers[a].parent  # enc holds two of three
    assert plurality_layer(lay, [a, a, b, dec]) == a
    assert plurality_layer(lay, []) == ROOT


def test_search_finds_ids_then_ops_then_scopes_then_layers(model):
    g, lay, _ = model
    hits = find_nodes(g, "softmax", lay)
    assert len(hits) > 12 and all("softmax" in (g.node(n).meta.get("scope") or "")
                                  or "softmax" in lay.scope_text(n) for n in hits)
    assert find_nodes(g, "layer_norm", lay)  # in real HLO only the scope says layer_norm
    exact = g.topo_order[40]
    assert find_nodes(g, exact, lay)[0] == exact
    assert find_nodes(g, "", lay) == []
    assert [lay.layers[x].name for x in find_layers(lay, "block_1")] == [
        "block_1", "block_10", "block_11"]

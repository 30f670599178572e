"""The logic behind the callbacks, without a browser: uploads, selection, collapse, search."""

from __future__ import annotations

import base64

import pytest

from tests.conftest import SAMPLES_DIR, shared_hlo_dir
from workbench.app import controller
from workbench.app.callbacks_load import decode_upload
from workbench.app import view as views
from workbench.app.callbacks_view import breadcrumb, hover_text, next_match, search_text
from workbench.app.graph_figure import grouping_from_plan
from workbench.app.hierarchy import build_layers, find_nodes, place
from workbench.app.server import AppConfig, Services
from workbench.errors import InputError, PlanError, WorkbenchError
from workbench.importers import load_bytes, load_graph
from workbench.planner import xla_plan


def data_url(data: bytes) -> str:
    return "data:application/octet-stream;base64," + base64.b64encode(data).decode()


def test_decode_upload_round_trips_and_refuses_bad_data():
    assert decode_upload(data_url(b"HloModule m"), "m.hlo", 1 << 20) == b"HloModule m"
    with pytest.raises(InputError, match="larger than the 1 MiB upload limit"):
        decode_upload(data_url(b"x" * (2 << 20)), "big.json", 1 << 20)
    with pytest.raises(InputError, match="not a file"):
        decode_upload("no comma here", "a.json", 1 << 20)
    with pytest.raises(InputError, match="not valid base64"):
        decode_upload("data:text/plain;base64,@@@@", "a.json", 1 << 20)


@pytest.mark.parametrize("payload, name, match", [
    (b'{"nodes": [ }', "bad.json", r"bad\.json:1:"),
    (b"\x00\x01\x02binary", "weights.bin", "binary file"),
    (b"   \n", "empty.hlo", "empty"),
    (b"HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] add(p, q\n",
     "cut.hlo", r"cut\.hlo:\d+"),
])
def test_malformed_uploads_raise_errors_that_name_the_file(payload, name, match):
    with pytest.raises(WorkbenchError, match=match):
        load_bytes(decode_upload(data_url(payload), name, 1 << 20), name)


def test_collapsed_groups_are_remembered_by_member_across_renumbering():
    g = load_graph(shared_hlo_dir() / "transformer_block.after_noynn.hlo")
    groups = grouping_from_plan(xla_plan(g))
    layers = build_layers(g)
    big = max(groups, key=lambda x: len(x["nodes"]))
    record = views.default_record("key", g, layers, groups)
    assert record["nodes"] == []                  # 144 ops: every group drawn open
    record = views.toggle_group(record, big)
    assert record["nodes"] == [big["nodes"][0]]
    renumbered = [dict(x, id=f"z{i}") for i, x in enumerate(reversed(groups))]
    state = views.view_state(record, layers, renumbered)
    assert [renumbered[i]["id"] for i in state.collapsed] == [
        x["id"] for x in renumbered if x["nodes"] == big["nodes"]]
    assert views.toggle_group(record, big)["nodes"] == []  # expanded again
    # another graph's record: this graph's default
    assert views.record_for(record, "other", g, layers, groups)["nodes"] == []
    assert views.record_for(record, "key", g, layers, groups) is record


def test_search_finds_ids_then_ops_and_steps_through_the_matches():
    g = load_graph(SAMPLES_DIR / "transformer_block.json")
    assert find_nodes(g, "qkv")[0] == "qkv"
    assert find_nodes(g, "  FFN1 ")[0] == "ffn1"  # case-insensitive, trimmed, exact id first
    assert find_nodes(g, "no-such-node") == [] and find_nodes(g, "") == []
    # an op name, as the canvas shows it, finds the nodes of that op (ln1, ln2)
    norms = [n.id for n in g.topo_nodes() if n.op == "layer_norm"]
    assert find_nodes(g, "layer_norm") == norms == ["ln1", "ln2"]
    assert next_match(norms, None) == "ln1" and next_match(norms, "ln1") == "ln2"
    assert next_match(norms, "ln2") == "ln1" and next_match([], None) is None
    assert search_text("layer_norm", norms, "ln2") == "found ln2 (2 of 2; Enter for the next)"
    assert search_text("qkv", ["qkv"], "qkv") == "found qkv"
    assert search_text("zz", [], None) == "no node id, op or scope matches 'zz'"
    assert search_text("qkv", ["qkv"], "qkv", "block_3 › attn") == "found qkv in block_3 › attn"


def test_the_breadcrumb_and_the_hover_line_name_the_layers():
    from pathlib import Path

    g = load_graph(Path(__file__).parent / "data" / "transformer12_fwd.before.hlo")
    layers = build_layers(g)
    op = next(n for n, lid in layers.node_layer.items() if layers.layers[lid].depth == 3)
    crumbs = breadcrumb(layers, layers.node_layer[op])
    names = [c.children for c in crumbs if getattr(c, "id", None)]
    assert names[0] == "jit(forward)" and names[1].startswith("block_") and len(names) == 4
    assert all(c.id["layer"] in layers.layers for c in crumbs if getattr(c, "id", None))
    assert breadcrumb(build_layers(load_graph(SAMPLES_DIR / "mlp.json")), "L0") == []
    line = hover_text(g, {"node": op, "gid": "g3", "kind": "loop"})
    assert line.startswith(op) and "group g3 (loop)" in line
    assert g.node(op).meta["scope"] in line
    block = layers.children["L0"][2]
    assert hover_text(g, {"layer": block, "vid": block}) == (
        f"layer block_2: {layers.ops_in[block]} ops (click a closed layer to open it)")
    assert "XLA" not in hover_text(g, {"gid": "g1", "kind": "loop", "n_ops": 3})


def test_selection_nodes_from_canvas_data():
    data = [{"id": "v3", "node": "add.1", "gid": "g1"},
            {"id": "G:1a2b3c4d", "gid": "g2", "rep": "mul.4"},
            {"id": "L3", "layer": "L3"},                     # a layer: not selectable
            {"id": "v0", "node": "x"},                       # a parameter: not selectable
            {"id": "v3@v2", "node": "add.1", "gid": "g2"}]   # a copy of a node already there
    assert controller.selection_nodes(data) == ["add.1", "mul.4"]
    assert controller.selection_nodes(None) == []


def test_graph_choices_are_server_side_keys(tmp_path):
    hlo = shared_hlo_dir() / "softmax.after_noynn.hlo"
    services = Services(AppConfig(initial=str(hlo)))
    values = [o["value"] for o in services.choices()]
    assert values[0] == "file:0" and "sample:transformer_block" in values
    assert services.path_of("file:0") == str(hlo)
    assert services.path_of("sample:mlp").endswith("sample_graphs/mlp.json")
    for bad in ("file:7", "sample:../../etc/passwd", "/etc/passwd", "file:-1", "file:\u00b2",
                "file:\u0663", "file:\uff11", "file: 0", "file:0 ", "file:+0", ["file:0"]):
        with pytest.raises(InputError, match="unknown graph choice"):
            services.path_of(bad)
    g1, label = services.load_choice("file:0")
    g2, _ = services.load_choice("file:0")
    assert g1 is g2 and label == "softmax.after_noynn.hlo"  # cached by path and mtime
    # the chooser names a file with its folder, never the server's full path
    assert services.choices()[0]["label"] == "file: hlo/softmax.after_noynn.hlo"


def test_undo_redo_bounds_without_a_planner():
    from workbench.app.state import Workspace
    from workbench.planner import unfused_plan

    g = load_graph(SAMPLES_DIR / "mlp.json")
    p0 = unfused_plan(g)
    ws = Workspace("k", "s", "priority", "cpu", p0, (p0,), 0, p0)
    with pytest.raises(PlanError, match="nothing to undo"):
        controller.undo(ws)
    with pytest.raises(PlanError, match="nothing to redo"):
        controller.redo(ws)
    p1 = xla_plan(load_graph(shared_hlo_dir() / "mlp.after_noynn.hlo"))
    ws2 = controller.push(ws, p1)
    assert ws2.plan is p1 and controller.undo(ws2).plan is p0
    assert controller.redo(controller.undo(ws2)).plan is p1
    # a new step after an undo drops what could have been redone
    ws3 = controller.push(controller.undo(ws2), p0)
    assert len(ws3.history) == 2 and ws3.position == 1


def test_the_clientside_helpers_name_the_canvas_by_its_id():
    from tests.conftest import REPO_ROOT
    from workbench.app import ids

    js = (REPO_ROOT / "assets" / "workbench.js").read_text()
    assert f'var CANVAS = "{ids.CYTO}";' in js


def test_an_upload_past_a_limit_says_the_limit_is_the_servers_not_a_flag_to_pass():
    """A huge tensor in an uploaded HLO file: the browser's message names the limit and the
    value, and says it is the server's; the command line's "(raise it with --max-elements)"
    is for the terminal only."""
    from workbench.app.controller import SERVER_LIMIT, error_text

    text = (b"HloModule m\nENTRY e {\n  ROOT p = f32[2000000,1000000] parameter(0)\n}\n")
    with pytest.raises(WorkbenchError) as info:
        load_bytes(decode_upload(data_url(text), "huge.hlo", 1 << 20), "huge.hlo")
    assert "--max-elements" in str(info.value)          # the CLI's advice, as before
    shown = error_text(info.value)
    assert "--max-elements" not in shown and "raise it with" not in shown
    assert SERVER_LIMIT in shown and "2,000,000,000,000" in shown and "huge.hlo" in shown


def test_an_edit_keeps_the_selection_only_on_a_group_holding_all_its_ops():
    """After an edit the selection (a node: its group) names the group that now holds every op
    of the selected group, or it is cleared with a note: a split renumbers the groups, and
    following one op would show another group under the old id (``g5`` of 7 ops became a
    one-op ``g5``)."""
    from workbench.app.callbacks_plan import follow_selection
    from workbench.editing import Merge, Split, apply_edit
    from workbench.planner import plan_graph

    graph = load_graph(SAMPLES_DIR / "transformer_block.json")
    plan = plan_graph(graph)
    big = max(plan.groups, key=lambda g: g.size)
    split = apply_edit(graph, plan, Split(big.nodes[0]))
    assert split.group(big.id).nodes != big.nodes  # the id names another group now
    keep, note = follow_selection(plan, split, big.nodes[-1])
    assert not keep
    assert note.startswith(f"the selected group {big.id}'s {big.size} ops are now in "
                           f"{big.size} groups (")
    assert note.endswith("): selection cleared")
    # a merge (XLA:CPU's mlp: each matmul alone): the merged group holds every op of the
    # selected one; a group after it is renumbered (g3 -> g2) and holds its ops still
    mlp = load_graph(SAMPLES_DIR / "mlp.json")
    before = plan_graph(mlp, policy="xla-cpu")
    merged = apply_edit(mlp, before, Merge(("matmul1", "bias_add1")))
    assert follow_selection(before, merged, "relu1") == (True, "")
    assert before.group_of("relu2").id != merged.group_of("relu2").id
    assert follow_selection(before, merged, "relu2") == (True, "")
    # undoing the merge spreads the merged group's ops over two groups
    assert follow_selection(merged, before, "relu1")[0] is False
    # the same plan (an edit that moves nothing of the selected group), nothing selected,
    # a node the plan does not know
    assert follow_selection(plan, plan, big.nodes[1]) == (True, "")
    assert follow_selection(plan, split, None) == (True, "")
    assert follow_selection(plan, split, "no-such-node") == (True, "")

"""What the canvas shows (scenes) and where (layouts): nested boxes that never lie, kept in
place across edits, opened and closed layers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SAMPLES_DIR, shared_hlo_dir
from workbench.app import view as views
from workbench.app.drawing import build_drawing, vertex_ids
from workbench.app.hierarchy import ROOT, build_layers, place
from workbench.app.scene import ViewState, build_scene, group_key
from workbench.app.scene_layout import (compute_rects, fresh_layout, layout_scene,
                                        sibling_overlaps)
from workbench.editing import Merge, Split, apply_edit
from workbench.errors import WorkbenchError
from workbench.importers import load_graph
from workbench.planner import plan_graph, xla_plan

MODEL = Path(__file__).parent / "data" / "transformer12_fwd.before.hlo"


class Canvas:
    """A graph, a plan, and the scene and layout of it under a view record."""

    def __init__(self, graph, plan, record=None, prev=None, edit=False):
        self.graph, self.plan = graph, plan
        self.layers = build_layers(graph)
        self.groups = [g.to_json() for g in plan.groups]
        self.drawing = build_drawing(graph, [g["nodes"] for g in self.groups])
        self.placement = place(self.layers, graph, self.drawing.groups)
        self.record = record or views.default_record("k", graph, self.layers, self.groups)
        c = views.draw_canvas(graph, self.groups, self.drawing, self.layers, self.placement,
                              views.view_state(self.record, self.layers, self.groups), prev,
                              edit)
        self.scene, self.layout, self.elements = c.scene, c.layout, c.elements

    def then(self, plan=None, record=None, edit=True):
        return Canvas(self.graph, plan or self.plan, record or self.record, self.layout, edit)


@pytest.fixture(scope="module")
def model():
    g = load_graph(MODEL)
    return g, plan_graph(g)


def lies(canvas) -> list:
    """Items whose rectangles overlap a sibling's (a box over an op or a box it does not
    hold), and leaves drawn outside their container's rectangle."""
    out = [(a.key, b.key) for a, b in sibling_overlaps(canvas.scene, canvas.layout.rects)]
    for it in canvas.scene.items.values():
        if it.parent is not None and it.parent.key != ROOT and it.key in canvas.layout.rects:
            r, p = canvas.layout.rects[it.key], canvas.layout.rects[it.parent.key]
            if not (p[0] <= r[0] and p[1] <= r[1] and r[2] <= p[2] and r[3] <= p[3]):
                out.append((it.parent.key, it.key))
    return out


def test_a_big_graph_opens_with_its_layers_closed(model):
    g, plan = model
    c = Canvas(g, plan)
    top = [it.key for it in c.scene.root.children]
    blocks = c.layers.children[ROOT]
    assert set(blocks) <= set(top)
    assert all(c.scene.items[b].box for b in blocks)
    assert len(c.elements) < 60  # twelve boxes, a few edges and inputs, not 1,800 ops
    # every vertex is drawn by some visible leaf
    for v in c.drawing.vertices:
        assert c.scene.leaf_of(v.id) in c.scene.items


def test_everything_open_draws_every_op_in_nested_boxes_that_do_not_lie(model):
    g, plan = model
    c = Canvas(g, plan)
    c = c.then(record=views.everything(c.record, c.layers, c.groups, True), edit=False)
    drawn = {it.ref.node for it in c.scene.items.values() if it.kind == "vertex"}
    assert drawn == {v.node for v in c.drawing.vertices}
    assert lies(c) == []
    # each multi-op group is a compound inside its layer's compound
    parents = {e["data"]["id"]: e["data"].get("parent") for e in c.elements
               if "source" not in e["data"]}
    vid = vertex_ids(g)
    for gi, grp in enumerate(c.groups):
        if len(grp["nodes"]) > 1:
            key = group_key(grp["nodes"], vid)
            home = next(v.id for v in c.drawing.vertices if v.group == gi and not v.copy)
            assert parents[home] == key
            assert parents[key] == (c.placement.group_layer[gi]
                                    if c.placement.group_layer[gi] != ROOT else None)


def test_xla_grouping_of_a_real_module_is_drawn_truthfully():
    g = load_graph(shared_hlo_dir() / "transformer_block.after_noynn.hlo")
    c = Canvas(g, xla_plan(g))
    assert lies(c) == []


def _merge_of_split(g, plan):
    """Split the plan's biggest group, then merge back two of its ops that are producer and
    consumer: an edit that makes a new group."""
    big = max(plan.groups, key=lambda grp: grp.size)
    split = apply_edit(g, plan, Split(big.nodes[0]))
    for a in big.nodes:
        for u in g.users(a):
            if u in big.nodes:
                try:
                    return split, apply_edit(g, split, Merge((a, u))), (a, u)
                except WorkbenchError:
                    continue
    raise AssertionError("no legal merge")


@pytest.mark.parametrize("sample", ["transformer_block", "mlp", "softmax"])
def test_an_edit_leaves_every_untouched_node_where_it_was(sample):
    g = load_graph(SAMPLES_DIR / f"{sample}.json")
    plan = plan_graph(g)
    before = Canvas(g, plan)
    split, merged, pair = _merge_of_split(g, plan)
    after_split = before.then(split)
    # a split moves nothing: its ops stay where the group drew them
    assert after_split.layout.positions == {k: before.layout.positions[k]
                                            for k in after_split.layout.positions}
    after_merge = after_split.then(merged)
    vid = vertex_ids(g)
    new_group = set(vid[n] for n in merged.group_of(pair[0]).nodes)
    moved = {k for k, p in after_merge.layout.positions.items()
             if after_split.layout.positions.get(k) != p}
    assert moved <= new_group                  # only the merged group's ops may move
    assert lies(after_merge) == []
    # undoing gives the split's layout back (the app remembers layouts per grouping)
    assert after_merge.then(split).layout.positions.keys() == after_split.layout.positions.keys()


def test_opening_a_layer_keeps_the_insides_of_the_others(model):
    g, plan = model
    c = Canvas(g, plan)
    b3, b7 = c.layers.children[ROOT][3], c.layers.children[ROOT][7]
    one = c.then(record=views.toggle_layer(c.record, b3, c.layers, c.groups, c.placement),
                 edit=False)
    two = one.then(record=views.toggle_layer(one.record, b7, one.layers, one.groups,
                                             one.placement), edit=False)
    inside = [k for k, it in one.scene.items.items()
              if it.leaf and it.parent is not None and it.parent.key != ROOT
              and one.layers.is_within(_layer_of(it), b3)]
    assert inside
    dx = {round(two.layout.positions[k][0] - one.layout.positions[k][0], 1) for k in inside}
    dy = {round(two.layout.positions[k][1] - one.layout.positions[k][1], 1) for k in inside}
    # block_3's inside moved as one piece (positions are rounded to 0.1 px)
    assert max(dx) - min(dx) <= 0.2 and max(dy) - min(dy) <= 0.2
    assert lies(two) == []
    closed = two.then(record=views.toggle_layer(two.record, b7, two.layers, two.groups,
                                                two.placement), edit=False)
    assert closed.scene.items[b7].box


def _layer_of(it):
    while it is not None and it.kind != "layer":
        it = it.parent
    return it.key if it is not None else ROOT


def test_opening_a_small_layer_opens_what_is_inside_and_reveal_opens_the_path(model):
    g, plan = model
    c = Canvas(g, plan)
    b3 = c.layers.children[ROOT][3]
    rec = views.toggle_layer(c.record, b3, c.layers, c.groups, c.placement)
    assert set(c.layers.children[b3]) <= set(rec["open"])  # 135 ops: all of it opens
    node = next(n for n, lid in c.layers.node_layer.items()
                if lid != ROOT and c.layers.layers[lid].depth >= 3)
    rec = views.reveal(c.record, [node], c.layers, c.groups, c.placement)
    shown = c.then(record=rec, edit=False)
    assert vertex_ids(g)[node] in shown.scene.items  # drawn as itself now


def test_collapsed_groups_and_inputs_boxes_sum_their_edges():
    g = load_graph(shared_hlo_dir() / "transformer_block.after_noynn.hlo")
    plan = xla_plan(g)
    c = Canvas(g, plan)
    big = max(c.groups, key=lambda x: len(x["nodes"]))
    rec = views.toggle_group(c.record, big)
    c2 = c.then(record=rec, edit=False)
    key = group_key(big["nodes"], vertex_ids(g))
    assert c2.scene.items[key].box and c2.scene.items[key].n_vertices >= len(big["nodes"])
    ends = [(s, t) for s, t, _, _ in c2.scene.edges]
    assert len(ends) == len(set(ends))          # one edge per pair of drawn leaves
    assert all(s in c2.scene.items and t in c2.scene.items for s, t in ends)
    assert any(key in (s, t) for s, t in ends)


def test_min_zoom_lets_fit_show_the_whole_drawing(model):
    g, plan = model
    c = Canvas(g, plan)
    c = c.then(record=views.everything(c.record, c.layers, c.groups, True), edit=False)
    w, h = views.extent(c.layout)
    assert h > 20_000                                    # taller than any screen
    assert views.min_zoom(c.layout) * max(w, h) <= 400   # fits a 400 px canvas


def test_fresh_layout_is_deterministic_and_rects_match(model):
    g, plan = model
    c = Canvas(g, plan)
    again = fresh_layout(c.scene)
    assert again.positions == fresh_layout(c.scene).positions
    rects = compute_rects(c.scene, again.positions)
    assert {k: tuple(round(x, 1) for x in r) for k, r in rects.items()} == {
        k: tuple(round(x, 1) for x in r) for k, r in again.rects.items()}
    assert layout_scene(c.scene, None, edit=True).positions == again.positions


def test_view_state_reads_the_record_and_ignores_unknown_ids(model):
    g, plan = model
    c = Canvas(g, plan)
    state = views.view_state({"graph": "k", "open": ["L1", "L999", "nonsense"],
                              "nodes": [c.groups[0]["nodes"][0]]}, c.layers, c.groups)
    assert state.open_layers == {"L1"}
    assert state.collapsed == ({0} if len(c.groups[0]["nodes"]) > 1 else set())
    assert isinstance(state, ViewState)
    scene = build_scene(g, c.drawing, c.layers, c.placement, state)
    assert not scene.items["L1"].box

"""The drawing: vertices and edges of a graph under one grouping; the app's caches."""

from __future__ import annotations

from tests.conftest import SAMPLES_DIR
from workbench.app.cache import LruCache, grouping_key
from workbench.app.drawing import build_drawing, group_tag, scalar_constant, vertex_ids
from workbench.importers import load_graph
from workbench.ir import GraphBuilder, verify
from workbench.planner import make_plan, unfused_plan


def diamond():
    """x -> a=exp(x); b=a*a; c=a+1; d=b+c (a has two readers)."""
    b = GraphBuilder("diamond")
    x = b.parameter("x", (8,))
    a = b.op("exponential", [x], node_id="a")
    m = b.op("multiply", [a, a], node_id="b")
    c = b.op("add", [a, b.splat(1.0, (8,))], node_id="c")
    d = b.op("add", [m, c], node_id="d")
    return verify(b.build([d]))


def test_duplicated_producer_is_drawn_in_each_group_that_computes_it():
    g = diamond()
    groups = [["a", "b"], ["a", "c", "broadcast.2"], ["d"]]
    d = build_drawing(g, groups)
    a_vertices = [v for v in d.vertices if v.node == "a"]
    assert [(v.group, v.copy) for v in a_vertices] == [(0, False), (1, True)]
    vid = vertex_ids(g)
    copy = f"{vid['a']}@{group_tag(groups[1], vid)}"
    # inside group 1, c reads the group's own copy of a; b (group 0) reads the home copy
    assert any(e.source == copy and e.target == vid["c"] for e in d.edges)
    assert any(e.source == vid["a"] and e.target == vid["b"] for e in d.edges)
    # b reads a twice but the drawing has one edge per value
    assert sum(1 for e in d.edges if e.target == vid["b"]) == 1


def test_scalar_constants_are_not_drawn_and_edges_carry_bytes():
    g = diamond()
    consts = [n.id for n in g.nodes if n.op == "constant"]
    assert consts and all(scalar_constant(g, c) for c in consts)
    d = build_drawing(g, [p.nodes for p in unfused_plan(g).groups])
    drawn = {v.node for v in d.vertices}
    assert not drawn & set(consts)
    assert {e.nbytes for e in d.edges} == {32}  # f32[8]


def test_vertex_ids_hold_no_text_from_the_file():
    b = GraphBuilder("evil")
    x = b.parameter('x"]; evil [label="pwned', (4,))
    y = b.op("negate", [x], node_id='}; digraph { "')
    g = verify(b.build([y]))
    d = build_drawing(g, [[y]])
    assert all(v.id.startswith("v") and v.id[1:].split("@")[0].isdigit() for v in d.vertices)
    assert {e.source for e in d.edges} | {e.target for e in d.edges} <= {v.id for v in
                                                                        d.vertices}


def test_lru_cache_bounds_and_reuses():
    cache = LruCache(max_entries=2)
    calls = []
    for key in ("a", "b", "a", "c", "b"):
        cache.get(key, lambda k=key: calls.append(k) or k.upper())
    assert calls == ["a", "b", "c", "b"]  # "a" reused once; "b" evicted by "c"
    assert grouping_key([{"b", "a"}, {"c"}]) == grouping_key([["c"], ["a", "b"]])


def test_every_sample_draws_under_its_unfused_and_single_group_plans():
    from workbench.app.hierarchy import build_layers, place
    from workbench.app.scene import ViewState, build_scene
    from workbench.app.scene_layout import fresh_layout

    for path in sorted(SAMPLES_DIR.glob("*.json")):
        g = load_graph(path)
        ops = [n for n in g.topo_order if g.node(n).op not in ("parameter", "constant")]
        d = build_drawing(g, [ops])
        assert {v.node for v in d.vertices if v.group == 0} == set(ops)
        layers = build_layers(g)
        scene = build_scene(g, d, layers, place(layers, g, d.groups), ViewState())
        assert set(fresh_layout(scene).positions) == {
            k for k, it in scene.items.items() if it.leaf}
        make_plan(g, [ops], policy="test")  # the grouping drawn is a valid plan


def test_a_click_on_a_group_box_selects_that_group_even_when_it_starts_with_a_duplicate():
    """A group's box carries the member a click selects (``rep``): one that no earlier group
    holds. Group 1 starts with ``a``, which group 0 computes too; its first member would
    select group 0 (the training step's multi-output groups selected another group so)."""
    from workbench.app import view as views
    from workbench.app.controller import group_of_node
    from workbench.app.hierarchy import build_layers, place

    g = diamond()
    sets = [["a", "b"], ["a", "c", "broadcast.2"], ["d"]]
    groups = [{"id": f"g{k}", "kind": "loop", "nodes": s} for k, s in enumerate(sets)]
    d = build_drawing(g, sets)
    layers = build_layers(g)
    placement = place(layers, g, d.groups)
    record = views.default_record("k", g, layers, groups)
    canvas = views.draw_canvas(g, groups, d, layers, placement,
                               views.view_state(record, layers, groups), None, False)
    boxes = {el["data"]["gid"]: el["data"] for el in canvas.elements
             if "gid" in el["data"] and "n_ops" in el["data"]}
    assert boxes["g1"]["rep"] == "c" and boxes["g0"]["rep"] == "a"
    for gid, data in boxes.items():
        assert group_of_node(groups, data["rep"])["id"] == gid

"""The drawing (vertices and edges per grouping) and the server-side layout (Graphviz)."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import SAMPLES_DIR, shared_hlo_dir
from workbench.app.drawing import (build_drawing, collapse, group_tag, scalar_constant,
                                   vertex_ids)
from workbench.app.graph_layout import (Layout, LruCache, compute_layout, dot_source,
                                        grouping_key, layered_positions, parse_plain)
from workbench.importers import load_graph
from workbench.ir import GraphBuilder, verify
from workbench.planner import make_plan, unfused_plan, xla_plan


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


def test_dot_layout_is_deterministic_and_keeps_groups_together():
    if shutil.which("dot") is None:
        pytest.fail("Graphviz 'dot' is needed (Debian package graphviz)")
    g = load_graph(shared_hlo_dir() / "transformer_block.after_noynn.hlo")
    plan = xla_plan(g)
    d = build_drawing(g, [grp.nodes for grp in plan.groups])
    one, two = compute_layout(d), compute_layout(d)
    assert one.engine == "dot" and one.positions == two.positions
    assert set(one.positions) == {v.id for v in d.vertices}
    # the biggest XLA fusion sits in a compact box: narrower than the whole drawing
    big = max(range(len(d.groups)), key=lambda i: len(d.groups[i]))
    xs = [one.positions[v.id][0] for v in d.members_of(big)]
    all_x = [p[0] for p in one.positions.values()]
    assert max(xs) - min(xs) < 0.5 * (max(all_x) - min(all_x))


def test_dot_source_holds_no_text_from_the_file():
    b = GraphBuilder("evil")
    x = b.parameter('x"]; evil [label="pwned', (4,))
    y = b.op("negate", [x], node_id='}; digraph { "')
    g = verify(b.build([y]))
    src = dot_source(build_drawing(g, [[y]]))
    assert "pwned" not in src and "digraph {" not in src.split("\n", 1)[1]


def test_plain_output_is_read_in_pixels_with_y_down():
    text = "graph 1 2 3\nnode v0 1 2.5 1 0.5 \"\" solid box black lightgrey\nnode v1 1 0.5 1 1\nstop\n"
    assert parse_plain(text) == {"v0": (72.0, 36.0), "v1": (72.0, 180.0)}


def test_fallback_layout_when_dot_is_missing(monkeypatch):
    g = diamond()
    d = build_drawing(g, [["a", "b", "c", "d", "broadcast.2"]])
    monkeypatch.setattr("shutil.which", lambda name: None)
    lay = compute_layout(d)
    assert lay.engine == "layered" and "not installed" in lay.note
    vid = vertex_ids(g)
    ys = {n: lay.positions[vid[n]][1] for n in ("x", "a", "b", "d")}
    assert ys["x"] < ys["a"] < ys["b"] < ys["d"]  # producers above consumers
    assert lay.positions == layered_positions(d)


def test_lru_cache_bounds_and_reuses():
    cache = LruCache(max_entries=2)
    calls = []
    for key in ("a", "b", "a", "c", "b"):
        cache.get(key, lambda k=key: calls.append(k) or k.upper())
    assert calls == ["a", "b", "c", "b"]  # "a" reused once; "b" evicted by "c"
    assert grouping_key([{"b", "a"}, {"c"}]) == grouping_key([["c"], ["a", "b"]])


def test_every_sample_draws_under_its_unfused_and_single_group_plans():
    for path in sorted(SAMPLES_DIR.glob("*.json")):
        g = load_graph(path)
        ops = [n for n in g.topo_order if g.node(n).op not in ("parameter", "constant")]
        d = build_drawing(g, [ops])
        assert {v.node for v in d.vertices if v.group == 0} == set(ops)
        assert isinstance(compute_layout(d), Layout)
        make_plan(g, [ops], policy="test")  # the grouping drawn is a valid plan


def test_collapsing_a_group_takes_in_the_parameters_only_it_reads():
    g = load_graph(SAMPLES_DIR / "mlp.json")
    ops = [n for n in g.topo_order if g.node(n).op != "parameter"]
    layer1 = ["matmul1", "bias_add1", "relu1"]
    d = collapse(build_drawing(g, [layer1, [n for n in ops if n not in layer1]]), [0])
    drawn = {v.node for v in d.vertices if not v.box}
    assert not drawn & {"w1", "b1", *layer1}          # inside the box now
    assert "x" not in drawn                           # read only by layer 1 too
    assert {"w2", "b2", "matmul2"} <= drawn           # read by the open group: still drawn
    box = next(v for v in d.vertices if v.box)
    assert box.node == "matmul1" and box.id == "c0"
    assert [(e.source, e.target) for e in d.edges if e.source == "c0"] == [
        ("c0", vertex_ids(g)["matmul2"])]


def test_boxes_tell_the_truth_only_when_no_box_covers_an_outsider():
    """diamond: x -> a -> (b, c) -> d, drawn in a column (vertex ids by topological order)."""
    from workbench.app.graph_layout import boxes_tell_the_truth

    g = diamond()
    vid = vertex_ids(g)
    column = {vid[n]: (0.0, 60.0 * k) for k, n in enumerate(["x", "a", "b", "c", "d"])}
    # {a, c} in one box: b lies between them, inside the box
    d = build_drawing(g, [["a", "c"], ["b"], ["d"]])
    assert not boxes_tell_the_truth(d, Layout(column, "test"))
    # {a, b} adjacent: the box holds only them; x above is read by a alone, so it may touch
    d = build_drawing(g, [["a", "b"], ["c"], ["d"]])
    tight = dict(column, **{vid["x"]: (0.0, 40.0)})  # overlaps the top of a's box
    assert boxes_tell_the_truth(d, Layout(tight, "test"))
    # two boxes that overlap each other
    d = build_drawing(g, [["a", "c"], ["b", "d"]])
    side = {vid["x"]: (0, 0), vid["a"]: (0, 60), vid["c"]: (0, 180), vid["b"]: (0, 120),
            vid["d"]: (0, 240)}
    assert not boxes_tell_the_truth(d, Layout(side, "test"))
    apart = dict(side, **{vid["b"]: (300, 120), vid["d"]: (300, 240)})
    assert boxes_tell_the_truth(d, Layout(apart, "test"))

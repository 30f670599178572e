"""Pure figure and table functions: cytoscape elements, stylesheet, plotly charts, rows."""

from __future__ import annotations

import pytest

from tests.conftest import SAMPLES_DIR, shared_hlo_dir
from workbench.app import view as views
from workbench.app.drawing import build_drawing, vertex_ids
from workbench.app.figures import (BAR_LIMIT, cost_bars, empty_figure, off_the_roofline,
                                   profile_bars, roofline, roofline_points)
from workbench.app.graph_figure import (COLLAPSE_ABOVE_OPS, HIGHLIGHT_CLASSES, KIND_COLORS,
                                        SELECT_COLOR, edge_width, grouping_from_plan,
                                        grouping_from_sets, highlight_targets, stylesheet)
from workbench.app.hierarchy import build_layers, place
from workbench.app.scene import group_key
from workbench.app.tables import (cost_rows, decision_rows, decision_text, group_rows,
                                  top_rows)
from workbench.importers import load_graph
from workbench.planner import Decision, make_plan, replay, xla_plan


@pytest.fixture(scope="module")
def xla_module():
    g = load_graph(shared_hlo_dir() / "transformer_block.after_noynn.hlo")
    return g, xla_plan(g)


def elements_for(graph, groups, collapsed=()):
    """The canvas's elements with every layer open and the groups ``collapsed`` (ids) as
    boxes."""
    d = build_drawing(graph, [g["nodes"] for g in groups])
    layers = build_layers(graph)
    record = views.everything({"graph": "k"}, layers, groups, True)
    record["nodes"] = [g["nodes"][0] for g in groups if g["id"] in set(collapsed)]
    c = views.draw_canvas(graph, groups, d, layers, place(layers, graph, d.groups),
                          views.view_state(record, layers, groups), None, False)
    return c.elements


def test_elements_draw_each_multi_op_group_as_a_compound_coloured_by_kind(xla_module):
    g, plan = xla_module
    groups = grouping_from_plan(plan)
    els = elements_for(g, groups)
    compounds = [e for e in els if "group" in e.get("classes", "").split()]
    multi = [x for x in groups if len(x["nodes"]) > 1]
    assert len(compounds) == len(multi)
    kinds = {e["data"]["gid"]: e["data"]["kind"] for e in compounds}
    assert kinds == {x["id"]: x["kind"] for x in multi}
    assert all(f"kind-{e['data']['kind']}" in e["classes"] for e in compounds)
    # every member op of a multi-op group is a child of its compound
    parents = {e["data"]["node"]: e["data"].get("parent") for e in els if "node" in e["data"]
               and "@" not in e["data"]["id"]}
    vid = vertex_ids(g)
    for x in multi:
        assert {parents[n] for n in x["nodes"]} == {group_key(x["nodes"], vid)}
    # parents come before children, edges after nodes
    order = [e["data"]["id"] for e in els]
    for e in els:
        if "parent" in e["data"]:
            assert order.index(e["data"]["parent"]) < order.index(e["data"]["id"])
    first_edge = next(i for i, e in enumerate(els) if "source" in e["data"])
    assert all("source" in e["data"] for e in els[first_edge:])


def test_labels_show_op_and_type_and_inline_scalar_constants():
    g = load_graph(SAMPLES_DIR / "softmax.json")
    groups = grouping_from_sets(g, [[n] for n in g.topo_order
                                    if g.node(n).op not in ("parameter", "constant")])
    els = elements_for(g, groups)
    labels = {e["data"]["node"]: e["data"]["label"] for e in els if "node" in e["data"]}
    x = g.parameters[0]
    assert labels[x.id] == f"{x.id}\n{x.type}"
    reduce_id = next(n.id for n in g.nodes if n.op == "reduce")
    node = g.node(reduce_id)
    consts = ", ".join(f"{g.node(o).attrs['value']:.4g}" for o in node.operands
                       if g.node(o).op == "constant")
    assert labels[reduce_id] == f"{reduce_id}\nreduce({consts})\n{node.type}"
    assert not any(g.node(n).op == "constant" and g.node(n).type.size == 1 for n in labels)


def test_labels_name_the_node_by_its_id_as_the_table_and_log_do():
    """``ln1`` over ``layer_norm`` over its type; the op line is left out when the id says it
    (an HLO ``multiply.3``), and a long id is cut with an ellipsis."""
    from workbench.app.graph_figure import _op_label
    from workbench.ir import GraphBuilder

    g = load_graph(SAMPLES_DIR / "transformer_block.json")
    assert _op_label(g, "ln1") == f"ln1\nlayer_norm\n{g.node('ln1').type}"
    h = load_graph(shared_hlo_dir() / "softmax.after_noynn.hlo")
    mul, sub = h.node("multiply.1"), h.node("sub.1")  # JAX names sub.1 a broadcast
    assert (mul.op, sub.op) == ("multiply", "broadcast")
    assert _op_label(h, "multiply.1") == f"multiply.1\n{mul.type}"
    assert _op_label(h, "sub.1") == f"sub.1\nbroadcast\n{sub.type}"
    assert _op_label(h, "broadcast.4").split("\n")[:2] == ["broadcast.4", "broadcast(1)"]
    b = GraphBuilder("t")
    x = b.parameter("x", (4,), "f32")
    y = b.op("exponential", [x], "a_very_long_node_name_from_a_file")
    assert _op_label(b.build([y]), y).split("\n")[:2] == [
        "a_very_long_node_na…", "exponential"]


def test_edges_are_sized_by_bytes():
    assert edge_width(4) == 1.0 and edge_width(10**9) == 7.0
    assert edge_width(10_000) < edge_width(1_000_000)
    g = load_graph(SAMPLES_DIR / "mlp.json")
    plan = make_plan(g, [[n] for n in g.topo_order if g.node(n).op != "parameter"], policy="t")
    els = elements_for(g, grouping_from_plan(plan))
    x_edges = [e for e in els if e["data"].get("value") == "x"]
    assert x_edges and all(e["data"]["bytes"] == 32 * 256 * 4 for e in x_edges)
    assert x_edges[0]["data"]["label"] == "32.0 KiB"


def test_collapsed_group_is_one_box_and_its_edges_are_merged(xla_module):
    g, plan = xla_module
    groups = grouping_from_plan(plan)
    big = max(groups, key=lambda x: len(x["nodes"]))
    els = elements_for(g, groups, collapsed=[big["id"]])
    box = [e for e in els if e["data"]["id"] == group_key(big["nodes"], vertex_ids(g))]
    assert len(box) == 1 and "collapsed" in box[0]["classes"] and "position" in box[0]
    assert f"{len(big['nodes'])} ops" in box[0]["data"]["label"]
    members = {e["data"].get("node") for e in els if e["data"].get("gid") == big["id"]
               and "node" in e["data"]}
    assert not members  # no member is drawn on its own
    ids = {e["data"]["id"] for e in els}
    assert all(e["data"]["source"] in ids and e["data"]["target"] in ids
               for e in els if "source" in e["data"])


def test_big_graphs_start_collapsed(xla_module):
    g, plan = xla_module
    groups = grouping_from_plan(plan)
    layers = build_layers(g)
    assert views.default_record("k", g, layers, groups)["nodes"] == []  # 144 ops: drawn open
    assert COLLAPSE_ABOVE_OPS >= 200
    b = views.default_record("k", g, layers, groups)
    assert set(b["open"]) >= set(layers.layers) - {"L0"}


def test_replay_steps_draw_fewer_groups_as_the_planner_fuses():
    g = load_graph(SAMPLES_DIR / "chain10.json")
    ops = [n for n in g.topo_order if g.node(n).op not in ("parameter", "constant")]
    decisions = [Decision(k, "fuse", True, "benefit", "saves memory traffic", (ops[k], ops[k + 1]),
                          (tuple(ops[:k + 2]),)) for k in range(3)]
    plan = make_plan(g, [ops[:4]] + [[n] for n in ops[4:]], policy="t", decisions=decisions)
    counts = [len(grouping_from_sets(g, replay(plan, g, k))) for k in range(4)]
    assert counts == [len(ops), len(ops) - 1, len(ops) - 2, len(ops) - 3]


def test_stylesheet_colours_kinds_and_highlights_selection():
    rules = stylesheet()
    by_sel = {r["selector"]: r["style"] for r in rules}
    for kind, colour in KIND_COLORS.items():
        assert by_sel[f"node.group.kind-{kind}"]["background-color"] == colour
    assert by_sel["node.opaque"]["shape"] == "octagon"
    assert by_sel["node.dup"]["border-style"] == "dashed"
    # highlights are classes with rules of their own: the stylesheet never changes
    assert [r["selector"] for r in rules[-4:]] == [f"node.{c}" for c in HIGHLIGHT_CLASSES]
    assert stylesheet() == rules
    assert highlight_targets("g3", "v7", (["v1", "v2"], [], ["G:ab"])) == {
        "sel": "g3", "found": "v7", "after": ["G:ab"], "step": ["v1", "v2"]}
    assert highlight_targets(None, None) == {"sel": None, "found": None, "after": [],
                                             "step": []}
    sel = by_sel["node.hl-sel"]
    # the selection is not drawn in the duplicated producer's red (nor dashed)
    assert sel["border-color"] == SELECT_COLOR != by_sel["node.dup"]["border-color"]
    assert sel["border-style"] == "solid"
    assert by_sel["node.rejected"]["border-style"] == "dotted"


COST = {"bytes_read": 4096, "bytes_written": 2048, "flops": 1_000_000, "transcendentals": 100,
        "arithmetic_intensity": 1_000_000 / 6144, "registers_per_thread": None,
        "occupancy": None, "launch_overhead_s": 2e-6, "compute_s": 1e-5, "memory_s": 3e-6,
        "predicted_s": 1.2e-5, "bound": "compute"}
UNFUSED = dict(COST, bytes_read=16384, bytes_written=12288, memory_s=1.5e-5, predicted_s=2.3e-5,
               bound="memory")


def test_cost_rows_give_fused_unfused_and_saving():
    rows = {label: (f, u) for label, f, u in cost_rows(COST, UNFUSED)}
    assert rows["bytes read"] == ("4.0 KiB", "16.0 KiB")
    assert rows["FLOPs"][0] == "1 MFLOP"
    assert rows["registers / thread"] == ("-", "-")  # unknown on the CPU
    assert rows["predicted time"] == ("12 µs", "23 µs")
    # launch + memory + compute + overlap = predicted: 2 + 3 + 10 - 3 = 12 µs; 2 + 15 + 10 - 4
    assert rows["overlap (memory and compute at once)"] == ("−3 µs", "−4 µs")
    assert rows["saving"] == ("11 µs", "")           # seconds in the seconds column
    assert rows["speedup (unfused / fused)"] == ("1.92x", "")


def test_group_rows_carry_kind_size_time_and_flags(xla_module):
    g, plan = xla_module
    groups = grouping_from_plan(plan)
    costs = {x["id"]: COST for x in groups}
    unfused = {x["id"]: UNFUSED for x in groups}
    rows = group_rows(groups, costs, unfused)
    assert [r["id"] for r in rows] == [x["id"] for x in groups]
    assert rows[0]["predicted"] == "12 µs" and rows[0]["saving"] == "11 µs"
    assert all(r["n_ops"] == len(x["nodes"]) for r, x in zip(rows, groups))
    pinned = group_rows([dict(groups[0], pinned=True)])[0]
    assert pinned["state"] == "pinned" and pinned["predicted"] == "-"
    marked = group_rows(groups[:2], marks={groups[1]["id"]: "rejected"})
    assert [r["state"] for r in marked] == ["", "rejected"]


def test_cost_bars_stack_roofline_time_and_launch():
    groups = [{"id": "g0", "kind": "loop", "nodes": ["a"]}, {"id": "g1", "kind": "output",
                                                           "nodes": ["b", "c"]}]
    mem = dict(COST, memory_s=2e-5, compute_s=1e-6, predicted_s=2.2e-5)
    fig = cost_bars(groups, {"g0": mem, "g1": COST}, {"g0": UNFUSED, "g1": UNFUSED}, "g1")
    traces = {t.name: t for t in fig.data}
    assert traces["memory-bound time"].y == pytest.approx((20.0, 0.0))
    assert traces["compute-bound time"].y == pytest.approx((0.0, 10.0))
    assert traces["launch overhead"].y == pytest.approx((2.0, 2.0))
    assert traces["same ops unfused"].y == pytest.approx((23.0, 23.0))
    assert tuple(traces["launch overhead"].marker.line.width) == (0, 2)  # selected outlined
    assert fig.layout.barmode == "stack"


def test_roofline_has_both_ceilings_and_one_point_per_group():
    device = {"name": "h100", "bandwidth_Bps": 3.35e12, "peak_flops": 6.7e13}
    groups = [{"id": "g0", "kind": "loop", "nodes": ["a"]},
              {"id": "g1", "kind": "output", "nodes": ["b"]},
              {"id": "g2", "kind": "loop", "nodes": ["c"]}]
    costs = {"g0": COST, "g1": dict(COST, flops=10**9), "g2": dict(COST, flops=0)}
    pts = roofline_points(groups, costs)
    assert [p["id"] for p in pts] == ["g0", "g1"]  # no FLOPs: not on a roofline
    assert off_the_roofline(groups, costs) == ["g2"]  # ... but named under it
    note = roofline(device, pts, (), ["g2"]).layout.annotations[0].text
    assert note == "Not drawn, no FLOPs (data movement only): g2"
    assert pts[0]["ai"] == pytest.approx(1e6 / 6144)
    assert pts[0]["flops_per_s"] == pytest.approx(1e6 / 1.2e-5)
    measured = roofline_points(groups, costs, {"g0": 1e-4, "g1": 1e-3})
    assert len(roofline(device, pts).data) == 4  # the measured trace is there, empty
    fig = roofline(device, pts, measured)
    roof, pred, meas, launch = fig.data
    ridge = 6.7e13 / 3.35e12
    assert roof.x[1] == pytest.approx(ridge) and roof.y[1] == pytest.approx(6.7e13)
    assert roof.y[0] == pytest.approx(roof.x[0] * 3.35e12)  # the memory roof
    assert meas.y[0] == pytest.approx(1e10) and fig.layout.xaxis.type == "log"


def test_profile_bars_and_empty_figure():
    fig = profile_bars([{"group": "g0", "measured_s": 2e-6, "predicted_s": 1e-6}])
    assert [t.name for t in fig.data] == ["measured", "predicted"]
    assert fig.data[0].y == pytest.approx((2.0,)) and fig.layout.yaxis.title.text == "µs"
    slow = profile_bars([{"group": "g0", "measured_s": 0.031, "predicted_s": 7.5e-4}])
    assert slow.data[0].y == pytest.approx((31.0,)) and slow.layout.yaxis.title.text == "ms"
    assert empty_figure("nothing yet").layout.annotations[0].text == "nothing yet"


def test_decision_rows_and_step_text():
    ds = [Decision(0, "fuse", True, "benefit", "saves 12 µs", ("a", "b")),
          Decision(1, "fuse", False, "cycle", "would make a cycle", ("c", "d"))]
    assert decision_rows(ds, current=2)[1] == {
        "id": "2", "step": 2, "action": "fuse", "fused": "no", "reason": "cycle",
        "message": "would make a cycle", "nodes": "c, d", "current": True}
    assert decision_text(ds, 0)[0] == ""
    assert decision_text(ds, 1) == ("fused", "Step 1 of 2: fuse a, b", "benefit: saves 12 µs")
    assert decision_text(ds, 2) == ("refused", "Step 2 of 2: fuse c, d",
                                    "cycle: would make a cycle")  # row 2 of the log


def test_a_duplicated_producer_is_drawn_in_every_group_that_recomputes_it():
    from workbench.planner import plan_graph

    g = load_graph(SAMPLES_DIR / "multi_consumer.json")
    plan = plan_graph(g, policy="xla-cpu")
    homes = [grp for grp in plan.groups if "producer" in grp.nodes]
    assert len(homes) >= 2 and all("producer" in grp.duplicated for grp in homes)
    els = elements_for(g, grouping_from_plan(plan))
    drawn = [e for e in els if e["data"].get("node") == "producer"]
    assert sorted(e["data"]["gid"] for e in drawn) == sorted(grp.id for grp in homes)
    assert all("dup" in e["classes"].split() for e in drawn)
    assert len({e["data"]["id"] for e in drawn}) == len(drawn)
    # each copy feeds its own group's consumers
    for e in drawn:
        readers = [x for x in els if x["data"].get("source") == e["data"]["id"]]
        members = {x["data"]["id"] for x in els if x["data"].get("gid") == e["data"]["gid"]}
        assert any(x["data"]["target"] in members for x in readers)


def test_opaque_ops_are_marked():
    from workbench.ir import Attrs, GraphBuilder, Node, TensorType, verify
    from workbench.planner import unfused_plan

    b = GraphBuilder("opaque")
    x = b.parameter("x", (4,))
    b.node(Node("cc", "opaque", (x,), TensorType((4,), "f32"), Attrs(hlo_opcode="custom-call")))
    y = b.op("negate", ["cc"], node_id="y")
    g = verify(b.build([y]))
    els = elements_for(g, grouping_from_plan(unfused_plan(g)))
    cc = next(e for e in els if e["data"].get("node") == "cc")
    assert "opaque" in cc["classes"].split() and cc["data"]["kind"] == "opaque"


def test_dead_groups_are_marked_in_the_drawing_and_the_table():
    from workbench.ir import GraphBuilder, verify
    from workbench.planner import plan_graph

    b = GraphBuilder("with_dead_code")
    x = b.parameter("x", (64,))
    y = b.op("negate", [x], node_id="y")
    b.op("exponential", [x], node_id="unused")
    g = verify(b.build([y]))
    plan = plan_graph(g)
    dead = plan.group_of("unused")
    assert dead.role == "dead"
    els = elements_for(g, grouping_from_plan(plan))
    drawn = next(e for e in els if e["data"].get("node") == "unused")
    assert "role-dead" in drawn["classes"].split()
    row = next(r for r in group_rows(grouping_from_plan(plan)) if r["id"] == dead.id)
    assert row["kind"].split(" · ")[1] == "dead"
    assert {"selector": ".role-dead", "style": {"opacity": 0.45}} in stylesheet()


def test_roofline_draws_cache_ceilings_after_the_patched_traces():
    device = {"name": "cpu", "bandwidth_Bps": 2.5e10, "peak_flops": 2e11,
              "caches": [{"level": "l2", "bytes": 1 << 20, "bandwidth_Bps": 1e11}]}
    fig = roofline(device, [{"id": "g0", "ai": 0.5, "flops_per_s": 1e9, "kind": "loop"}])
    names = [t.name for t in fig.data]
    assert names[1:3] == ["predicted", "measured"]        # the app patches data[2]
    assert names[4] == "L2 (1.0 MiB)"
    l2 = fig.data[4]
    # the L2 ceiling rises at 1e11 B/s and meets the compute peak at 2e11 / 1e11 = 2 FLOP/B
    assert l2.x[1] == pytest.approx(2.0) and l2.y[1] == pytest.approx(2e11)
    assert l2.y[0] == pytest.approx(l2.x[0] * 1e11)
    assert fig.data[0].x[1] == pytest.approx(8.0)         # the DRAM ridge


def test_roofline_draws_the_one_core_ceiling_of_a_cpu_profile():
    device = {"name": "cpu", "bandwidth_Bps": 2.5e10, "peak_flops": 2e11, "caches": [],
              "core_flops": 8e10}
    fig = roofline(device, [{"id": "g0", "ai": 0.5, "flops_per_s": 1e9, "kind": "loop"}])
    names = [t.name for t in fig.data]
    assert names[1:3] == ["predicted", "measured"] and names[4] == "one core (80 GFLOP/s)"
    core = fig.data[4]
    # flat at 8e10 FLOP/s from where the DRAM slope reaches it, 8e10 / 2.5e10 = 3.2 FLOP/B
    assert tuple(core.y) == (8e10, 8e10) and core.x[0] == pytest.approx(3.2)
    assert [t.name for t in roofline(dict(device, core_flops=None), []).data][4:] == []


def test_many_kernels_draw_the_slowest_and_the_rest_in_one_bar():
    groups = [{"id": f"g{k}", "kind": "loop", "nodes": [f"n{k}"]} for k in range(219)]
    costs = {g["id"]: dict(COST, predicted_s=1e-6 * (k + 1), memory_s=1e-6 * (k + 1),
                           compute_s=0.0) for k, g in enumerate(groups)}
    fig = cost_bars(groups, costs, {g["id"]: UNFUSED for g in groups}, selected="g3")
    names = list(fig.data[0].x)
    assert len(names) == BAR_LIMIT + 1 and names[-1] == f"rest ({219 - BAR_LIMIT} kernels)"
    assert "g218" in names and "g3" in names          # the slowest, and the selected one
    total = sum(fig.data[0].y)                        # memory-bound parts, µs
    assert total == pytest.approx(sum(k + 1 for k in range(219)))  # nothing lost in "rest"
    rows = [{"group": g["id"], "measured_s": 1e-6 * k, "predicted_s": 1e-6} for k, g in
            enumerate(groups)]
    bars = profile_bars(rows)
    assert list(bars.data[0].x)[-1] == f"rest ({219 - BAR_LIMIT + 1} kernels)"
    assert "slowest" in bars.layout.title.text
    top = top_rows([{"id": "a", "t": 1.0}, {"id": "b", "t": 3.0}, {"id": "c", "t": None}], 2,
                   "t")
    assert [r["id"] for r in top] == ["b", "a"]


def test_roofline_labels_the_slowest_and_draws_launch_ceilings_that_bind():
    device = {"name": "h100", "bandwidth_Bps": 3.35e12, "peak_flops": 6.7e13}
    groups = [{"id": f"g{k}", "kind": "loop", "nodes": ["a"]} for k in range(20)]
    costs = {g["id"]: dict(COST, predicted_s=(k + 1) * 1e-6, launch_overhead_s=4e-6,
                           bound="launch") for k, g in enumerate(groups)}
    pts = roofline_points(groups, costs)
    fig = roofline(device, pts)
    labels = [t for t in fig.data[1].text if t]
    assert len(labels) == 12 and "g19" in labels and "g0" not in labels
    launch = fig.data[3]
    assert launch.name.startswith("launch ceiling")
    # 1 MFLOP in a 4 µs launch: at most 2.5e11 FLOP/s, under the roof at 163 FLOP/B
    assert launch.y[0] == pytest.approx(1e6 / 4e-6)
    assert "20 of 20 kernels launch-bound" in fig.layout.title.text


def test_scoped_ids_keep_untouched_elements_and_renew_those_whose_container_changed():
    from workbench.app.graph_figure import with_scoped_ids

    def drawing(groups):
        els = [{"data": {"id": "L1"}}]
        for g, ops in groups.items():
            els.append({"data": {"id": g, "parent": "L1"}})
            els += [{"data": {"id": o, "parent": g}, "position": {"x": 1, "y": 2}} for o in ops]
        els.append({"data": {"id": "a>c", "source": "a", "target": "c"}})
        return with_scoped_ids(els, "graph|plan")

    before = {e["data"]["vid"]: e["data"]["id"] for e in drawing(
        {"G:ab": ["a", "b"], "G:cd": ["c", "d"]}) if "vid" in e["data"]}
    after_els = drawing({"G:ab": ["a", "b"], "G:c": ["c"], "G:d": ["d"]})  # G:cd split
    after = {e["data"]["vid"]: e["data"]["id"] for e in after_els if "vid" in e["data"]}
    assert before["L1"] == after["L1"] and before["a"] == after["a"]
    assert before["b"] == after["b"] and before["G:ab"] == after["G:ab"]
    assert before["c"] != after["c"] and before["d"] != after["d"]  # their box is gone
    by_id = {e["data"]["id"]: e for e in after_els}
    assert by_id[after["a"]]["data"]["parent"] == after["G:ab"]
    edge = next(e for e in after_els if "source" in e["data"])
    assert (edge["data"]["source"], edge["data"]["target"]) == (after["a"], after["c"])
    # every kept id's container is kept too: removing a gone box never takes a kept node along
    kept = set(before.values()) & set(after.values())
    assert all(by_id[k]["data"].get("parent") in kept | {None} for k in kept)
    # another salt (another graph, view or open layers): every id is new
    other = {e["data"]["id"] for e in with_scoped_ids([{"data": {"id": "L1"}}], "graph|xla")}
    assert before["L1"] not in other


def test_the_time_memory_chart_keeps_labels_of_close_plans_apart():
    """Plans at one place are one point named for both; plans close together label on
    different sides (the Diff tab's chart drew "proposal" over "greedy", and "xla-cpu" over
    "unfused")."""
    from workbench.app.figures_whatif import label_positions, merged_points, time_memory_figure

    points = [
        {"label": "proposal", "predicted_s": 274e-6, "peak_bytes": 1_260_000, "same_as": None},
        {"label": "unfused", "predicted_s": 300e-6, "peak_bytes": 1_460_000, "same_as": None},
        {"label": "greedy", "predicted_s": 274e-6, "peak_bytes": 1_260_000,
         "same_as": "proposal"},
        {"label": "xla-cpu", "predicted_s": 279e-6, "peak_bytes": 1_460_000, "same_as": None},
        {"label": "far", "predicted_s": 800e-6, "peak_bytes": 1_260_000, "same_as": None}]
    merged = merged_points(points)
    assert [p["label"] for p in merged] == ["proposal = greedy", "unfused", "xla-cpu", "far"]
    pos = label_positions(merged)
    assert pos[1] != pos[2]                    # unfused and xla-cpu: close, different sides
    # close on an x axis a measured time widens, too (as the Diff tab drew them: 279 µs and
    # 300 µs predicted, 800 µs measured)
    near = [{"label": "xla-cpu", "predicted_s": 279e-6, "peak_bytes": 1_460_000},
            {"label": "unfused", "predicted_s": 300e-6, "peak_bytes": 1_460_000},
            {"label": "proposal", "predicted_s": 274e-6, "peak_bytes": 1_260_000}]
    first, second, _ = label_positions(near, [800e-6])
    assert first != second
    fig = time_memory_figure(points)
    assert list(fig.data[0].text) == ["proposal = greedy", "unfused", "xla-cpu", "far"]
    assert list(fig.data[0].textposition) == pos
    lo, hi = fig.layout.yaxis.range
    assert lo < 1_260_000 / 2**20 and hi > 1_460_000 / 2**20  # room for the labels

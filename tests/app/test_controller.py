"""The controller (what the callbacks do) with the real planner, cost model and editing."""

from __future__ import annotations

import pytest

from tests.conftest import SAMPLES_DIR, shared_hlo_dir
from workbench.app import controller
from workbench.app.callbacks_plan import plan_summary, run_edit
from workbench.app.drawing import vertex_ids
from workbench.app.graph_figure import grouping_from_plan
from workbench.app.server import AppConfig, Services
from workbench.app.state import graph_key
from workbench.errors import LegalityError, PlanError, WorkbenchError
from workbench.importers import load_graph


@pytest.fixture(scope="module")
def transformer():
    g = load_graph(SAMPLES_DIR / "transformer_block.json")
    return g, controller.open_workspace(graph_key(g), g, "sample transformer_block")


def test_open_plans_with_the_planner_and_costs_with_the_cost_model(transformer):
    g, ws = transformer
    assert ws.plan is ws.proposal and ws.history == (ws.plan,) and ws.plan.policy == "priority"
    cost = controller.plan_costs(ws, g)
    assert set(cost.groups) == {grp.id for grp in ws.plan.groups}
    assert cost.unfused_total.predicted_s > cost.total.predicted_s > 0
    text = plan_summary(ws.plan, cost)
    assert text.startswith(f"{ws.plan.num_kernels} kernels (policy priority, device cpu)")
    assert "unfused" in text and text.endswith("x)")


def test_an_illegal_merge_raises_the_checkers_reason_and_keeps_the_workspace(transformer):
    g, ws = transformer
    edit = controller.make_edit("merge", ws.plan, ["ln1", "ln2"], None)
    with pytest.raises(LegalityError) as info:
        controller.apply_user_edit(ws, g, edit)
    assert info.value.reason == "cycle"
    assert controller.error_text(info.value).endswith("[cycle]")
    assert ws.plan is ws.proposal and len(ws.history) == 1


def test_selection_errors_say_what_to_select(transformer):
    g, ws = transformer
    with pytest.raises(PlanError, match="two or more groups"):
        controller.make_edit("merge", ws.plan, ["ln1"], None)
    with pytest.raises(PlanError, match="exactly two nodes"):
        controller.make_edit("forbid", ws.plan, ["ln1", "qkv", "ln2"], None)
    with pytest.raises(PlanError, match="choose the group"):
        controller.make_edit("move", ws.plan, ["qkv"], None, None)
    with pytest.raises(PlanError, match="select a group"):
        controller.make_edit("split", ws.plan, [], None)


def test_split_undo_redo_reset_through_the_buttons(transformer):
    from workbench.app import ids

    g, ws = transformer
    big = max(ws.plan.groups, key=lambda grp: grp.size)
    split = run_edit(ws, g, ids.SPLIT, [], big.nodes[0], None)
    assert split.plan.num_kernels == ws.plan.num_kernels + big.size - 1
    assert split.plan.decisions[-1].action == "edit" or len(split.plan.decisions) > len(
        ws.plan.decisions)
    back = run_edit(split, g, ids.UNDO, [], None, None)
    assert back.plan == ws.plan
    assert run_edit(back, g, ids.REDO, [], None, None).plan == split.plan
    reset = run_edit(split, g, ids.RESET, [], None, None)
    assert reset.plan == ws.proposal and len(reset.history) == 3
    with pytest.raises(PlanError, match="already is the planner's proposal"):
        run_edit(ws, g, ids.RESET, [], None, None)


def test_accept_all_pins_every_group_and_replan_keeps_them(transformer):
    from workbench.app import ids

    g, ws = transformer
    accepted = run_edit(ws, g, ids.ACCEPT_ALL, [], None, None)
    assert all(grp.pinned for grp in accepted.plan.groups if grp.size > 1)
    with pytest.raises(PlanError, match=r"all \d+ groups of two or more ops are already pinned"):
        controller.accept_all(accepted, g)
    again = controller.replan(accepted, g, "greedy", "cpu")
    kept = {frozenset(grp.nodes) for grp in accepted.plan.groups if grp.size > 1}
    assert kept <= {frozenset(grp.nodes) for grp in again.plan.groups}
    assert again.policy == "greedy" and again.proposal is again.plan


def test_moving_a_node_uses_the_chosen_group(transformer):
    from workbench.editing import Move

    g, ws = transformer
    edit = controller.make_edit("move", ws.plan, ["qkv"], None, "g5")
    assert edit == Move("qkv", "g5")


def test_the_replay_view_starts_with_every_op_alone(transformer):
    g, ws = transformer
    n_ops = sum(1 for n in g.nodes if n.op not in ("parameter", "constant"))
    start = controller.current_view(ws, g, 0)
    assert start.mode == "replay" and len(start.groups) == n_ops
    assert f"step 0 of {len(ws.plan.decisions)}" in start.banner
    end = controller.current_view(ws, g, len(ws.plan.decisions))
    assert end.mode == "plan" and [x["id"] for x in end.groups] == [
        grp.id for grp in ws.plan.groups]


def test_xla_view_and_agreement_for_an_optimised_module():
    g = load_graph(shared_hlo_dir() / "transformer_block.after_noynn.hlo")
    ws = controller.open_workspace(graph_key(g), g, "after")
    assert controller.has_xla_grouping(g)
    view = controller.current_view(ws, g, None, show_xla=True)
    assert view.mode == "xla" and "XLA's own grouping" in view.banner
    before = load_graph(shared_hlo_dir() / "transformer_block.before.hlo")
    assert not controller.has_xla_grouping(before)
    # the toggle left on from another graph: the plan is drawn, and the banner says why
    ws_b = controller.open_workspace("k", before, "b")
    view = controller.current_view(ws_b, before, None, True)
    assert view.mode == "plan" and [x["id"] for x in view.groups] == [
        grp.id for grp in ws_b.plan.groups]
    assert "no XLA fusion tags" in view.banner


def test_the_agreement_names_its_policy_and_gives_the_xla_cpu_figure_beside_it():
    """``workbench compare-xla`` compares the xla-cpu policy's plan by default; the app says
    which plan its F1 is for and gives that figure too, so the two agree visibly."""
    from workbench.planner import plan_graph
    from workbench.planner.compare import compare_with_xla

    g = load_graph(shared_hlo_dir() / "softmax.after_noynn.hlo")
    ws = controller.open_workspace(graph_key(g), g, "after")  # policy priority
    mine = compare_with_xla(g, ws.plan).f1
    cli = compare_with_xla(g, plan_graph(g, "xla-cpu", "cpu")).f1
    text = controller.xla_agreement_text(ws, g)
    assert "of the current plan (policy priority): precision" in text
    assert f"F1 {mine:.3f};" in text
    assert ("The xla-cpu policy's plan (what `workbench compare-xla` reports by default): "
            "precision") in text and f"F1 {cli:.3f}; XLA's kernels reproduced exactly" in text
    xws = controller.open_workspace(graph_key(g), g, "after", "xla-cpu")
    text = controller.xla_agreement_text(xws, g)
    assert "(policy xla-cpu): precision" in text and f"F1 {cli:.3f};" in text
    assert "The xla-cpu policy's plan" not in text  # it is the current plan


def test_a_merge_moves_no_node_but_its_own_and_re_layout_starts_afresh(tmp_path):
    """The session remembers the layout; an edit keeps every node that stayed in place."""
    services = Services(AppConfig())
    g = load_graph(SAMPLES_DIR / "mlp.json")
    ws = controller.open_workspace(graph_key(g), g, "mlp", "xla-cpu", "cpu")
    record = {"graph": ws.graph_key, "open": [], "nodes": []}
    before = services.canvas_for("s1", ws.graph_key, g, grouping_from_plan(ws.plan), record,
                                 "plan").layout
    merged = controller.apply_user_edit(
        ws, g, controller.make_edit("merge", ws.plan, ["matmul1", "bias_add1"], None))
    after = services.canvas_for("s1", ws.graph_key, g, grouping_from_plan(merged.plan),
                                record, "plan").layout
    vid = vertex_ids(g)
    group = {vid[n] for n in merged.plan.group_of("matmul1").nodes}
    moved = {k for k, p in after.positions.items() if before.positions.get(k) != p}
    assert moved <= group
    # another session lays out afresh; so does this one after Re-layout
    services.forget_layouts("s1")
    again = services.canvas_for("s1", ws.graph_key, g, grouping_from_plan(merged.plan),
                                record, "plan").layout
    fresh = services.canvas_for("s2", ws.graph_key, g, grouping_from_plan(merged.plan),
                                record, "plan").layout
    assert again.positions == fresh.positions


def test_edit_marks_pinned_rejected_and_kept_apart(transformer):
    from workbench.editing import Forbid, Pin, Reject, apply_edits

    g, ws = transformer
    multi = [grp for grp in ws.plan.groups if grp.size > 1]
    a, b, c = multi[0], multi[1], multi[2]
    plan = apply_edits(g, ws.plan, [Reject(a.nodes[0]), Pin(b.nodes[0]),
                                    Forbid(c.nodes[0], c.nodes[1])])
    marks = controller.group_marks(plan)
    assert {plan.group_of(n).id for n in a.nodes} == {
        gid for gid, m in marks.items() if m == "rejected"}
    assert marks[plan.group_of(b.nodes[0]).id] == "pinned"
    assert marks[plan.group_of(c.nodes[0]).id] == "kept apart"
    assert controller.group_marks(ws.plan) == {}
    view = controller.current_view(ws.replace(history=(plan,), position=0), g)
    assert {x["id"]: x.get("mark") for x in view.groups if x.get("mark")} == marks


def test_accept_all_says_why_when_there_is_nothing_to_accept():
    g = load_graph(SAMPLES_DIR / "chain10.json")
    ws = controller.open_workspace(graph_key(g), g, "chain10")
    big = max(ws.plan.groups, key=lambda grp: grp.size)
    from workbench.editing import Reject

    assert sum(1 for grp in ws.plan.groups if grp.size > 1) == 1  # one loop fusion
    rejected = controller.apply_user_edit(ws, g, Reject(big.nodes[0]))
    with pytest.raises(PlanError, match="nothing to accept: every op runs as its own kernel"):
        controller.accept_all(rejected, g)


def test_a_saved_plan_is_applied_to_its_own_graph_only(transformer):
    from workbench.app.callbacks_load import plan_document

    g, ws = transformer
    split = run_edit(ws, g, "split-group", [], max(ws.plan.groups, key=lambda x: x.size).nodes[0],
                     None)
    data = ws.plan.dumps().encode()
    doc = plan_document(data)
    assert doc is not None and doc["format"] == "fusion-workbench-plan"
    back = controller.apply_plan_file(split, g, doc)
    assert back.plan == ws.plan and len(back.history) == len(split.history) + 1
    assert controller.undo(back).plan == split.plan
    with pytest.raises(PlanError, match="current plan already"):
        controller.apply_plan_file(back, g, doc)
    other = load_graph(SAMPLES_DIR / "mlp.json")
    mlp = controller.open_workspace(graph_key(other), other, "mlp")
    with pytest.raises(PlanError, match="made for graph 'transformer_block'"):
        controller.apply_plan_file(mlp, other, doc)
    # graphs and other files are not plans: the importers read those
    assert plan_document((SAMPLES_DIR / "mlp.json").read_bytes()) is None
    assert plan_document(b"HloModule m") is None
    assert plan_document(b'{"format": "fusion-workbench-plan", ') is None


def test_the_move_list_leaves_out_the_nodes_own_group(transformer):
    from workbench.app.callbacks_plan import move_options, run_edit as plan_run_edit

    g, ws = transformer
    own = ws.plan.group_of("qkv")
    values = [o["value"] for o in move_options(ws.plan, ["qkv"])]
    assert own.nodes[0] not in values and len(values) == len(ws.plan.groups) - 1
    assert len(move_options(ws.plan, [])) == len(ws.plan.groups)
    one = next(grp for grp in ws.plan.groups if grp.size == 1)
    label = move_options(ws.plan, [])[ws.plan.groups.index(one)]["label"]
    assert label == f"{one.id} ({one.kind}, 1 op: {one.nodes[0]})"
    # the target is named by a member, so it is the same group after a renumbering
    target = next(grp for grp in ws.plan.groups if grp.id != own.id and grp.size > 1)
    try:
        moved = plan_run_edit(ws, g, "move-node", ["qkv"], None, target.nodes[0])
        assert moved.plan.group_of("qkv").nodes[0] == target.nodes[0] or \
            target.nodes[0] in moved.plan.group_of("qkv").nodes
    except WorkbenchError as exc:
        assert exc.reason  # a refusal says why (the checker's reason code)


def test_replay_steps_are_drawn_truthfully_and_follow_each_other(tmp_path):
    """Each step is laid out from the one before: what a step did not touch stays."""
    from workbench.app.scene_layout import sibling_overlaps

    services = Services(AppConfig())
    g = load_graph(SAMPLES_DIR / "chain10.json")
    ws = controller.open_workspace(graph_key(g), g, "chain10")
    record = {"graph": ws.graph_key, "open": [], "nodes": []}
    vid = vertex_ids(g)
    last, before = None, None
    for step in range(len(ws.plan.decisions)):
        view = controller.current_view(ws, g, step)
        canvas = services.canvas_for("s", ws.graph_key, g, view.groups, record, view.mode)
        assert sibling_overlaps(canvas.scene, canvas.layout.rects) == [], step
        sets = {frozenset(x["nodes"]) for x in view.groups}
        if last is not None:
            # only the members of the groups this step made may move
            new = {vid[n] for s in sets - before for n in s}
            kept = [k for k in canvas.layout.positions if k in last and not k.startswith("G:")]
            moved = {k for k in kept if canvas.layout.positions[k] != last[k]}
            assert moved <= new, (step, sorted(moved - new))
        last, before = canvas.layout.positions, sets


def test_a_refused_merge_marks_the_path_that_makes_the_cycle(transformer):
    g, ws = transformer
    with pytest.raises(WorkbenchError) as err:
        controller.apply_user_edit(ws, g, controller.make_edit("merge", ws.plan,
                                                               ["ln1", "ln2"], None))
    marks = controller.refusal_marks(g, ws.plan, ["ln1", "ln2"], err.value)
    path = marks["path"]
    members = set(ws.plan.group_of("ln1").nodes) | set(ws.plan.group_of("ln2").nodes)
    assert path[0] in members and path[-1] in members
    assert all(x not in members for x in path[1:-1]) and len(path) >= 3
    assert all(b in g.users(a) for a, b in zip(path, path[1:]))  # a real path, in order
    assert marks["step"] == [vertex_ids(g)[n] for n in path]
    assert controller.refusal_marks(g, ws.plan, ["ln1"], err.value) is None


def test_xla_groups_carry_xlas_fusion_names_and_agreement():
    g = load_graph(shared_hlo_dir() / "softmax.after_noynn.hlo")
    ws = controller.open_workspace(graph_key(g), g, "after", "xla-cpu")
    view = controller.current_view(ws, g, None, show_xla=True, agreement=True)
    named = [x for x in view.groups if len(x["nodes"]) > 1]
    assert named and all(x["name"].startswith(("fusion", "wrapped", "loop_", "input_"))
                         or x["name"] for x in named)
    xla_names = {g.node(n).meta["xla_fusion"] for x in named for n in x["nodes"]}
    assert {x["name"] for x in named} <= xla_names
    assert {x["xla"] for x in named} <= {"both", "xla"}
    ours = controller.current_view(ws, g, None, agreement=True)
    sets = {frozenset(x["nodes"]) for x in named}
    for x in ours.groups:
        if len(x["nodes"]) > 1:
            assert x["xla"] == ("both" if frozenset(x["nodes"]) in sets else "ours")


def test_folding_batch_norms_in_the_app_says_what_it_folded():
    g = load_graph(SAMPLES_DIR / "conv_bn_relu.json") if (
        SAMPLES_DIR / "conv_bn_relu.json").exists() else None
    if g is None:
        g = next(load_graph(p) for p in sorted(SAMPLES_DIR.glob("*.json"))
                 if any(n.op == "batch_norm_inference" for n in load_graph(p).nodes))
    folded, report = controller.fold_graph(g)
    assert report.folded and len(folded.nodes) != len(g.nodes) or report.folded
    text = controller.fold_text(report)
    assert all(f"{f.norm} into {f.conv}" in text for f in report.folded)


def test_device_options_hold_a_knobbed_profile_only_when_it_is_not_a_base_profile():
    from workbench.app.controller import device_choices, device_options

    base = [o["value"] for o in device_options("h100")]
    assert base == list(device_choices()) and "h100" in base
    opts = device_options("h100+peak_flops=6.7e+10")
    assert [o["value"] for o in opts] == base + ["h100+peak_flops=6.7e+10"]
    assert opts[-1]["label"] == "h100 + knobs (peak_flops=6.7e+10)"
    assert [o["value"] for o in device_options(None)] == base
    two = device_options("h100+launch_overhead_s=1e-06+peak_flops=6.7e+10")[-1]["label"]
    assert two == "h100 + knobs (launch_overhead_s=1e-06, peak_flops=6.7e+10)"

"""What the plan panel says after an edit, and what stays put (the newcomer review's defects):
the edit's own words (a merge, an undo of a merge), the groups renumbered, the message styled
as information (not an error) and cleared when another group is picked, the replay step an
edit or undo leaves alone, a one-op group's style, ratios with sensible precision."""

from __future__ import annotations

import pytest

from tests.conftest import SAMPLES_DIR
from workbench.app import controller, edit_notes, ids
from workbench.app.callbacks_plan import run_edit
from workbench.app.fmt import fmt_ratio
from workbench.app.graph_figure import (GROUP_PAD, KIND_COLORS, SELECT_COLOR, highlight_rules,
                                        stylesheet)
from workbench.app.state import graph_key
from workbench.errors import PlanError
from workbench.importers import load_graph


@pytest.fixture(scope="module")
def transformer():
    g = load_graph(SAMPLES_DIR / "transformer_block.json")
    return g, controller.open_workspace(graph_key(g), g, "sample transformer_block")


def _middle_group(plan):
    """A multi-op group with groups after it (a split there renumbers them)."""
    multi = [g for g in plan.groups[:-2] if g.size > 2]
    return max(multi, key=lambda g: g.size)


def test_a_split_says_what_it_did_and_which_groups_were_renumbered(transformer):
    g, ws = transformer
    big = _middle_group(ws.plan)
    split = run_edit(ws, g, ids.SPLIT, [], big.nodes[0], None)
    note = edit_notes.edit_note("edit", ws.plan, split.plan)
    assert note == f"you split {big.id} into {big.size} single-op kernels"
    pairs = edit_notes.renamed_groups(ws.plan, split.plan)
    assert pairs, "a split before other groups shifts their ids"
    for old, new in pairs:   # the same ops under a new id
        assert ws.plan.group(old).nodes == split.plan.group(new).nodes and old != new
    unchanged = {frozenset(x.nodes) for x in ws.plan.groups} & {
        frozenset(x.nodes) for x in split.plan.groups}
    assert len(pairs) == sum(1 for x in split.plan.groups if frozenset(x.nodes) in unchanged
                             and ws.plan.group_of(x.nodes[0]).id != x.id)
    text = edit_notes.renamed_note(ws.plan, split.plan)
    first, last = pairs[0], pairs[-1]
    assert text.startswith("renumbered (the same ops, new ids): ")
    assert f"{first[0]}..{last[0]} are now {first[1]}..{last[1]}" in text, text
    # undo names the ids back
    back = run_edit(split, g, ids.UNDO, [], None, None)
    assert edit_notes.renamed_groups(split.plan, back.plan) == [(b, a) for a, b in pairs]


def test_undoing_a_merge_says_the_merge_was_undone_not_a_split():
    """XLA:CPU's policy leaves the mlp's matmul1 alone; merged with its bias it makes one
    kernel."""
    g = load_graph(SAMPLES_DIR / "mlp.json")
    ws = controller.open_workspace(graph_key(g), g, "sample mlp", policy="xla-cpu")
    a, b = ws.plan.group_of("matmul1"), ws.plan.group_of("bias_add1")
    assert a.id != b.id
    merged = run_edit(ws, g, ids.MERGE, ["matmul1", "bias_add1"], None, None)
    said = edit_notes.edit_note("edit", ws.plan, merged.plan)
    assert said.startswith(f"you merged {a.id}, {b.id} into one kernel of "), said
    back = run_edit(merged, g, ids.UNDO, [], None, None)
    undone = edit_notes.edit_note("undo", merged.plan, back.plan)
    assert undone.startswith(f"undid the merge (you merged {a.id}, {b.id}"), undone
    assert "split" not in undone
    again = run_edit(back, g, ids.REDO, [], None, None)
    assert edit_notes.edit_note("redo", back.plan, again.plan).startswith("redid the merge (")


def test_an_edit_or_an_undo_keeps_the_decisions_before_it(transformer):
    """What the replay slider keeps (``version.keep``): a split appends its decision, undo
    takes it away, the n decisions before are the same; a new proposal shares none."""
    g, ws = transformer
    n = len(ws.plan.decisions)
    split = run_edit(ws, g, ids.SPLIT, [], _middle_group(ws.plan).nodes[0], None)
    assert len(split.plan.decisions) == n + 1
    assert edit_notes.common_decisions(ws.plan, split.plan) == n
    back = run_edit(split, g, ids.UNDO, [], None, None)
    assert edit_notes.common_decisions(split.plan, back.plan) == n
    other = controller.make_proposal(g, "greedy", "cpu")
    assert edit_notes.common_decisions(ws.plan, other) < n


def test_a_one_op_group_is_drawn_like_a_group_not_like_the_selection():
    rules = {r["selector"]: r["style"] for r in stylesheet()}
    box = rules["node.group"]
    sel = {r["selector"]: r["style"] for r in highlight_rules()}["node.hl-sel"]
    for kind, color in KIND_COLORS.items():
        single = rules[f"node.single.kind-{kind}"]
        assert single["border-width"] <= box["border-width"] < sel["border-width"], kind
        assert single["border-color"] == color != SELECT_COLOR
        assert single["background-color"] not in ("#ffffff", color)  # tinted like a box
    assert GROUP_PAD  # (the box rule the single imitates)


@pytest.mark.parametrize("x, text", [(1.234, "1.23x"), (12.345, "12.3x"), (447.2, "447x"),
                                     (44691.3, "44,691x"), (None, "-"), (float("inf"), "-")])
def test_ratios_are_printed_with_sensible_precision(x, text):
    assert fmt_ratio(x) == text


# ----- through the server's callbacks ------------------------------------------------------------

def test_the_edit_message_is_information_and_a_refusal_an_error(served):
    app, s, client = served()
    sid = client.new_session()
    plan = app.services.session(sid)[0].plan
    big = _middle_group(plan)
    split = client.edit(sid, ids.SPLIT, big.nodes[0]).props()
    text = split[(ids.EDIT_MSG, "children")]
    assert text.startswith(f"you split {big.id} into {big.size} single-op kernels; ")
    assert "selection cleared" in text and "renumbered (the same ops, new ids): " in text
    assert split[(ids.EDIT_MSG, "className")] == "msg info"   # not red: nothing went wrong
    assert split[(ids.VERSION, "data")]["keep"] == len(plan.decisions)
    undo = client.edit(sid, ids.UNDO).props()
    assert undo[(ids.EDIT_MSG, "children")].startswith("undid the split (you split ")
    assert undo[(ids.EDIT_MSG, "className")] == "msg info"
    refused = client.edit(sid, ids.MERGE, nodes=[big.nodes[0]]).props()
    assert refused[(ids.EDIT_MSG, "className")] == "msg error"


def test_picking_another_group_clears_the_last_edits_message(served):
    app, s, client = served()
    sid = client.new_session()
    plan = app.services.session(sid)[0].plan
    other = next(g for g in plan.groups if g.size > 1)
    version = client.version(sid)
    tap = client.call(f"{ids.SELECTED}.data", {
        (ids.CYTO, "tapNodeData"): {"gid": other.id, "node": other.nodes[0]},
        (ids.VERSION, "data"): version}, trigger=f"{ids.CYTO}.tapNodeData").props()
    assert tap[(ids.SELECTED, "data")] == other.nodes[0]
    assert tap[(ids.EDIT_MSG, "children")] == ""
    row = client.call(f"{ids.SELECTED}.data", {
        (ids.ROW_PICK, "data"): [{"id": plan.groups[-1].id}], (ids.VERSION, "data"): version,
        (ids.SELECTED, "data"): other.nodes[0]}, trigger=f"{ids.ROW_PICK}.data").props()
    assert row[(ids.EDIT_MSG, "children")] == ""


def test_an_edit_that_changes_nothing_adds_no_step_and_says_so(transformer):
    """A split of a one-op group: no history step (undo then did nothing visible)."""
    g, ws = transformer
    single = next(x for x in ws.plan.groups if x.size == 1)
    same = run_edit(ws, g, ids.SPLIT, [], single.nodes[0], None)
    assert same is ws and len(same.history) == 1 and same.position == 0
    assert edit_notes.edit_note("edit", ws.plan, same.plan) == (
        "the plan did not change (nothing to split, move or merge there); no step was added "
        "to undo")
    with pytest.raises(PlanError, match="nothing to undo"):
        run_edit(same, g, ids.UNDO, [], None, None)
    # an undo/redo between equal plans (an uploaded plan equal to one before) still says so
    assert edit_notes.edit_note("undo", ws.plan, ws.plan) == "undid a step that changed nothing"


def test_a_merge_names_the_group_it_made_and_the_table_rows_can_be_merged():
    """XLA:CPU's mlp: each matmul alone. The merge's words end with the merged group's id
    (ids follow the kernels' order); two rows of the group table merge as two canvas nodes
    do; one row is not enough (the canvas selection is used, and says what to select)."""
    g = load_graph(SAMPLES_DIR / "mlp.json")
    ws = controller.open_workspace(graph_key(g), g, "sample mlp", policy="xla-cpu")
    a, b = ws.plan.group_of("matmul1"), ws.plan.group_of("bias_add1")
    merged = run_edit(ws, g, ids.MERGE, [], None, None, [a.id, b.id])
    gid = merged.plan.group_of("matmul1").id
    assert merged.plan.group_of("bias_add1").id == gid
    assert edit_notes.edit_note("edit", ws.plan, merged.plan) == (
        f"you merged {a.id}, {b.id} into one kernel of {a.size + b.size} ops, now group {gid}")
    by_nodes = run_edit(ws, g, ids.MERGE, ["matmul1", "bias_add1"], None, None)
    assert by_nodes.plan == merged.plan
    back = run_edit(merged, g, ids.UNDO, [], None, None)
    assert edit_notes.edit_note("redo", back.plan, merged.plan) == (
        f"redid the merge (you merged {a.id}, {b.id} into one kernel of "
        f"{a.size + b.size} ops, now group {gid})")
    with pytest.raises(PlanError, match="two or more rows of the group table"):
        run_edit(ws, g, ids.MERGE, [], None, None, [a.id, "g999"])
    # a move names the group moved into, under its id after the edit
    moved = run_edit(ws, g, "move-node", ["bias_add1"], None, "matmul1")
    assert edit_notes.edit_note("edit", ws.plan, moved.plan) == (
        f"you moved bias_add1 from {b.id} to {a.id}, now group "
        f"{moved.plan.group_of('matmul1').id}")


def test_several_table_rows_stay_selected_until_an_edit_or_the_graph_selection():
    from workbench.app.callbacks_plan import table_rows

    picked = {f"{ids.ROW_PICK}.data": ids.ROW_PICK}
    assert table_rows(["g3"], ["g3", "g5"], picked) == ["g3", "g5"]
    assert table_rows(["g3"], ["g3", "g5"], {f"{ids.SELECTED}.data": 1}) == ["g3", "g5"]
    # new rows (an edit renumbers: g5 may be another group now), a pick on the graph
    assert table_rows(["g3"], ["g3", "g5"], {f"{ids.GROUP_TABLE}.rowData": 1}) == ["g3"]
    assert table_rows(["g3"], ["g3", "g5"], {f"{ids.CYTO}.selectedNodeData": 1}) == ["g3"]
    # the selected group is not among them, or there is none
    assert table_rows(["g7"], ["g3", "g5"], picked) == ["g7"]
    assert table_rows([], ["g3", "g5"], picked) == []


def test_the_selection_line_names_the_rows_for_merge(transformer):
    from workbench.app.callbacks_plan import SELECT_HINT, selection_text

    _, ws = transformer
    first, second = ws.plan.groups[0], ws.plan.groups[1]
    text = selection_text(ws.plan, first.nodes[0], [], [first.id, second.id])
    assert text == (f"Selected group {first.id} ({first.kind}, "
                    f"{first.size} op{'s' if first.size > 1 else ''}); 2 rows selected in the "
                    f"table: {first.id}, {second.id} (Merge merges them)")
    assert "rows selected" not in selection_text(ws.plan, first.nodes[0], [], [first.id])
    assert selection_text(ws.plan, None, []) == SELECT_HINT
    assert "ctrl- or shift-click rows of the table" in SELECT_HINT


def test_nothing_to_do_is_information_and_a_no_change_split_adds_no_step(served):
    """"nothing to undo" was red; a split of a one-op group added an empty history step."""
    app, s, client = served()
    sid = client.new_session()
    ws = app.services.session(sid)[0]
    undo = client.edit(sid, ids.UNDO).props()
    assert undo[(ids.EDIT_MSG, "children")] == "nothing to undo"
    assert undo[(ids.EDIT_MSG, "className")] == "msg info"
    single = next(x for x in ws.plan.groups if x.size == 1)
    same = client.edit(sid, ids.SPLIT, single.nodes[0]).props()
    assert same[(ids.EDIT_MSG, "children")].endswith("no step was added to undo")
    assert same[(ids.EDIT_MSG, "className")] == "msg info"
    assert (ids.VERSION, "data") not in same   # nothing to redraw
    assert len(app.services.session(sid)[0].history) == 1


def test_merge_takes_the_rows_selected_in_the_group_table(served):
    """XLA:CPU's mlp (each matmul alone): the rows of matmul1's and bias_add1's groups."""
    app, s, client = served(SAMPLES_DIR / "mlp.json")
    sid = client.new_session()
    assert client.call(f"{ids.REPLAN_MSG}.children", {
        (ids.POLICY, "value"): "xla-cpu", (ids.DEVICE, "value"): "cpu",
        (ids.SESSION, "data"): sid}, trigger=f"{ids.POLICY}.value").status == 200
    plan = app.services.session(sid)[0].plan
    a, b = plan.group_of("matmul1"), plan.group_of("bias_add1")
    assert plan.policy == "xla-cpu" and a.id != b.id
    answer = client.call(f"{ids.EDIT_MSG}.children", {
        (ids.MERGE, "n_clicks"): 1, (ids.SESSION, "data"): sid,
        (ids.GROUP_TABLE, "selectedRows"): [{"id": a.id}, {"id": b.id}]},
        trigger=f"{ids.MERGE}.n_clicks").props()
    text = answer[(ids.EDIT_MSG, "children")]
    assert answer[(ids.EDIT_MSG, "className")] == "msg info", text
    new = app.services.session(sid)[0].plan
    gid = new.group_of(a.nodes[0]).id
    assert new.group_of(b.nodes[0]).id == gid and new.num_kernels == plan.num_kernels - 1
    assert text.startswith(f"you merged {a.id}, {b.id} into one kernel of "
                           f"{a.size + b.size} ops, now group {gid}")


def test_a_refused_merge_of_table_rows_marks_the_path_that_makes_it_a_cycle(served):
    """ln1's and ln2's groups (rows of the table): the attention between them would leave and
    re-enter the kernel; the canvas marks that path, as for nodes picked on the graph."""
    app, s, client = served()
    sid = client.new_session()
    plan = app.services.session(sid)[0].plan
    a, b = plan.group_of("ln1"), plan.group_of("ln2")
    answer = client.call(f"{ids.EDIT_MSG}.children", {
        (ids.MERGE, "n_clicks"): 1, (ids.SESSION, "data"): sid,
        (ids.GROUP_TABLE, "selectedRows"): [{"id": a.id}, {"id": b.id}]},
        trigger=f"{ids.MERGE}.n_clicks").props()
    assert "[cycle]" in answer[(ids.EDIT_MSG, "children")]
    assert answer[(ids.EDIT_MSG, "className")] == "msg error"
    marks = answer[(ids.MARKS, "data")]
    path = marks["path"]
    assert path[0] in a.nodes + b.nodes and path[-1] in a.nodes + b.nodes and len(path) > 2
    assert app.services.session(sid)[0].plan == plan

"""Editing in the browser as a newcomer does it (the review's defects): split, look, undo, and
the Explain tab's step, the edit message and a one-op group's style after it."""

from __future__ import annotations

import time

from selenium.webdriver.common.keys import Keys

import pytest

from tests.app.conftest import (click_vertex, cy_eval, grid_cell, group_count, vertex_of,
                                wait_for)
from tests.app.test_browser import (click, open_tab, save_screenshot, session_state,
                                    start_drawn, text_of)
from workbench.app import ids

pytestmark = pytest.mark.browser


def slider_value(dash_duo) -> int:
    return int(dash_duo.find_element(f"#{ids.STEP_SLIDER} [role=slider]")
               .get_attribute("aria-valuenow"))


def test_split_then_undo_keeps_the_replay_step_and_says_what_it_did(dash_duo, make_app,
                                                                   tmp_path):
    services, ws, n = start_drawn(dash_duo, make_app())
    steps = len(ws.plan.decisions)
    # the user is on step 3 of the replay
    open_tab(dash_duo, "Explain")
    handle = dash_duo.wait_for_element(f"#{ids.STEP_SLIDER} [role=slider]")
    handle.send_keys(Keys.HOME)
    for _ in range(3):
        handle.send_keys(Keys.ARROW_RIGHT)
    dash_duo.wait_for_contains_text(f"#{ids.BANNER}", f"step 3 of {steps}")
    # ... then splits the biggest group on the Plan tab
    open_tab(dash_duo, "Plan")
    wait_for(dash_duo, lambda: group_count(dash_duo) == n, 20, "the plan drawn again")
    big = max(ws.plan.groups, key=lambda g: g.size)
    grid_cell(dash_duo, ids.GROUP_TABLE, big.id, "id").click()   # the canvas may still move
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", f"group {big.id}")
    click(dash_duo, ids.SPLIT)
    wait_for(dash_duo, lambda: group_count(dash_duo) == n - 1, 20, "one group fewer")
    dash_duo.wait_for_contains_text(f"#{ids.EDIT_MSG}", f"you split {big.id} into {big.size} "
                                    "single-op kernels")
    msg = dash_duo.find_element(f"#{ids.EDIT_MSG}")
    assert "info" in msg.get_attribute("class") and "error" not in msg.get_attribute("class")
    assert "renumbered (the same ops, new ids)" in msg.text
    # a one-op group of the split: a group's thin border, not the selection's thick one
    single = vertex_of(dash_duo, big.nodes[0])
    width = cy_eval(dash_duo, "cy.getElementById(arguments[0]).style('border-width')", single)
    assert float(width.rstrip("px")) <= 2, width
    assert "single" in cy_eval(dash_duo, "cy.getElementById(arguments[0]).classes()", single)
    save_screenshot(dash_duo, tmp_path, "app-after-split.png")
    # undo: the message says what was undone; Explain is still on step 3
    click(dash_duo, ids.UNDO)
    wait_for(dash_duo, lambda: group_count(dash_duo) == n, 20, "the group back")
    dash_duo.wait_for_contains_text(f"#{ids.EDIT_MSG}", f"undid the split (you split {big.id}")
    assert session_state(dash_duo, services)[0].plan == ws.plan
    open_tab(dash_duo, "Explain")
    dash_duo.wait_for_contains_text(f"#{ids.BANNER}", f"step 3 of {steps}")
    assert slider_value(dash_duo) == 3
    assert text_of(dash_duo, ids.STEP_NOTE) == ""
    # another group picked: the last edit's message goes
    open_tab(dash_duo, "Plan")
    wait_for(dash_duo, lambda: group_count(dash_duo) == n, 20, "the plan drawn again")
    assert text_of(dash_duo, ids.EDIT_MSG).startswith("undid the split")
    other = next(g for g in ws.plan.groups if g.size > 1 and g.id != big.id)
    time.sleep(1.0)   # the replay's focus animation (centre) is over
    click_vertex(dash_duo, vertex_of(dash_duo, other.nodes[0]))
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", f"group {other.id}")
    dash_duo.wait_for_text_to_equal(f"#{ids.EDIT_MSG}", "")


#: pixels of the overview map in the view rectangle's blue (#0969da, within a few levels)
BLUE_PIXELS = """var map = document.getElementById('overview');
var d = map.getContext('2d').getImageData(0, 0, map.width, map.height).data, k = 0;
for (var i = 0; i < d.length; i += 4) {
  if (Math.abs(d[i] - 9) < 24 && Math.abs(d[i + 1] - 105) < 24 && Math.abs(d[i + 2] - 218) < 24) {
    k++;
  }
}
return k;"""


def canvas_top(dash_duo) -> float:
    return dash_duo.driver.execute_script(
        f"return document.getElementById('{ids.CYTO}').getBoundingClientRect().top")


def test_the_search_line_does_not_move_the_canvas_and_the_map_keeps_its_rectangle(dash_duo,
                                                                                  make_app):
    start_drawn(dash_duo, make_app())
    top = canvas_top(dash_duo)
    dash_duo.find_element(f"#{ids.SEARCH}").send_keys(
        "no_such_node_or_scope_anywhere_in_this_graph_at_all\n")
    dash_duo.wait_for_contains_text(f"#{ids.SEARCH_MSG}", "matches")
    assert canvas_top(dash_duo) == top
    wait_for(dash_duo, lambda: dash_duo.driver.execute_script(BLUE_PIXELS) > 100, 10,
             "the view's rectangle on the map")
    for button in (ids.COLLAPSE_ALL, ids.EXPAND_ALL):   # the whole drawing in view, and more
        before = cy_eval(dash_duo, "cy.nodes().length")
        click(dash_duo, button)
        wait_for(dash_duo, lambda: cy_eval(dash_duo, "cy.nodes().length") != before, 20,
                 f"the drawing after {button}")
        time.sleep(1.0)   # the map is redrawn in the next animation frames
        wait_for(dash_duo, lambda: dash_duo.driver.execute_script(BLUE_PIXELS) > 100, 10,
                 f"the view's rectangle on the map after {button}")


def test_ctrl_click_adds_table_rows_merge_merges_them_and_another_graph_clears_the_message(
        dash_duo, make_app, tmp_path):
    """The group table's hint says ctrl- or shift-click adds rows: two rows of XLA:CPU's mlp
    (each matmul alone) merge into one group, the message names it, and choosing another
    graph clears that message (it was about the mlp)."""
    from selenium.webdriver.common.action_chains import ActionChains

    from tests.app.conftest import choose
    from tests.app.test_browser import multi_groups
    from tests.conftest import SAMPLES_DIR

    services, _, _ = start_drawn(dash_duo, make_app(SAMPLES_DIR / "mlp.json"))
    choose(dash_duo, ids.POLICY, "xla-cpu")
    wait_for(dash_duo, lambda: session_state(dash_duo, services)[0].policy == "xla-cpu", 20,
             "the xla-cpu plan")
    ws, _ = session_state(dash_duo, services)
    a, b = ws.plan.group_of("matmul1"), ws.plan.group_of("bias_add1")
    dash_duo.wait_for_contains_text(f"#{ids.PLAN_SUMMARY}", f"{ws.plan.num_kernels} kernels")
    grid_cell(dash_duo, ids.GROUP_TABLE, a.id, "kind").click()
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", f"Selected group {a.id}")
    ActionChains(dash_duo.driver).key_down(Keys.CONTROL).click(
        grid_cell(dash_duo, ids.GROUP_TABLE, b.id, "kind")).key_up(Keys.CONTROL).perform()
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", f"2 rows selected in the table: "
                                    f"{a.id}, {b.id} (Merge merges them)")
    save_screenshot(dash_duo, tmp_path, "app-two-rows.png")
    click(dash_duo, ids.MERGE)
    dash_duo.wait_for_contains_text(f"#{ids.PLAN_SUMMARY}", f"{ws.plan.num_kernels - 1} kernels")
    new = session_state(dash_duo, services)[0].plan
    gid = new.group_of("matmul1").id
    assert new.group_of("bias_add1").id == gid
    dash_duo.wait_for_contains_text(f"#{ids.EDIT_MSG}", f"you merged {a.id}, {b.id} into one "
                                    f"kernel of {a.size + b.size} ops, now group {gid}")
    # the rows selected before the edit are let go: the merged group's row alone
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", f"Selected group {gid}")
    assert "rows selected" not in text_of(dash_duo, ids.SELECTION_INFO)
    wait_for(dash_duo, lambda: group_count(dash_duo) == multi_groups(new), 20, "merged drawn")
    save_screenshot(dash_duo, tmp_path, "app-merged-rows.png")
    choose(dash_duo, ids.GRAPH_CHOICE, "sample: transformer_block")
    wait_for(dash_duo, lambda: session_state(dash_duo, services)[1].name != "mlp", 20,
             "the other graph")
    dash_duo.wait_for_text_to_equal(f"#{ids.EDIT_MSG}", "")

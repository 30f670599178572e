"""Editing in the browser as a newcomer does it (the review's defects): split, look, undo, and
the Explain tab's step, the edit message and a one-op group's style after it."""

from __future__ import annotations

from selenium.webdriver.common.keys import Keys

import pytest

from tests.app.conftest import click_vertex, cy_eval, group_count, vertex_of, wait_for
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
    click_vertex(dash_duo, vertex_of(dash_duo, big.nodes[-1]))
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
    click_vertex(dash_duo, vertex_of(dash_duo, other.nodes[0]))
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", f"group {other.id}")
    dash_duo.wait_for_text_to_equal(f"#{ids.EDIT_MSG}", "")

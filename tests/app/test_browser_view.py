"""The graph view's controls in a real browser: what *Close layer* says, the view after
*Collapse all* / *Expand all*, the replay off the Explain tab, the selection through a split
(defects found by the newcomer review). Run as tests/app/test_browser.py is."""

from __future__ import annotations

import json
import time

import pytest
from selenium.webdriver.common.keys import Keys

from tests.app.conftest import (click_vertex, cy_eval, group_count, highlighted, vertex_of,
                                wait_for)
from tests.app.test_browser import (click, open_tab, save_screenshot, session_state, start,
                                    start_drawn, text_of)
from tests.conftest import SAMPLES_DIR
from workbench.app import ids

pytestmark = pytest.mark.browser


def scoped_mlp(tmp_path):
    """The mlp sample with a name scope per dense layer (``jit(f)/dense1/…``): three layers."""
    doc = json.loads((SAMPLES_DIR / "mlp.json").read_text())
    for node in doc["nodes"]:
        if node["op"] != "parameter":
            node["scope"] = f"jit(f)/dense{node['id'][-1]}/{node['op']}"
    path = tmp_path / "scoped_mlp.json"
    path.write_text(json.dumps(doc))
    return path


def test_close_layers_hint_says_what_a_click_does_and_goes_at_the_click(dash_duo, make_app,
                                                                        tmp_path):
    start(dash_duo, make_app(scoped_mlp(tmp_path)))
    wait_for(dash_duo, lambda: vertex_of(dash_duo, "matmul1"), 20, "the scoped mlp drawn")
    # the breadcrumb at the whole graph: nothing to close; the hint says to click, then press
    click(dash_duo, ids.CLOSE_LAYER)
    dash_duo.wait_for_contains_text(f"#{ids.SEARCH_MSG}", "then press Close layer")
    # the click it asks for: an op; it selects it, the breadcrumb names its layer, the hint goes
    click_vertex(dash_duo, vertex_of(dash_duo, "matmul1"))
    dash_duo.wait_for_contains_text(f"#{ids.BREADCRUMB}", "dense1")
    dash_duo.wait_for_text_to_equal(f"#{ids.SEARCH_MSG}", "")
    # and Close layer then closes that layer: its ops are no longer drawn
    click(dash_duo, ids.CLOSE_LAYER)
    wait_for(dash_duo, lambda: vertex_of(dash_duo, "matmul1") is None, 20, "dense1 closed")
    assert vertex_of(dash_duo, "matmul2") is not None
    assert text_of(dash_duo, ids.SEARCH_MSG) == ""


def test_close_layer_on_a_graph_without_layers_says_there_is_none(dash_duo, make_app):
    start_drawn(dash_duo, make_app())            # the transformer block: no name scopes
    click(dash_duo, ids.CLOSE_LAYER)
    dash_duo.wait_for_contains_text(f"#{ids.SEARCH_MSG}", "this graph has no layers")
    click_vertex(dash_duo, vertex_of(dash_duo, "ln1"))
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", "Selected group")
    dash_duo.wait_for_text_to_equal(f"#{ids.SEARCH_MSG}", "")


def fitted(dash_duo) -> dict:
    """The drawing's rendered box against the canvas: inside it (20 px padding, 3 px slack)
    and centred, as cytoscape's fit leaves it."""
    box = cy_eval(dash_duo, "(function () { var b = cy.elements().renderedBoundingBox();"
                            " return [b.x1, b.y1, b.x2, b.y2, cy.width(), cy.height(),"
                            " cy.zoom(), cy.maxZoom()]; })()")
    x1, y1, x2, y2, w, h, zoom, zmax = box
    inside = x1 >= 20 - 3 and y1 >= 20 - 3 and x2 <= w - 17 and y2 <= h - 17
    centred = abs((x1 + x2) / 2 - w / 2) < 4 and abs((y1 + y2) / 2 - h / 2) < 4
    fills = (x2 - x1) >= w - 40 - 4 or (y2 - y1) >= h - 40 - 4 or zoom >= zmax - 1e-6
    return {"inside": inside, "centred": centred, "fills": fills, "box": box}


def test_collapse_all_and_expand_all_fit_the_new_drawing(dash_duo, make_app, tmp_path):
    _, ws, n = start_drawn(dash_duo, make_app())
    # the view somewhere else first (zoomed in on one op), as after working on the graph
    cy_eval(dash_duo, "(function () { cy.zoom(2); cy.center(cy.nodes('.op')[0]);"
                      " return null; })()")
    click(dash_duo, ids.COLLAPSE_ALL)
    wait_for(dash_duo, lambda: cy_eval(dash_duo, "cy.nodes(':parent').length") == 0
             and group_count(dash_duo) == n, 20, "every group collapsed")
    got = wait_for(dash_duo, lambda: (lambda f: f if f["inside"] and f["centred"]
                                      and f["fills"] else None)(fitted(dash_duo)), 10,
                   "the collapsed drawing fitted")
    save_screenshot(dash_duo, tmp_path, "collapse-all.png")
    assert got["inside"]
    cy_eval(dash_duo, "(function () { cy.zoom(2); cy.pan({x: -400, y: 0}); return null; })()")
    click(dash_duo, ids.EXPAND_ALL)
    wait_for(dash_duo, lambda: cy_eval(dash_duo, "cy.nodes(':parent').length") == n, 20,
             "every group expanded")
    wait_for(dash_duo, lambda: (lambda f: f["inside"] and f["centred"] and f["fills"])(
        fitted(dash_duo)), 10, "the expanded drawing fitted")
    save_screenshot(dash_duo, tmp_path, "expand-all.png")


def test_the_replay_is_drawn_only_while_explain_is_shown(dash_duo, make_app, tmp_path):
    _, ws, n = start_drawn(dash_duo, make_app())
    steps = len(ws.plan.decisions)
    open_tab(dash_duo, "Explain")
    handle = dash_duo.wait_for_element(f"#{ids.STEP_SLIDER} [role=slider]")
    handle.send_keys(Keys.HOME)
    handle.send_keys(Keys.ARROW_RIGHT)
    dash_duo.wait_for_contains_text(f"#{ids.BANNER}", f"step 1 of {steps}")
    wait_for(dash_duo, lambda: group_count(dash_duo) == 1, 20, "step 1's one group")
    # another tab: the plan is drawn, without the replay's banner and marks
    open_tab(dash_duo, "Plan")
    dash_duo.wait_for_text_to_equal(f"#{ids.BANNER}", "")
    wait_for(dash_duo, lambda: group_count(dash_duo) == n, 20, "the plan's groups")
    wait_for(dash_duo, lambda: highlighted(dash_duo, "hl-step") == set()
             and highlighted(dash_duo, "hl-after") == set()
             and highlighted(dash_duo, "hl-found") == set(), 10,
             "no replay marks (nor the step's focus, hl-found)")
    save_screenshot(dash_duo, tmp_path, "replay-left.png")
    # an edit on the Plan tab draws the new plan (it did not while a step was drawn)
    big = max(ws.plan.groups, key=lambda g: g.size)
    click_vertex(dash_duo, vertex_of(dash_duo, big.nodes[0]))
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", f"group {big.id}")
    click(dash_duo, ids.SPLIT)
    wait_for(dash_duo, lambda: group_count(dash_duo) == n - 1, 20, "the split drawn")
    click(dash_duo, ids.UNDO)
    wait_for(dash_duo, lambda: group_count(dash_duo) == n, 20, "the undo drawn")
    # back on Explain, the slider where it was: that step again (a new plan resets the slider
    # to its end; undo gave the same plan back, whose replay starts at its end)
    open_tab(dash_duo, "Explain")
    handle = dash_duo.wait_for_element(f"#{ids.STEP_SLIDER} [role=slider]")
    handle.send_keys(Keys.HOME)
    handle.send_keys(Keys.ARROW_RIGHT)
    handle.send_keys(Keys.ARROW_RIGHT)
    dash_duo.wait_for_contains_text(f"#{ids.BANNER}", f"step 2 of {steps}")
    open_tab(dash_duo, "Cost")
    dash_duo.wait_for_text_to_equal(f"#{ids.BANNER}", "")
    wait_for(dash_duo, lambda: group_count(dash_duo) == n, 20, "the plan's groups")
    open_tab(dash_duo, "Explain")
    dash_duo.wait_for_contains_text(f"#{ids.BANNER}", f"step 2 of {steps}")
    wait_for(dash_duo, lambda: highlighted(dash_duo, "hl-step"), 10, "step 2's marks")
    save_screenshot(dash_duo, tmp_path, "replay-back.png")


#: records, every few ms until stopped, the groups the canvas marks as selected and whether
#: the drawing is the split one (``window._split``: a group box gone)
RECORD = """
window._frames = []; window._stop = false;
var groups = arguments[0];
var tick = function () {
  var cy = window.workbenchCy('graph-view');
  if (cy) {
    var sel = {};
    cy.nodes('.hl-sel').forEach(function (n) { sel[n.data('gid')] = 1; });
    window._frames.push([cy.nodes('.group').length < groups, Object.keys(sel)]);
  }
  if (!window._stop) { setTimeout(tick, 5); }
};
tick(); return 1;
"""


def test_a_split_clears_the_selection_with_a_note_and_never_marks_another_group(dash_duo,
                                                                             make_app):
    services, ws, n = start_drawn(dash_duo, make_app())
    big = max(ws.plan.groups, key=lambda g: g.size)
    click_vertex(dash_duo, vertex_of(dash_duo, big.nodes[-1]))
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", f"Selected group {big.id}")
    wait_for(dash_duo, lambda: highlighted(dash_duo) == {big.id}, 10, "the group marked")
    dash_duo.driver.execute_script(RECORD, n)
    click(dash_duo, ids.SPLIT)
    wait_for(dash_duo, lambda: group_count(dash_duo) == n - 1, 20, "one group fewer")
    new, _ = session_state(dash_duo, services)
    assert new.plan.group(big.id).nodes != big.nodes   # the id names another group now
    dash_duo.wait_for_contains_text(
        f"#{ids.EDIT_MSG}", f"the selected group {big.id}'s {big.size} ops are now in "
        f"{big.size} groups")
    assert "selection cleared" in text_of(dash_duo, ids.EDIT_MSG)
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", "Click a group or a node")
    time.sleep(1.0)
    frames = dash_duo.driver.execute_script("window._stop = true; return window._frames")
    assert any(split for split, _ in frames)
    wrong = [sel for split, sel in frames if split and sel]
    assert wrong == [], f"the split drawing marked groups {wrong[:3]} as selected"
    assert highlighted(dash_duo) == set()
    # the next edit's message replaces the note
    click(dash_duo, ids.UNDO)
    wait_for(dash_duo, lambda: group_count(dash_duo) == n, 20, "the group back")
    dash_duo.wait_for_contains_text(f"#{ids.EDIT_MSG}", f"undid the split (you split {big.id}")
    assert "selection cleared" not in text_of(dash_duo, ids.EDIT_MSG)

"""A real-size model in headless Chromium: layers, Fit, the overview, positions kept by an
edit, a replay that jumps and centres, search that opens what it finds.

The model is the 12-block transformer JAX wrote (tests/app/data, 1,798 nodes, 108 layers).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.app.conftest import click_vertex, cy_eval, highlighted, rendered_point, wait_for
from tests.app.test_browser import click, open_tab, session_state, start, text_of
from workbench.app import ids
from workbench.app.hierarchy import ROOT, layers_of

pytestmark = pytest.mark.browser
MODEL = Path(__file__).parent / "data" / "transformer12_fwd.before.hlo"

#: every drawn leaf (not a compound, not a title): unprefixed id -> model position
POSITIONS = """return (function () { var out = {};
  cy.nodes().forEach(function (n) {
    if (n.isParent() || n.hasClass('title')) { return; }
    var p = n.position(); out[n.data('vid')] = [p.x, p.y]; });
  return out; })()"""

#: drawn leaves whose rendered box is not inside the canvas
OUTSIDE = """return (function () { var w = cy.width(), h = cy.height(), out = [];
  cy.nodes().forEach(function (n) {
    if (n.hasClass('title')) { return; }
    var b = n.renderedBoundingBox({includeLabels: false});
    if (b.x1 < -1 || b.y1 < -1 || b.x2 > w + 1 || b.y2 > h + 1) { out.push(n.data('vid')); }
  });
  return out; })()"""


def positions(duo) -> dict:
    return cy_eval(duo, POSITIONS.replace("return ", "", 1))


def leaves(duo) -> int:
    return cy_eval(duo, "cy.nodes().filter(function (n) { return !n.isParent() "
                        "&& !n.hasClass('title'); }).length")


def open_model(dash_duo, make_app):
    services = start(dash_duo, make_app(initial=MODEL))
    wait_for(dash_duo, lambda: cy_eval(dash_duo, "cy.nodes('.layer.closed').length") >= 12, 30,
             "the blocks drawn closed")
    ws, graph = session_state(dash_duo, services)
    return services, ws, graph, layers_of(graph)


def test_the_model_opens_by_layer_and_a_click_opens_one(dash_duo, make_app):
    services, ws, graph, layers = open_model(dash_duo, make_app)
    closed = cy_eval(dash_duo, "cy.nodes('.layer.closed').map(function (n) { "
                               "return n.data('vid'); })")
    assert set(layers.children[ROOT]) <= set(closed)
    assert leaves(dash_duo) < 40                      # not 1,800 ops
    assert "108 layers" in text_of(dash_duo, ids.GRAPH_TITLE)
    block = layers.children[ROOT][4]
    click_vertex(dash_duo, cy_eval(dash_duo, "cy.nodes('[vid = \"%s\"]')[0].id()" % block))
    wait_for(dash_duo, lambda: cy_eval(dash_duo, "cy.nodes('[vid = \"%s\"]')[0].isParent()"
                                       % block), 20, "block_4 open")
    # a block is small enough to open whole: its ops are drawn, inside its box
    inside = cy_eval(dash_duo, "cy.nodes('[vid = \"%s\"]')[0].descendants('.op').length"
                     % block)
    assert inside > 100
    dash_duo.wait_for_contains_text(f"#{ids.BREADCRUMB}", "block_4")
    # a breadcrumb button (a pattern-matching id, through the request checks) centres its layer
    cy_eval(dash_duo, "(cy.pan({x: 20000, y: 20000}), 0)")

    def centred():
        x, y = cy_eval(dash_duo, "(function (k) { var p = cy.nodes('[vid = \"' + k + '\"]')"
                                 ".renderedPosition(); return [p.x, p.y]; })(arguments[0])", block)
        w, h = cy_eval(dash_duo, "[cy.width(), cy.height()]")
        return abs(x - w / 2) < w * 0.1 and abs(y - h / 2) < h * 0.1
    assert not centred()
    dash_duo.driver.find_element(
        By.XPATH, f"//*[@id='{ids.BREADCRUMB}']//button[normalize-space()='block_4']").click()
    wait_for(dash_duo, centred, 20, "block_4 centred by its breadcrumb")
    assert text_of(dash_duo, ids.APP_MSG) == ""
    # the overview map draws the drawing and the view's box
    painted = dash_duo.driver.execute_script(
        "var c = document.getElementById(arguments[0]); var d = c.getContext('2d')"
        ".getImageData(0, 0, c.width, c.height).data; var n = 0;"
        "for (var i = 0; i < d.length; i += 4) { if (d[i] < 200) { n++; } } return n;",
        ids.OVERVIEW)
    assert painted > 200


def test_fit_shows_every_node_of_the_model_opened_whole(dash_duo, make_app):
    open_model(dash_duo, make_app)
    click(dash_duo, ids.EXPAND_ALL)
    wait_for(dash_duo, lambda: leaves(dash_duo) > 1700, 60, "every op drawn")
    h = cy_eval(dash_duo, "cy.elements().boundingBox().h")
    assert h > 20 * cy_eval(dash_duo, "cy.height()")  # far taller than the canvas
    click(dash_duo, ids.FIT)
    wait_for(dash_duo, lambda: cy_eval(dash_duo, OUTSIDE.replace("return ", "", 1)) == [], 20,
             "every node inside the canvas after Fit")
    # and Collapse all gives the blocks back
    click(dash_duo, ids.COLLAPSE_ALL)
    wait_for(dash_duo, lambda: leaves(dash_duo) < 40, 30, "the blocks closed again")


def test_an_edit_leaves_every_untouched_node_where_it_was(dash_duo, make_app):
    services, ws, graph, layers = open_model(dash_duo, make_app)
    block = layers.children[ROOT][2]
    click_vertex(dash_duo, cy_eval(dash_duo, "cy.nodes('[vid = \"%s\"]')[0].id()" % block))
    wait_for(dash_duo, lambda: leaves(dash_duo) > 150, 20, "block_2 open")
    before = positions(dash_duo)
    boxes = cy_eval(dash_duo, "cy.nodes('.group').length")
    # split the biggest group drawn in block_2
    inside = [g for g in ws.plan.groups if g.size > 3 and all(
        layers.is_within(layers.node_layer[n], block) for n in g.nodes)]
    big = max(inside, key=lambda g: g.size)
    vid = cy_eval(dash_duo, "cy.nodes().filter(function (n) { return n.data('node') === "
                            "arguments[0] && !n.data('vid').includes('@'); })[0].id()".replace(
                                "arguments[0]", repr(big.nodes[-1])))
    click_vertex(dash_duo, vid)
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", f"Selected group {big.id}")
    click(dash_duo, ids.SPLIT)
    wait_for(dash_duo, lambda: session_state(dash_duo, services)[0].plan.num_kernels
             == ws.plan.num_kernels + big.size - 1, 20, "the split")
    wait_for(dash_duo, lambda: cy_eval(dash_duo, "cy.nodes('.group').length") == boxes - 1, 20,
             "the split drawn (one box fewer)")
    after = positions(dash_duo)
    moved = [k for k, p in before.items() if k in after and after[k] != p]
    assert moved == [] and set(after) == set(before)  # a split moves nothing


def test_replay_jumps_to_the_next_taken_decision_and_centres_on_it(dash_duo, make_app):
    services, ws, graph, layers = open_model(dash_duo, make_app)
    open_tab(dash_duo, "Explain")
    jump = dash_duo.driver.find_element(By.XPATH, "//button[normalize-space()='taken ▶']")
    jump.click()
    first = next(k for k, d in enumerate(ws.plan.decisions, 1) if d.fused)
    dash_duo.wait_for_contains_text(f"#{ids.STEP_TEXT}", f"Step {first} of")
    jump.click()
    second = next(k for k, d in enumerate(ws.plan.decisions, 1) if d.fused and k > first)
    dash_duo.wait_for_contains_text(f"#{ids.STEP_TEXT}", f"Step {second} of")
    dash_duo.wait_for_contains_text(f"#{ids.BANNER}", f"step {second} of")
    d = ws.plan.decisions[second - 1]
    assert "taken" in text_of(dash_duo, ids.STEP_TEXT) and d.reason in text_of(dash_duo,
                                                                             ids.STEP_TEXT)
    # the canvas opened what holds the decision's ops and centred on the group it made
    # (the marks are classes on the drawn nodes: the group it made, the decision's ops)
    keys = wait_for(dash_duo, lambda: cy_eval(dash_duo, "cy.nodes('.hl-after').map(function (n)"
                                                        " { return n.data('vid'); })"), 20,
                    "the group the step made marked")
    assert all(k.startswith(("G:", "v")) for k in keys)

    def centred():
        w, h = cy_eval(dash_duo, "[cy.width(), cy.height()]")
        for key in keys:
            x, y = cy_eval(dash_duo, "(function (k) { var n = cy.nodes('[vid = \"' + k + '\"]');"
                                     " var p = n.renderedPosition(); return [p.x, p.y]; })"
                                     "(arguments[0])", key)
            if abs(x - w / 2) < w * 0.1 and abs(y - h / 2) < h * 0.1:
                return True
        return False
    wait_for(dash_duo, centred, 20, "the step's group centred")
    # the decision's ops are marked on the canvas
    marked = cy_eval(dash_duo, "cy.nodes('.hl-step').map(function (n) { return n.data('node'); })")
    assert set(marked) == set(d.nodes)
    # refused decisions are one click away too, and a reason filter narrows the jumps
    dash_duo.driver.find_element(By.XPATH, "//button[normalize-space()='refused ▶']").click()
    refused = next(k for k, x in enumerate(ws.plan.decisions, 1) if not x.fused and k > second)
    dash_duo.wait_for_contains_text(f"#{ids.STEP_TEXT}", f"Step {refused} of")
    assert "refused" in text_of(dash_duo, ids.STEP_TEXT)


def test_search_by_scope_opens_the_layers_that_hold_the_match(dash_duo, make_app):
    services, ws, graph, layers = open_model(dash_duo, make_app)
    search = dash_duo.find_element(f"#{ids.SEARCH}")
    search.send_keys("softmax", Keys.ENTER)
    dash_duo.wait_for_contains_text(f"#{ids.SEARCH_MSG}", "› softmax")
    msg = text_of(dash_duo, ids.SEARCH_MSG)
    node = msg.split()[1]
    wait_for(dash_duo, lambda: cy_eval(dash_duo, "cy.nodes('[node = \"%s\"]').length" % node),
             20, "the match drawn")
    x, y = rendered_point(dash_duo, cy_eval(dash_duo, "cy.nodes('[node = \"%s\"]')[0].id()"
                                            % node))
    assert x > 0 and y > 0
    dash_duo.wait_for_contains_text(f"#{ids.BREADCRUMB}", "softmax")


def test_first_visit_help_is_shown_once(dash_duo, make_app):
    start(dash_duo, make_app())
    help_box = dash_duo.wait_for_element(f"#{ids.HELP}")
    wait_for(dash_duo, lambda: help_box.is_displayed(), 10, "the help shown")
    click(dash_duo, ids.HELP_CLOSE)
    wait_for(dash_duo, lambda: not help_box.is_displayed(), 10, "the help dismissed")
    dash_duo.driver.refresh()
    wait_for(dash_duo, lambda: cy_eval(dash_duo, "cy.nodes().length") > 0, 30, "the graph")
    assert not dash_duo.find_element(f"#{ids.HELP}").is_displayed()


def test_picking_a_row_opens_and_centres_its_group(dash_duo, make_app):
    from tests.app.conftest import grid_cell
    from workbench.app.drawing import vertex_ids
    from workbench.app.scene import group_key

    services, ws, graph, layers = open_model(dash_duo, make_app)
    # a group of several ops inside a block, drawn closed at the start
    group = max((g for g in ws.plan.groups if g.size > 1), key=lambda g: g.size)
    key = group_key(group.nodes, vertex_ids(graph))
    assert not cy_eval(dash_duo, "cy.nodes('[vid = \"' + arguments[0] + '\"]').length", key)
    grid_cell(dash_duo, ids.GROUP_TABLE, group.id, "kind").click()
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", f"Selected group {group.id}")
    wait_for(dash_duo, lambda: cy_eval(dash_duo, "cy.nodes('[vid = \"' + arguments[0] + '\"]')"
                                                 ".length", key), 20, "its layers opened")

    def centred():
        x, y = cy_eval(dash_duo, "(function (k) { var p = cy.nodes('[vid = \"' + k + '\"]')"
                                 ".renderedPosition(); return [p.x, p.y]; })(arguments[0])", key)
        w, h = cy_eval(dash_duo, "[cy.width(), cy.height()]")
        return abs(x - w / 2) < w * 0.1 and abs(y - h / 2) < h * 0.1
    wait_for(dash_duo, centred, 20, "the group centred")
    assert highlighted(dash_duo) == {group.id}

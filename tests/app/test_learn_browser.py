"""The Learn page and the tour in a real browser (headless Chromium, dash_duo): a lesson
stepped from unfused to fused with its measured and predicted times, an exercise answered and
scored (then a what-if question, in the same browser session), the tour opened and closed
(then the glossary reached from the legend, in the same session). Each server and browser
started costs seconds of the suite, so a test goes on to a second check where it can.

The screenshots are saved in each test's temporary directory, and in ``$WORKBENCH_SCREENSHOTS``
when set (``WORKBENCH_SCREENSHOTS=docs`` refreshes docs/teaching.md's images).
"""

from __future__ import annotations

import os
import time

import pytest

from workbench.app.graph_figure import KIND_LABELS
from selenium.webdriver.common.by import By

from tests.app.conftest import wait_for
from workbench.app import ids
from workbench.app.callbacks_tour import STEPS
from workbench.teaching import EXERCISES

pytestmark = pytest.mark.browser


def cy(duo, canvas: str, expr: str, *args):
    """Evaluate ``expr`` with ``cy`` bound to the cytoscape instance of ``canvas``."""
    return duo.driver.execute_script(
        f"var cy = window.workbenchCy('{canvas}'); if (!cy) {{ return null; }} return {expr};",
        *args)


def groups_drawn(duo, canvas: str) -> int:
    return cy(duo, canvas, "cy.nodes('.group').length")


def click_node(duo, canvas: str, node: str) -> None:
    """Click the op ``node`` (its graph id) on ``canvas`` at its rendered position."""
    from selenium.webdriver.common.action_chains import ActionChains

    vid = wait_for(duo, lambda: cy(duo, canvas, "(function (id) { var r = cy.nodes().filter("
                   "function (n) { return n.data('node') === id; }); return r.length ? "
                   "r[0].id() : null; })(arguments[0])", node), 20, f"{node} drawn")
    cy(duo, canvas, "(function (id) { cy.center(cy.getElementById(id)); return null; })"
       "(arguments[0])", vid)
    time.sleep(0.15)
    x, y = cy(duo, canvas, "(function (id) { var p = cy.getElementById(id).renderedPosition();"
              " var r = cy.container().getBoundingClientRect(); return [r.left + p.x, "
              "r.top + p.y]; })(arguments[0])", vid)
    was = node in selected(duo, canvas)
    chain = ActionChains(duo.driver)
    chain.w3c_actions.pointer_action.move_to_location(int(x), int(y))
    chain.w3c_actions.pointer_action.pointer_down()
    chain.w3c_actions.pointer_action.pointer_up()
    chain.perform()
    wait_for(duo, lambda: (node in selected(duo, canvas)) != was, 10, f"{node} (de)selected")
    # dash-cytoscape sends selectedNodeData to Dash 100 ms after the last click (debounced):
    # wait until the callbacks' State holds the canvas's selection, else Group may miss a node
    wait_for(duo, lambda: dash_selected(duo, canvas) == selected(duo, canvas), 10,
             f"{node}'s selection sent to Dash")


def dash_selected(duo, canvas: str) -> set:
    """The nodes of ``canvas``'s selectedNodeData prop as Dash holds it (what a callback reads)."""
    return set(duo.driver.execute_script(
        "var l = window.dash_component_api.getLayout(arguments[0]);"
        "return ((l && l.props.selectedNodeData) || []).map(function (d) { return d.node; });",
        canvas) or [])


def selected(duo, canvas: str) -> set:
    return set(cy(duo, canvas, "cy.nodes(':selected').map(function (n) { return "
                               "n.data('node'); })") or [])


def text_of(duo, id_) -> str:
    return duo.find_element(f"#{id_}").text


def shot(duo, tmp_path, name: str) -> None:
    time.sleep(0.5)
    duo.driver.save_screenshot(str(tmp_path / name))
    assert (tmp_path / name).stat().st_size > 20_000
    if os.environ.get("WORKBENCH_SCREENSHOTS"):
        duo.driver.save_screenshot(os.path.join(os.environ["WORKBENCH_SCREENSHOTS"], name))


@pytest.fixture
def fresh_cache(private_cache):
    """A cache without lesson measurements (so the lesson measures in front of the test): the
    conftest's private cache (the cpu profile copied, the compiled kernels' caches linked, so
    that the measurement compiles nothing it compiled before)."""
    return private_cache


def test_a_lesson_steps_from_unfused_to_fused_and_shows_measured_and_predicted_times(
        dash_duo, make_app, tmp_path, fresh_cache):
    app = make_app()
    dash_duo.start_server(app)
    wait_for(dash_duo, lambda: cy(dash_duo, "graph-view", "cy.nodes().length"), 60, "the graph")
    dash_duo.find_element(f"#{ids.LEARN_LINK}").click()
    dash_duo.wait_for_contains_text(f"#{ids.LEARN_NAV}", "Vertical fusion")
    dash_duo.find_element(f"#{ids.LEARN_NAV}").find_element(
        By.PARTIAL_LINK_TEXT, "Vertical fusion").click()
    dash_duo.wait_for_text_to_equal(f"#{ids.LESSON_TITLE}",
                                    "Vertical fusion: a producer into its consumer", timeout=60)
    assert not dash_duo.find_element(f"#{ids.MAIN_VIEW}").is_displayed()
    dash_duo.wait_for_contains_text(f"#{ids.LESSON_STAGE_TEXT}",
                                    "Stage 1 of 2: every op is its own kernel.", timeout=30)
    wait_for(dash_duo, lambda: cy(dash_duo, "lesson-graph", "cy.nodes('.op').length") == 2, 20,
             "the lesson's two ops")
    assert groups_drawn(dash_duo, "lesson-graph") == 0
    wait_for(dash_duo, lambda: not dash_duo.find_element(f"#{ids.LESSON_NEXT}")
             .get_attribute("disabled"), 20, "Next enabled at the first stage")
    assert dash_duo.find_element(f"#{ids.LESSON_PREV}").get_attribute("disabled")
    # while the profile runs the figures say "measuring…" (with numba's kernels cached on
    # disk the measurement may already be done): the text shows one or the other
    wait_for(dash_duo, lambda: "measuring…" in text_of(dash_duo, ids.LESSON_TEXT)
             or "Measured on this machine: " in text_of(dash_duo, ids.LESSON_TEXT), 20,
             "measuring… or the measured figures")
    dash_duo.find_element(f"#{ids.LESSON_NEXT}").click()
    dash_duo.wait_for_contains_text(f"#{ids.LESSON_STAGE_TEXT}", "Stage 2 of 2")
    wait_for(dash_duo, lambda: groups_drawn(dash_duo, "lesson-graph") == 1, 20,
             "the fused group drawn")
    # the last stage: Next is disabled, Back is not
    wait_for(dash_duo, lambda: dash_duo.find_element(f"#{ids.LESSON_NEXT}")
             .get_attribute("disabled"), 20, "Next disabled at the last stage")
    assert not dash_duo.find_element(f"#{ids.LESSON_PREV}").get_attribute("disabled")
    table = text_of(dash_duo, ids.LESSON_STAGE_TABLE)
    assert "kernels 2 1 −1" in table and "2.0 MiB stop moving" in table
    # the measurement arrives: measured and predicted times side by side, claims checked
    wait_for(dash_duo, lambda: "measuring…" not in text_of(dash_duo, ids.LESSON_MEASURED)
             and "µs" in text_of(dash_duo, ids.LESSON_MEASURED)
             or text_of(dash_duo, ids.LESSON_MEASURE_MSG), 300, "the measured figures")
    assert text_of(dash_duo, ids.LESSON_MEASURE_MSG) == ""
    rows = dash_duo.find_elements(f"#{ids.LESSON_MEASURED} tbody tr")
    assert len(rows) == 2
    cells = [c.text for c in rows[0].find_elements(By.TAG_NAME, "td")]
    call = cells[3].removesuffix(" (fastest run)")
    assert cells[1] == "as planned" and cells[2].endswith("s") and call.endswith("s")
    assert cells[5] in ("hit", "miss")
    assert cells[6] == cells[7] == "4.0 MiB"  # the bytes the cost model counts, and measured
    # the one kernel's measured time is the whole call's: one measurement, one statistic
    noisy = cells[3].endswith("(fastest run)")
    header = dash_duo.find_elements(f"#{ids.LESSON_KERNELS} th")[-1].text
    assert header == ("measured (fastest run)" if noisy else "measured (median)")
    kernel = dash_duo.find_elements(f"#{ids.LESSON_KERNELS} td[data-dash-column=measured]")
    assert [k.text.split(" (miss")[0] for k in kernel] == [call]
    text = text_of(dash_duo, ids.LESSON_TEXT)
    assert "measuring…" not in text and f"Measured on this machine: {call} fused" in text
    marks = [e.text for e in dash_duo.find_elements(f"#{ids.LESSON_CLAIMS} .claim-mark")]
    assert len(marks) == 4 and set(marks) <= {"✓", "✗"}
    assert "measured with the cpu backend" in text_of(dash_duo, ids.LESSON_MEASURED)
    # the figures have their source on hover
    fact = dash_duo.find_element(f"#{ids.LESSON_TEXT} .fact.src-profile")
    assert fact.get_attribute("title").startswith("profile: profile on this machine")
    shot(dash_duo, tmp_path, "learn-lesson.png")
    # the lesson's graph in the workbench's own view
    dash_duo.find_element(f"#{ids.LESSON_OPEN_MAIN}").click()
    dash_duo.wait_for_contains_text(f"#{ids.GRAPH_TITLE}", "lesson_vertical — lesson vertical",
                                    30)
    assert dash_duo.find_element(f"#{ids.MAIN_VIEW}").is_displayed()
    wait_for(dash_duo, lambda: cy(dash_duo, "graph-view", "cy.nodes('.group').length") == 1,
             30, "the lesson's fused group in the main view")


def test_an_exercise_is_answered_and_scored_with_the_differences_explained(dash_duo, make_app,
                                                                           tmp_path):
    dash_duo.start_server(make_app(), navigate=False)  # straight to the exercise
    dash_duo.driver.get(dash_duo.server.url + "/learn?exercise=xla-softmax")
    dash_duo.wait_for_contains_text(f"#{ids.EX_TITLE}", "Softmax as XLA:CPU compiled it", 60)
    dash_duo.wait_for_contains_text(f"#{ids.EX_STATE}", "every op its own kernel")
    # the graph opens fitted to its canvas: every op in view
    wait_for(dash_duo, lambda: cy(dash_duo, "exercise-graph", "cy.nodes().length"), 20, "ops")
    time.sleep(0.3)
    box = cy(dash_duo, "exercise-graph", "(function () { var b = cy.elements()"
             ".renderedBoundingBox(); return [b.x1, b.y1, b.x2, b.y2, cy.width(), "
             "cy.height()]; })()")
    x1, y1, x2, y2, width, height = box
    assert width > 0 and height > 0 and 0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height, box
    # a right group (one of XLA's): a click adds each op to the selection
    for node in ("broadcast.3", "multiply.1"):
        click_node(dash_duo, "exercise-graph", node)
    assert selected(dash_duo, "exercise-graph") == {"broadcast.3", "multiply.1"}
    dash_duo.find_element(f"#{ids.EX_GROUP}").click()
    dash_duo.wait_for_contains_text(f"#{ids.EX_STATE}", "1 group of several ops")
    # a wrong one: legal, but XLA keeps the exponential out of the windowed sum
    for node in ("sub.1", "sub.0", "exp.0", "reduce-window.3"):
        click_node(dash_duo, "exercise-graph", node)
    dash_duo.find_element(f"#{ids.EX_GROUP}").click()
    dash_duo.wait_for_contains_text(f"#{ids.EX_STATE}", "2 groups of several ops")
    wait_for(dash_duo, lambda: groups_drawn(dash_duo, "exercise-graph") == 2, 20, "2 groups")
    # an illegal one: refused with the checker's reason, the other groups kept
    for node in ("reduce_max.6", "multiply.1"):
        click_node(dash_duo, "exercise-graph", node)
    # both ops selected on the canvas before Group (on a busy machine a click lands late)
    wait_for(dash_duo, lambda: selected(dash_duo, "exercise-graph") >= {"reduce_max.6",
                                                                        "multiply.1"},
             20, "the illegal group's two ops selected")
    dash_duo.find_element(f"#{ids.EX_GROUP}").click()
    dash_duo.wait_for_contains_text(f"#{ids.EX_MSG}", "[shape-mismatch]", 30)
    assert "2 groups of several ops" in text_of(dash_duo, ids.EX_STATE)
    assert groups_drawn(dash_duo, "exercise-graph") == 2
    dash_duo.find_element(f"#{ids.EX_CHECK}").click()
    dash_duo.wait_for_contains_text(f"#{ids.EX_SCORE}", "Against XLA's own fusions", 30)
    assert text_of(dash_duo, ids.EX_MSG) == ""
    score = text_of(dash_duo, ids.EX_SCORE)
    assert "Against the planner" in score and "F1" in score
    rows = dash_duo.find_elements(f"#{ids.EX_DIFFS} tbody tr")
    texts = [r.text for r in rows]
    assert any("you fused, XLA did not" in t and "expensive-reuse" in t for t in texts)
    assert any("XLA fuses, you did not" in t for t in texts)
    assert f"1 of {len(EXERCISES)} exercises checked" in text_of(dash_duo, ids.EX_PROGRESS)
    # the key drawn on the same graph
    dash_duo.find_element(f"#{ids.EX_SHOW}").find_element(
        By.XPATH, ".//label[contains(., \"XLA's fusions\")]").click()
    dash_duo.wait_for_contains_text(f"#{ids.EX_STATE}", "XLA's own fusions: 6 kernels")
    wait_for(dash_duo, lambda: groups_drawn(dash_duo, "exercise-graph") == 3, 20,
             "XLA's fusions of several ops drawn")
    shot(dash_duo, tmp_path, "learn-exercise.png")
    # progress is kept in the session: the nav marks the exercise
    dash_duo.driver.refresh()
    dash_duo.wait_for_contains_text(f"#{ids.EX_PROGRESS}",
                                    f"1 of {len(EXERCISES)} exercises checked", 30)
    # the same session goes on to a what-if question (one browser for both: the suite's time)
    a_what_if_question_is_answered_by_moving_the_knob(dash_duo, tmp_path)


def test_the_tour_opens_on_a_first_visit_and_closes(dash_duo, make_app, tmp_path):
    dash_duo.start_server(make_app(tour=True))
    wait_for(dash_duo, lambda: cy(dash_duo, "graph-view", "cy.nodes().length"), 60, "the graph")
    dash_duo.wait_for_text_to_equal(f"#{ids.TOUR_TITLE}", "Choose a graph", timeout=20)
    assert dash_duo.find_element(f"#{ids.TOUR}").is_displayed()
    assert text_of(dash_duo, ids.TOUR_COUNT) == f"1 of {len(STEPS)}"
    # the tour says what the welcome box says: a newcomer is not shown both at once
    wait_for(dash_duo, lambda: not dash_duo.find_element(f"#{ids.HELP}").is_displayed(), 10,
             "the welcome box hidden while the tour shows")
    wait_for(dash_duo, lambda: dash_duo.find_element("#tour-spot").get_attribute(
        "data-target") == ids.GRAPH_CHOICE, 10, "the chooser pointed at")
    assert dash_duo.find_element("#tour-spot").is_displayed()
    dash_duo.find_element(f"#{ids.TOUR_NEXT}").click()
    dash_duo.wait_for_text_to_equal(f"#{ids.TOUR_COUNT}", f"2 of {len(STEPS)}")
    wait_for(dash_duo, lambda: dash_duo.find_element("#tour-spot").get_attribute(
        "data-target") == ids.CYTO, 10, "the graph view pointed at")
    assert "fusion group" in text_of(dash_duo, ids.TOUR_TEXT)
    link = dash_duo.find_element(f"#{ids.TOUR_TEXT} a.term")
    assert link.get_attribute("href").endswith("/learn?term=fusion-group")
    shot(dash_duo, tmp_path, "app-tour.png")
    dash_duo.find_element(f"#{ids.TOUR_CLOSE}").click()
    wait_for(dash_duo, lambda: not dash_duo.find_element(f"#{ids.TOUR}").is_displayed(), 10,
             "the tour closed")
    wait_for(dash_duo, lambda: not dash_duo.find_element("#tour-spot").is_displayed(), 10,
             "the spot gone")
    dash_duo.driver.refresh()  # the browser remembers: no tour on the next visit
    wait_for(dash_duo, lambda: cy(dash_duo, "graph-view", "cy.nodes().length"), 60, "the graph")
    time.sleep(1.5)
    assert not dash_duo.find_element(f"#{ids.TOUR}").is_displayed()
    dash_duo.find_element(f"#{ids.TOUR_OPEN}").click()
    dash_duo.wait_for_text_to_equal(f"#{ids.TOUR_COUNT}", f"1 of {len(STEPS)}")
    dash_duo.find_element(f"#{ids.TOUR_CLOSE}").click()
    wait_for(dash_duo, lambda: not dash_duo.find_element(f"#{ids.TOUR}").is_displayed(), 10,
             "the tour closed again")
    # the same session: the legend's group kinds link to the glossary
    the_legend_links_to_the_glossary(dash_duo)


def the_legend_links_to_the_glossary(dash_duo):
    """A group kind in the legend opens its glossary entry; *Back* returns to the workbench,
    with the graph's view as it was (the canvas, hidden meanwhile, was refitted at a 0x0 size and
    came back at the maximum zoom)."""
    view = cy(dash_duo, "graph-view", "[cy.zoom(), cy.pan().x, cy.pan().y]")
    dash_duo.find_element(f"#{ids.LEGEND}").find_element(By.LINK_TEXT, KIND_LABELS["input"]).click()
    wait_for(dash_duo, lambda: "current" in dash_duo.find_element(
        "#term-input-fusion").get_attribute("class"), 20, "the entry highlighted")
    assert dash_duo.find_element(f"#{ids.LEARN_VIEW}").is_displayed()
    assert "computed on the fly while it reduces" in text_of(dash_duo, "term-input-fusion")
    dash_duo.driver.find_element(By.LINK_TEXT, "← Back to the workbench").click()
    wait_for(dash_duo, lambda: dash_duo.find_element(f"#{ids.MAIN_VIEW}").is_displayed(), 10,
             "the workbench again")
    time.sleep(1.0)  # past the view's second restore (300 ms after the canvas is shown)
    again = cy(dash_duo, "graph-view", "[cy.zoom(), cy.pan().x, cy.pan().y]")
    assert again == pytest.approx(view, abs=1e-6), (view, again)


def a_what_if_question_is_answered_by_moving_the_knob(dash_duo, tmp_path):
    """A what-if question, opened from the Learn page's list, answered by moving its knob."""
    from selenium.webdriver.common.keys import Keys

    from workbench.teaching.whatif import BY_ID, answer_text, sweep

    q = BY_ID["duplication-transcendental"]
    dash_duo.find_element(f"#{ids.LEARN_NAV}").find_element(By.LINK_TEXT, q.title).click()
    dash_duo.wait_for_contains_text(f"#{ids.Q_TITLE}", "cost of a transcendental", 30)
    s = sweep(q, "cpu")
    dash_duo.wait_for_contains_text(f"#{ids.Q_ANSWER}", answer_text(s).split(". ")[0], 30)
    before = text_of(dash_duo, ids.Q_ANSWER)
    handle = dash_duo.find_element(f"#{ids.Q_KNOB} [role=slider]")
    handle.send_keys(Keys.HOME)  # the knob at a thousandth of the device's value
    wait_for(dash_duo, lambda: text_of(dash_duo, ids.Q_ANSWER) != before, 20, "a new answer")
    assert answer_text(s, s.values[0]).split(". ")[0] in text_of(dash_duo, ids.Q_ANSWER)
    traces = dash_duo.driver.execute_script(
        f"return document.getElementById('{ids.Q_CHART}').querySelector('.js-plotly-plot')"
        ".data.map(function (t) {{ return t.name; }})")
    assert traces[:4] == ["t duplicated into each consumer", "t written once",
                          "the planner, re-planned at each value", "the knob"]
    shot(dash_duo, tmp_path, "learn-whatif.png")

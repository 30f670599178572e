"""The What-if and Diff tabs in a real browser (dash_duo, headless Chromium)."""

from __future__ import annotations

import json

import pytest
from selenium.webdriver.common.by import By

from tests.app.conftest import choose, cy_eval, wait_for
from tests.app.test_browser import (open_tab, save_screenshot, session_key, session_state,
                                     start, text_of)
from tests.conftest import SAMPLES_DIR
from workbench.app import ids
from workbench.cli import main

pytestmark = pytest.mark.browser


def table_rows(dash_duo, id_) -> list[list[str]]:
    """The cells of an AG Grid, row by row in the order shown, columns in order."""
    rows = dash_duo.find_elements(f"#{id_} .ag-center-cols-container .ag-row")
    rows.sort(key=lambda r: int(r.get_attribute("row-index") or 0))
    out = []
    for r in rows:
        cells = r.find_elements(By.CSS_SELECTOR, ".ag-cell")
        cells.sort(key=lambda c: int(c.get_attribute("aria-colindex") or 0))
        out.append([c.text for c in cells])
    return out


def column_width(dash_duo, id_, header: str) -> int:
    """The drawn width (pixels) of the AG Grid column of ``id_`` headed ``header``."""
    return dash_duo.driver.execute_script(
        "var id = arguments[0], name = arguments[1];"
        "var h = [...document.querySelectorAll('#' + id + ' .ag-header-cell')]"
        ".find(function (c) { return c.innerText.trim() === name; });"
        "return h ? Math.round(h.getBoundingClientRect().width) : null;", id_, header)


def set_knob(dash_duo, knob: str, value: str) -> None:
    """Type a value into a knob slider's number box (Dash 4's dcc.Slider has one)."""
    from selenium.webdriver.common.keys import Keys

    box = dash_duo.find_element(f"#{ids.knob_id(knob)} input")
    dash_duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", box)
    box.send_keys(Keys.CONTROL, "a")
    # Enter applies it (Dash's box applies on blur: assets/workbench.js blurs it on Enter)
    box.send_keys(value, Keys.ENTER)


def test_slowing_compute_flips_the_duplication_on_multi_consumer(dash_duo, make_app, tmp_path):
    # ... and the knobbed workspace shared as a link (share_and_open)
    # multi_consumer on the h100: `producer` (an add) is duplicated into its three consumers,
    # saving a 256 KiB round trip for a few FLOPs. At a thousandth of the compute peak those
    # FLOPs cost more than the traffic they save, so the planner must refuse: the "fuse
    # producer" decision flips, and the one kernel becomes two.
    app = make_app(SAMPLES_DIR / "multi_consumer.json")
    services = start(dash_duo, app)
    choose(dash_duo, ids.DEVICE, "h100")
    wait_for(dash_duo, lambda: session_state(dash_duo, services)[0].device == "h100", 20,
             "the h100 plan")
    open_tab(dash_duo, "What-if")
    wait_for(dash_duo, lambda: "The plan is unchanged" in text_of(dash_duo, ids.WHATIF_SUMMARY),
             20, "the neutral what-if")
    set_knob(dash_duo, "peak_flops", "-3")          # the "÷1000" mark: 67 GFLOP/s
    wait_for(dash_duo, lambda: "decision(s) flipped" in text_of(dash_duo, ids.WHATIF_SUMMARY),
             20, "the re-plan")
    rows = table_rows(dash_duo, ids.WHATIF_FLIPS)
    fuse = [r for r in rows if r[0] == "fuse"]
    assert fuse and fuse[0][1].startswith("producer") and fuse[0][2:4] == ["taken", "refused"]
    assert "1 → 2 kernels" in text_of(dash_duo, ids.WHATIF_SUMMARY)
    # the reason wraps in a column at least 240 px wide (it was sized to its header, 102 px,
    # one word a line)
    assert column_width(dash_duo, ids.WHATIF_FLIPS, "why, now") >= 240
    assert {r[0] for r in table_rows(dash_duo, ids.WHATIF_GROUPS)} == {"g0", "g1"}
    # before "Use this plan", the canvas marks the ops of the changed groups (a thick green
    # border) and fills the flipped decision's ops: `producer` is in both
    consumers = {"consumer_square", "consumer_sub", "consumer_relu"}
    wait_for(dash_duo, lambda: set(marked(dash_duo, "5px")) >= consumers, 20,
             "the changed groups marked")
    assert "producer" in marked(dash_duo, "3px")       # the flipped decision's op
    save_screenshot(dash_duo, tmp_path, "app-whatif.png")
    # the sweep plot of one knob is drawn
    wait_for(dash_duo, lambda: dash_duo.find_elements(f"#{ids.WHATIF_SWEEP} .scatterlayer"),
             20, "the sweep plot")
    # use it: the session is re-planned on the knobbed profile
    dash_duo.find_element(f"#{ids.WHATIF_APPLY}").click()
    wait_for(dash_duo, lambda: session_state(dash_duo, services)[0].device.startswith(
        "h100+peak_flops="), 20, "the knobbed plan")
    assert session_state(dash_duo, services)[0].plan.num_kernels == 2
    # the device dropdown shows the knobbed profile as one of its options (a name outside
    # them is cleared by the dropdown, which would re-plan on no device): the plan stays
    knobbed = session_state(dash_duo, services)[0].device
    wait_for(dash_duo, lambda: "h100 + knobs (peak_flops=" in text_of(dash_duo, ids.DEVICE),
             20, "the knobbed device in the dropdown")
    assert session_state(dash_duo, services)[0].device == knobbed
    assert session_state(dash_duo, services)[0].plan.num_kernels == 2
    # the knobs are in the profile now: the sliders are back at neutral, nothing is applied
    # twice, and the marks are gone with the change
    wait_for(dash_duo, lambda: text_of(dash_duo, ids.WHATIF_SUMMARY).startswith(
        "no knob moved"), 20, "the neutral what-if on the knobbed profile")
    assert "The plan is unchanged" in text_of(dash_duo, ids.WHATIF_SUMMARY)
    wait_for(dash_duo, lambda: not marked(dash_duo, "5px"), 20, "the marks cleared")
    share_and_open(dash_duo, services)


def share_and_open(dash_duo, services):
    """*Share link*, opened in a new tab (a new session): the same graph, knobbed device and
    plan; then a damaged link is one line and changes nothing."""
    ws = session_state(dash_duo, services)[0]
    dash_duo.find_element(f"#{ids.SHARE}").click()
    url = wait_for(dash_duo, lambda: dash_duo.find_element(f"#{ids.SHARE_URL}").get_attribute(
        "value"), 20, "the link")
    assert url.startswith(dash_duo.server_url) and "#ws=" in url
    first = session_key(dash_duo)
    dash_duo.driver.switch_to.new_window("tab")
    dash_duo.driver.get(url)
    wait_for(dash_duo, lambda: "opened the shared link" in text_of(dash_duo, ids.LINK_MSG), 30,
             "the link followed")
    assert session_key(dash_duo) != first
    opened = session_state(dash_duo, services)[0]
    assert (opened.choice, opened.device) == (ws.choice, ws.device) and opened.plan == ws.plan
    assert "#ws=" not in dash_duo.driver.current_url       # followed once
    # one fresh load with the damaged hash (a hash change and then a refresh raced: when the
    # hash change's answer came first it cleared the hash, and the refresh loaded a plain page)
    dash_duo.driver.get("about:blank")
    dash_duo.driver.get(url.split("#")[0] + "#ws=damaged")
    wait_for(dash_duo, lambda: "the link was not opened" in text_of(dash_duo, ids.LINK_MSG),
             30, "the refusal")
    assert session_state(dash_duo, services)[0].plan == ws.plan


def marked(dash_duo, width: str) -> list:
    """The op ids drawn with a border of ``width`` (the marks' rules; a step's or a
    flipped decision's ops 3px, a changed group's 5px)."""
    return cy_eval(dash_duo, "cy.nodes('.op').filter(function (n) { return "
                   f"n.style('border-width') === '{width}'; }}).map(function (n) {{ "
                   "return n.data('node'); })") or []


def test_diff_view_lists_the_same_differences_as_workbench_diff(dash_duo, make_app, tmp_path,
                                                               capsys):
    path = SAMPLES_DIR / "transformer_block.json"
    assert main(["diff", str(path), "--a", "priority", "--b", "xla-cpu", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["differences"]
    app = make_app(path)
    start(dash_duo, app)
    open_tab(dash_duo, "Diff")
    n = len(cli["differences"])
    wait_for(dash_duo, lambda: f"{n} differences" in text_of(dash_duo, ids.DIFF_SUMMARY), 30,
             "the diff")
    rows = table_rows(dash_duo, ids.DIFF_TABLE)
    assert [(r[1], r[2], int(r[3])) for r in rows] == [
        (",".join(d["a_groups"]), ",".join(d["b_groups"]), len(d["nodes"]))
        for d in cli["differences"]]
    wait_for(dash_duo, lambda: dash_duo.find_elements(f"#{ids.TIME_MEMORY} .scatterlayer"),
             20, "the time vs memory chart")
    save_screenshot(dash_duo, tmp_path, "app-diff.png")



def test_tune_is_a_job_the_page_follows_to_its_end(dash_duo, make_app, private_cache):
    """*Tune* on chain10 (one kernel), 2 variants: the click starts a job (the button is
    disabled and the status line says so at once), the page polls it to its end — the status
    says how many variants were measured, the trial table has one row per variant, the
    history the start and both variants — and the buttons are back as they were."""
    from selenium.webdriver.common.keys import Keys

    app = make_app(SAMPLES_DIR / "chain10.json")
    services = start(dash_duo, app)
    open_tab(dash_duo, "What-if")
    box = dash_duo.find_element(f"#{ids.TUNE_BUDGET}")
    dash_duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", box)
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys("2", Keys.TAB)
    run = dash_duo.find_element(f"#{ids.TUNE_RUN}")
    assert run.is_enabled() and not dash_duo.find_element(f"#{ids.TUNE_CANCEL}").is_enabled()
    run.click()
    sid = session_key(dash_duo)
    wait_for(dash_duo, lambda: services.jobs.latest(f"tune:{sid}") is not None, 20,
             "the tune job")
    task = services.jobs.latest(f"tune:{sid}")
    assert task.kind == "tune" and task.args[3] == 2          # the budget the page sent
    wait_for(dash_duo, lambda: text_of(dash_duo, ids.TUNE_STATUS).startswith("done:"), 300,
             "the tune's end")
    result = task.result["result"]
    assert text_of(dash_duo, ids.TUNE_STATUS) == \
        f"done: {sum(t.status == 'ok' for t in result.trials)} variant(s) measured"
    assert text_of(dash_duo, ids.TUNE_SUMMARY).startswith(
        "Measured the start plan and 2 variant(s)")
    wait_for(dash_duo, lambda: len(table_rows(dash_duo, ids.TUNE_TABLE)) == 2, 20,
             "the trials")
    assert [r[1] for r in table_rows(dash_duo, ids.TUNE_TABLE)] == \
        [t.description for t in result.trials]
    assert column_width(dash_duo, ids.TUNE_TABLE, "kept / why") >= 200
    wait_for(dash_duo, lambda: len(table_rows(dash_duo, ids.TUNE_HISTORY)) == 3, 20,
             "the history")
    wait_for(dash_duo, lambda: run.is_enabled(), 20, "Tune enabled again")
    assert not dash_duo.find_element(f"#{ids.TUNE_CANCEL}").is_enabled()

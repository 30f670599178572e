"""The workbench in a real browser (dash[testing]'s dash_duo, headless Chromium).

Run with ``pytest tests/app --headless`` (``DASH_TEST_CHROMEPATH=/usr/bin/chromium``,
chromedriver on PATH). Cytoscape nodes are clicked at their rendered positions, read from the
page's cytoscape instance.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.app.conftest import (choose, click_vertex, cy_eval, grid_cell, grid_column,
                                group_count, highlighted, hover_vertex, vertex_of, wait_for)
from tests.conftest import SAMPLES_DIR, shared_hlo_dir
from workbench.app import ids

pytestmark = pytest.mark.browser


def start(dash_duo, app):
    """Start the app and wait until the graph is drawn; returns the session's services."""
    dash_duo.start_server(app)
    wait_for(dash_duo, lambda: cy_eval(dash_duo, "cy.nodes().length") > 0, 30, "the graph")
    return app.services


def session_key(dash_duo) -> str:
    """The session key the page holds (session storage)."""
    return dash_duo.driver.execute_script(
        f"return JSON.parse(sessionStorage.getItem('{ids.SESSION}'))")


def session_state(dash_duo, services):
    """The browser session's workspace and graph, read from the server-side store."""
    return services.session(session_key(dash_duo))


def start_drawn(dash_duo, app):
    """Start the app and wait for one compound per multi-op group; returns the services, the
    workspace and that number of groups."""
    services = start(dash_duo, app)
    ws, _ = session_state(dash_duo, services)
    n = multi_groups(ws.plan)
    wait_for(dash_duo, lambda: group_count(dash_duo) == n, 20, "the groups")
    return services, ws, n


def save_screenshot(dash_duo, tmp_path, name: str) -> None:
    """Save the page in the test's temporary directory (and, when ``$WORKBENCH_SCREENSHOTS``
    names a directory, there too: ``WORKBENCH_SCREENSHOTS=docs`` refreshes the docs' images)."""
    time.sleep(0.5)
    dash_duo.driver.save_screenshot(str(tmp_path / name))
    assert (tmp_path / name).stat().st_size > 20_000
    if os.environ.get("WORKBENCH_SCREENSHOTS"):
        dash_duo.driver.save_screenshot(os.path.join(os.environ["WORKBENCH_SCREENSHOTS"], name))


def multi_groups(plan) -> int:
    return sum(1 for g in plan.groups if g.size > 1)


def text_of(dash_duo, id_) -> str:
    return dash_duo.find_element(f"#{id_}").text


def click(dash_duo, id_) -> None:
    dash_duo.find_element(f"#{id_}").click()


def open_tab(dash_duo, label: str) -> None:
    dash_duo.find_element(f"#{ids.TABS}").find_element(By.XPATH, f".//*[text()='{label}']").click()


def test_opens_on_the_transformer_block_and_draws_its_groups(dash_duo, make_app, tmp_path):
    services = start(dash_duo, make_app())
    ws, graph = session_state(dash_duo, services)
    assert graph.name == "transformer_block"
    wait_for(dash_duo, lambda: group_count(dash_duo) == multi_groups(ws.plan), 20,
             "one compound per multi-op group")
    kinds = set(cy_eval(dash_duo, "cy.nodes('.group').map(function (n) {"
                                  " return n.data('kind'); })"))
    assert kinds == {g.kind for g in ws.plan.groups if g.size > 1}
    dash_duo.wait_for_contains_text(f"#{ids.PLAN_SUMMARY}", f"{ws.plan.num_kernels} kernels")
    dash_duo.wait_for_contains_text(f"#{ids.GRAPH_TITLE}", "transformer_block")
    wait_for(dash_duo, lambda: grid_column(dash_duo, ids.GROUP_TABLE, "id")[:10]
             == [g.id for g in ws.plan.groups][:10], 20, "the group table")
    big = max(ws.plan.groups, key=lambda g: g.size)
    click_vertex(dash_duo, vertex_of(dash_duo, big.nodes[0]))
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", f"Selected group {big.id}")
    wait_for(dash_duo, lambda: highlighted(dash_duo) == {big.id}, 10,
             "the selected group's box and ops highlighted")
    save_screenshot(dash_duo, tmp_path, "app-main.png")


def test_choosing_another_sample_redraws(dash_duo, make_app):
    services = start(dash_duo, make_app())
    choose(dash_duo, ids.GRAPH_CHOICE, "sample: mlp")
    wait_for(dash_duo, lambda: vertex_of(dash_duo, "matmul1"), 20, "the mlp drawn")
    ws, graph = session_state(dash_duo, services)
    assert graph.name == "mlp"
    assert vertex_of(dash_duo, "qkv") is None  # nothing left of the transformer block
    drawn = cy_eval(dash_duo, "cy.nodes('.op').length")
    assert drawn == sum(g.size for g in ws.plan.groups)
    dash_duo.wait_for_contains_text(f"#{ids.GRAPH_TITLE}", "mlp")


def test_uploading_a_malformed_file_shows_an_error_and_keeps_the_graph(dash_duo, make_app,
                                                                      tmp_path):
    start(dash_duo, make_app())
    before = cy_eval(dash_duo, "cy.nodes().length")
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": "fusion-workbench-graph", "nodes": [ {"id": ')
    upload = dash_duo.find_element(f"#{ids.UPLOAD} input[type=file]")
    upload.send_keys(str(bad))
    dash_duo.wait_for_contains_text(f"#{ids.LOAD_MSG}", "broken.json:1:")
    assert cy_eval(dash_duo, "cy.nodes().length") == before
    assert vertex_of(dash_duo, "qkv") is not None
    assert "transformer_block" in text_of(dash_duo, ids.GRAPH_TITLE)
    # a file over the cap is refused by the browser, with its size
    big = tmp_path / "huge.json"
    big.write_bytes(b" " * (17 << 20))
    upload = dash_duo.find_element(f"#{ids.UPLOAD} input[type=file]")
    upload.send_keys(str(big))
    dash_duo.wait_for_contains_text(f"#{ids.LOAD_MSG}", "huge.json: the file is 17.0 MiB, more "
                                    "than the 16.0 MiB upload limit", timeout=30)
    assert vertex_of(dash_duo, "qkv") is not None
    # a good upload afterwards replaces the graph and clears the message
    upload = dash_duo.find_element(f"#{ids.UPLOAD} input[type=file]")
    upload.send_keys(str(SAMPLES_DIR / "softmax.json"))
    dash_duo.wait_for_contains_text(f"#{ids.GRAPH_TITLE}", "softmax")
    assert text_of(dash_duo, ids.LOAD_MSG) == ""


def test_split_a_group_then_undo(dash_duo, make_app):
    services, ws, n = start_drawn(dash_duo, make_app())
    big = max(ws.plan.groups, key=lambda g: g.size)
    click_vertex(dash_duo, vertex_of(dash_duo, big.nodes[-1]))
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", f"group {big.id}")
    click(dash_duo, ids.SPLIT)
    wait_for(dash_duo, lambda: group_count(dash_duo) == n - 1, 20, "one group fewer")
    kernels = ws.plan.num_kernels + big.size - 1
    dash_duo.wait_for_contains_text(f"#{ids.PLAN_SUMMARY}", f"{kernels} kernels")
    assert session_state(dash_duo, services)[0].plan.num_kernels == kernels
    click(dash_duo, ids.UNDO)
    wait_for(dash_duo, lambda: group_count(dash_duo) == n, 20, "the group back")
    dash_duo.wait_for_contains_text(f"#{ids.PLAN_SUMMARY}", f"{ws.plan.num_kernels} kernels")
    dash_duo.wait_for_contains_text(f"#{ids.EDIT_MSG}", f"undid the split (you split {big.id}")


def test_the_step_through_slider_redraws_the_groups(dash_duo, make_app):
    _, ws, n = start_drawn(dash_duo, make_app())
    open_tab(dash_duo, "Explain")
    handle = dash_duo.wait_for_element(f"#{ids.STEP_SLIDER} [role=slider]")
    handle.send_keys(Keys.HOME)
    wait_for(dash_duo, lambda: group_count(dash_duo) == 0, 20, "every op alone at step 0")
    dash_duo.wait_for_contains_text(f"#{ids.BANNER}", f"step 0 of {len(ws.plan.decisions)}")
    dash_duo.wait_for_contains_text(f"#{ids.STEP_TEXT}", "every op is its own kernel")
    handle.send_keys(Keys.ARROW_RIGHT)
    first = ws.plan.decisions[0]
    dash_duo.wait_for_contains_text(f"#{ids.STEP_TEXT}", f"Step 1 of {len(ws.plan.decisions)}")
    assert first.reason in text_of(dash_duo, ids.STEP_TEXT)
    handle.send_keys(Keys.END)
    wait_for(dash_duo, lambda: group_count(dash_duo) == n, 20, "the final plan again")
    assert text_of(dash_duo, ids.BANNER) == ""


def _mlp_on_xla_cpu(dash_duo, make_app):
    """The app on the mlp sample under XLA:CPU's policy (each matmul a kernel of its own):
    its services and workspace once the plan is in."""
    services = start(dash_duo, make_app())
    choose(dash_duo, ids.GRAPH_CHOICE, "sample: mlp")
    wait_for(dash_duo, lambda: vertex_of(dash_duo, "matmul1"), 20, "the mlp drawn")
    choose(dash_duo, ids.POLICY, "xla-cpu")
    wait_for(dash_duo, lambda: session_state(dash_duo, services)[0].policy == "xla-cpu", 20,
             "the xla-cpu plan")
    return services, session_state(dash_duo, services)[0]


def test_merging_two_nodes_of_a_chain_changes_the_group_count(dash_duo, make_app):
    """XLA:CPU's policy leaves each matmul alone; merging it with its bias makes one kernel."""
    services, ws = _mlp_on_xla_cpu(dash_duo, make_app)
    assert ws.plan.group_of("matmul1").id != ws.plan.group_of("bias_add1").id
    dash_duo.wait_for_contains_text(f"#{ids.PLAN_SUMMARY}", f"{ws.plan.num_kernels} kernels")
    n = multi_groups(ws.plan)
    wait_for(dash_duo, lambda: group_count(dash_duo) == n, 20, "the xla-cpu groups drawn")
    click_vertex(dash_duo, vertex_of(dash_duo, "matmul1"))
    click_vertex(dash_duo, vertex_of(dash_duo, "bias_add1"), shift=True)
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", "matmul1, bias_add1")
    click(dash_duo, ids.MERGE)
    dash_duo.wait_for_contains_text(f"#{ids.PLAN_SUMMARY}", f"{ws.plan.num_kernels - 1} kernels")
    new = session_state(dash_duo, services)[0].plan
    merged = new.group_of("matmul1")
    assert "bias_add1" in merged.nodes and merged.kind == "output"
    assert new.num_kernels == ws.plan.num_kernels - 1
    wait_for(dash_duo, lambda: group_count(dash_duo) == multi_groups(new), 20,
             "the merged group drawn")
    wait_for(dash_duo, lambda: cy_eval(dash_duo, "cy.getElementById(arguments[0]).parent()"
                                                 ".data('gid')", vertex_of(dash_duo, "matmul1"))
             == merged.id, 20, "matmul1 drawn in the merged group")
    # a merge says what it did (it showed nothing)
    dash_duo.wait_for_contains_text(f"#{ids.EDIT_MSG}", "you merged ")
    assert "into one kernel of" in text_of(dash_duo, ids.EDIT_MSG)


def test_an_illegal_merge_shows_the_reason_and_changes_nothing(dash_duo, make_app):
    """ln1 and ln2 in one kernel: the path through the attention would leave and re-enter it."""
    services, ws, _ = start_drawn(dash_duo, make_app())
    elements_before = cy_eval(dash_duo, "cy.elements().length")
    click_vertex(dash_duo, vertex_of(dash_duo, "ln1"))
    click_vertex(dash_duo, vertex_of(dash_duo, "ln2"), shift=True)
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", "ln1, ln2")
    click(dash_duo, ids.MERGE)
    dash_duo.wait_for_contains_text(f"#{ids.EDIT_MSG}", "[cycle]")
    assert "would depend on itself" in text_of(dash_duo, ids.EDIT_MSG)
    after, _ = session_state(dash_duo, services)
    assert after.plan == ws.plan and len(after.history) == 1
    assert cy_eval(dash_duo, "cy.elements().length") == elements_before
    assert f"{ws.plan.num_kernels} kernels" in text_of(dash_duo, ids.PLAN_SUMMARY)


def test_compile_and_profile_on_the_cpu_shows_times_and_the_check(dash_duo, make_app, tmp_path):
    """chain10: ten elementwise ops, one loop fusion (the classic case), against ten kernels."""
    services = start(dash_duo, make_app())
    choose(dash_duo, ids.GRAPH_CHOICE, "sample: chain10")
    wait_for(dash_duo, lambda: vertex_of(dash_duo, "sqrt1"), 20, "chain10 drawn")
    ws, graph = session_state(dash_duo, services)
    open_tab(dash_duo, "Compile & profile")
    dash_duo.wait_for_contains_text(f"#{ids.PROFILE_SUMMARY}", "Not profiled yet")
    choose(dash_duo, ids.PROFILE_BACKEND, "cpu")
    click(dash_duo, ids.PROFILE_RUN)
    wait_for(dash_duo, lambda: "speedup" in text_of(dash_duo, ids.PROFILE_SUMMARY)
             or text_of(dash_duo, ids.PROFILE_MSG), 240, "the report (or an error)")
    assert text_of(dash_duo, ids.PROFILE_MSG) == ""
    summary = text_of(dash_duo, ids.PROFILE_SUMMARY)
    assert "backend cpu (as chosen)" in summary and "measured fused" in summary
    record = services.store.report(session_key(dash_duo))
    report = record["report"]
    assert report["backend"] == "cpu" and report["ok"] is True
    # the key figures in at most four lines; the notes (e.g. why the CPU was used) under the
    # collapsed details, shown when it is opened
    lines = dash_duo.find_elements(f"#{ids.PROFILE_SUMMARY} .summary-line")
    assert 2 <= len(lines) <= 4
    height = dash_duo.driver.execute_script(
        "return document.getElementById(arguments[0]).getBoundingClientRect().height",
        ids.PROFILE_SUMMARY)
    assert height < 6 * 18, f"the summary is {height} px high"   # four lines and details
    if report["notes"]:
        assert not any(note in summary for note in report["notes"])
        assert not any(note in text_of(dash_duo, ids.PROFILE_DETAILS)
                       for note in report["notes"])   # collapsed
        dash_duo.find_element(f"#{ids.PROFILE_DETAILS} summary").click()
        summary = wait_for(dash_duo, lambda: (lambda t: t if report["notes"][0] in t else None)(
            text_of(dash_duo, ids.PROFILE_DETAILS)), 10, "the details opened")
    assert all(note in summary for note in report["notes"])
    measured = wait_for(dash_duo, lambda: grid_column(dash_duo, ids.PROFILE_TABLE,
                                                      "measured_s"), 20, "the kernel rows")
    assert len(measured) == ws.plan.num_kernels
    assert all(c.endswith("s") and c[0].isdigit() for c in measured)
    # a missed prediction says which term was wrong (workbench run's words), in a column
    # beside the ratio, and whole, wrapped within the panel, in the list under the table
    missed = [k for k in report["kernels"] if (k.get("prediction") or {}).get("missed")]
    for k in missed:
        cell = wait_for(dash_duo, lambda: dash_duo.find_element(
            f'#{ids.PROFILE_TABLE} .ag-row[row-id="{k["group_id"]}"] .ag-cell[col-id="miss"]'),
            10, "the miss cell")
        assert cell.text.startswith("MISS: ") and k["prediction"]["text"][:30] in cell.text
        assert f'{k["group_id"]} (ratio ' in text_of(dash_duo, ids.PROFILE_MISSES)
        assert k["prediction"]["text"] in text_of(dash_duo, ids.PROFILE_MISSES)
    if missed:
        inside = dash_duo.driver.execute_script(
            "var m = document.getElementById(arguments[0]).getBoundingClientRect(), t = "
            "document.getElementById(arguments[1]).getBoundingClientRect();"
            "return m.right <= t.right + 1;", ids.PROFILE_MISSES, ids.PROFILE_TABLE)
        assert inside, "the missed predictions' list runs past the panel's edge"
    checks = grid_column(dash_duo, ids.CORRECTNESS, "ok")
    assert len(checks) == len(graph.outputs) and all(c == "yes" for c in checks)
    assert text_of(dash_duo, ids.PROFILE_MSG) == ""
    assert dash_duo.find_element(f"#{ids.PROFILE_RUN}").is_enabled()
    # the selected group's kernel source is shown
    click_vertex(dash_duo, vertex_of(dash_duo, "sqrt1"))
    group = ws.plan.group_of("sqrt1")
    dash_duo.wait_for_contains_text(f"#{ids.KERNEL_SOURCE}", "def ")
    assert record["sources"][group.id].split("\n")[0] in text_of(dash_duo, ids.KERNEL_SOURCE)
    click(dash_duo, ids.FIT)
    # a selection shows the report again: the details opened stay open
    assert dash_duo.find_element(f"#{ids.PROFILE_DETAILS}").get_attribute("open") is not None \
        or not report["notes"]
    save_screenshot(dash_duo, tmp_path, "app-profile.png")
    # downloads: the Perfetto trace and the plan
    click(dash_duo, ids.DOWNLOAD_TRACE)
    click(dash_duo, ids.DOWNLOAD_PLAN)
    folder = Path(dash_duo.download_path)
    wait_for(dash_duo, lambda: (folder / "chain10.trace.json").exists()
             and (folder / "chain10.plan.json").exists(), 20, "the downloads")
    trace = json.loads((folder / "chain10.trace.json").read_text())
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    kernel = next(k for k in report["kernels"] if k["group_id"] == "g0")
    assert {e["name"].split()[0] for e in slices} == {"g0"}  # one kernel, one slice per run
    assert len(slices) == kernel["samples"] >= 1
    assert json.loads((folder / "chain10.plan.json").read_text())["groups"][0]["id"] == "g0"


def test_profiling_can_be_cancelled_and_the_app_keeps_running(dash_duo, make_app):
    from workbench.app.profiling import NO_GPU
    from workbench.codegen.backend import gpu_available

    services = start(dash_duo, make_app())
    open_tab(dash_duo, "Compile & profile")
    dash_duo.wait_for_contains_text(f"#{ids.PROFILE_SUMMARY}", "Not profiled yet")
    if not gpu_available():  # cuda chosen on a machine without a GPU: said in the app's words
        choose(dash_duo, ids.PROFILE_BACKEND, "cuda")
        click(dash_duo, ids.PROFILE_RUN)
        dash_duo.wait_for_text_to_equal(f"#{ids.PROFILE_MSG}", NO_GPU, timeout=60)
        wait_for(dash_duo, lambda: dash_duo.find_element(f"#{ids.PROFILE_RUN}").is_enabled(),
                 30, "the run button enabled again")
        choose(dash_duo, ids.PROFILE_BACKEND, "auto")  # another backend: the message goes
        dash_duo.wait_for_text_to_equal(f"#{ids.PROFILE_MSG}", "")
    click(dash_duo, ids.PROFILE_RUN)
    wait_for(dash_duo, lambda: not dash_duo.find_element(f"#{ids.PROFILE_RUN}").is_enabled(),
             20, "the run button disabled while profiling")
    wait_for(dash_duo, lambda: " of " in text_of(dash_duo, ids.PROFILE_STATUS)
             or text_of(dash_duo, ids.PROFILE_MSG), 60, "progress (or an error)")
    assert text_of(dash_duo, ids.PROFILE_MSG) == ""
    click(dash_duo, ids.PROFILE_CANCEL)
    wait_for(dash_duo, lambda: dash_duo.find_element(f"#{ids.PROFILE_RUN}").is_enabled(), 30,
             "the run button enabled again")
    dash_duo.wait_for_text_to_equal(f"#{ids.PROFILE_STATUS}", "cancelled: nothing new was "
                                    "profiled")
    assert dash_duo.find_element(f"#{ids.PROFILE_PROGRESS}").get_attribute("value") == "0"
    assert services.store.report(session_key(dash_duo)) is None
    assert "Not profiled yet" in text_of(dash_duo, ids.PROFILE_SUMMARY)
    click(dash_duo, ids.DOWNLOAD_REPORT)
    dash_duo.wait_for_contains_text(f"#{ids.PROFILE_MSG}", "Profile the plan first")
    open_tab(dash_duo, "Plan")  # the app still answers
    click(dash_duo, ids.UNDO)
    dash_duo.wait_for_contains_text(f"#{ids.EDIT_MSG}", "nothing to undo")


def test_a_second_session_does_not_see_the_first_ones_plan(dash_duo, make_app):
    services, ws, n = start_drawn(dash_duo, make_app())
    big = max(ws.plan.groups, key=lambda g: g.size)
    click_vertex(dash_duo, vertex_of(dash_duo, big.nodes[0]))
    click(dash_duo, ids.SPLIT)
    wait_for(dash_duo, lambda: group_count(dash_duo) == n - 1, 20, "the split drawn")
    first = session_key(dash_duo)
    # a new browser session (empty session storage): a new key, the planner's plan
    dash_duo.driver.execute_script("sessionStorage.clear();")
    dash_duo.driver.refresh()
    wait_for(dash_duo, lambda: session_key(dash_duo) not in (None, first), 20, "a new session")
    wait_for(dash_duo, lambda: group_count(dash_duo) == n, 20, "the unedited plan")
    assert services.session(session_key(dash_duo))[0].plan == ws.plan
    assert services.session(first)[0].plan.num_kernels == ws.plan.num_kernels + big.size - 1


# ----- the newcomer's findings (issue: app end to end from a fresh clone) -----------------------

def drawn_nodes(dash_duo) -> set:
    """The graph nodes drawn on the canvas (ops and inputs, by their graph id)."""
    return set(cy_eval(dash_duo, "cy.nodes().map(function (n) { return n.data('node'); })"
                                 ".filter(function (x) { return x; })"))


def lying_boxes(dash_duo) -> list:
    """(group, vertex) pairs where a group's drawn box covers an op or input outside it."""
    return cy_eval(dash_duo, """(function () {
        var out = [];
        cy.nodes('.group').filter(function (g) { return g.isParent(); }).forEach(function (g) {
          var body = {includeLabels: false, includeOverlays: false, includeUnderlays: false,
                      includeOutlines: false};
          var b = g.boundingBox(body);
          cy.nodes().filter(function (n) { return n.data('node') && !n.isParent()
                                                  && n.parent().id() !== g.id(); })
            .forEach(function (n) {
              var p = n.boundingBox(body);
              if (p.x1 < b.x2 && p.x2 > b.x1 && p.y1 < b.y2 && p.y2 > b.y1
                  && !(n.hasClass('source'))) { out.push([g.data('gid'), n.data('node')]); }
            });
        });
        return out; })()""")


def test_another_graph_after_xlas_grouping_is_drawn_whole(dash_duo, make_app):
    """Showing XLA's grouping of an optimised module, then choosing a sample: the canvas draws
    the sample's plan (nothing of the module left), the toggle is unticked (and hidden: the
    sample has no XLA tags), and the hover line is cleared."""
    from workbench.app.drawing import build_drawing
    from workbench.planner import xla_plan

    hlo = shared_hlo_dir() / "softmax.after_noynn.hlo"
    services = start(dash_duo, make_app(initial=hlo))
    _, module = session_state(dash_duo, services)
    open_tab(dash_duo, "Explain")
    dash_duo.wait_for_element(f"#{ids.XLA_TOGGLE} input").click()  # the first: XLA's grouping
    dash_duo.wait_for_contains_text(f"#{ids.BANNER}", "XLA's own grouping")
    wait_for(dash_duo, lambda: group_count(dash_duo) == multi_groups(xla_plan(module)), 20,
             "XLA's groups drawn")
    op = next(n.id for n in module.topo_nodes() if n.op == "exponential")
    hover_vertex(dash_duo, vertex_of(dash_duo, op))
    wait_for(dash_duo, lambda: text_of(dash_duo, ids.HOVER_INFO).startswith(op), 10, "hover")
    dash_duo.find_element(f"#{ids.SEARCH}").send_keys(op, Keys.ENTER)
    dash_duo.wait_for_contains_text(f"#{ids.SEARCH_MSG}", f"found {op}")
    choose(dash_duo, ids.GRAPH_CHOICE, "sample: chain10")
    ws, graph = wait_for(dash_duo, lambda: (lambda s: s if s[1].name == "chain10" else None)(
        session_state(dash_duo, services)), 20, "chain10 opened")
    expected = {v.node for v in build_drawing(graph, [g.nodes for g in ws.plan.groups]).vertices}
    wait_for(dash_duo, lambda: drawn_nodes(dash_duo) == expected, 20, "chain10 drawn whole")
    wait_for(dash_duo, lambda: group_count(dash_duo) == multi_groups(ws.plan), 20,
             "chain10's plan, not XLA's grouping")
    assert text_of(dash_duo, ids.BANNER) == ""  # not "no XLA fusion tags"
    assert dash_duo.find_elements(f"#{ids.XLA_TOGGLE} input") == []
    assert text_of(dash_duo, ids.HOVER_INFO) == ""
    wait_for(dash_duo, lambda: dash_duo.find_element(f"#{ids.SEARCH}").get_attribute("value")
             == "" and text_of(dash_duo, ids.SEARCH_MSG) == "", 10, "the search cleared")
    # back to the module: its toggle is offered again, unticked
    choose(dash_duo, ids.GRAPH_CHOICE, "file: hlo/softmax.after_noynn.hlo")
    box = dash_duo.wait_for_element(f"#{ids.XLA_TOGGLE} input")
    assert not box.is_selected()
    wait_for(dash_duo, lambda: drawn_nodes(dash_duo) >= {op}, 20, "the module drawn")


def test_rows_select_groups_edits_are_marked_and_a_saved_plan_loads_back(dash_duo, make_app,
                                                                       tmp_path):
    services, ws, n = start_drawn(dash_duo, make_app())
    saved = tmp_path / "transformer_block.plan.json"
    saved.write_text(ws.plan.dumps())  # what the Plan JSON button downloads
    big = max(ws.plan.groups, key=lambda g: g.size)
    grid_cell(dash_duo, ids.GROUP_TABLE, big.id, "kind").click()
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}",
                                    f"Selected group {big.id} ({big.kind}, {big.size} ops)")
    wait_for(dash_duo, lambda: highlighted(dash_duo) == {big.id}, 10,
             "the group highlighted on the graph")
    # Reject: its ops run alone, marked in the table and on the graph
    click(dash_duo, ids.REJECT)
    kernels = ws.plan.num_kernels + big.size - 1
    dash_duo.wait_for_contains_text(f"#{ids.PLAN_SUMMARY}", f"{kernels} kernels")
    rejected, _ = session_state(dash_duo, services)
    want = ["rejected" if g.size == 1 and g.nodes[0] in big.nodes else ""
            for g in rejected.plan.groups]
    wait_for(dash_duo, lambda: grid_column(dash_duo, ids.GROUP_TABLE, "state")
             == want[:len(grid_column(dash_duo, ids.GROUP_TABLE, "state"))], 20, "states")
    assert cy_eval(dash_duo, "cy.nodes('.rejected').length") == big.size
    # the selected group's ops are in one-op groups now (renumbered): no group is the one
    # selected, so the selection is cleared and the edit's line says so (it used to follow
    # the first op, showing a one-op group under the old id)
    dash_duo.wait_for_contains_text(f"#{ids.EDIT_MSG}", f"the selected group {big.id}'s "
                                    f"{big.size} ops are now in {big.size} groups")
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", "Click a group or a node")
    assert highlighted(dash_duo) == set()
    click(dash_duo, ids.ACCEPT_ALL)
    wait_for(dash_duo, lambda: "pinned" in grid_column(dash_duo, ids.GROUP_TABLE, "state"), 20,
             "pinned groups marked")
    click(dash_duo, ids.ACCEPT_ALL)
    multi = sum(1 for g in rejected.plan.groups if g.size > 1)
    dash_duo.wait_for_text_to_equal(
        f"#{ids.EDIT_MSG}", f"all {multi} groups of two or more ops are already pinned")
    # the saved plan, uploaded: the current plan again (an undoable step)
    dash_duo.find_element(f"#{ids.UPLOAD} input[type=file]").send_keys(str(saved))
    dash_duo.wait_for_contains_text(f"#{ids.LOAD_NOTE}", "transformer_block.plan.json: applied "
                                    f"the saved plan to transformer_block ({ws.plan.num_kernels}"
                                    " kernels; Undo goes back)")
    assert session_state(dash_duo, services)[0].plan == ws.plan
    assert text_of(dash_duo, ids.LOAD_MSG) == ""
    wait_for(dash_duo, lambda: group_count(dash_duo) == n, 20, "the saved plan drawn")
    click(dash_duo, ids.UNDO)
    wait_for(dash_duo, lambda: session_state(dash_duo, services)[0].plan != ws.plan, 20,
             "undo")


def test_replay_steps_are_numbered_as_the_log_and_boxes_hold_only_their_members(dash_duo,
                                                                             make_app):
    from workbench.app.hierarchy import find_nodes, layers_of
    from workbench.planner import replay

    services = start(dash_duo, make_app())
    choose(dash_duo, ids.GRAPH_CHOICE, "sample: chain10")
    wait_for(dash_duo, lambda: vertex_of(dash_duo, "sqrt1"), 20, "chain10 drawn")
    ws, graph = session_state(dash_duo, services)
    n = len(ws.plan.decisions)
    # nodes are labelled by id first (as the table and log name them), then op and type
    assert cy_eval(dash_duo, "cy.getElementById(arguments[0]).data('label')",
                   vertex_of(dash_duo, "mul1")) == f"mul1\nmultiply\n{graph.node('mul1').type}"
    open_tab(dash_duo, "Explain")
    handle = dash_duo.wait_for_element(f"#{ids.STEP_SLIDER} [role=slider]")
    handle.send_keys(Keys.HOME)
    wait_for(dash_duo, lambda: group_count(dash_duo) == 0, 20, "every op alone at step 0")
    for k in range(1, 7):
        handle.send_keys(Keys.ARROW_RIGHT)
        d = ws.plan.decisions[k - 1]
        dash_duo.wait_for_contains_text(f"#{ids.STEP_TEXT}",
                                        f"Step {k} of {n}: {d.action} {', '.join(d.nodes)}")
        dash_duo.wait_for_contains_text(f"#{ids.BANNER}", f"step {k} of {n}")
        multi = sum(1 for s in replay(ws.plan, graph, k) if len(s) > 1)
        wait_for(dash_duo, lambda: group_count(dash_duo) == multi, 20, f"step {k} drawn")
        assert lying_boxes(dash_duo) == []
        wait_for(dash_duo, lambda: [r.get_attribute("row-id") for r in dash_duo.find_elements(
            f"#{ids.DECISION_LOG} .ag-row.log-current")] == [str(k)], 10,
            f"log row {k} marked")  # the log row the slider's step replays
    # clicking log row 3 (its "step" cell says 3) shows step 3
    grid_cell(dash_duo, ids.DECISION_LOG, "3", "step").click()
    dash_duo.wait_for_contains_text(f"#{ids.STEP_TEXT}", f"Step 3 of {n}")
    # search by op name: the multiplies, one after another
    matches = find_nodes(graph, "multiply", layers_of(graph))
    assert len(matches) > 1 and matches[0] == "mul1"
    search = dash_duo.find_element(f"#{ids.SEARCH}")
    search.send_keys("multiply", Keys.ENTER)
    dash_duo.wait_for_text_to_equal(f"#{ids.SEARCH_MSG}",
                                    f"found mul1 (1 of {len(matches)}; Enter for the next)")
    search.send_keys(Keys.ENTER)
    dash_duo.wait_for_contains_text(f"#{ids.SEARCH_MSG}", f"found {matches[1]} (2 of ")


# ----- hostile input and many users (issue 15) -------------------------------------------------

def test_html_in_an_upload_runs_nothing_under_the_pages_security_policy(dash_duo, make_app,
                                                                        tmp_path):
    """A graph whose name and node ids are HTML and script: drawn and listed as text, nothing
    runs; the page works under its Content-Security-Policy (no violation in the console); a
    request the server refuses leaves the page as it was."""
    services = start(dash_duo, make_app())
    payload = '<img src=x onerror="window.__pwned=1">'
    doc = {"format": "fusion-workbench-graph", "version": 1,
           "name": f"evil<script>window.__pwned=2</script>",
           "nodes": [{"id": "x", "op": "parameter", "type": {"shape": [4], "dtype": "f32"},
                      "attrs": {"index": 0}},
                     {"id": payload, "op": "negate", "operands": ["x"]},
                     {"id": "<b>bold</b>", "op": "exponential", "operands": [payload]}],
           "outputs": ["<b>bold</b>"]}
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(doc))
    dash_duo.find_element(f"#{ids.UPLOAD} input[type=file]").send_keys(str(path))
    dash_duo.wait_for_contains_text(f"#{ids.GRAPH_TITLE}", "evil<script>")
    wait_for(dash_duo, lambda: vertex_of(dash_duo, payload), 20, "the payload node drawn")
    click_vertex(dash_duo, vertex_of(dash_duo, payload))
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", "Selected group")
    assert dash_duo.driver.execute_script("return window.__pwned === undefined")
    assert not dash_duo.driver.find_elements(By.CSS_SELECTOR, "img[src=x]")
    assert not dash_duo.driver.find_elements(By.XPATH, "//b[text()='bold']")
    # the server's policy is on the page, and nothing on it broke it
    logs = dash_duo.driver.get_log("browser")
    assert not [e for e in logs if "Content Security Policy" in e.get("message", "")], logs
    sid = session_key(dash_duo)
    before = services.session(sid)[0]
    status = dash_duo.driver.execute_script("""
        var r = new XMLHttpRequest();
        r.open('POST', '/_dash-update-component', false);
        r.setRequestHeader('Content-Type', 'application/json');
        r.send(JSON.stringify({output: 'graph-highlight.data', inputs: 7}));
        return [r.status, r.responseText];""")
    assert status[0] == 400 and "Traceback" not in status[1]
    assert services.session(sid)[0] is before
    click(dash_duo, ids.UNDO)   # the app still answers
    dash_duo.wait_for_contains_text(f"#{ids.EDIT_MSG}", "nothing to undo")


def _sideways(dash_duo, grid_id: str) -> int:
    """How many pixels the grid's columns run past its width (0: no sideways scrolling)."""
    return dash_duo.driver.execute_script(
        "var v = document.querySelector('#' + arguments[0] + ' .ag-center-cols-viewport');"
        "return v ? v.scrollWidth - v.clientWidth : -1;", grid_id)


def test_the_group_table_fits_its_panel_after_a_merge(dash_duo, make_app, tmp_path):
    """A merged group's member list is long: its column takes the width the others leave
    (whole in its tooltip) instead of widening the table past the panel's edge."""
    services, ws = _mlp_on_xla_cpu(dash_duo, make_app)
    wait_for(dash_duo, lambda: len(grid_column(dash_duo, ids.GROUP_TABLE, "ops"))
             == ws.plan.num_kernels, 20, "the group rows")
    assert _sideways(dash_duo, ids.GROUP_TABLE) == 0
    chain = ["matmul1", "bias_add1", "relu1"]  # one contraction a kernel
    click_vertex(dash_duo, vertex_of(dash_duo, chain[0]))
    for node in chain[1:]:
        click_vertex(dash_duo, vertex_of(dash_duo, node), shift=True)
    dash_duo.wait_for_contains_text(f"#{ids.SELECTION_INFO}", "relu1")
    click(dash_duo, ids.MERGE)
    wait_for(dash_duo, lambda: "you merged " in text_of(dash_duo, ids.EDIT_MSG)
             or text_of(dash_duo, ids.EDIT_MSG), 20, "the merge's message")
    assert "you merged " in text_of(dash_duo, ids.EDIT_MSG), text_of(dash_duo, ids.EDIT_MSG)
    wait_for(dash_duo, lambda: len(grid_column(dash_duo, ids.GROUP_TABLE, "ops"))
             == ws.plan.num_kernels - 1, 20, "the merged group's row")
    time.sleep(0.5)  # the grid sizes its columns after the rows arrive
    save_screenshot(dash_duo, tmp_path, "group-table-merged.png")
    assert _sideways(dash_duo, ids.GROUP_TABLE) == 0, "the group table scrolls sideways"
    cols = dash_duo.driver.execute_script(
        "return Array.from(document.querySelectorAll('#' + arguments[0] + ' .ag-header-cell'))"
        ".map(function (c) { return c.getBoundingClientRect().right; });", ids.GROUP_TABLE)
    right = dash_duo.driver.execute_script(
        "return document.getElementById(arguments[0]).getBoundingClientRect().right;",
        ids.GROUP_TABLE)
    assert max(cols) <= right + 1, (cols, right)

"""Fixtures for the app's tests: a fresh app per test, and browser helpers for dash_duo.

Browser tests need Chromium and chromedriver (Debian: ``chromium``, ``chromium-driver``) and run
with ``pytest --headless``; ``DASH_TEST_CHROMEPATH=/usr/bin/chromium`` points dash[testing] at
the browser. Clicking a cytoscape node goes through its rendered position, read from the page's
cytoscape instance.
"""

from __future__ import annotations

import socket
import time

import pytest

from workbench.app import AppConfig, create_app

#: browser window size for the tests and the screenshots (pixels)
WINDOW = (1600, 1000)


def _free_port() -> int:
    """A TCP port nobody on this machine listens on now (the kernel's choice)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session", autouse=True)
def _dash_ports_of_this_process():
    """dash[testing] serves every app on 58050, 58051, ... in each process; two test runs on one
    machine (two checkouts, or pytest-xdist workers) would collide. Start this process's count
    at a free port instead."""
    from dash.testing.application_runners import BaseDashRunner

    BaseDashRunner._next_port = _free_port()


def pytest_setup_options():
    """Chrome options for dash_duo: headless-friendly, no network, a fixed window size."""
    from selenium.webdriver.chrome.options import Options

    options = Options()
    for arg in ("--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-extensions",
                "--disable-component-update", "--no-first-run",
                f"--window-size={WINDOW[0]},{WINDOW[1]}"):
        options.add_argument(arg)
    return options


@pytest.fixture
def make_app():
    """``make_app(initial=None, files=(), tour=False, **config)``: an app with its own session
    store; its worker processes are stopped after the test. The first-visit tour is off unless
    asked for (every browser test is a first visit, and the tour's card would sit over the
    panels)."""
    apps = []

    def make(initial=None, files=(), tour=False, **config):
        app = create_app(AppConfig(initial=str(initial) if initial else None,
                                   graph_files=[str(f) for f in files], tour=tour, **config))
        apps.append(app)
        return app
    yield make
    for app in apps:
        app.services.close()


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    """A results store of the test's own (``$WORKBENCH_CACHE_DIR`` in the temporary directory,
    set before the app's workers are spawned, so they inherit it), with the cpu profile copied
    and the compiled kernels' caches linked (nothing compiled twice across tests)."""
    import shutil

    from workbench.paths import cache_dir

    shared = cache_dir()
    mine = tmp_path / "cache"
    mine.mkdir()
    if (shared / "cpu_profile.json").is_file():
        shutil.copy(shared / "cpu_profile.json", mine / "cpu_profile.json")
    for kernels in ("cpu", "cuda", "numba"):
        (shared / kernels).mkdir(parents=True, exist_ok=True)
        (mine / kernels).symlink_to(shared / kernels, target_is_directory=True)
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(mine))
    return mine


# ----- browser helpers ---------------------------------------------------------------------------

CY = "window.workbenchCy('graph-view')"


@pytest.fixture
def served(make_app):
    """``served(**config)``: (app, Served, Client) on a real port; stopped after the test."""
    started = []

    def start(*args, **config):
        app = make_app(*args, **config)
        from tests.app.http_client import Client, Served

        s = Served(app)
        started.append(s)
        return app, s, Client(s)
    yield start
    for s in started:
        s.close()


def cy_eval(duo, expr: str, *args):
    """Evaluate ``expr`` (JavaScript, with ``cy`` bound to the graph's cytoscape instance)."""
    return duo.driver.execute_script(f"var cy = {CY}; if (!cy) {{ return null; }} return {expr};",
                                     *args)


def highlighted(duo, cls: str = "hl-sel") -> set | None:
    """The ``gid`` of every node the canvas marks with highlight class ``cls`` (the selected
    group's box and ops: one id), or None before the canvas exists."""
    got = cy_eval(duo, f"cy.nodes('.{cls}').map(function (n) {{ return n.data('gid'); }})")
    return None if got is None else set(got)


def wait_for(duo, predicate, timeout: float = 20.0, message: str = "condition"):
    """Poll ``predicate()`` until it is truthy; returns its value or fails the test."""
    end = time.time() + timeout
    value = None
    while time.time() < end:
        try:
            value = predicate()
        except Exception:  # noqa: BLE001 - the page may be between renders
            value = None
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {message} (last: {value!r})")


def group_count(duo) -> int:
    """Groups drawn on the canvas (compound and collapsed group nodes)."""
    return cy_eval(duo, "cy.nodes('.group').length")


def vertex_of(duo, node_id: str) -> str | None:
    """The drawing id of the (home) vertex drawing graph node ``node_id``."""
    return cy_eval(duo, "(function (id) { var r = cy.nodes().filter(function (n) {"
                   " return n.data('node') === id && n.id().indexOf('@') < 0; });"
                   " return r.length ? r[0].id() : null; })(arguments[0])", node_id)


def rendered_point(duo, element_id: str) -> tuple[int, int]:
    """The page coordinates of a drawn element's centre, after centring the view on it."""
    wait_for(duo, lambda: cy_eval(duo, "cy.getElementById(arguments[0]).length", element_id),
             10, f"element {element_id}")
    cy_eval(duo, "(function (id) { cy.center(cy.getElementById(id)); return null; })"
            "(arguments[0])", element_id)
    time.sleep(0.2)
    x, y = cy_eval(duo, "(function (id) { var p = cy.getElementById(id).renderedPosition();"
                   " var r = cy.container().getBoundingClientRect();"
                   " return [r.left + p.x, r.top + p.y]; })(arguments[0])", element_id)
    return int(x), int(y)


def hover_vertex(duo, element_id: str) -> None:
    """Move the pointer onto a drawn element (cytoscape's mouseover)."""
    from selenium.webdriver.common.action_chains import ActionChains

    x, y = rendered_point(duo, element_id)
    chain = ActionChains(duo.driver)
    chain.w3c_actions.pointer_action.move_to_location(x - 3, y - 3)
    chain.w3c_actions.pointer_action.move_to_location(x, y)
    chain.perform()
    time.sleep(0.3)


def click_vertex(duo, element_id: str, shift: bool = False) -> None:
    """Click a drawn element at its rendered position (shift held to add to the selection)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    x, y = rendered_point(duo, element_id)
    chain = ActionChains(duo.driver)
    pointer, keys = chain.w3c_actions.pointer_action, chain.w3c_actions.key_action
    if shift:
        keys.key_down(Keys.SHIFT)
        pointer.pause(0)
    pointer.move_to_location(int(x), int(y))
    pointer.pointer_down()
    pointer.pointer_up()
    for _ in range(3):
        keys.pause(0)
    if shift:
        keys.key_up(Keys.SHIFT)
        pointer.pause(0)
    chain.perform()
    time.sleep(0.3)


def choose(duo, dropdown_id: str, label: str) -> None:
    """Pick the option ``label`` of a dcc.Dropdown: open it, type to filter, click the option."""
    duo.find_element(f"#{dropdown_id}").click()
    search = duo.wait_for_element(".dash-dropdown-search")
    search.send_keys(label.split(": ")[-1])
    option = wait_for(duo, lambda: next((o for o in duo.find_elements(".dash-dropdown-option")
                                         if o.text == label), None), 10, f"option {label!r}")
    duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", option)
    option.click()


def grid_column(duo, grid_id: str, col: str) -> list[str]:
    """The text of an AG Grid's column ``col`` (its field), row by row as shown."""
    rows = duo.find_elements(f"#{grid_id} .ag-center-cols-container .ag-row")
    rows.sort(key=lambda r: int(r.get_attribute("row-index") or 0))
    out = []
    for r in rows:
        cells = r.find_elements("css selector", f'.ag-cell[col-id="{col}"]')
        out.append(cells[0].text if cells else "")
    return out


def grid_cell(duo, grid_id: str, row_id: str, col: str):
    """The cell of row ``row_id`` (the grid's row id) in column ``col``, scrolled into view."""
    def find():
        for r in duo.find_elements(f"#{grid_id} .ag-center-cols-container .ag-row"):
            if r.get_attribute("row-id") == str(row_id):
                cells = r.find_elements("css selector", f'.ag-cell[col-id="{col}"]')
                return cells[0] if cells else None
        return None
    cell = wait_for(duo, find, 10, f"row {row_id} of {grid_id}")
    duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", cell)
    return cell

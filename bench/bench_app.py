"""Time to first render of the Dash workbench in headless Chromium.

    python bench/bench_app.py [--runs 3] [--ops 2000]

For each graph, starts ``workbench serve FILE`` on a free port, opens the page in headless
Chromium (selenium + chromedriver, as the browser tests use) and measures, from navigation
start, until the graph view's cytoscape instance holds the drawn elements and the browser has
painted a frame after them. The first load of a server ("cold") includes loading the file,
planning, the cost model and the Graphviz layout; reloads (a new browser session on the same
server, "warm") hit the app's caches. The cost model's one-time CPU probe (cached per machine)
is run before the servers start, as it would have been on a machine in use.
Also prints the server-side breakdown (load, plan, drawing, layout, elements) measured in this
process. Graphs: ../shared/hlo/transformer_block.after_noynn.hlo and a synthetic layered graph
of at least ``--ops`` ops (the planner's :func:`~workbench.ir.synthetic.layered_graph`:
sibling lanes, add trees, reductions and matmuls), plus the default sample.

Needs: Chromium and chromedriver (Debian ``chromium``, ``chromium-driver``), Graphviz ``dot``.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WAIT_JS = """
var done = arguments[arguments.length - 1];
var cy = window.workbenchCy && window.workbenchCy('graph-view');
if (!cy || cy.nodes().length === 0) { done(null); return; }
requestAnimationFrame(function () { requestAnimationFrame(function () {
  done([performance.now(), cy.nodes().length, cy.edges().length]); }); });
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(path: str, port: int, cache: str) -> subprocess.Popen:
    pythonpath = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYTHONPATH=pythonpath, WORKBENCH_CACHE_DIR=cache)
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "serve", path, "--port",
                             str(port)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    end = time.time() + 60
    while time.time() < end:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1).read()
            return proc
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"serve exited: {proc.stderr.read()[-2000:]}") from None
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the server did not start in 60 s")


def browser():
    from selenium import webdriver

    opts = webdriver.ChromeOptions()
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--disable-background-networking", "--window-size=1600,1000"):
        opts.add_argument(a)
    opts.binary_location = os.environ.get("DASH_TEST_CHROMEPATH", "/usr/bin/chromium")
    return webdriver.Chrome(options=opts)


def wait_drawn(driver, more_than: int = 0, timeout: float = 120.0):
    """Poll until the canvas holds more than ``more_than`` nodes and a frame was painted."""
    end = time.time() + timeout
    while time.time() < end:
        r = driver.execute_async_script(WAIT_JS)
        if r and r[1] > more_than:
            return r
        time.sleep(0.02)
    raise RuntimeError("the graph was not drawn in time")


def first_render(port: int, expand: bool = False) -> tuple:
    """Seconds from navigation start to the first painted frame with the graph drawn; with
    ``expand``, also the seconds from pressing *Expand all* to the expanded graph painted."""
    driver = browser()
    try:
        driver.set_script_timeout(10)
        driver.get(f"http://127.0.0.1:{port}/")
        t, nodes, edges = wait_drawn(driver)
        expanded = None
        if expand:
            time.sleep(1.0)
            t0 = time.perf_counter()
            driver.find_element("id", "expand-all").click()
            r = wait_drawn(driver, nodes)
            expanded = (time.perf_counter() - t0, r[1])
        return t / 1000.0, nodes, edges, expanded
    finally:
        driver.quit()


def server_breakdown(path: str, cache: str) -> dict:
    """Seconds spent in each server-side step for one graph's first view, in this process."""
    from workbench.app import controller
    from workbench.app.graph_figure import default_collapsed, graph_elements, grouping_from_plan
    from workbench.app.server import AppConfig, Services
    from workbench.importers import load_graph
    from workbench.costmodel.model import plan_cost

    services = Services(AppConfig())
    t = {}
    t0 = time.perf_counter()
    g = load_graph(path)
    t["load"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    ws = controller.open_workspace("bench", g, path)
    t["plan"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    plan_cost(g, ws.plan, "cpu")
    t["cost"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    groups = grouping_from_plan(ws.plan)
    drawing, layout = services.drawing_for(ws, g, groups, default_collapsed(g, groups))
    t["drawing+layout"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    els = graph_elements(g, groups, drawing, layout)
    t["elements"] = time.perf_counter() - t0
    t.update(ops=sum(1 for n in g.nodes if n.op not in ("parameter", "constant")),
             nodes=len(g.nodes), groups=len(ws.plan.groups), drawn=len(els),
             engine=layout.engine)
    return t


def synthetic(n_ops: int):
    """The planner's synthetic layered graph, grown until it has ``n_ops`` ops or more."""
    from workbench.ir import verify
    from workbench.ir.synthetic import layered_graph

    nodes = n_ops
    while True:
        g = layered_graph(nodes)
        if sum(1 for n in g.nodes if n.op not in ("parameter", "constant")) >= n_ops:
            return verify(g)
        nodes = int(nodes * 1.1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="page loads per graph (first is cold)")
    ap.add_argument("--ops", type=int, default=2000, help="size of the synthetic graph")
    args = ap.parse_args()
    from workbench.importers import save_json

    tmp = tempfile.mkdtemp(prefix="bench-app-")
    synth = os.path.join(tmp, f"layered_{args.ops}.json")
    save_json(synthetic(args.ops), synth)
    cases = [("transformer_block sample", str(ROOT / "sample_graphs" / "transformer_block.json")),
             ("transformer_block.after_noynn.hlo",
              str(ROOT.parent / "shared" / "hlo" / "transformer_block.after_noynn.hlo")),
             (f"synthetic layered graph (>= {args.ops} ops)", synth)]
    cache = os.path.join(tmp, "cache")
    env = dict(os.environ, PYTHONPATH=str(ROOT), WORKBENCH_CACHE_DIR=cache)
    subprocess.run([sys.executable, "-c", "from workbench.planner import get_device; "
                    "get_device('cpu')"], env=env, check=True)
    for label, path in cases:
        b = server_breakdown(path, os.path.join(tmp, "breakdown"))
        port = free_port()
        proc = start_server(path, port, cache)
        try:
            times = [first_render(port) for _ in range(args.runs)]
            expanded = first_render(port, expand=True)[3] if b["ops"] > 300 else None
        finally:
            proc.terminate()
            proc.wait(10)
        secs = [t[0] for t in times]
        print(f"{label}: {b['ops']} ops, {b['groups']} groups, {times[0][1]} nodes and "
              f"{times[0][2]} edges drawn")
        print(f"  time to first render: cold {secs[0]:.2f} s, warm median "
              f"{statistics.median(secs[1:] or secs):.2f} s  (target <= 3 s)")
        if expanded:
            print(f"  groups start collapsed; Expand all: {expanded[0]:.2f} s to draw "
                  f"{expanded[1]} nodes")
        print("  server steps (s): " + ", ".join(
            f"{k} {b[k]:.3f}" for k in ("load", "plan", "cost", "drawing+layout", "elements"))
              + f"  [layout engine: {b['engine']}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The app on real-size models, timed in headless Chromium, every figure in one run.

    python bench/bench_app.py [--runs 3] [--edits 3] [--no-train] [--train FILE]

Models: the forward pass of the 12-block transformer as JAX lowers it (1,798 nodes;
tests/app/data) and a training step after XLA:CPU's optimisation: by default the 8-block step
of ``tools/make_corpus.py --big --blocks 8 --out .corpus_big`` (31,017 HLO instructions, 22,001
nodes once flattened; git-ignored, built on the first run if missing, which needs jax), or
``--train FILE`` (the 12-block step: 62k instructions). For each model:

- ``import`` and ``plan``: CPU seconds in this process, reported apart from the draw;
- ``serve ready``: seconds from starting ``workbench serve FILE`` until it answers (it loads and
  plans the module first, :meth:`Services.warm`);
- ``first draw``: from navigation start until the canvas holds the drawing (collapsed by layer)
  and the browser painted a frame after it; a new browser session each run (the first one is
  the server's first page; the later ones find its caches warm); with the default canvas's
  element count and JSON size;
- ``open layer`` / ``close layer``: the three biggest layers, from the click (a closed layer's
  box; *Close layer* after a click on the open layer) until the drawing changed and a frame was painted;
- ``edit round trip``: from pressing *Split* (the biggest group of at most ``--split-max`` ops
  drawn in the open biggest layer selected, else its smallest) or *Undo* until
  the plan summary counts other kernels (or the old ones again), the split group's box is gone
  from the canvas (or back, with as many boxes as before) and a frame was painted; the positions of every drawn node are compared
  before and after, and those that moved are counted apart: outside the split group (each one
  a fault) and the split group's own ops (allowed: their group changed; on the forward module
  they are two broadcasts that the planner duplicated into all 24 layer-norm groups, drawn in
  the split group's box before, each its own one-op kernel after);
- ``Fit``: after *Fit*, whether every drawn node lies inside the canvas.

Then the server-side steps measured in this process (CPU seconds): load, plan, layers, drawing,
placement, drawing index, the default canvas, an opened layer, an edit (apply, drawing, canvas).
Targets (issue 12): first draw <= 3 s and an edit <= 1 s on the training step, an edit <= 0.3 s
on the forward module, a layer open or closed <= 1 s. The machine's load is printed: on a busy
machine wall times stretch; compare like with like, minimums first.

Needs Chromium and chromedriver (Debian ``chromium``, ``chromium-driver``); jax for the
training step.
"""

from __future__ import annotations

import argparse
import json
import os
import re
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

FWD = ROOT / "tests" / "app" / "data" / "transformer12_fwd.before.hlo"
TRAIN_NAME = "transformer12_train.after_noynn.hlo"
#: the training step the bench uses when --train is not given: the first that exists (the
#: 8-block step of ``tools/make_corpus.py --big --blocks 8 --out .corpus_big`` has 31,017
#: instructions, 22,001 nodes once flattened)
TRAIN_CANDIDATES = (ROOT / ".corpus_big" / "transformer8_train.after_noynn.hlo",
                    ROOT / ".corpus_big" / TRAIN_NAME, ROOT / "bench" / ".models" / TRAIN_NAME)
#: an HLO instruction line (``%x = f32[2] add(...)``, ``ROOT y = ...``)
INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s", re.M)

#: resolves with performance.now() once COND (a JS expression, cy bound) holds and two frames
#: were painted after it; null after the timeout. COND is spliced into the script's text: the
#: page's Content Security Policy forbids eval() (issue 15), and a wait that eval()ed its
#: condition threw on every poll and timed out on a page that had long been drawn.
WAIT = """
var limit = arguments[0], done = arguments[arguments.length - 1];
var start = performance.now();
function check(cy) { return (COND); }
function poll() {
  var cy = window.workbenchCy && window.workbenchCy('graph-view');
  var ok = false;
  try { ok = !!(cy && check(cy)); } catch (e) { ok = false; }
  if (ok) { requestAnimationFrame(function () { requestAnimationFrame(function () {
              done(performance.now()); }); }); return; }
  if (performance.now() - start > limit) { done(null); return; }
  setTimeout(poll, 10);
}
poll();
"""
LEAVES = ("cy.nodes().filter(function (n) { return !n.isParent() && !n.hasClass('title'); })"
          ".length")
GROUPS = "cy.nodes('.group').length"
POSITIONS = """var cy = window.workbenchCy('graph-view'); var out = {};
cy.nodes().forEach(function (n) { if (n.isParent() || n.hasClass('title')) return;
  var p = n.position(); out[n.data('vid')] = [p.x, p.y]; }); return out;"""
OUTSIDE = """var cy = window.workbenchCy('graph-view'); var w = cy.width(), h = cy.height();
var out = 0, n = 0; cy.nodes().forEach(function (x) { if (x.hasClass('title')) return; n++;
  var b = x.renderedBoundingBox({includeLabels: false});
  if (b.x1 < -1 || b.y1 < -1 || b.x2 > w + 1 || b.y2 > h + 1) out++; }); return [out, n];"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(path: str, port: int, cache: str, timeout_s: float = 1800.0):
    """``workbench serve path``; returns (process, seconds until it answered)."""
    # no calibration on first use: the servers' fresh cache would start one (minutes of a
    # core) beside every timing
    env = dict(os.environ, PYTHONPATH=str(ROOT), WORKBENCH_CACHE_DIR=cache,
               WORKBENCH_NO_CALIBRATE="1")
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "serve", path, "--port",
                             str(port)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    while time.perf_counter() - t0 < timeout_s:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
            return proc, time.perf_counter() - t0
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"serve exited: {proc.stderr.read()[-2000:]}") from None
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"the server did not answer in {timeout_s:.0f} s")


def browser():
    from selenium import webdriver

    opts = webdriver.ChromeOptions()
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--disable-background-networking", "--window-size=1600,1000"):
        opts.add_argument(a)
    opts.binary_location = os.environ.get("DASH_TEST_CHROMEPATH", "/usr/bin/chromium")
    d = webdriver.Chrome(options=opts)
    d.set_script_timeout(600)
    return d


def wait(driver, cond: str, limit_ms: float = 300_000):
    r = driver.execute_async_script(WAIT.replace("COND", cond), limit_ms)
    if r is None:
        raise RuntimeError(f"timed out waiting for {cond}")
    return r


def timed(driver, action_js: str, cond: str, *args) -> float:
    """Seconds from running ``action_js`` (in the page) until ``cond`` holds, painted."""
    t0 = driver.execute_script("var t = performance.now();" + action_js + "; return t;", *args)
    return (wait(driver, cond) - t0) / 1000.0


def cy(driver, expr: str, *args):
    return driver.execute_script("var cy = window.workbenchCy('graph-view'); return " + expr,
                                 *args)


def click_js(elem_id: str) -> str:
    return f"document.getElementById('{elem_id}').click()"


def summary_kernels(driver) -> int:
    text = driver.find_element("id", "plan-summary").text
    return int(text.split()[0]) if text.split() and text.split()[0].isdigit() else -1


def first_draw(port: int) -> tuple:
    driver = browser()
    try:
        driver.get(f"http://127.0.0.1:{port}/")
        t = wait(driver, "cy.nodes('.layer.closed').length > 0 || "
                         "(cy.nodes().length > 0 && !document.querySelector('#plan-summary')"
                         ".textContent.startsWith('Click'))")
        return t / 1000.0, cy(driver, "cy.nodes().length"), cy(driver, "cy.edges().length")
    finally:
        driver.quit()


def session_checks(port: int, edits: int, split_max: int) -> dict:
    """One browser session: open and close the three biggest layers, Fit, edits (split of the
    biggest group of at most ``split_max`` ops in the first one, then undo)."""
    out = {"open": [], "close": [], "split": [], "undo": [], "moved": [], "moved_own": [],
           "fit": None, "opened": [], "split_ops": None,
           "no_groups": []}
    driver = browser()
    try:
        driver.get(f"http://127.0.0.1:{port}/")
        wait(driver, "cy.nodes('.layer.closed').length > 0")
        time.sleep(1.0)
        blocks = cy(driver, "cy.nodes('.layer.closed').filter(function (n) { return "
                            "!n.hasClass('inputs'); }).map(function (n) { return "
                            "[n.data('vid'), n.data('n_ops')]; })")
        blocks.sort(key=lambda b: -(b[1] or 0))
        for vid, _ in blocks[:3]:
            before = cy(driver, LEAVES)
            out["open"].append(timed(
                driver, "var cy = window.workbenchCy('graph-view');"
                        "cy.nodes('[vid = \"' + arguments[0] + '\"]')[0].emit('tap')",
                f"cy.nodes('[vid = \"{vid}\"]').length && cy.nodes('[vid = \"{vid}\"]')[0]"
                f".isParent() && {LEAVES} != {before}", vid))
            out["opened"].append((vid, cy(driver, "cy.nodes().length"),
                                  cy(driver, "cy.edges().length")))
            time.sleep(0.5)
            cy(driver, "cy.nodes('[vid = \"' + arguments[0] + '\"]')[0].emit('tap'), null", vid)
            time.sleep(1.0)  # the open layer clicked: the breadcrumb's last layer
            out["close"].append(timed(driver, click_js("close-layer"),
                                      f"cy.nodes('[vid = \"{vid}\"]').length && "
                                      f"!cy.nodes('[vid = \"{vid}\"]')[0].isParent()"))
            time.sleep(0.5)
        driver.find_element("id", "fit-button").click()
        time.sleep(1.5)
        out["fit"] = driver.execute_script(OUTSIDE)
        # edits in the biggest layer whose groups are drawn when it opens (a training step's
        # layer may hold only parts, drawn closed: then the next biggest)
        for vid, _ in blocks:
            cy(driver, "cy.nodes('[vid = \"' + arguments[0] + '\"]')[0].emit('tap'), null", vid)
            wait(driver, f"cy.nodes('[vid = \"{vid}\"]')[0].isParent()")
            try:
                wait(driver, f"cy.nodes('[vid = \"{vid}\"]')[0].descendants('.group').length > 0",
                     5_000)
                break
            except RuntimeError:
                out["no_groups"].append(vid)
        time.sleep(1.0)
        group = cy(driver, "cy.nodes('[vid = \"' + arguments[0] + '\"]')[0].descendants('.group')"
                           f".sort(function (a, b) {{ var m = {int(split_max)}, x = a.data('n_ops'), "
                           "y = b.data('n_ops'); if ((x <= m) !== (y <= m)) { return x <= m ? -1 "
                           ": 1; } return x <= m ? y - x : x - y; })"
                           ".map(function (g) { return [g.data('vid'), g.data('n_ops')]; })[0]",
                   vid)
        if not group:
            return out
        gvid, size = group
        out["split_ops"] = size
        for _ in range(edits):
            cy(driver, "cy.nodes('[vid = \"' + arguments[0] + '\"]')[0].emit('tap'), null", gvid)
            time.sleep(1.0)
            kernels = summary_kernels(driver)
            boxes = cy(driver, GROUPS)
            pos = driver.execute_script(POSITIONS)
            own = set(cy(driver, "cy.nodes('[vid = \"' + arguments[0] + '\"]')[0].descendants()"
                                 ".map(function (n) { return n.data('vid'); })", gvid))
            # a split leaves the group's free ops and duplicated producers with their readers:
            # wait for another kernel count and for the group's box to be gone (its id names
            # its members: the same box comes back on undo)
            box = f"cy.nodes('[vid = \"{gvid}\"]').length"
            out["split"].append(timed(
                driver, click_js("split-group"),
                f"!document.getElementById('plan-summary').textContent.startsWith('{kernels} ') "
                f"&& {box} == 0"))
            after = driver.execute_script(POSITIONS)
            moved = [k for k, p in pos.items() if k in after and after[k] != p]
            out["moved"].append(sum(1 for k in moved if k not in own))
            out["moved_own"].append(sum(1 for k in moved if k in own))
            time.sleep(0.5)
            out["undo"].append(timed(
                driver, click_js("undo"),
                f"document.getElementById('plan-summary').textContent.startsWith('{kernels} ') "
                f"&& {box} == 1 && {GROUPS} == {boxes}"))
            time.sleep(0.5)
        return out
    finally:
        driver.quit()


def server_steps(path: str, split_max: int) -> dict:
    """CPU seconds of the server-side steps for one model, in this process; the canvas's
    element counts and serialised sizes (JSON bytes)."""
    from workbench.app import view as views
    from workbench.app.drawing import build_drawing
    from workbench.app.graph_figure import grouping_from_plan
    from workbench.app.hierarchy import ROOT, build_layers, place
    from workbench.app.scene import drawing_index
    from workbench.editing import Split, apply_edit
    from workbench.importers import load_graph
    from workbench.planner import plan_graph

    c = time.process_time
    t, out = c(), {}
    g = load_graph(path)
    out["load"] = c() - t
    out["instructions"] = len(INSTRUCTION.findall(Path(path).read_text()))
    t = c()
    plan = plan_graph(g)
    out["plan"] = c() - t
    t = c()
    layers = build_layers(g)
    out["layers"] = c() - t
    groups = grouping_from_plan(plan)
    t = c()
    d = build_drawing(g, [x["nodes"] for x in groups])
    out["drawing"] = c() - t
    t = c()
    placement = place(layers, g, d.groups)
    out["placement"] = c() - t
    t = c()
    drawing_index(g, d)
    out["index"] = c() - t
    record = views.default_record("k", g, layers, groups)
    t = c()
    canvas = views.draw_canvas(g, groups, d, layers, placement,
                               views.view_state(record, layers, groups), None, False)
    out["default canvas"] = c() - t
    out["default elements"] = (len(canvas.elements), len(json.dumps(canvas.elements)))
    block = max(layers.children[ROOT], key=lambda lid: layers.ops_in[lid])
    opened = views.toggle_layer(record, block, layers, groups, placement)
    t = c()
    canvas = views.draw_canvas(g, groups, d, layers, placement,
                               views.view_state(opened, layers, groups), canvas.layout, False)
    out["open layer"] = c() - t
    out["open elements"] = (len(canvas.elements), len(json.dumps(canvas.elements)))
    inside = [x for x, lid in zip(plan.groups, placement.group_layer)
              if x.size > 1 and layers.is_within(lid, block)]
    small = [x for x in inside if x.size <= split_max]
    big = (max(small, key=lambda x: x.size) if small
           else min(inside, key=lambda x: x.size))
    out["split ops"] = big.size
    t = c()
    new = apply_edit(g, plan, Split(big.nodes[0]))
    out["edit: apply"] = c() - t
    t = c()
    ng = grouping_from_plan(new)
    d2 = build_drawing(g, [x["nodes"] for x in ng])
    p2 = place(layers, g, d2.groups)
    out["edit: drawing"] = c() - t
    t = c()
    views.draw_canvas(g, ng, d2, layers, p2, views.view_state(opened, layers, ng),
                      canvas.layout, True)
    out["edit: canvas"] = c() - t
    out["nodes"], out["groups"], out["decisions"] = len(g.nodes), len(plan.groups), len(
        plan.decisions)
    out["layers n"] = len(layers.layers) - 1
    return out


def training_step(given: Path | None) -> Path | None:
    """The training step to measure: ``given``, else the first of :data:`TRAIN_CANDIDATES`
    that exists, else the 8-block step written by ``tools/make_corpus.py`` (needs jax)."""
    if given is not None:
        return given
    for path in TRAIN_CANDIDATES:
        if path.exists():
            return path
    try:
        import jax  # noqa: F401
    except ImportError:
        print("jax is not installed: no training step (pip install -e '.[jax]')")
        return None
    print("writing .corpus_big/transformer8_train.* with JAX (minutes)…", flush=True)
    subprocess.run([sys.executable, str(ROOT / "tools" / "make_corpus.py"), "--big",
                    "--blocks", "8", "--out", str(ROOT / ".corpus_big")], check=True)
    return TRAIN_CANDIDATES[0]


def fmt(xs) -> str:
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    return f"min {min(xs):.2f} s, median {statistics.median(xs):.2f} s ({len(xs)} runs)"


def load_now() -> str:
    return f"load average {os.getloadavg()[0]:.1f}"


def report(label: str, path: Path, runs: int, edits: int, cache: str, target_edit: float,
           split_max: int):
    print(f"\n{label}: {path.name} ({load_now()})", flush=True)
    steps = server_steps(str(path), split_max)
    port = free_port()
    proc, ready = start_server(str(path), port, cache)
    try:
        draws = [first_draw(port) for _ in range(runs)]
        checks = session_checks(port, edits, split_max)
    finally:
        proc.terminate()
        proc.wait(20)
    print(f"  {steps['instructions']} HLO instructions, {steps['nodes']} nodes once flattened, "
          f"{steps['layers n']} layers, {steps['groups']} groups, {steps['decisions']} decisions")
    print(f"  import {steps['load']:.2f} s CPU, plan {steps['plan']:.2f} s CPU (in this process); "
          f"serve ready (import + plan + warm, before the first page): {ready:.1f} s wall")
    secs = [d[0] for d in draws]
    print(f"  first draw, first session: {secs[0]:.2f} s; later sessions (caches warm): "
          f"{fmt(secs[1:])}; {draws[0][1]} nodes, {draws[0][2]} edges drawn; default canvas "
          f"{steps['default elements'][0]} elements, {steps['default elements'][1] / 1e3:.1f} kB "
          f"JSON (target <= 3 s) -> {'met' if min(secs) <= 3 else 'NOT met'}")
    for what in ("open", "close"):
        xs = checks[what]
        ok = xs and min(xs) <= 1.0
        print(f"  {what} a layer: {fmt(xs)} (target <= 1 s) -> {'met' if ok else 'NOT met'}")
    for vid, n, e in checks["opened"]:
        print(f"    layer {vid} opened: {n} nodes, {e} edges drawn")
    print(f"    the biggest layer opened, server side: {steps['open elements'][0]} elements, "
          f"{steps['open elements'][1] / 1e3:.1f} kB JSON")
    if checks["fit"]:
        out, n = checks["fit"]
        print(f"  Fit: {n - out} of {n} drawn nodes inside the canvas -> "
              f"{'every node' if out == 0 else 'NOT every node'}")
    print(f"  edits: split a group of {checks['split_ops']} ops (the biggest of at most "
          f"{split_max} drawn in the biggest layer, else the smallest), then undo")
    if checks.get("no_groups"):
        print(f"    layers opened with no group drawn (parts only), skipped: "
              f"{', '.join(checks['no_groups'])}")
    for what in ("split", "undo"):
        xs = checks[what]
        ok = xs and min(xs) <= target_edit
        print(f"  edit round trip ({what}): {fmt(xs)} (target <= {target_edit:g} s) -> "
              f"{'met' if ok else 'NOT met'}")
    if checks["moved"]:
        print(f"  nodes outside the split group that moved: {checks['moved']} (target 0); the "
              f"split group's own ops that moved (allowed: their group changed): "
              f"{checks['moved_own']}")
    print("  server steps (CPU s): " + ", ".join(
        f"{k} {steps[k]:.3f}" for k in ("load", "plan", "layers", "drawing", "placement",
                                        "index", "default canvas", "open layer", "edit: apply",
                                        "edit: drawing", "edit: canvas"))
          + f" (server split of {steps['split ops']} ops)")
    print(f"  ({load_now()})", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="first draws per model")
    ap.add_argument("--edits", type=int, default=3, help="split/undo pairs per model")
    ap.add_argument("--train", type=Path, help="the training step's HLO (default: the first "
                    "of .corpus_big/transformer8_train.after_noynn.hlo, .corpus_big/"
                    "transformer12_train.after_noynn.hlo, bench/.models/...; built if none)")
    ap.add_argument("--split-max", type=int, default=40,
                    help="the edit splits the biggest group of at most this many ops")
    ap.add_argument("--no-train", action="store_true", help="the forward module only")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-app-")
    cache = os.path.join(tmp, "cache")
    env = dict(os.environ, PYTHONPATH=str(ROOT), WORKBENCH_CACHE_DIR=cache)
    subprocess.run([sys.executable, "-c", "from workbench.costmodel.model import get_device; "
                    "get_device('cpu')"], env=env, check=True)  # the probe, cached per machine
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start; "
          "the servers run with WORKBENCH_NO_CALIBRATE=1 (no background calibration)")
    report("forward pass", FWD, args.runs, args.edits, cache, 0.3, args.split_max)
    if not args.no_train:
        train = training_step(args.train)
        if train is not None:
            report("training step", train, args.runs, args.edits, cache, 1.0, args.split_max)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

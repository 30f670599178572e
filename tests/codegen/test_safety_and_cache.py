"""Generated source is harmless whatever the input is called; the kernel cache is reused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import one_group_plan

from workbench.codegen import compile_plan
from workbench.importers import dumps, load_bytes
from workbench.ir import GraphBuilder, make_inputs, verify
from workbench.planner.plan import unfused_plan

REPO = Path(__file__).resolve().parents[2]


def _evil_graph(marker: Path):
    evil = f"__import__('os').system('touch {marker}')"
    b = GraphBuilder(evil)
    x = b.parameter(evil, (16,))
    y = b.parameter(evil + "#2", (16,))
    s = b.op("add", [x, y], node_id=f"{evil}; import os; os.system('touch {marker}')")
    t = b.op("tanh", [s], node_id='"""; ' + evil + '; """')
    c = b.constant(2.5, node_id=evil + "const")
    out = b.op("multiply", [t, b.op("broadcast", [c], shape=(16,), dimensions=())],
               node_id="); " + evil)
    graph = verify(b.build([out]))
    # round trip through the JSON importer: the names arrive the way a user's file brings them
    return load_bytes(dumps(graph).encode(), "evil.json"), evil


def test_node_named_like_python_code_compiles_into_harmless_source(tmp_path, kernel_cache):
    marker = tmp_path / "pwned"
    graph, evil = _evil_graph(marker)
    for plan in (one_group_plan(graph), unfused_plan(graph)):
        compiled = compile_plan(graph, plan, backend="cpu", cache_dir=kernel_cache)
        for k in compiled.kernels:
            assert not k.fallback
            assert "__import__" not in k.source and "system" not in k.source
            assert str(marker) not in k.source and "pwned" not in k.source
        inputs = make_inputs(graph)
        out = compiled.run(inputs)[0]
        assert abs(out[0] - 2.5 * __import__("math").tanh(inputs[0][0] + inputs[1][0])) < 1e-5
    assert not marker.exists()


def test_identical_groups_share_one_module(kernel_cache):
    b = GraphBuilder("twins")
    x = b.parameter("x", (64,))
    y = b.parameter("y", (64,))
    a1 = b.op("exponential", [x], node_id="first")
    a2 = b.op("exponential", [y], node_id="second name")
    g = verify(b.build([b.op("add", [a1, a2])]))
    compiled = compile_plan(g, unfused_plan(g), backend="cpu", cache_dir=kernel_cache)
    paths = [k.source_path for k in compiled.kernels]
    assert paths[0] == paths[1] and paths[2] != paths[0]
    assert compiled.kernels[1].cached  # already loaded in this process: nothing compiled


_CHILD = r"""
import json, sys, time
from workbench.importers import load_graph
from workbench.planner.plan import unfused_plan
from workbench.codegen import compile_plan
g = load_graph(sys.argv[2])
t = time.perf_counter()
c = compile_plan(g, unfused_plan(g), backend="cpu", cache_dir=sys.argv[1])
print(json.dumps({"seconds": time.perf_counter() - t,
                  "cached": [k.cached for k in c.kernels],
                  "paths": sorted({k.source_path for k in c.kernels})}))
"""


def _compile_in_child(cache, graph_path):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("NUMBA_CACHE_DIR", None)     # numba then caches beside the generated modules
    out = subprocess.run([sys.executable, "-c", _CHILD, str(cache), str(graph_path)],
                         capture_output=True, text=True, env=env, timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_second_process_reuses_compiled_kernels(tmp_path):
    graph_path = REPO / "sample_graphs" / "softmax.json"
    first = _compile_in_child(tmp_path, graph_path)
    mtimes = {p: os.stat(p).st_mtime_ns for p in first["paths"]}
    second = _compile_in_child(tmp_path, graph_path)
    assert not all(first["cached"])                  # identical groups: compiled once
    assert all(second["cached"])                      # numba loaded every kernel from disk
    assert second["paths"] == first["paths"]
    assert {p: os.stat(p).st_mtime_ns for p in second["paths"]} == mtimes  # not rewritten
    assert any(Path(p).parent.joinpath("__pycache__").is_dir() for p in second["paths"])

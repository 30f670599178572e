"""XLA's ``compare ... type=TOTALORDER`` in generated kernels: NaNs and signed zeros ordered as
the reference interpreter orders them (IEEE 754 totalOrder: -NaN < -inf < ... < -0 < +0 < ...
< +inf < +NaN). The kernels compared floats with Python's operators, which order neither (a
review found it; every TOTALORDER comparison below mismatched the reference before)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from workbench.codegen import compile_plan
from workbench.ir.builder import GraphBuilder
from workbench.ir.interpreter import evaluate
from workbench.planner import plan_graph

DIRECTIONS = ("EQ", "NE", "LT", "LE", "GT", "GE")
REPO = Path(__file__).resolve().parents[2]


def operands(dtype):
    nan = np.array(np.nan, dtype)
    a = np.array([-0.0, 0.0, nan, -nan, 1.0, -np.inf, nan, 0.0, -nan, 2.0], dtype)
    b = np.array([0.0, -0.0, 1.0, -np.inf, nan, -nan, nan, 0.0, -nan, 2.0], dtype)
    return a, b


def graph_of(direction, dtype="f32", fused=False):
    g = GraphBuilder("total_order")
    x, y = g.parameter("x", [10], dtype), g.parameter("y", [10], dtype)
    c = g.op("compare", [x, y], "c", direction=direction, compare_type="TOTALORDER")
    if fused:  # the comparison inside a kernel with its consumer: a total-order minimum
        c = g.op("select", [c, x, y], "smaller")
    return g.build([c])


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_total_order_comparisons_match_the_reference_on_the_cpu(direction, dtype):
    a, b = operands(np.float32 if dtype == "f32" else np.float64)
    graph = graph_of(direction, dtype)
    ref = evaluate(graph, [a, b])[0]
    got = compile_plan(graph, plan_graph(graph), backend="cpu").run([a, b])[0]
    assert got.tolist() == ref.tolist()
    # the cases that tell total order from IEEE comparison: -0 < +0, NaN == NaN, -NaN < -inf
    lt = {"LT": [True, False], "EQ": [False, False]}.get(direction)
    if lt is not None:
        assert got[:2].tolist() == lt


def test_a_fused_total_order_select_keeps_signed_zeros_and_nans_apart():
    a, b = operands(np.float32)
    graph = graph_of("LT", fused=True)
    plan = plan_graph(graph)
    assert plan.num_kernels == 1
    ref = evaluate(graph, [a, b])[0]
    got = compile_plan(graph, plan, backend="cpu").run([a, b])[0]
    assert np.array_equal(got, ref, equal_nan=True)
    assert np.signbit(got[:2]).tolist() == [True, True]  # min(-0, +0) is -0 either way round
    # a plain comparison (no compare_type) is IEEE's: -0 == +0, NaN unordered
    g = GraphBuilder("ieee")
    x, y = g.parameter("x", [10]), g.parameter("y", [10])
    graph = g.build([g.op("compare", [x, y], "c", direction="EQ")])
    got = compile_plan(graph, plan_graph(graph), backend="cpu").run([a, b])[0]
    assert got[:2].tolist() == [True, True] and not got[6]


SIM = """
import json, numpy as np, sys
sys.path.insert(0, {repo!r})
from tests.codegen.test_total_order import DIRECTIONS, graph_of, operands
from workbench.codegen import compile_plan
from workbench.ir.interpreter import evaluate
from workbench.planner import plan_graph
a, b = operands(np.float32)
for d in DIRECTIONS:
    g = graph_of(d)
    got = compile_plan(g, plan_graph(g), backend="cuda-sim").run([a, b])[0]
    print(json.dumps([d, got.tolist() == evaluate(g, [a, b])[0].tolist()]))
"""


def test_total_order_comparisons_match_the_reference_in_the_cuda_simulator(tmp_path):
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(REPO),
               WORKBENCH_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", SIM.format(repo=str(REPO))], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("[")]
    assert rows == [[d, True] for d in DIRECTIONS]

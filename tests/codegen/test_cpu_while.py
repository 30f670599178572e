"""The CPU while loop (workbench/codegen/cpu_while.py): condition and body compiled as plans,
the loop one native kernel.

Each case compiles an HLO module with a while loop for the CPU, checks that the loop is one
native kernel (an address for the plan's driver, no numpy fallback), and compares its outputs
with the reference interpreter (which evaluates the computations op by op) bit for bit, or with
numpy computed here. Also: a body that swaps two state elements, a loop that never runs, a
nested loop, the Python driver used when a computation has a fallback kernel, the trip-count
limit, and the corpus's ``lax.scan`` (gru_scan) against jax.jit's recorded outputs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.codegen import compile_plan
from workbench.codegen import cpu_while
from workbench.codegen.check import check_outputs, reference_outputs
from workbench.errors import EvaluationError
from workbench.importers import load_graph
from workbench.importers.hlo import parse_hlo
from workbench.ir import evaluate
from workbench.planner import plan_graph

CORPUS = Path(__file__).resolve().parents[2] / "corpus"

#: Newton's square root until |y*y - x| <= 1e-5 or 50 steps (the corpus's newton_while)
NEWTON = """HloModule m

body {
  p = (f32[16], s32[], f32[16]) parameter(0)
  y = f32[16] get-tuple-element(p), index=0
  x = f32[16] get-tuple-element(p), index=2
  q = f32[16] divide(x, y)
  s = f32[16] add(y, q)
  h = f32[] constant(0.5)
  hb = f32[16] broadcast(h), dimensions={}
  y2 = f32[16] multiply(s, hb)
  i = s32[] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (f32[16], s32[], f32[16]) tuple(y2, i2, x)
}

mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

cond {
  p = (f32[16], s32[], f32[16]) parameter(0)
  y = f32[16] get-tuple-element(p), index=0
  x = f32[16] get-tuple-element(p), index=2
  yy = f32[16] multiply(y, y)
  d = f32[16] subtract(yy, x)
  a = f32[16] abs(d)
  ninf = f32[] constant(-inf)
  r = f32[] reduce(a, ninf), dimensions={0}, to_apply=mx
  tol = f32[] constant(1e-05)
  big = pred[] compare(r, tol), direction=GT
  i = s32[] get-tuple-element(p), index=1
  lim = s32[] constant(50)
  more = pred[] compare(i, lim), direction=LT
  ROOT go = pred[] and(big, more)
}

ENTRY e {
  x = f32[16] parameter(0)
  y0 = f32[16] parameter(1)
  i0 = s32[] constant(0)
  s = (f32[16], s32[], f32[16]) tuple(y0, i0, x)
  w = (f32[16], s32[], f32[16]) while(s), condition=cond, body=body
  y = f32[16] get-tuple-element(w), index=0
  n = s32[] get-tuple-element(w), index=1
  ROOT out = (f32[16], s32[]) tuple(y, n)
}
"""

#: (a, b, i) -> (b, a + b, i + 1) while i < n: the body's first output is its second
#: parameter (the state elements swap buffers)
FIB = """HloModule m

body {
  p = (s64[3], s64[3], s32[], s32[]) parameter(0)
  a = s64[3] get-tuple-element(p), index=0
  b = s64[3] get-tuple-element(p), index=1
  c = s64[3] add(a, b)
  i = s32[] get-tuple-element(p), index=2
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  n = s32[] get-tuple-element(p), index=3
  ROOT t = (s64[3], s64[3], s32[], s32[]) tuple(b, c, i2, n)
}

cond {
  p = (s64[3], s64[3], s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=2
  n = s32[] get-tuple-element(p), index=3
  ROOT go = pred[] compare(i, n), direction=LT
}

ENTRY e {
  a = s64[3] parameter(0)
  b = s64[3] parameter(1)
  n = s32[] parameter(2)
  i0 = s32[] constant(0)
  s = (s64[3], s64[3], s32[], s32[]) tuple(a, b, i0, n)
  w = (s64[3], s64[3], s32[], s32[]) while(s), condition=cond, body=body
  x = s64[3] get-tuple-element(w), index=0
  y = s64[3] get-tuple-element(w), index=1
  k = s32[] get-tuple-element(w), index=2
  ROOT out = (s64[3], s64[3], s32[]) tuple(x, y, k)
}
"""


def _compile(text, kernel_cache, name="while_case.hlo"):
    graph = parse_hlo(text, name)
    compiled = compile_plan(graph, plan_graph(graph, "priority"), backend="cpu",
                            cache_dir=kernel_cache)
    loops = [k for k in compiled.kernels if "while" in k.ops]
    assert loops and all(not k.fallback for k in loops), [k.fallback_reason for k in loops]
    return graph, compiled, loops


def _native(loops):
    assert all(k.address is not None and k.owned.native for k in loops), \
        [k.ir_text for k in loops]


def _ref(graph, args):
    ref = evaluate(graph, args)
    return [np.asarray(r) for r in (ref if isinstance(ref, tuple) else (ref,))]


def test_newton_loop_is_one_native_kernel_equal_to_the_reference(kernel_cache):
    graph, compiled, loops = _compile(NEWTON, kernel_cache)
    _native(loops)
    rng = np.random.default_rng(0)
    x = (np.abs(rng.standard_normal(16)) + 0.5).astype(np.float32)
    args = [x, np.ones(16, np.float32)]
    got = [np.asarray(o) for o in compiled.run(args)]
    ref = _ref(graph, args)
    assert np.array_equal(got[0].view(np.uint32), ref[0].view(np.uint32))
    assert int(got[1]) == int(ref[1]) and 3 <= int(got[1]) < 50
    assert np.allclose(got[0] ** 2, x, rtol=1e-5)
    # a NaN never converges (NaN > tol is false: the loop stops at once, as the reference)
    x[3] = np.nan
    got = [np.asarray(o) for o in compiled.run([x, np.ones(16, np.float32)])]
    ref = _ref(graph, [x, np.ones(16, np.float32)])
    assert int(got[1]) == int(ref[1])
    assert np.array_equal(np.isnan(got[0]), np.isnan(ref[0]))


def test_bound_plan_reruns_the_loop_from_its_inputs(kernel_cache):
    graph, compiled, loops = _compile(NEWTON, kernel_cache)
    x = np.full(16, 4.0, np.float32)
    bound = compiled.bind(compiled.prepare([x, np.ones(16, np.float32)]))
    first = [np.array(o) for o in bound.run()]
    second = [np.array(o) for o in bound.run()]
    _, secs, _ = bound.run_timed()
    assert np.array_equal(first[0], second[0]) and int(first[1]) == int(second[1])
    assert np.allclose(first[0], 2.0) and len(secs) == len(compiled.call)


@pytest.mark.parametrize("n", [0, 1, 7, 40])
def test_swapping_state_elements(n, kernel_cache):
    graph, compiled, loops = _compile(FIB, kernel_cache)
    _native(loops)
    assert loops[0].owned.swap                   # output 0 is parameter 1's buffer
    a = np.array([0, 1, -5], np.int64)
    b = np.array([1, 1, 3], np.int64)
    args = [a, b, np.int32(n)]
    got = [np.asarray(o) for o in compiled.run(args)]
    want_a, want_b = a.copy(), b.copy()
    for _ in range(n):
        want_a, want_b = want_b, want_a + want_b
    assert np.array_equal(got[0], want_a) and np.array_equal(got[1], want_b)
    assert int(got[2]) == n
    ref = _ref(graph, args)
    assert all(np.array_equal(g, r) for g, r in zip(got, ref))


def test_the_python_driver_gives_the_same_results(kernel_cache):
    graph, compiled, loops = _compile(FIB, kernel_cache)
    loop = loops[0].owned
    a, b = np.array([2, 3, 4], np.int64), np.array([5, 6, 7], np.int64)
    outs = [np.empty(3, np.int64), np.empty(3, np.int64), np.empty(1, np.int32),
            np.empty(1, np.int32)]
    loop.run_python([a, b, np.array([9], np.int32), np.array([9], np.int32)] + outs)
    # n = 9 and i starts at 9: no iteration
    assert np.array_equal(outs[0], a) and np.array_equal(outs[1], b)
    loop.run_python([a, b, np.array([0], np.int32), np.array([6], np.int32)] + outs)
    ref = _ref(graph, [a, b, np.int32(6)])
    assert np.array_equal(outs[0], ref[0]) and np.array_equal(outs[1], ref[1])
    assert int(outs[2][0]) == 6


NESTED = """HloModule m

ibody {
  p = (f32[4], s32[]) parameter(0)
  v = f32[4] get-tuple-element(p), index=0
  two = f32[] constant(2)
  tb = f32[4] broadcast(two), dimensions={}
  v2 = f32[4] multiply(v, tb)
  j = s32[] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j2 = s32[] add(j, one)
  ROOT t = (f32[4], s32[]) tuple(v2, j2)
}

icond {
  p = (f32[4], s32[]) parameter(0)
  j = s32[] get-tuple-element(p), index=1
  three = s32[] constant(3)
  ROOT go = pred[] compare(j, three), direction=LT
}

obody {
  p = (f32[4], s32[]) parameter(0)
  v = f32[4] get-tuple-element(p), index=0
  z = s32[] constant(0)
  s = (f32[4], s32[]) tuple(v, z)
  w = (f32[4], s32[]) while(s), condition=icond, body=ibody
  v8 = f32[4] get-tuple-element(w), index=0
  one = f32[] constant(1)
  ob = f32[4] broadcast(one), dimensions={}
  v9 = f32[4] add(v8, ob)
  i = s32[] get-tuple-element(p), index=1
  k = s32[] constant(1)
  i2 = s32[] add(i, k)
  ROOT t = (f32[4], s32[]) tuple(v9, i2)
}

ocond {
  p = (f32[4], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=1
  two = s32[] constant(2)
  ROOT go = pred[] compare(i, two), direction=LT
}

ENTRY e {
  x = f32[4] parameter(0)
  z = s32[] constant(0)
  s = (f32[4], s32[]) tuple(x, z)
  w = (f32[4], s32[]) while(s), condition=ocond, body=obody
  ROOT y = f32[4] get-tuple-element(w), index=0
}
"""


def test_a_loop_in_a_loop_body(kernel_cache):
    graph, compiled, loops = _compile(NESTED, kernel_cache)
    _native(loops)
    inner = [k for k in loops[0].owned.body.kernels if "while" in k.ops]
    assert inner and inner[0].address is not None
    x = np.array([1, -0.5, 0, 3], np.float32)
    (got,) = [np.asarray(o) for o in compiled.run([x])]
    assert np.array_equal(got, (x * 8 + 1) * 8 + 1)
    assert np.array_equal(got, _ref(graph, [x])[0])


def test_a_loop_that_does_not_end_stops_at_the_trip_limit(kernel_cache, monkeypatch):
    monkeypatch.setattr(cpu_while, "MAX_TRIP_COUNT", 25)
    graph, compiled, loops = _compile(FIB, kernel_cache)
    _native(loops)
    assert "MAX_TRIPS = 25" in loops[0].source
    a = np.zeros(3, np.int64)
    ok = compiled.run([a, a, np.int32(25)])               # 25 trips: allowed
    assert int(np.asarray(ok[2])) == 25
    with pytest.raises(EvaluationError, match="still running after 25 iterations"):
        compiled.run([a, a, np.int32(26)])
    with pytest.raises(EvaluationError, match="still running after 25 iterations"):
        loops[0].owned.run_python([a, a, np.array([0], np.int32), np.array([26], np.int32),
                                   np.empty(3, np.int64), np.empty(3, np.int64),
                                   np.empty(1, np.int32), np.empty(1, np.int32)])


def test_corpus_scan_matches_the_reference_and_jax(kernel_cache):
    graph = load_graph(str(CORPUS / "gru_scan.before.hlo"))
    compiled = compile_plan(graph, plan_graph(graph, "priority"), backend="cpu",
                            cache_dir=kernel_cache)
    loops = [k for k in compiled.kernels if "while" in k.ops]
    _native(loops)
    assert not any(k.fallback for k in compiled.kernels)
    with np.load(CORPUS / "gru_scan.io.npz") as data:
        args = [data[f"arg{i}"] for i in range(len(graph.parameters))]
        jax_outs = [data[f"out{i}"] for i in range(len(graph.outputs))]
    got = [np.asarray(o) for o in compiled.run(args)]
    ref, exact = reference_outputs(graph, args, max_bytes=None)
    assert all(c.ok for c in check_outputs(graph, got, ref, exact))
    for g, j in zip(got, jax_outs):
        assert np.allclose(g.reshape(j.shape), j, rtol=1e-5, atol=1e-6)

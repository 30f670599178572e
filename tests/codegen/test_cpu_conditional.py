"""The CPU conditional (workbench/codegen/cpu_conditional.py): every branch compiled as a plan,
the chosen one run from one native kernel.

Each case checks that the conditional is one native kernel and compares its outputs with the
reference interpreter (and with numpy computed here): a pred index (true -> branch 0), an s32
index in range and out of range (negative and past the end: the last branch, HLO's rule), a
branch returning its operand unchanged, a tuple result, the Python driver, and the corpus's
``cond_branch`` and ``switch_branch``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.codegen import compile_plan
from workbench.codegen.check import check_outputs, reference_outputs
from workbench.importers import load_graph
from workbench.importers.hlo import parse_hlo
from workbench.ir import evaluate
from workbench.planner import plan_graph

CORPUS = Path(__file__).resolve().parents[2] / "corpus"

SWITCH = """HloModule m

b0 {
  x = f32[5] parameter(0)
  ROOT y = f32[5] negate(x)
}

b1 {
  x = f32[5] parameter(0)
  ROOT y = f32[5] multiply(x, x)
}

b2 {
  ROOT x = f32[5] parameter(0)
}

ENTRY e {
  i = s32[] parameter(0)
  x = f32[5] parameter(1)
  ROOT c = f32[5] conditional(i, x, x, x), branch_computations={b0, b1, b2}
}
"""

PRED = """HloModule m

t {
  p = (f32[3], s32[2]) parameter(0)
  a = f32[3] get-tuple-element(p), index=0
  k = s32[2] get-tuple-element(p), index=1
  e = f32[3] exponential(a)
  ROOT r = (f32[3], s32[2]) tuple(e, k)
}

f {
  p = (s32[2]) parameter(0)
  k = s32[2] get-tuple-element(p), index=0
  one = s32[] constant(1)
  ob = s32[2] broadcast(one), dimensions={}
  k2 = s32[2] add(k, ob)
  z = f32[] constant(-0.0)
  zb = f32[3] broadcast(z), dimensions={}
  ROOT r = (f32[3], s32[2]) tuple(zb, k2)
}

ENTRY e {
  q = pred[] parameter(0)
  a = f32[3] parameter(1)
  k = s32[2] parameter(2)
  ta = (f32[3], s32[2]) tuple(a, k)
  tf = (s32[2]) tuple(k)
  ROOT c = (f32[3], s32[2]) conditional(q, ta, tf), true_computation=t, false_computation=f
}
"""


def _compile(text, kernel_cache):
    graph = parse_hlo(text, "conditional_case.hlo")
    compiled = compile_plan(graph, plan_graph(graph, "priority"), backend="cpu",
                            cache_dir=kernel_cache)
    conds = [k for k in compiled.kernels if "conditional" in k.ops]
    assert conds and all(not k.fallback and k.address is not None and k.owned.native
                         for k in conds), [(k.fallback_reason, k.ir_text) for k in conds]
    return graph, compiled, conds


def _ref(graph, args):
    ref = evaluate(graph, args)
    return [np.asarray(r) for r in (ref if isinstance(ref, tuple) else (ref,))]


@pytest.mark.parametrize("index, want", [(0, "neg"), (1, "sq"), (2, "id"), (3, "id"),
                                         (-1, "id"), (2 ** 31 - 1, "id")])
def test_s32_index_out_of_range_runs_the_last_branch(index, want, kernel_cache):
    graph, compiled, _ = _compile(SWITCH, kernel_cache)
    x = np.array([1.5, -0.0, np.nan, -2, 3], np.float32)
    args = [np.int32(index), x]
    (got,) = [np.asarray(o) for o in compiled.run(args)]
    expect = {"neg": -x, "sq": x * x, "id": x}[want]
    assert np.array_equal(got.view(np.uint32), expect.view(np.uint32))
    (ref,) = _ref(graph, args)
    assert np.array_equal(got.view(np.uint32), ref.view(np.uint32))


@pytest.mark.parametrize("q", [True, False])
def test_pred_index_and_a_tuple_result(q, kernel_cache):
    graph, compiled, conds = _compile(PRED, kernel_cache)
    a = np.array([0, 1, -1], np.float32)
    k = np.array([7, -3], np.int32)
    args = [np.bool_(q), a, k]
    got = [np.asarray(o) for o in compiled.run(args)]
    ref = _ref(graph, args)
    assert np.array_equal(got[1], ref[1]) and np.array_equal(got[1], k if q else k + 1)
    if q:
        assert np.allclose(got[0], np.exp(a), rtol=1e-6)
    else:
        assert np.array_equal(got[0].view(np.uint32), ref[0].view(np.uint32))
        assert np.array_equal(got[0].view(np.uint32), np.full(3, -0.0, np.float32).view(
            np.uint32))
    # the Python driver gives the same values
    outs = [np.empty(3, np.float32), np.empty(2, np.int32)]
    conds[0].owned.run_python([np.array([q]), a, k, k] + outs)
    assert np.array_equal(outs[0], got[0]) and np.array_equal(outs[1], got[1])


def test_a_bound_plan_switches_branches_between_calls(kernel_cache):
    graph, compiled, _ = _compile(SWITCH, kernel_cache)
    x = np.arange(5, dtype=np.float32)
    i = np.zeros((), np.int32)
    bound = compiled.bind(compiled.prepare([i, x]))
    first = np.array(bound.run()[0])
    bound.values[graph.parameters[0].id][...] = 1          # the bound input buffer
    second = np.array(bound.run()[0])
    assert np.array_equal(first, -x) and np.array_equal(second, x * x)


@pytest.mark.parametrize("name", ["cond_branch", "switch_branch"])
def test_corpus_conditionals_match_the_reference_and_jax(name, kernel_cache):
    graph = load_graph(str(CORPUS / f"{name}.before.hlo"))
    compiled = compile_plan(graph, plan_graph(graph, "priority"), backend="cpu",
                            cache_dir=kernel_cache)
    conds = [k for k in compiled.kernels if "conditional" in k.ops]
    assert conds and all(k.address is not None for k in conds)
    assert not any(k.fallback for k in compiled.kernels)
    with np.load(CORPUS / f"{name}.io.npz") as data:
        args = [data[f"arg{i}"] for i in range(len(graph.parameters))]
        jax_outs = [data[f"out{i}"] for i in range(len(graph.outputs))]
    got = [np.asarray(o) for o in compiled.run(args)]
    ref, exact = reference_outputs(graph, args, max_bytes=None)
    assert all(c.ok for c in check_outputs(graph, got, ref, exact))
    for g, j in zip(got, jax_outs):
        assert np.allclose(g.reshape(j.shape), j, rtol=1e-5, atol=1e-6)

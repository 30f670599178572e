"""Unit tests of the kernel IR, the lowering's index maps and placement, literals, and the
correctness check's tolerance rule."""

from __future__ import annotations

import math

import numpy as np
from conftest import one_group_plan

from workbench.codegen.backend import capabilities
from workbench.codegen.check import compare, promote_to_f64
from workbench.codegen.emitters import literal_text
from workbench.codegen.kernel_ir import IndexLet, Ix, Let, Load, Reduce
from workbench.codegen.lower import group_members, lower_group
from workbench.ir import GraphBuilder, expand_composites, verify


def _lower(graph, backend="cpu"):
    x = expand_composites(graph)
    g = one_group_plan(graph).groups[0]
    return lower_group(x, group_members(x, g.nodes), g.outputs, capabilities(backend))


def _all_stmts(stmts):
    for s in stmts:
        yield s
        if isinstance(s, Reduce):
            yield from _all_stmts(s.body)


def test_affine_index_arithmetic_and_text():
    i, j = Ix.var("i1"), Ix.var("i2")
    e = i * 512 + j + 3 - Ix.var("i2")
    assert e.text() == "i1 * 512 + 3"
    assert (Ix.of(5) - i).text() == "-i1 + 5"
    assert (i * 0).is_const and Ix.of(0).text() == "0"


def test_reshape_that_splits_whole_dimensions_stays_affine():
    b = GraphBuilder("r")
    x = b.parameter("x", (256, 1))
    y = b.op("negate", [b.op("reshape", [x], shape=(256,))])
    kir = _lower(verify(b.build([b.op("reshape", [y], shape=(1, 256))])))
    stmts = list(_all_stmts(sum(kir.nests[0].levels, [])))
    assert not any(isinstance(s, IndexLet) for s in stmts)
    (load,) = [s for s in stmts if isinstance(s, Load)]
    nest = kir.nests[0]
    assert nest.vars[0] is None              # [1, 256]: the size-1 dimension has no variable
    assert load.addr == Ix.var(nest.vars[1])


def test_reshape_merging_dimensions_uses_floordiv_and_mod():
    b = GraphBuilder("r2")
    x = b.parameter("x", (6, 4))
    e = b.op("exponential", [x])
    kir = _lower(verify(b.build([b.op("transpose", [b.op("reshape", [e], shape=(4, 6))],
                                      dimensions=(1, 0))])))
    ops = sorted(s.op for s in _all_stmts(sum(kir.nests[0].levels, []))
                 if isinstance(s, IndexLet))
    assert ops == ["floordiv", "mod"]


def test_row_values_are_placed_before_the_inner_loop():
    b = GraphBuilder("rows")
    x = b.parameter("x", (8, 16))
    v = b.parameter("v", (8,))
    ev = b.op("exponential", [v])
    y = b.op("multiply", [x, b.broadcast_to(ev, (8, 16), (0,))])
    nest = _lower(verify(b.build([y]))).nests[0]
    level1 = [s.op for s in nest.levels[1] if isinstance(s, Let)]
    level2 = [s.op for s in nest.levels[2] if isinstance(s, Let)]
    assert level1 == ["exponential"] and level2 == ["multiply"]


def test_literals_are_validated_numbers_in_source():
    assert literal_text(math.inf, "f32") == "np.float32(math.inf)"
    assert literal_text(-math.inf, "f64") == "np.float64(-math.inf)"
    assert literal_text(math.nan, "f32") == "np.float32(math.nan)"
    assert literal_text(0.1, "f32") == "np.float32(0.1)"
    assert literal_text(True, "pred") == "True"
    assert literal_text(-7, "s32") == "np.int32(-7)"


def test_check_tolerates_reordered_sums_but_not_wrong_values():
    ref = np.linspace(-100, 100, 1001).astype(np.float32)
    assert compare(ref + np.float32(1e-4), ref, "f32").ok      # 1e-6 of the scale
    bad = ref.copy()
    bad[500] += 0.5
    c = compare(bad, ref, "f32")
    assert not c.ok and c.mismatches == 1 and c.max_abs_error == 0.5


def test_check_requires_matching_non_finite_values():
    ref = np.array([1.0, np.nan, np.inf, -np.inf], np.float32)
    assert compare(ref.copy(), ref, "f32").ok
    assert not compare(np.array([1.0, 0.0, np.inf, -np.inf], np.float32), ref, "f32").ok
    assert not compare(np.array([1.0, np.nan, -np.inf, -np.inf], np.float32), ref, "f32").ok


def test_check_is_exact_for_integers():
    ref = np.arange(10, dtype=np.int32)
    assert compare(ref.copy(), ref, "s32").ok
    got = ref.copy()
    got[3] = 4
    c = compare(got, ref, "s32")
    assert not c.ok and c.max_abs_error == 1.0


def test_check_with_exact_oracle_accepts_ill_conditioned_outputs():
    exact = np.array([1.0, 2.0, 3.0])
    ref = (exact + [0.01, -0.01, 0.0]).astype(np.float32)   # the f32 reference is off by 1e-2
    got = (exact + [-0.01, 0.01, 0.005]).astype(np.float32)  # as far off, the other way
    assert not compare(got, ref, "f32").ok
    c = compare(got, ref, "f32", exact=exact)
    assert c.ok and abs(c.reference_error - 0.01) < 1e-6
    worse = (exact + [0.05, 0.0, 0.0]).astype(np.float32)
    assert not compare(worse, ref, "f32", exact=exact).ok


def test_promote_to_f64_changes_every_float_type():
    b = GraphBuilder("p")
    x = b.parameter("x", (4,))
    c = b.op("convert", [b.op("convert", [x], dtype="s32")], dtype="f32")
    g = promote_to_f64(verify(b.build([c])))
    assert {n.dtype for n in g.nodes} == {"f64", "s32"}
    verify(g)

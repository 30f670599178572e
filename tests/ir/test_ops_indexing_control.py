"""Reference semantics of the indexing, sorting, control-flow and bit ops, against numpy.

Graphs are written as HLO text (as XLA prints them), so the importer's reading of each op's
attributes is checked with the op's reference.
"""

from __future__ import annotations

import numpy as np
import pytest

from workbench.errors import EvaluationError
from workbench.importers import parse_hlo
from workbench.ir import evaluate, get_op
from workbench.ir.ops.base import Category
from workbench.ir.ops.control import MAX_TRIP_COUNT

ADD = """add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
"""


def _run(body: str, *inputs, extra: str = ""):
    g = parse_hlo(f"HloModule m\n{extra}ENTRY main {{\n{body}}}\n", "t.hlo")
    return g, evaluate(g, list(inputs))


def test_gather_rows_and_batched_take_along_axis():
    table = np.arange(20, dtype=np.float32).reshape(5, 4)
    ids = np.array([[4, 0], [2, 9]], np.int32)          # 9 is clamped to the last row
    _, (out,) = _run("""  t = f32[5,4]{1,0} parameter(0)
  i = s32[2,2]{1,0} parameter(1)
  ROOT g = f32[2,2,4]{2,1,0} gather(t, i), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,4}
""", table, ids)
    np.testing.assert_array_equal(out, table[np.clip(ids, 0, 4)])
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    idx = np.array([[[1], [3], [0]], [[2], [2], [1]]], np.int32)   # [2,3,1]
    _, (out,) = _run("""  x = f32[2,3,4]{2,1,0} parameter(0)
  i = s32[2,3,1]{2,1,0} parameter(1)
  ROOT g = f32[2,3]{1,0} gather(x, i), offset_dims={}, collapsed_slice_dims={2}, start_index_map={2}, operand_batching_dims={0,1}, start_indices_batching_dims={0,1}, index_vector_dim=2, slice_sizes={1,1,1}
""", x, idx)
    np.testing.assert_array_equal(out, np.take_along_axis(x, idx, 2)[..., 0])


def test_gather_is_loop_fusible_data_movement_and_reads_only_what_it_returns():
    d = get_op("gather")
    assert d.category == Category.INJECTIVE and d.fusible
    from workbench.ir.types import TensorType

    t = TensorType((10000, 64), "f32")
    out = TensorType((8, 64), "f32")
    assert d.bytes_read([t, TensorType((8, 1), "s32")], out, {}) == 8 * 64 * 4 + 8 * 4


@pytest.mark.parametrize("combiner, expect", [
    ("add", [[10, 10], [0, 0], [5, 5]]),
    ("max", [[7, 7], [0, 0], [5, 5]]),
])
def test_scatter_combines_duplicates_and_skips_windows_out_of_bounds(combiner, expect):
    comp = ADD if combiner == "add" else ADD.replace("add(a, b)", "maximum(a, b)")
    z = np.zeros((3, 2), np.float32)
    idx = np.array([[0], [2], [0], [3], [-1]], np.int32)
    upd = np.array([[3, 3], [5, 5], [7, 7], [100, 100], [100, 100]], np.float32)
    _, (out,) = _run("""  z = f32[3,2]{1,0} parameter(0)
  i = s32[5,1]{1,0} parameter(1)
  u = f32[5,2]{1,0} parameter(2)
  ROOT s = f32[3,2]{1,0} scatter(z, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
""", z, idx, upd, extra=comp)
    assert out.tolist() == expect


def test_scatter_assign_and_a_general_combiner():
    g, (out,) = _run("""  z = f32[4]{0} parameter(0)
  i = s32[2,1]{1,0} parameter(1)
  u = f32[2]{0} parameter(2)
  ROOT s = f32[4]{0} scatter(z, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=take
""", np.ones(4, np.float32), np.array([[1], [3]], np.int32), np.array([5, 6], np.float32),
        extra="take {\n  a = f32[] parameter(0)\n  ROOT b = f32[] parameter(1)\n}\n")
    assert g.node("s").attrs["combiner"] == "assign" and out.tolist() == [1, 5, 1, 6]
    g, (out,) = _run("""  z = f32[4]{0} parameter(0)
  i = s32[3,1]{1,0} parameter(1)
  u = f32[3]{0} parameter(2)
  ROOT s = f32[4]{0} scatter(z, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=f
""", np.ones(4, np.float32), np.array([[1], [1], [2]], np.int32),
        np.array([2, 3, 4], np.float32),
        extra="f {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
              "  m = f32[] multiply(a, b)\n  ROOT c = f32[] add(m, b)\n}\n")
    assert "computation" in g.node("s").attrs
    assert out.tolist() == [1, (1 * 2 + 2) * 3 + 3, 1 * 4 + 4, 1]   # in update order


def test_dynamic_slice_and_update_clamp_their_starts():
    x = np.arange(10, dtype=np.float32)
    _, (ds, dus) = _run("""  x = f32[10]{0} parameter(0)
  i = s32[] parameter(1)
  u = f32[3]{0} parameter(2)
  ds = f32[3]{0} dynamic-slice(x, i), dynamic_slice_sizes={3}
  dus = f32[10]{0} dynamic-update-slice(x, u, i)
  ROOT t = (f32[3], f32[10]) tuple(ds, dus)
""", x, np.int32(8), np.full(3, -1, np.float32))
    assert ds.tolist() == [7, 8, 9]
    assert dus.tolist() == [0, 1, 2, 3, 4, 5, 6, -1, -1, -1]


def test_sort_with_a_total_order_comparator_and_an_index_operand():
    x = np.array([[3, np.nan, -0.0, 0.0, -np.inf, 3]], np.float32)
    _, (v, i) = _run("""  x = f32[1,6]{1,0} parameter(0)
  io = s32[1,6]{1,0} iota(), iota_dimension=1
  ROOT s = (f32[1,6], s32[1,6]) sort(x, io), dimensions={1}, is_stable=true, to_apply=lt
""", x, extra="lt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
                 "  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n"
                 "  ROOT r = pred[] compare(a, b), direction=LT, type=TOTALORDER\n}\n")
    assert i.tolist() == [[4, 2, 3, 0, 5, 1]]          # -inf, -0, +0, 3, 3 (stable), NaN
    assert np.isnan(v[0, -1]) and v[0, :5].tolist() == [-np.inf, 0, 0, 3, 3]
    assert np.signbit(v[0, 1]) and not np.signbit(v[0, 2])


def test_sort_of_many_rows_matches_numpys_stable_sort():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, size=(7, 37)).astype(np.float32)
    _, (v, i) = _run("""  x = f32[7,37]{1,0} parameter(0)
  io = s32[7,37]{1,0} iota(), iota_dimension=1
  ROOT s = (f32[7,37], s32[7,37]) sort(x, io), dimensions={1}, is_stable=true, to_apply=gt
""", x, extra="gt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
                 "  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n"
                 "  ROOT r = pred[] compare(a, b), direction=GT\n}\n")
    want = np.argsort(-x, axis=1, kind="stable")
    np.testing.assert_array_equal(i, want)
    np.testing.assert_array_equal(v, np.take_along_axis(x, want, 1))


def test_topk_takes_the_lower_index_among_equal_values():
    x = np.array([[1, 5, 5, 2, 5]], np.float32)
    _, (v, i) = _run("""  x = f32[1,5]{1,0} parameter(0)
  ROOT t = (f32[1,3], s32[1,3]) topk(x), k=3, largest=true
""", x)
    assert v.tolist() == [[5, 5, 5]] and i.tolist() == [[1, 2, 4]]


def test_reduce_with_an_argmax_computation_over_two_operands():
    x = np.array([[1, 9, 9, 3], [4, 2, 8, 8]], np.float32)
    argmax = """am {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  eq = pred[] compare(a, b), direction=EQ
  lt = pred[] compare(i, j), direction=LT
  tie = pred[] and(eq, lt)
  keep = pred[] or(gt, tie)
  v = f32[] select(keep, a, b)
  k = s32[] select(keep, i, j)
  ROOT r = (f32[], s32[]) tuple(v, k)
}
"""
    g, (v, k) = _run("""  x = f32[2,4]{1,0} parameter(0)
  io = s32[2,4]{1,0} iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[2], s32[2]) reduce(x, io, ninf, zero), dimensions={1}, to_apply=am
""", x, extra=argmax)
    assert v.tolist() == [9, 8] and k.tolist() == [1, 2]


def test_reduce_window_with_base_and_window_dilation_and_padding():
    x = np.arange(1, 6, dtype=np.float32)
    _, (a, b) = _run("""  x = f32[5]{0} parameter(0)
  z = f32[] constant(0)
  a = f32[3]{0} reduce-window(x, z), window={size=2 rhs_dilate=2}, to_apply=add
  b = f32[10]{0} reduce-window(x, z), window={size=2 pad=1_1 lhs_dilate=2}, to_apply=add
  ROOT t = (f32[3], f32[10]) tuple(a, b)
""", x, extra=ADD)
    assert a.tolist() == [1 + 3, 2 + 4, 3 + 5]
    # dilated input: [0, 1, _, 2, _, 3, _, 4, _, 5, 0] (holes and padding hold the init 0)
    assert b.tolist() == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]


def test_select_and_scatter_routes_each_window_to_its_max():
    x = np.array([[1, 5, 2, 2], [3, 4, 8, 0]], np.float32)
    src = np.array([[10, 20]], np.float32)
    _, (out,) = _run("""  x = f32[2,4]{1,0} parameter(0)
  s = f32[1,2]{1,0} parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[2,4]{1,0} select-and-scatter(x, s, z), window={size=2x2 stride=2x2}, select=ge, scatter=add
""", x, src, extra=ADD + "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
                         "  ROOT c = pred[] compare(a, b), direction=GE\n}\n")
    assert out.tolist() == [[0, 10, 0, 0], [0, 0, 20, 0]]


def test_while_and_conditional_run_their_computations():
    text = """HloModule m
cond {
  s = (f32[2], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=1
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (f32[2], s32[]) parameter(0)
  v = f32[2]{0} get-tuple-element(s), index=0
  i = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  w = f32[2]{0} multiply(v, v)
  j = s32[] add(i, one)
  ROOT t = (f32[2], s32[]) tuple(w, j)
}
neg {
  p = (f32[2]) parameter(0)
  v = f32[2]{0} get-tuple-element(p), index=0
  ROOT r = f32[2]{0} negate(v)
}
same {
  p = (f32[2]) parameter(0)
  ROOT v = f32[2]{0} get-tuple-element(p), index=0
}
ENTRY main {
  x = f32[2]{0} parameter(0)
  k = s32[] parameter(1)
  z = s32[] constant(0)
  init = (f32[2], s32[]) tuple(x, z)
  loop = (f32[2], s32[]) while(init), condition=cond, body=body
  v = f32[2]{0} get-tuple-element(loop), index=0
  arg = (f32[2]) tuple(v)
  ROOT c = f32[2]{0} conditional(k, arg, arg), branch_computations={neg, same}
}
"""
    g = parse_hlo(text, "wc.hlo")
    x = np.array([2, -1], np.float32)
    assert evaluate(g, [x, np.int32(0)])[0].tolist() == [-256, -1]
    assert evaluate(g, [x, np.int32(1)])[0].tolist() == [256, 1]
    assert evaluate(g, [x, np.int32(7)])[0].tolist() == [256, 1]    # out of range: the last
    assert get_op("while").category == Category.CONTROL and not get_op("while").fusible


def test_a_while_that_never_ends_is_an_error_not_a_hang(monkeypatch):
    import workbench.ir.ops.control as control

    monkeypatch.setattr(control, "MAX_TRIP_COUNT", 50)
    text = """HloModule m
cond {
  s = f32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  ROOT s = f32[] parameter(0)
}
ENTRY main {
  x = f32[] parameter(0)
  ROOT w = f32[] while(x), condition=cond, body=body
}
"""
    g = parse_hlo(text, "inf.hlo")
    with pytest.raises(EvaluationError, match="still running after 50 iterations"):
        evaluate(g, [np.float32(1)])
    assert MAX_TRIP_COUNT == 1_000_000


def test_bit_ops_follow_xla_for_out_of_range_shifts():
    a = np.array([1, -8, 255, 7], np.int32)
    n = np.array([31, 1, 32, -1], np.int32)
    _, (sl, srl, sra, pc, clz) = _run("""  a = s32[4]{0} parameter(0)
  n = s32[4]{0} parameter(1)
  sl = s32[4]{0} shift-left(a, n)
  srl = s32[4]{0} shift-right-logical(a, n)
  sra = s32[4]{0} shift-right-arithmetic(a, n)
  pc = s32[4]{0} popcnt(a)
  cz = s32[4]{0} clz(a)
  ROOT t = (s32[4], s32[4], s32[4], s32[4], s32[4]) tuple(sl, srl, sra, pc, cz)
""", a, n)
    assert sl.tolist() == [-2 ** 31, -16, 0, 0]
    assert srl.tolist() == [0, (2 ** 32 - 8) >> 1, 0, 0]
    assert sra.tolist() == [0, -4, 0, 0]
    assert pc.tolist() == [1, 29, 8, 3] and clz.tolist() == [31, 0, 24, 29]


def test_bitcast_convert_changes_element_size_on_the_minor_dimension():
    x = np.array([[1, 2], [3, 4]], np.uint32)
    _, (y,) = _run("""  x = u32[2,2]{1,0} parameter(0)
  ROOT y = u64[2]{0} bitcast-convert(x)
""", x)
    assert y.tolist() == [1 + (2 << 32), 3 + (4 << 32)]

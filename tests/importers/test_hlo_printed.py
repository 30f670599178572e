"""HLO text as XLA prints it: comments inside types, layouts, wrappers, nested computations."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from workbench.errors import EvaluationError, InputError, ParseError, WorkbenchError
from workbench.importers import list_dump, load_dump, load_graph, parse_hlo
from workbench.ir import evaluate

TUPLE_WITH_INDEX_COMMENTS = """HloModule m, entry_computation_layout={(f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, /*index=5*/f32[2]{0})->(f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, /*index=5*/f32[2]{0})}

ENTRY %main (a: f32[2], b: f32[2], c: f32[2], d: f32[2], e: f32[2], /*index=5*/f: f32[2]) -> (f32[2], f32[2], f32[2], f32[2], f32[2], /*index=5*/f32[2]) {
  %a = f32[2]{0} parameter(0), sharding={replicated}, metadata={op_name="a"}
  %b = f32[2]{0} parameter(1), frontend_attributes={_xla_compute_type="host"}
  %c = f32[2]{0} parameter(2)
  %d = f32[2]{0} parameter(3)
  %e = f32[2]{0} parameter(4)
  %f = f32[2]{0} parameter(5)
  %n = f32[2]{0:T(128)} negate(f32[2]{0} %a), metadata={op_name="jit(f)/neg" source_file="x.py" source_line=3}, backend_config={"outer_dimension_partitions":[],"key":"a, b {c}"}
  ROOT %t = (f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, /*index=5*/f32[2]{0}) tuple(%n, %b, %c, %d, %e, /*index=5*/%f), control-predecessors={%n}
}
"""


def test_index_comments_in_tuple_types_tiled_layouts_and_attributes():
    g = parse_hlo(TUPLE_WITH_INDEX_COMMENTS, "t.hlo")
    assert len(g.parameters) == 6 and len(g.outputs) == 6
    assert g.node("n").meta["scope"] == "jit(f)/neg"
    xs = [np.full(2, i, np.float32) for i in range(6)]
    outs = evaluate(g, xs)
    assert outs[0].tolist() == [-0.0, -0.0] and outs[5].tolist() == [5, 5]


def test_async_wrappers_copy_start_and_identity_ops_are_resolved():
    text = """HloModule m
%wrapped (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %e = f32[4]{0} exponential(%p)
}, execution_thread="main"

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %s = ((f32[4]{0}), f32[4]{0}, s32[]) async-start(f32[4]{0} %x), calls=%wrapped
  %u = ((f32[4]{0}), f32[4]{0}, s32[]) async-update(%s)
  %d = f32[4]{0} async-done(((f32[4]{0}), f32[4]{0}, s32[]) %u)
  %cs = (f32[4]{0}, f32[4]{0}, u32[]) copy-start(%d)
  %cd = f32[4]{0} copy-done(%cs)
  %b = (f32[4]{0}) optimization-barrier((f32[4]{0}) %t0)
  %t0 = (f32[4]{0}) tuple(%cd)
  ROOT %r = f32[4]{0} add-dependency(%cd, %x)
}
"""
    with pytest.raises(ParseError, match="not defined before use"):
        parse_hlo(text, "a.hlo")          # %t0 is used before it is defined
    text = text.replace("  %b = (f32[4]{0}) optimization-barrier((f32[4]{0}) %t0)\n", "")
    text = text.replace("  %t0 = (f32[4]{0}) tuple(%cd)\n",
                        "  %t0 = (f32[4]{0}) tuple(%cd)\n"
                        "  %b = (f32[4]{0}) optimization-barrier((f32[4]{0}) %t0)\n")
    g = parse_hlo(text, "a.hlo")
    assert [n.op for n in g.nodes] == ["parameter", "exponential"]
    (out,) = evaluate(g, [np.zeros(4, np.float32)])
    assert out.tolist() == [1, 1, 1, 1]


def test_every_primitive_type_imports_and_narrow_floats_evaluate_rounded():
    text = """HloModule m
ENTRY main {
  a = bf16[3]{0} constant({1.00390625, 3.14159, -2})
  b = f16[] constant(65504)
  c = f8e4m3fn[2]{0} constant({0.3, 448})
  d = f8e5m2[] constant(0.1)
  e = s8[] constant(-128)
  u = u64[] constant(18446744073709551615)
  h = s4[] constant(-8)
  f = f32[3]{0} convert(a)
  g = f32[2]{0} convert(c)
  ROOT t = (f32[3], f16[], f32[2], f8e5m2[], s8[], u64[], s4[]) tuple(f, b, g, d, e, u, h)
}
"""
    g = parse_hlo(text, "types.hlo")
    f, b, c8, d, e, u, h = evaluate(g, [])
    assert f.tolist() == [1.0, 3.140625, -2.0]        # rounded to bf16 (8 significant bits)
    assert b.dtype == np.float16 and float(b) == 65504
    assert c8.tolist() == [0.3125, 448.0]
    assert d.dtype == ml_dtypes.float8_e5m2 and float(d) == 0.09375
    assert int(e) == -128 and int(u) == 2 ** 64 - 1 and int(h) == -8


def test_bf16_ops_round_after_every_op_and_dots_accumulate_in_f32():
    text = """HloModule m
ENTRY main {
  x = bf16[4]{0} parameter(0)
  w = bf16[4,2]{1,0} parameter(1)
  one = bf16[] constant(1)
  ones = bf16[4]{0} broadcast(one), dimensions={}
  s = bf16[4]{0} add(x, ones)
  ROOT d = f32[2]{0} dot(s, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}
"""
    g = parse_hlo(text, "bf.hlo")
    assert g.node("d").attrs["preferred_element_type"] == "f32"
    x = np.array([0.00390625, 256, 1, 2], ml_dtypes.bfloat16)
    w = np.ones((4, 2), ml_dtypes.bfloat16)
    (d,) = evaluate(g, [x, w])
    # 1 + 2**-8 rounds to 1 in bf16 (8 significant bits), 256 + 1 to 256
    assert d.dtype == np.float32 and d.tolist() == [1 + 256 + 2 + 3] * 2


def test_token_types_and_collectives_import_as_opaque_with_reasons():
    text = """HloModule m
ENTRY main {
  x = f32[4]{0} parameter(0)
  tok = token[] after-all()
  ar = f32[4]{0} all-reduce(x), replica_groups={{0,1}}, to_apply=add
  ROOT y = f32[4]{0} negate(ar)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
"""
    g = parse_hlo(text, "c.hlo")
    assert g.node("tok").op == "opaque" and str(g.node("tok").type) == "token[]"
    assert "no op 'all-reduce'" in g.node("ar").meta["opaque_reason"]
    with pytest.raises(EvaluationError, match="all-reduce") as e:
        evaluate(parse_hlo(text.replace("  tok = token[] after-all()\n", ""), "c.hlo"),
                 [np.zeros(4, np.float32)])
    assert e.value.node == "ar"


def test_elided_constants_are_opaque_and_say_why():
    text = """HloModule m
ENTRY main {
  c = f32[100]{0} constant({...})
  x = f32[100]{0} parameter(0)
  ROOT y = f32[100]{0} multiply(x, c)
}
"""
    g = parse_hlo(text, "e.hlo")
    assert g.node("c").op == "opaque"
    assert "elided" in g.node("c").meta["opaque_reason"]
    with pytest.raises(EvaluationError, match="cannot evaluate 'constant': .*elided"):
        evaluate(g, [np.zeros(100, np.float32)])


@pytest.mark.parametrize("text, line, column, message", [
    ("HloModule m\nENTRY main {\n  x = f32[<=4]{0} parameter(0)\n  ROOT y = f32[4] negate(x)\n}\n",
     3, 11, "dynamic dimension"),
    ("HloModule m\nENTRY main {\n  x = f32[4]{0} parameter(0) /* open\n}\n", 3, 30,
     "not closed"),
    ("HloModule m\nENTRY main {\n  x = f32[4]{0} parameter(0)\n  ROOT y = f32[4] frobnicate(x)\n}\n",
     4, 8, "unknown HLO opcode 'frobnicate'"),
    ("HloModule m\nENTRY main {\n  x = f32[2]{0} parameter(0)\n"
     "  ROOT w = (f32[2]) while(x), condition=nope, body=nope\n}\n", 4, 31, "names no computation"),
])
def test_unknown_constructs_are_one_line_errors(text, line, column, message):
    with pytest.raises(WorkbenchError, match=message) as e:
        parse_hlo(text, "bad.hlo")
    assert (e.value.line, e.value.column) == (line, column)
    assert "\n" not in str(e.value)


def test_while_conditional_and_sort_hold_nested_computations():
    text = """HloModule m
cond {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[3]{0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[3]{0} add(v, v)
  ROOT t = (s32[], f32[3]) tuple(j, w)
}
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[3]{0} parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[3]) tuple(z, x)
  loop = (s32[], f32[3]) while(init), condition=cond, body=body, backend_config={"known_trip_count":{"n":"4"}}
  v = f32[3]{0} get-tuple-element(loop), index=1
  ROOT s = f32[3]{0} sort(v), dimensions={0}, is_stable=true, to_apply=less
}
"""
    g = parse_hlo(text, "w.hlo")
    loop = g.node("loop")
    assert loop.op == "while" and loop.attrs["trip_count"] == 4
    assert loop.attrs["body"].name == "body" and len(loop.attrs["body"].parameters) == 2
    (out,) = evaluate(g, [np.array([3, -1, 2], np.float32)])
    assert out.tolist() == [-16, 32, 48]


def _dump(folder, corpus_file, names):
    folder.mkdir()
    text = corpus_file.read_text()
    for num, name in names:
        for stage in ("before_optimizations", "cpu_after_optimizations"):
            (folder / f"module_{num}.{name}.{stage}.txt").write_text(text)
        (folder / f"module_{num}.{name}.cpu_after_optimizations-buffer-assignment.txt"
         ).write_text("not a module")
    return folder


def test_xla_dump_folders_list_and_open_modules(tmp_path):
    from tests.corpus_models import path

    one = _dump(tmp_path / "one", path("attn_causal", "after_noynn"), [("0004", "jit_attn")])
    g = load_graph(one)                                   # a single module opens directly
    assert len(g.outputs) == 1 and g.meta["has_xla_fusions"]
    many = _dump(tmp_path / "many", path("attn_causal", "before"),
                 [("0001", "jit_a"), ("0012", "jit_b")])
    mods = list_dump(many)
    assert [m.label for m in mods] == ["module_0001.jit_a", "module_0012.jit_b"]
    assert set(mods[0].files) == {"before", "after"}
    with pytest.raises(InputError, match="holds 2 modules .*module_0001.jit_a"):
        load_graph(many)
    assert load_dump(many, "12").name == load_dump(many, "jit_b", stage="before").name
    with pytest.raises(InputError, match="no module matches 'jit_c'"):
        load_dump(many, "jit_c")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no XLA module dumps"):
        load_graph(tmp_path / "empty")

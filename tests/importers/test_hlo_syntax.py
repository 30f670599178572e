"""HLO text features and syntax errors (file, line, column)."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.errors import InputError, ParseError, ShapeError
from workbench.importers import load_bytes, load_graph, parse_hlo
from workbench.ir import evaluate

OPTIMISED = """HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[4]{0})->(f32[4]{0}, f32[4]{0})}

FileNames
1 "f.py"

StackFrames
1 {file_location_id=1 parent_frame_id=1}

%region_0 (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

%fused_computation (param_0: f32[4], param_1: f32[]) -> (f32[4], f32[4]) {
  %param_0 = f32[4]{0} parameter(0)
  %param_1 = f32[] parameter(1)
  %bc = f32[4]{0} broadcast(f32[] %param_1), dimensions={}
  %sin.1 = f32[4]{0} sine(%param_0), metadata={op_name="jit(f)/sin" source_file="a, {b}.py"}
  %cos.1 = f32[4]{0} cosine(%param_0), backend_config={"x":{"y":[1,2]},"z":"a,b"}
  %m = f32[4]{0} multiply(%sin.1, %bc)
  ROOT %t = (f32[4]{0}, f32[4]{0}) tuple(%m, %cos.1)
}

ENTRY %main (x: f32[4]) -> (f32[4], f32[4]) {
  %x = f32[4]{0} parameter(0), metadata={op_name="x"}
  %two = f32[] constant(2)
  %f = (f32[4]{0}, f32[4]{0}) fusion(f32[4]{0} %x, /*index=1*/%two), kind=kLoop, calls=%fused_computation
  %g0 = f32[4]{0} get-tuple-element(%f), index=0
  %g1 = f32[4]{0} get-tuple-element(%f), index=1
  %z = f32[] constant(0)
  %r = f32[] reduce(%g1, %z), dimensions={0}, to_apply=%region_0
  ROOT %out = (f32[4]{0}, f32[]) tuple(%g0, %r)
}
"""


def test_optimised_module_features():
    g = parse_hlo(OPTIMISED, "opt.hlo")
    # tuple results and get-tuple-element resolve to the fusion's inner nodes
    assert g.outputs == ("m", "r")
    assert g.node("sin.1").meta["xla_fusion"] == "f"
    assert g.node("sin.1").meta["xla_fusion_kind"] == "kLoop"
    assert "xla_fusion" not in g.node("r").meta
    assert g.node("r").attrs["reducer"] == "add"
    x = np.array([0.0, 0.5, 1.0, 2.0], np.float32)
    m, r = evaluate(g, [x])
    np.testing.assert_allclose(m, 2 * np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(r, np.cos(x).sum(), rtol=1e-6)


def test_call_inlined_at_two_sites_gets_unique_ids():
    text = """HloModule m
relu.1 {
  a = f32[3]{0} parameter(0)
  z = f32[] constant(0)
  zb = f32[3]{0} broadcast(z), dimensions={}
  ROOT mx = f32[3]{0} maximum(a, zb)
}
ENTRY main {
  x = f32[3]{0} parameter(0)
  r1 = f32[3]{0} call(x), to_apply=relu.1
  n = f32[3]{0} negate(x)
  r2 = f32[3]{0} call(n), to_apply=relu.1
  ROOT s = f32[3]{0} add(r1, r2)
}
"""
    g = parse_hlo(text, "calls.hlo")
    ids = [n.id for n in g.nodes]
    assert len(ids) == len(set(ids))
    assert sum(1 for n in g.nodes if n.op == "maximum") == 2
    out = evaluate(g, [np.array([-1.0, 2.0, -3.0], np.float32)])[0]
    assert out.tolist() == [1.0, 2.0, 3.0]            # relu(x) + relu(-x) = |x|
    # the first inlined copy keeps the callee's names, the second is prefixed by its call site
    assert {"mx", "r2/mx"} <= set(ids)


def test_unknown_op_imports_as_opaque_and_eval_names_it():
    text = """HloModule m
ENTRY main {
  x = f32[8]{0} parameter(0)
  s = f32[8]{0} custom-call(x), custom_call_target="my_kernel", api_version=API_VERSION_TYPED_FFI
  ROOT y = f32[8]{0} negate(s)
}
"""
    g = parse_hlo(text, "cc.hlo")
    n = g.node("s")
    assert n.op == "opaque" and n.attrs["hlo_opcode"] == "custom-call"
    assert n.attrs["custom_call_target"] == "my_kernel"
    with pytest.raises(Exception, match="cannot evaluate custom-call 'my_kernel'") as e:
        evaluate(g, [np.zeros(8, np.float32)])
    assert (e.value.file, e.value.line, e.value.node) == ("cc.hlo", 4, "s")


def test_reduce_with_a_general_region_keeps_it_as_a_computation():
    text = """HloModule m
r {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] negate(a)
  n = f32[] negate(c)
  ROOT d = f32[] add(n, b)
}
ENTRY main {
  x = f32[8]{0} parameter(0)
  z = f32[] constant(0.5)
  ROOT y = f32[] reduce(x, z), dimensions={0}, to_apply=r
}
"""
    g = parse_hlo(text, "r.hlo")
    y = g.node("y")
    assert y.op == "reduce" and "reducer" not in y.attrs
    assert y.attrs["computation"].name == "r" and len(y.attrs["computation"].nodes) == 5
    (out,) = evaluate(g, [np.arange(8, dtype=np.float32)])
    assert out.tolist() == 28.5


def test_constant_literals():
    text = """HloModule m
ENTRY main {
  a = f32[2,2]{1,0} constant({ { 1, 2.5 }, { -inf, 3e2 } })
  b = pred[] constant(true)
  c = s32[3]{0} constant({1, -2, 3})
  ROOT t = (f32[2,2], pred[], s32[3]) tuple(a, b, c)
}
"""
    g = parse_hlo(text, "c.hlo")
    a, b, c = evaluate(g, [])
    assert a.tolist() == [[1, 2.5], [-np.inf, 300]]
    assert b.tolist() is True and c.tolist() == [1, -2, 3]


@pytest.mark.parametrize("text, line, column, message", [
    ("HloModule m\nENTRY main {\n  x = f32[2]{0} parameter(0)\n  ROOT y = f32[2]{0} add(x, x\n}\n",
     4, 25, "missing"),
    ("HloModule m\nENTRY main {\n  x = f33[2]{0} parameter(0)\n}\n", 3, 7, "unknown element type"),
    ("HloModule m\nENTRY main {\n  x = f32[2]{0} parameter(0)\n  ROOT y f32[2]{0} negate(x)\n}\n",
     4, 10, "expected '='"),
    ("HloModule m\nthis is not hlo\n", 2, 1, "expected 'HloModule'"),
    ("HloModule m\nENTRY main {\n  ROOT y = f32[2]{0} negate(q)\n}\n", 3, 8, "not defined"),
    ("HloModule m\nfoo {\n  x = f32[] parameter(0)\n}\n", 4, 1, "no ENTRY"),
])
def test_syntax_errors_name_file_line_and_column(text, line, column, message):
    with pytest.raises(ParseError, match=message) as e:
        parse_hlo(text, "bad.hlo")
    assert (e.value.file, e.value.line, e.value.column) == ("bad.hlo", line, column)
    assert str(e.value).startswith(f"bad.hlo:{line}:{column}: ")


def test_shape_error_in_hlo_names_line_and_node():
    text = "HloModule m\nENTRY main {\n  x = f32[2]{0} parameter(0)\n  ROOT y = f32[3]{0} negate(x)\n}\n"
    with pytest.raises(ShapeError) as e:
        parse_hlo(text, "s.hlo")
    assert (e.value.line, e.value.node) == (4, "y")


def test_truncated_empty_and_binary_files(tmp_path, shared_hlo):
    full = (shared_hlo / "softmax.before.hlo").read_text()
    cut = tmp_path / "cut.hlo"
    cut.write_text(full[: len(full) // 2])
    with pytest.raises(ParseError, match="truncated") as e:
        load_graph(cut)
    assert e.value.file == str(cut) and e.value.line is not None
    # cut in the middle of an instruction (its opcode): the syntax error says it, and why
    mid = full.index("exponential(")
    cut.write_text(full[: mid + 3])
    with pytest.raises(ParseError, match=r"expected '\(' after opcode 'exp'; the file ends on "
                       r"this line, inside computation .*: is it truncated\?") as e:
        load_graph(cut)
    assert e.value.line == full[:mid].count("\n") + 1
    empty = tmp_path / "empty.hlo"
    empty.write_text("  \n")
    with pytest.raises(InputError, match="empty"):
        load_graph(empty)
    binary = tmp_path / "weights.hlo"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(range(256)))
    with pytest.raises(InputError, match="binary"):
        load_graph(binary)
    with pytest.raises(InputError, match="not UTF-8"):
        load_bytes(b"HloModule \xff\xfe", "latin.hlo")
    with pytest.raises(InputError, match="cannot read"):
        load_graph(tmp_path / "missing.hlo")


def test_a_callee_parameter_must_have_the_type_its_call_site_passes():
    """Found by bench/bad_inputs.py (dtype-s32-param-mlp): a callee's parameter declared s32
    while the call passes f32 was inlined as f32, the declaration ignored."""
    text = """HloModule m

sub {
  a = s32[4]{0} parameter(0)
  ROOT n = f32[4]{0} negate(a)
}

ENTRY main {
  x = f32[4]{0} parameter(0)
  ROOT z = f32[4]{0} call(x), to_apply=sub
}
"""
    with pytest.raises(ParseError) as err:
        parse_hlo(text, "call.hlo")
    assert (err.value.file, err.value.line) == ("call.hlo", 4)
    assert "is s32[4], but the call site passes f32[4]" in str(err.value)


def test_a_float_constant_keeps_the_sign_of_a_negative_zero():
    """XLA prints a float's -0.0 as ``-0``, which reads as the integer 0: the sign is kept for
    float types (an integer's -0 is 0)."""
    import math

    for dtype in ("f32", "bf16", "f16", "f64"):
        g = load_bytes(f"HloModule m\nENTRY e {{\n  c = {dtype}[3] constant({{-0, 0, -1}})\n"
                       f"  ROOT a = {dtype}[3] negate(c)\n}}\n".encode(), "m.hlo")
        (c,) = [n for n in g.nodes if n.op == "constant"]
        first, second, third = c.attrs["value"]
        assert first == 0 and math.copysign(1, first) == -1, dtype
        assert math.copysign(1, second) == 1 and third == -1
    g = load_bytes(b"HloModule m\nENTRY e {\n  ROOT c = s32[] constant(-0)\n}\n", "m.hlo")
    assert [n.attrs["value"] for n in g.nodes if n.op == "constant"] == [0]

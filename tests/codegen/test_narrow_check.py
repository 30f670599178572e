"""bf16 and f16 are checked in their own dtype, with a tolerance from its epsilon: a kernel that
drops a rounding (a convert pair) is caught, as it was not when the check widened f16 to f64."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from workbench.codegen.check import check_outputs, compare, reference_outputs
from workbench.importers import parse_hlo
from workbench.ir import evaluate
from workbench.ir.tolerance import tolerance

ROUND_TRIP = """HloModule m
ENTRY main {
  x = f32[64]{0} parameter(0)
  b = DT[64]{0} convert(x)
  y = f32[64]{0} convert(b)
  ROOT d = f32[64]{0} subtract(x, y)
}
"""


@pytest.mark.parametrize("dt", ["bf16", "f16"])
def test_a_kernel_that_drops_a_convert_pair_fails_the_check(dt):
    g = parse_hlo(ROUND_TRIP.replace("DT", dt), "r.hlo")
    x = np.linspace(0.1, 3, 64).astype(np.float32)
    ref, exact = reference_outputs(g, [x])
    assert exact is None                          # nothing widened to float64
    dropped = [np.zeros(64, np.float32)]          # x - x: the rounding skipped
    (c,) = check_outputs(g, dropped, ref, exact)
    assert not c.ok and c.mismatches > 32
    (c,) = check_outputs(g, ref, ref, exact)
    assert c.ok


def test_tolerances_come_from_the_dtypes_epsilon():
    assert tolerance("bf16") == (4 * 2 ** -7, 2 * 2 ** -7)
    assert tolerance("f16") == (4 * 2 ** -10, 2 * 2 ** -10)
    assert tolerance("f32") == (1e-4, 1e-5) and tolerance("s32") == (0.0, 0.0)
    ref = np.array([1, 1, 0.5], ml_dtypes.bfloat16)   # bound at 1: 2 eps + 4 eps
    one_ulp = np.array([1.0078125, 1, 0.5], ml_dtypes.bfloat16)
    far = np.array([1.0625, 1, 0.5], ml_dtypes.bfloat16)       # 8 ulps off
    assert compare(one_ulp, ref, "bf16").ok and not compare(far, ref, "bf16").ok
    assert compare(one_ulp, ref, "bf16").max_abs_error == 2 ** -7


def test_an_op_without_a_reference_is_one_line_naming_op_and_node(tmp_path, capsys):
    from workbench.cli import main

    f = tmp_path / "cc.hlo"
    f.write_text("HloModule m\nENTRY main {\n  x = f32[4]{0} parameter(0)\n"
                 "  ROOT s = f32[4]{0} custom-call(x), custom_call_target=\"my_kernel\"\n}\n")
    assert main(["eval", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "node 's'" in err and "custom-call 'my_kernel'" in err
    assert err.startswith(f"error: {f}:4: node 's': cannot evaluate")
    with pytest.raises(Exception, match="custom-call"):
        evaluate(parse_hlo(f.read_text(), "cc.hlo"), [np.zeros(4, np.float32)])

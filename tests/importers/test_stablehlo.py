"""StableHLO (MLIR) text, converted by jaxlib: every corpus model's .mlir imports and reproduces
JAX. These tests need jax (the ``[jax]`` extra) and are skipped without it; the without-jax
error is tested in tests/cli/test_capture.py."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from tests.corpus_models import NAMES, io, path
from tests.importers.test_corpus import _check_against_jax
from workbench.errors import ParseError
from workbench.importers import load_bytes, load_graph, parse_graph
from workbench.importers.stablehlo import looks_like_stablehlo

needs_jax = pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                               reason="needs jax (pip install -e '.[jax]')")


def test_stablehlo_is_recognised_by_content_and_name():
    text = path("attn_causal", "mlir").read_text()
    assert looks_like_stablehlo(text) and text.lstrip().startswith("module @")
    assert not looks_like_stablehlo(path("attn_causal", "before").read_text())
    assert looks_like_stablehlo("// a comment\nfunc.func @main() {\n}")


@needs_jax
@pytest.mark.parametrize("name", NAMES)
def test_corpus_stablehlo_imports_and_reproduces_jax(name):
    g = load_graph(path(name, "mlir"))
    assert g.meta["format"] == "stablehlo" and g.meta["source"] == str(path(name, "mlir"))
    assert not [n.id for n in g.nodes if n.op == "opaque"]
    _check_against_jax(g, io(name), f"{name}.mlir")


@needs_jax
def test_stablehlo_errors_name_line_and_column():
    text = path("attn_causal", "mlir").read_text()
    lines = text.splitlines()
    k = next(i for i, ln in enumerate(lines) if "stablehlo." in ln)
    lines[k] = lines[k].replace("stablehlo.", "stablehlo.bogus_", 1)
    with pytest.raises(ParseError) as e:
        parse_graph("\n".join(lines), "bad.mlir")
    assert e.value.file == "bad.mlir" and e.value.line == k + 1 and e.value.column
    assert "bogus" in str(e.value) and "\n" not in str(e.value)
    g = load_bytes(text.encode(), "pasted")             # content decides, whatever the name
    assert g.meta["format"] == "stablehlo"


@needs_jax
def test_an_op_without_a_reference_in_stablehlo_names_the_converted_text():
    from workbench.errors import EvaluationError
    from workbench.ir import evaluate

    text = ("module @jit_f {\n"
            "  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>) {\n"
            "    %0 = stablehlo.custom_call @my_lib_op(%arg0) : (tensor<4xf32>) -> "
            "tensor<4xf32>\n"
            "    return %0 : tensor<4xf32>\n  }\n}\n")
    g = parse_graph(text, "m.mlir")
    with pytest.raises(EvaluationError) as e:
        evaluate(g, [np.zeros(4, np.float32)])
    # the line is one of jaxlib's HLO text, so the file is named as that text, not m.mlir
    assert e.value.file == "m.mlir (as HLO)" and e.value.line and e.value.node
    assert "cannot evaluate custom-call 'my_lib_op'" in str(e.value)

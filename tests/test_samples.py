"""Every sample graph loads, verifies, evaluates, and says what it teaches."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import sample_paths
from workbench.importers import load_graph
from workbench.ir import evaluate, expand_composites, make_inputs, verify

REQUIRED = {"mlp", "transformer_block", "resnet_block", "softmax", "layernorm_gelu", "chain10",
            "sin_cos", "conv_bias_relu", "multi_consumer", "reduce_broadcast"}


def test_at_least_ten_samples_cover_the_teaching_cases():
    names = {p.stem for p in sample_paths()}
    assert len(names) >= 10
    assert REQUIRED <= names


@pytest.mark.parametrize("path", sample_paths(), ids=lambda p: p.stem)
def test_sample_loads_verifies_and_evaluates(path):
    g = verify(load_graph(path))
    assert g.name == path.stem
    assert len(json.loads(path.read_text())["description"]) > 20
    inputs = make_inputs(g, seed=0)
    outs = evaluate(g, inputs)
    assert len(outs) == len(g.outputs)
    for o, oid in zip(outs, g.outputs):
        assert o.shape == g.node(oid).type.shape
        assert np.isfinite(o).all(), f"{path.stem}: {oid} has non-finite values"
    # the primitive form computes the same thing
    for a, b in zip(outs, evaluate(verify(expand_composites(g)), inputs)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)

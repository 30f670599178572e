"""Property: any graph built from the registry survives a JSON round trip unchanged."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.importers import dumps, parse_json
from workbench.ir import GraphBuilder, evaluate, make_inputs, verify

UNARY = ["negate", "abs", "exponential", "tanh", "logistic", "sine", "floor"]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum"]


@st.composite
def graphs(draw):
    rows, cols = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    b = GraphBuilder("random")
    values = [b.parameter(f"p{i}", (rows, cols)) for i in range(draw(st.integers(1, 3)))]
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["unary", "binary", "row-reduce", "const"]))
        if kind == "unary":
            values.append(b.op(draw(st.sampled_from(UNARY)), [draw(st.sampled_from(values))]))
        elif kind == "binary":
            x, y = draw(st.sampled_from(values)), draw(st.sampled_from(values))
            values.append(b.op(draw(st.sampled_from(BINARY)), [x, y]))
        elif kind == "row-reduce":
            r = b.reduce(draw(st.sampled_from(values)), (1,), "add", 0.0)
            values.append(b.op("broadcast", [r], shape=(rows, cols), dimensions=(0,)))
        else:
            values.append(b.splat(draw(st.floats(-4, 4, width=32)), (rows, cols)))
    outs = draw(st.lists(st.sampled_from(values), min_size=1, max_size=3, unique=True))
    return verify(b.build(outs))


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_json_round_trip_preserves_graph_and_values(g):
    text = dumps(g)
    again = parse_json(text, "random.json")
    assert dumps(again) == text
    assert again.fingerprint == g.fingerprint
    inputs = make_inputs(g, seed=1)
    for a, b in zip(evaluate(g, inputs), evaluate(again, inputs)):
        np.testing.assert_array_equal(a, b)

"""Graph structure, text form, verify() errors and the interpreter's checks."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.errors import (ArityError, CycleError, DanglingReferenceError, DuplicateIdError,
                              EvaluationError, GraphError, ResourceLimitError, ShapeError,
                              UnknownOpError)
from workbench.ir import (Attrs, Graph, GraphBuilder, Node, TensorType, evaluate, make_inputs,
                          peak_live_bytes, verify)

F = TensorType((4,), "f32")


def chain():
    b = GraphBuilder("chain")
    x = b.parameter("x", (4,))
    y = b.parameter("y", (4,))
    m = b.op("multiply", [x, y], node_id="m")
    a = b.op("add", [m, x], node_id="a")
    return b.build([a])


def test_users_topo_order_and_text():
    g = verify(chain())
    assert g.users("x") == ("m", "a")
    assert g.users("m") == ("a",)
    assert g.topo_order.index("m") < g.topo_order.index("a")
    assert [p.id for p in g.parameters] == ["x", "y"]
    assert g.ancestors("a") == {"x", "y", "m"}
    assert g.text() == ("graph chain(x: f32[4], y: f32[4]) -> (a) {\n"
                        "  m: f32[4] = multiply(x, y)\n"
                        "  a: f32[4] = add(m, x)\n}")


def test_graph_is_immutable_and_fingerprint_is_semantic():
    g = chain()
    with pytest.raises(AttributeError):
        g.name = "other"                                  # frozen dataclass
    renamed = g.replace(name="chain")
    assert renamed.fingerprint == g.fingerprint
    changed = g.replace(nodes=g.nodes[:-1] + (g.nodes[-1].replace(op="subtract"),))
    assert changed.fingerprint != g.fingerprint


def _graph(nodes, outputs=("a",)):
    return Graph("bad", tuple(nodes), tuple(outputs))


X = Node("x", "parameter", (), F, Attrs(index=0))


def test_verify_unknown_op_names_node_and_suggests():
    g = _graph([X, Node("a", "addd", ("x", "x"), F)])
    with pytest.raises(UnknownOpError, match="did you mean add") as e:
        verify(g)
    assert e.value.node == "a"


def test_verify_arity():
    with pytest.raises(ArityError, match="add takes 2 operand") as e:
        verify(_graph([X, Node("a", "add", ("x",), F)]))
    assert e.value.node == "a"


def test_verify_mismatched_shapes_and_declared_type():
    y = Node("y", "parameter", (), TensorType((5,), "f32"), Attrs(index=1))
    with pytest.raises(ShapeError, match="equal shapes") as e:
        verify(_graph([X, y, Node("a", "add", ("x", "y"), F)]))
    assert e.value.node == "a"
    with pytest.raises(ShapeError, match="declared type f32\\[3\\]"):
        verify(_graph([X, Node("a", "add", ("x", "x"), TensorType((3,), "f32"))]))


def test_verify_cycle_dangling_duplicate():
    cyc = [X, Node("a", "add", ("x", "b"), F), Node("b", "negate", ("a",), F)]
    with pytest.raises(CycleError, match="cycle: .*a.*b|cycle: .*b.*a"):
        verify(_graph(cyc))
    with pytest.raises(DanglingReferenceError, match="'ghost'") as e:
        verify(_graph([X, Node("a", "add", ("x", "ghost"), F)]))
    assert e.value.node == "a"
    with pytest.raises(DuplicateIdError) as e:
        verify(_graph([X, Node("x", "negate", ("x",), F), Node("a", "negate", ("x",), F)]))
    assert e.value.node == "x"
    with pytest.raises(DanglingReferenceError, match="output 'nope'"):
        verify(_graph([X, Node("a", "negate", ("x",), F)], outputs=("nope",)))


def test_verify_parameter_numbering():
    y = Node("y", "parameter", (), F, Attrs(index=3))
    with pytest.raises(GraphError, match="parameter indices"):
        verify(_graph([X, y, Node("a", "add", ("x", "y"), F)]))


def test_evaluate_checks_inputs():
    g = verify(chain())
    with pytest.raises(EvaluationError, match="2 parameters, got 1"):
        evaluate(g, [np.zeros(4, np.float32)])
    with pytest.raises(EvaluationError, match="shape \\[3\\]") as e:
        evaluate(g, [np.zeros(3, np.float32), np.zeros(4, np.float32)])
    assert e.value.node == "x"
    with pytest.raises(EvaluationError, match="no input given for parameter 1"):
        evaluate(g, {"arg0": np.zeros(4, np.float32)})
    out = evaluate(g, {"arg0": np.ones(4), "arg1": np.full(4, 2.0)})[0]   # f64 -> f32
    assert out.dtype == np.float32 and out.tolist() == [3, 3, 3, 3]


def test_evaluate_refuses_over_memory_cap_before_allocating():
    b = GraphBuilder("big")
    x = b.parameter("x", (1 << 20,))                        # 4 MiB
    e = b.op("exponential", [x], node_id="e")
    g = verify(b.build([b.op("add", [e, x], node_id="s")]))
    peak, _ = peak_live_bytes(g)
    assert peak == 3 * (4 << 20)                            # x, e and s alive at once
    with pytest.raises(ResourceLimitError, match="12.0 MiB .* cap of 8.0 MiB"):
        evaluate(g, make_inputs(g), max_bytes=8 << 20)
    assert evaluate(g, make_inputs(g), max_bytes=16 << 20)[0].shape == (1 << 20,)


def test_evaluate_opaque_op_names_it():
    t = TensorType((4,), "f32")
    g = verify(_graph([X, Node("a", "opaque", ("x",), t, Attrs(hlo_opcode="custom-call"))]))
    with pytest.raises(EvaluationError, match="opaque op 'custom-call'") as e:
        evaluate(g, [np.zeros(4, np.float32)])
    assert e.value.node == "a"


def test_evaluate_keep_intermediates():
    g = verify(chain())
    env = evaluate(g, [np.ones(4, np.float32), np.full(4, 3.0, np.float32)], keep=["m"])
    assert env["m"].tolist() == [3, 3, 3, 3] and env["a"].tolist() == [4, 4, 4, 4]


def test_make_inputs_is_reproducible_and_honours_init():
    b = GraphBuilder("g")
    b.parameter("x", (100,))
    var = b.parameter("var", (100,))
    g = b.build([var])
    g = g.replace(nodes=tuple(n.replace(meta=Attrs(init="positive")) if n.id == "var" else n
                              for n in g.nodes))
    a, v = make_inputs(g, seed=3)
    assert np.array_equal(a, make_inputs(g, seed=3)[0])
    assert (v >= 0.5).all() and (v < 1.5).all()


def test_make_inputs_gives_a_scalar_parameter_a_0d_array():
    b = GraphBuilder("scalar_param")
    x, s = b.parameter("x", (4,)), b.parameter("s", ())
    g = b.build([b.op("multiply", [x, b.op("broadcast", [s], shape=(4,), dimensions=())])])
    xs, ss = make_inputs(g)
    assert xs.shape == (4,) and ss.shape == () and ss.dtype == np.float32
    assert evaluate(g, [xs, ss])[0] == pytest.approx(xs * ss)

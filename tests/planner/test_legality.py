"""Each legality predicate refuses what it should, with its reason code and a sentence."""

import math

from tests.planner.planner_helpers import sample
from workbench.ir import Attrs, GraphBuilder, Node, TensorType
from workbench.planner import Constraints, check_group
from workbench.costmodel.devices import with_register_cap
from workbench.planner.legality import REASONS, check_plan_groups


def assert_refused(r, code):
    assert r is not None, f"expected a {code} refusal"
    assert r.code == code, r
    assert r.code in REASONS and len(r.message) > 20
    return r


def test_chain_is_legal_and_a_path_out_and_back_is_a_cycle():
    b = GraphBuilder("chain")
    x = b.parameter("x", (64,))
    a = b.op("negate", [x], node_id="a")
    m = b.op("abs", [a], node_id="m")
    c = b.op("add", [a, m], node_id="c")
    g = b.build([c])
    assert check_group(g, ["a", "m", "c"]) is None
    # a -> m -> c leaves {a, c} through m and comes back: one kernel would wait on itself.
    r = assert_refused(check_group(g, ["a", "c"]), "cycle")
    assert "m" in r.message


def test_opaque_op_is_never_fused():
    b = GraphBuilder("op")
    x = b.parameter("x", (8,))
    s = b.node(Node("sorted", "opaque", (x,), TensorType((8,), "f32"),
                    Attrs(hlo_opcode="sort")))
    n = b.op("negate", [s], node_id="n")
    g = b.build([n])
    assert check_group(g, ["sorted"]) is None
    r = assert_refused(check_group(g, ["sorted", "n"]), "opaque")
    assert "sorted" in r.message


def test_operand_budget_of_96():
    b = GraphBuilder("wide")
    acc = b.parameter("p0", (4,))
    adds = []
    for i in range(1, 100):
        acc = b.op("add", [acc, b.parameter(f"p{i}", (4,))], node_id=f"s{i}")
        adds.append(acc)
    g = b.build([acc])
    assert check_group(g, adds[:90]) is None                 # 91 inputs + 1 output
    r = assert_refused(check_group(g, adds), "operand-budget")  # 100 inputs + 1 output
    assert "100 operands" in r.message


def test_at_most_eight_reductions():
    b = GraphBuilder("reds")
    x = b.parameter("x", (16, 32))
    reds = [b.reduce(b.op("multiply", [x, b.splat(float(i), (16, 32))]), (1,), "add", 0.0)
            for i in range(9)]
    g = b.build(reds)
    members = [n.id for n in g.nodes if n.op not in ("parameter", "constant")]
    assert_refused(check_group(g, members), "reduction-budget")


def test_reduce_into_reduce_only_when_both_are_large():
    b = GraphBuilder("rr")
    x = b.parameter("x", (8, 1024))
    init = b.constant(0.0)
    w32 = b.op("reduce-window", [x, init], node_id="rw", reducer="add", window_size=(1, 32),
               window_stride=(1, 32), window_padding=((0, 0), (0, 0)))
    r32 = b.op("reduce", [w32, init], node_id="r", dimensions=(1,), reducer="add")
    y = b.parameter("y", (8, 64))
    w8 = b.op("reduce-window", [y, init], node_id="rw8", reducer="add", window_size=(1, 8),
              window_stride=(1, 8), window_padding=((0, 0), (0, 0)))
    r8 = b.op("reduce", [w8, init], node_id="r8", dimensions=(1,), reducer="add")
    g = b.build([r32, r8])
    # XLA:CPU's split row reduction: 32 elements per output, then 32 more.
    assert_refused(check_group(g, ["rw", "r"]), "reduce-into-reduce")
    # 8 elements per output in the first step: a small reduction, fused as a prologue.
    assert check_group(g, ["rw8", "r8"]) is None


def test_row_wise_epilogue_is_legal_but_a_global_one_is_not():
    softmax = sample("softmax")
    ops = [n.id for n in softmax.nodes if n.op not in ("parameter", "constant")]
    assert check_group(softmax, ops) is None     # one block per row: legal
    b = GraphBuilder("global")
    x = b.parameter("x", (64, 64))
    total = b.reduce(x, (0, 1), "add", 0.0)
    out = b.op("subtract", [x, b.op("broadcast", [total], shape=(64, 64), dimensions=())],
               node_id="out")
    g = b.build([out])
    members = [n.id for n in g.nodes if n.op not in ("parameter", "constant")]
    # A reduction to one result recomputes nothing: one row of 4,096 elements is legal ...
    assert check_group(g, members) is None
    # ... up to ONE_ROW_MAX_ELEMENTS; beyond, the whole kernel would run as one row.
    b = GraphBuilder("global_big")
    x = b.parameter("x", (512, 256))
    total = b.reduce(x, (0, 1), "add", 0.0)
    out = b.op("subtract", [x, b.op("broadcast", [total], shape=(512, 256), dimensions=())],
               node_id="out")
    g = b.build([out])
    members = [n.id for n in g.nodes if n.op not in ("parameter", "constant")]
    r = check_group(g, members)
    assert_refused(r, "reduction-epilogue")
    assert "131072 elements" in r.message and "recompute" not in r.message


def test_contraction_reads_memory_and_has_one_epilogue_shape():
    t = sample("transformer_block")
    assert_refused(check_group(t, ["ln1", "qkv_matmul"]), "contraction-prologue")
    assert check_group(t, ["qkv_matmul", "qkv"]) is None
    assert_refused(check_group(t, ["scores", "scores_scaled", "masked", "attn_softmax"]), "epilogue-shape")
    assert_refused(check_group(t, ["ffn1", "ffn1_bias", "ffn_gelu", "ffn2"]), "two-contractions")


def test_horizontal_fusion_needs_one_iteration_space():
    t = sample("transformer_block")
    q = ["q_slice", "q_heads", "q_t"]
    v = ["v_slice", "v_heads", "v_t"]
    k = ["k_slice", "k_heads", "k_t"]
    assert check_group(t, q + v) is None          # both [2, 4, 64, 32]
    r = assert_refused(check_group(t, q + k), "shape-mismatch")
    assert "[2, 4, 32, 64]" in r.message


def test_register_cap_of_the_device():
    g = sample("chain10")
    ops = [n.id for n in g.nodes if n.op not in ("parameter", "constant")]
    assert check_group(g, ops, "h100") is None
    r = assert_refused(check_group(g, ops, with_register_cap("h100", 18)), "registers")
    assert "cap of 18" in r.message
    assert_refused(check_group(g, ops, "h100-r18"), "registers")    # the same device by name
    assert check_group(g, ops, "cpu") is None     # no register model on the CPU


def test_forbidden_pair():
    g = sample("chain10")
    cons = Constraints().with_forbidden("mul1", "add1")
    r = assert_refused(check_group(g, ["mul1", "add1", "mul2"], "cpu", cons), "forbidden")
    assert "mul1" in r.message and "add1" in r.message


def test_group_graph_cycle_between_convex_groups():
    b = GraphBuilder("x")
    p = b.parameter("p", (4,))
    a = b.op("negate", [p], node_id="a")
    bb = b.op("abs", [p], node_id="b")
    c = b.op("exponential", [a], node_id="c")
    d = b.op("floor", [bb], node_id="d")
    g = b.build([c, d])
    # {a, d} and {b, c} are each convex, but a -> c and b -> d make the two kernels wait on
    # each other.
    r = assert_refused(check_plan_groups(g, [["a", "d"], ["b", "c"]]), "cycle")
    assert math.isfinite(len(r.message))
    assert check_plan_groups(g, [["a", "c"], ["b", "d"]]) is None

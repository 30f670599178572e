"""The planner's named cases, determinism, replay, and the patterns on primitive HLO."""

from collections import Counter

import numpy as np
import pytest

from tests.planner.planner_helpers import hlo, sample
from workbench.errors import InputError
from workbench.ir import GraphBuilder, evaluate, make_inputs
from workbench.ir.attrs import Attrs
from workbench.transforms import fold_batch_norm
from workbench.planner import (POLICIES, group_cost, plan_from_json,
                               plan_graph, replay)


def test_ten_op_chain_is_one_loop_fusion():
    g = sample("chain10")
    plan = plan_graph(g, "priority", "h100")
    assert plan.num_kernels == 1
    (k,) = plan.groups
    assert k.kind == "loop" and k.outputs == ("sub2",)
    assert len(k.nodes) == 14            # 10 ops and the 4 broadcasts of their constants


def test_sin_and_cos_of_one_input_are_one_multi_output_kernel():
    g = sample("sin_cos")
    plan = plan_graph(g, "priority", "h100")
    (k,) = plan.groups
    assert k.kind == "multi-output" and set(k.outputs) == {"sin", "cos"}
    sib = [d for d in plan.decisions if d.action == "sibling" and d.fused]
    assert len(sib) == 1 and "both read x" in sib[0].message


def test_softmax_is_one_input_fusion():
    for g in (sample("softmax"), hlo("softmax.before.hlo")):
        plan = plan_graph(g, "priority", "h100")
        (k,) = plan.groups
        assert k.kind == "input" and k.pattern == "softmax"


def test_matmul_bias_gelu_is_one_output_fusion():
    g = sample("matmul_bias_gelu")
    (k,) = plan_graph(g, "priority", "h100").groups
    assert k.kind == "output" and k.pattern == "matmul+bias+gelu"
    assert k.nodes == ("matmul", "bias_add", "gelu")


def test_patterns_on_primitive_hlo():
    mlp = plan_graph(hlo("mlp.before.hlo"), "priority", "h100")
    assert [g.pattern for g in mlp.groups] == ["matmul+bias+relu"] * 3
    ln = plan_graph(hlo("layernorm_gelu.before.hlo"), "priority", "h100")
    assert [g.pattern for g in ln.groups] == ["layer_norm+gelu"]
    res = plan_graph(hlo("resnet_block.before.hlo"), "priority", "h100")
    pats = [g.pattern for g in res.groups if g.pattern]
    assert pats == ["conv+bn+relu", "conv+bn+residual+relu"]


def test_conv_bn_relu_is_one_output_fusion_unfolded():
    g = sample("resnet_block")
    plan = plan_graph(g, "priority", "h100")
    first = plan.group_of("conv1")
    assert first.nodes == ("conv1", "bn1", "relu1")
    assert first.kind == "output" and first.pattern == "conv+bn+relu"


def test_batch_norm_folding_evaluates_equal_and_fuses_conv_bias_relu():
    g = sample("resnet_block")
    folded = fold_batch_norm(g)
    assert folded is not g and g.node("bn1").op == "batch_norm_inference"
    assert folded.node("bn1").op == "bias_add" and folded.node("bn1").operands[0] == "conv1"
    assert folded.node("conv1").operands[1] == "bn1.fold_weights"
    inputs = make_inputs(g, seed=3)
    want, got = evaluate(g, inputs), evaluate(folded, inputs)
    for w, o in zip(want, got):
        np.testing.assert_allclose(o, w, rtol=1e-4, atol=1e-4)
    plan = plan_graph(folded, "priority", "h100")
    k = plan.group_of("conv1")
    assert k.kind == "output" and k.pattern == "conv+bias+relu"
    # The weight-folding ops are offline (run once, when the weights are loaded): none of them
    # joins the per-call kernel, and they form offline kernels of their own.
    assert k.nodes == ("conv1", "bn1", "relu1") and k.role == "call"
    w = plan.group_of("bn1.fold_weights")
    assert w.kind == "loop" and w.role == "offline"
    assert all(folded.node(n).meta.get("offline") for n in w.nodes)


def _multi(op):
    b = GraphBuilder("multi")
    x = b.parameter("x", (1 << 16,))
    p = b.op(op, [x], node_id="p")
    outs = [b.op("negate", [p], node_id="c1"), b.op("abs", [p], node_id="c2"),
            b.op("floor", [p], node_id="c3")]
    return b.build(outs)


def test_cheap_producer_with_three_consumers_is_duplicated_under_priority():
    g = sample("multi_consumer")
    plan = plan_graph(g, "priority", "h100")
    dup = [d for d in plan.decisions if d.reason == "duplicate"]
    assert len(dup) == 1 and dup[0].nodes[0] == "producer" and len(dup[0].members) == 3
    assert all("producer" in m for m in dup[0].members)
    assert dup[0].numbers["benefit_s"] > 0


def test_expensive_producer_is_kept_under_xla_cpu_and_cheap_one_duplicated():
    expensive = plan_graph(_multi("exponential"), "xla-cpu", "cpu")
    assert expensive.group_of("p").nodes == ("p",)
    assert {g.nodes for g in expensive.groups} == {("p",), ("c1",), ("c2",), ("c3",)}
    refusals = [d for d in expensive.decisions if d.reason == "expensive-duplication"]
    assert len(refusals) == 3 and "exponential is expensive" in refusals[0].message
    cheap = plan_graph(_multi("negate"), "xla-cpu", "cpu")
    assert {g.nodes for g in cheap.groups} == {("p", "c1"), ("p", "c2"), ("p", "c3")}


@pytest.mark.parametrize("policy", POLICIES)
def test_deterministic_and_replayable(policy):
    for name in ("transformer_block", "multi_consumer", "softmax", "resnet_block"):
        g = sample(name)
        a, b = plan_graph(g, policy, "h100"), plan_graph(g, policy, "h100")
        assert a.text(g) == b.text(g) and a.dumps() == b.dumps()
        assert Counter(replay(a, g)) == Counter(a.member_sets())
        assert plan_from_json(a.dumps(), g).dumps() == a.dumps()


def test_replay_of_xla_cpu_on_optimised_hlo():
    g = hlo("transformer_block.after_noynn.hlo")
    plan = plan_graph(g, "xla-cpu", "cpu")
    assert Counter(replay(plan, g)) == Counter(plan.member_sets())
    half = len(plan.decisions) // 2
    assert len(replay(plan, g, half)) > plan.num_kernels      # fewer fusions done by then


def test_the_planner_never_reads_xla_tags():
    g = hlo("transformer_block.after_noynn.hlo")
    untagged = g.replace(nodes=tuple(n.replace(meta=Attrs()) for n in g.nodes))
    for policy in POLICIES:
        assert plan_graph(untagged, policy, "h100").member_sets() == \
            plan_graph(g, policy, "h100").member_sets()


def test_every_decision_has_a_sentence_and_taken_ones_their_groups():
    g = sample("transformer_block")
    for policy in POLICIES:
        plan = plan_graph(g, policy, "h100")
        for i, d in enumerate(plan.decisions):
            assert d.step == i and len(d.message) > 20 and d.reason
            if d.fused:
                assert d.members and d.removed


def test_unknown_policy_and_device():
    g = sample("chain10")
    with pytest.raises(InputError, match="unknown policy 'fastest'"):
        plan_graph(g, "fastest")
    with pytest.raises(InputError, match="unknown device"):
        plan_graph(g, "priority", "tpu-v9")


def test_greedy_refuses_fusions_above_the_register_cap():
    g = sample("chain10")
    assert plan_graph(g, "greedy", "h100").num_kernels == 1
    tight = plan_graph(g, "greedy", "h100-r19")     # 16 base + 3 live values at most
    refused = [d for d in tight.decisions if d.reason == "registers"]
    assert tight.num_kernels > 1 and refused
    assert "above h100-r19's cap of 19" in refused[0].message
    # every fused kernel stays under the cap (a lone op, such as mul1 = x * y with three live
    # values, is a kernel whatever its registers)
    fused = [grp for grp in tight.groups if grp.size > 1]
    assert fused and all(group_cost(g, grp.nodes, "h100-r19").registers_per_thread <= 19
                         for grp in fused)

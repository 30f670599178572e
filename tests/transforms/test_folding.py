"""Batch-norm folding: what it folds (composite and JAX's primitive form), what it reports, and
how the folded plan is costed (offline weight kernels apart from the per-call total)."""

import numpy as np
import pytest

from tests.planner.planner_helpers import hlo, sample, shared_hlo_dir
from workbench.cli import main
from workbench.ir import GraphBuilder, evaluate
from workbench.planner import check_group, plan_cost, plan_graph
from workbench.transforms.folding import fold_batch_norms


def test_composite_fold_report_and_offline_ops():
    g = sample("resnet_block")
    folded, report = fold_batch_norms(g)
    assert [(f.norm, f.conv, f.form) for f in report.folded] == [
        ("bn1", "conv1", "batch_norm_inference"), ("bn2", "conv2", "batch_norm_inference")]
    assert report.skipped == () and report.reason == ""
    # Per batch norm: broadcast eps, var + eps, rsqrt, * scale, broadcast, w * factor,
    # mean * factor, offset - that: 8 offline ops (the eps constant is a source).
    assert len(report.offline) == 16
    assert all(folded.node(n).meta.get("offline") for n in report.offline)
    assert not folded.node("conv1").meta.get("offline")


def test_folded_plan_charges_weight_folding_offline_not_per_call():
    g = sample("resnet_block")
    folded, _ = fold_batch_norms(g)
    plan = plan_graph(folded, "priority", "h100")
    cost = plan_cost(folded, plan)
    roles = {gr.id: gr.role for gr in plan.groups}
    per_call = [gr for gr in plan.groups if gr.role == "call"]
    assert [set(gr.nodes) for gr in per_call] == [{"conv1", "bn1", "relu1"},
                                                   {"conv2", "bn2", "residual", "relu2"}]
    # Weights and bias of each batch norm: two offline kernels each, summed apart.
    assert sorted(roles.values()).count("offline") == 4
    assert cost.total.kernels == 2 and cost.offline_total.kernels == 4
    assert cost.total.predicted_s == pytest.approx(
        sum(cost.groups[gr.id].predicted_s for gr in per_call))
    # The unfused baseline is the per-call ops only: conv, bias_add, relu, conv, bias_add,
    # add, relu -- the same count as the graph before folding.
    assert cost.unfused_total.kernels == 7
    unfolded = plan_cost(g, plan_graph(g, "priority", "h100"))
    assert unfolded.total.kernels == 2 and unfolded.unfused_total.kernels == 7


def test_offline_ops_are_never_fused_with_per_call_ops():
    folded, _ = fold_batch_norms(sample("resnet_block"))
    r = check_group(folded, ["bn1.fold_bias", "bn1"], "h100")
    assert r.code == "offline" and "bn1.fold_bias" in r.message and "every call" in r.message
    assert check_group(folded, ["bn1.fold_mean_factor", "bn1.fold_bias"], "h100") is None


def test_primitive_batch_norm_of_jax_is_folded_and_evaluates_equal():
    g = hlo("resnet_block.before.hlo")
    folded, report = fold_batch_norms(g)
    assert [(f.conv, f.norm, f.form) for f in report.folded] == [
        ("conv_general_dilated.2", "add.15", "primitive"),
        ("conv_general_dilated.3", "add.20", "primitive")]
    # subtract mean, multiply rsqrt(var + eps), multiply scale, add offset
    assert report.folded[0].ops == ("sub.11", "mul.19", "mul.23", "add.15")
    assert folded.node("add.15").op == "bias_add"
    assert folded.node("conv_general_dilated.2").operands[1] == "add.15.fold_weights"
    # the variance's rsqrt only feeds the weight transform now: offline too
    assert folded.node("rsqrt.2").meta.get("offline")
    # the broadcasts of the vectors are gone
    assert "mul.18" not in folded and "mul.18" in report.removed
    with np.load(shared_hlo_dir() / "resnet_block.io.npz") as data:
        inputs = {k: data[k] for k in data.files if k.startswith("arg")}
        want = data["out0"]
    got = evaluate(folded, inputs)[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    plan = plan_graph(folded, "priority", "h100")
    per_call = [gr for gr in plan.groups if gr.role == "call"]
    assert len(per_call) == 2 and per_call[0].pattern == "conv+bias+relu"


def test_nothing_to_fold_says_why():
    g = sample("chain10")
    folded, report = fold_batch_norms(g)
    assert folded is g and report.folded == ()
    assert report.reason == "the graph has no convolution"
    g = sample("conv_bias_relu")
    _, report = fold_batch_norms(g)
    assert report.reason.startswith("no convolution is followed by a batch norm")


def test_batch_norm_whose_conv_result_is_also_used_is_skipped_with_a_reason():
    b = GraphBuilder("bn_shared")
    x = b.parameter("x", (1, 8, 8, 4))
    w = b.parameter("w", (3, 3, 4, 4))
    vec = [b.parameter(n, (4,)) for n in ("s", "o", "m", "v")]
    conv = b.op("conv2d", [x, w], node_id="conv", padding="SAME", strides=[1, 1])
    bn = b.op("batch_norm_inference", [conv] + vec, node_id="bn", epsilon=1e-3,
              feature_index=3)
    other = b.op("negate", [conv], node_id="other")
    g = b.build([bn, other])
    folded, report = fold_batch_norms(g)
    assert folded is g and report.folded == ()
    assert report.skipped == (("bn", "conv's unnormalised result is also read by other, which "
                                     "folding would change"),)


def test_plan_fold_bn_prints_what_was_folded_and_both_totals(capsys):
    assert main(["plan", "resnet_block", "--device", "h100", "--fold-bn"]) == 0
    out = capsys.readouterr().out
    assert "batch-norm folding (--fold-bn): folded 2 batch norms: bn1 into conv1, bn2 into " \
           "conv2" in out
    assert "offline: 16 ops compute the folded weights and biases in 4 kernels" in out
    assert "2 kernels per call (unfused: 7), 4 offline kernels" in out
    assert "without folding" in out and "per call: 2 kernels" in out
    assert main(["plan", "chain10", "--fold-bn"]) == 0
    assert "nothing folded: the graph has no convolution" in capsys.readouterr().out

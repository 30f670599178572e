"""Every decision's reason is checked against its own numbers (issue 11), on every sample
graph, every ../shared/hlo module, the small XLA cases of tests/planner/xla_cases, and the
corpus (corpus/manifest.json) when it is there; then the five false reasons of issue 11, each
on its own.

What "true" means here, claim by claim:

* a fusion taken never has a negative predicted saving;
* "saves X" prints the decision's ``benefit_s`` and it is positive; "saves nothing" only with a
  ``benefit_s`` of 0 or less; "would save X" (a rule that overrules the model) likewise;
* "costs X more" / "X more than running them one by one" prints ``-benefit_s``;
* "writes and re-reads N" prints ``bytes_saved``; ``benefit_s`` is ``time_unfused_s -
  time_fused_s``;
* a pattern's stated fused time is the cost model's breakdown of the group it formed, when that
  group is in the final plan unchanged;
* an xla-cpu ``expensive-reuse`` refusal states the evaluations its numbers hold, and says the
  kernel recomputes the producer only when it does (more evaluations than elements); a
  priority refusal blames recomputation through a broadcast only with a negative saving;
* "recompute" about a reduction only when it has several rows; the xla-cpu ``concatenate`` and
  ``tree-reduction`` reasons only where XLA:CPU's rules say so.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, SAMPLES_DIR
from tests.planner.planner_helpers import FIXED_CPU, HLO
from workbench.costmodel import get_device, plan_cost
from workbench.fmt import fmt_bytes, fmt_time
from workbench.importers import load_graph
from workbench.ir.index import graph_index
from workbench.planner import plan_graph
from workbench.planner.legality import ONE_ROW_MAX_ELEMENTS, _row_counts

CASES = Path(__file__).resolve().parent / "xla_cases"
#: a cpu profile with cache ceilings and a one-core contraction rate, as the probe writes them
CACHED_CPU = replace(FIXED_CPU, l2_bytes=1 << 20, l2_bandwidth_Bps=100e9, llc_bytes=32 << 20,
                     llc_bandwidth_Bps=80e9, core_flops=60e9, parallel_min_bytes=2 << 20,
                     transcendental_flops=35.0, launch_overhead_s=4e-7)
def _calibrated_cpu():
    from tests.costmodel.test_calibration import DEV

    return DEV


DEVICES = {"fixed-cpu": FIXED_CPU, "cached-cpu": CACHED_CPU, "calibrated-cpu": _calibrated_cpu(),
           "h100": "h100"}
POLICIES = ("priority", "xla-cpu", "greedy")
_TIME = r"(-?[0-9.]+ (?:[µnm]?s))"
#: named rules that fuse without weighing costs (the sentence must say so and give the cost)
RULES_OVER_COSTS = {"single-user"}     # the greedy policy, the textbook planner


def graph_files() -> list[Path]:
    """Every graph the property test plans (the corpus's when ``corpus/manifest.json``
    exists)."""
    files = sorted(SAMPLES_DIR.glob("*.json")) + sorted(HLO.glob("*.hlo")) + \
        sorted(CASES.glob("*.hlo"))
    manifest = REPO_ROOT / "corpus" / "manifest.json"
    if manifest.exists():
        doc = json.loads(manifest.read_text())
        for entry in doc.get("models", doc if isinstance(doc, list) else []):
            for key in ("before", "after_noynn", "after", "file", "path"):
                name = entry.get(key) if isinstance(entry, dict) else None
                if name and (manifest.parent / name).exists():
                    files.append(manifest.parent / name)
    return files


def problems(graph, plan, device) -> list[str]:
    """Every claim of the plan's decisions that its own numbers (or the graph) contradict."""
    out = []
    cost = plan_cost(graph, plan, device)
    final = {frozenset(g.nodes): cost.groups[g.id] for g in plan.groups}
    for d in plan.decisions:
        out += [f"step {d.step} ({d.reason}): {p} — {d.message}"
                for p in decision_problems(graph, d, final)]
    return out


def decision_problems(graph, d, final) -> list[str]:
    nums, msg, out = dict(d.numbers), d.message, []
    b = nums.get("benefit_s")
    if b is not None and "time_unfused_s" in nums and "time_fused_s" in nums:
        if abs(nums["time_unfused_s"] - nums["time_fused_s"] - b) > 1e-9 + 1e-5 * abs(b):
            out.append("benefit_s is not time_unfused_s - time_fused_s")
    if d.fused and d.action in ("fuse", "pattern", "sibling") and b is not None and b < -1e-12:
        if not (d.reason in RULES_OVER_COSTS and "without weighing costs" in msg
                and f"costs {fmt_time(-b)} more" in msg):
            out.append(f"taken with a negative predicted saving ({b:.3g} s)")
    for m in re.finditer(r"(?<!would )saves " + _TIME, msg):
        if b is None or b <= 0 or m.group(1) != fmt_time(b):
            out.append(f"says 'saves {m.group(1)}' with benefit_s {b}")
    for m in re.finditer(r"would save " + _TIME, msg):
        if b is None or b <= 0 or m.group(1) != fmt_time(b):
            out.append(f"says 'would save {m.group(1)}' with benefit_s {b}")
    if "saves nothing" in msg and (b is None or b > 0):
        out.append(f"says 'saves nothing' with benefit_s {b}")
    for m in re.finditer(_TIME + r" more (?:than it saves|than running them)", msg):
        if b is None or b >= 0 or m.group(1) != fmt_time(-b):
            out.append(f"says '{m.group(1)} more' with benefit_s {b}")
    for m in re.finditer(r"writes and re-reads ([0-9.]+ [KMG]?i?B)", msg):
        if "bytes_saved" in nums and m.group(1) != fmt_bytes(nums["bytes_saved"]):
            out.append(f"says 're-reads {m.group(1)}' with bytes_saved {nums['bytes_saved']}")
    if d.action == "pattern" and d.fused and d.members:
        c = final.get(frozenset(d.members[0]))
        t = nums.get("time_fused_s")
        if c is not None and t is not None and abs(c.predicted_s - t) > 1e-9 + 1e-4 * t:
            out.append(f"pattern's fused time {t} is not its breakdown's {c.predicted_s}")
    out += _structural_claims(graph, d)
    return out


def _structural_claims(graph, d) -> list[str]:
    ix, out = graph_index(graph), []
    if d.reason == "reduction-epilogue" and len(d.nodes) >= 2:
        rows, full = _row_counts(ix, ix.pos[d.nodes[1]])
        if rows <= 1 and full <= ONE_ROW_MAX_ELEMENTS:
            out.append("a one-row reduction was refused an epilogue")
        if rows <= 1 and "recompute" in d.message:
            out.append("claims a one-row reduction is recomputed")
    if d.reason == "tree-reduction":
        red = [n for n in graph.nodes if n.op == "reduce" and n.id in d.message]
        if not any(any(graph.node(r.operands[0]).type.shape[k] > 32
                       for k in r.attrs["dimensions"]) for r in red):
            out.append("tree-reduction named for a reduce XLA:CPU does not split")
    if d.reason == "concatenate":
        cats = [graph.node(n) for n in d.nodes if graph.node(n).op == "concatenate"]
        if not any(len(c.operands) > 8 or (c.type.rank > 1 and c.attrs.get("dimension") ==
                                           c.type.rank - 1 and c.type.shape[-1] >= 128)
                   for c in cats):
            out.append("concatenate rule named for a concatenate XLA:CPU fuses")
    if d.reason == "expensive-reuse" and "evaluations" in d.numbers:
        n, e = d.numbers["evaluations"], d.numbers["elements"]
        said = re.search(r"evaluate it (\d+) times|once per element \((\d+) times\)",
                         d.message)
        if said is None or int(said.group(1) or said.group(2)) != n:
            out.append(f"expensive-reuse states another count than its {n} evaluations")
        if ("indeed" in d.message) != (n > e):
            out.append("expensive-reuse says recomputed where the kernel hoists (or not)")
    if "through a broadcast the kernel would evaluate" in d.message and \
            d.numbers.get("benefit_s", 0) > 0:
        out.append("blames recomputation for a fusion that would pay")
    return out


@pytest.mark.parametrize("path", graph_files(), ids=lambda p: p.name)
def test_every_reason_agrees_with_its_numbers(path):
    graph = load_graph(path)
    found = []
    for dname, dev in DEVICES.items():
        for policy in POLICIES:
            plan = plan_graph(graph, policy, dev)
            found += [f"{policy}/{dname}: {p}" for p in problems(graph, plan, dev)]
    assert not found, "\n".join(found[:10])


# ----- the five false reasons of issue 11 -------------------------------------------------------

def test_a_pattern_the_model_says_loses_is_not_taken():
    """matmul+bias+gelu was taken with "saves -1.41 µs"."""
    g = load_graph(SAMPLES_DIR / "matmul_bias_gelu.json")
    slow = replace(CACHED_CPU, core_flops=5e9)   # one-core dots: the fused kernel loses
    plan = plan_graph(g, "priority", slow)
    (d,) = [d for d in plan.decisions if d.action == "pattern"]
    assert not d.fused and d.reason == "not-profitable"
    assert d.numbers["benefit_s"] < 0 and fmt_time(-d.numbers["benefit_s"]) in d.message
    assert not problems(g, plan, slow)
    fast = plan_graph(g, "priority", "h100")
    (d,) = [d for d in fast.decisions if d.action == "pattern"]
    assert d.fused and d.numbers["benefit_s"] > 0


def _tanh_with_two_users():
    from workbench.ir import GraphBuilder, verify

    b = GraphBuilder("tanh_two_users")
    x = b.parameter("x", (256, 512))
    t = b.op("tanh", [x], node_id="t")
    return verify(b.build([t, b.op("add", [t, x], node_id="a"),
                           b.op("multiply", [t, x], node_id="m")]))


def test_a_graph_output_kept_apart_says_what_the_model_predicts():
    """A multi-user tanh kept apart "because copying it into its consumers saves nothing"
    while the model said merging saves 512 KiB and 0.6 µs."""
    g = _tanh_with_two_users()
    for dev in (CACHED_CPU, "h100"):
        plan = plan_graph(g, "priority", dev)
        (d,) = [d for d in plan.decisions if d.reason == "graph-output"]
        b = d.numbers["benefit_s"]
        assert "saves nothing" not in d.message
        if b > 0:
            assert f"would save {fmt_time(b)}, but this rule keeps them apart" in d.message
        else:
            assert f"fusing would cost {fmt_time(-b)} more" in d.message
        assert not problems(g, plan, get_device(dev))
    # on the H100 profile the model favours copying (a transcendental is cheap there)
    d = [d for d in plan_graph(g, "priority", "h100").decisions if d.reason == "graph-output"]
    assert d[0].numbers["benefit_s"] > 0


@pytest.mark.parametrize("case", ["softmax_vector", "softmax_3x1x1"])
def test_a_one_row_softmax_is_one_kernel(case):
    """A softmax over one row was refused: "would recompute the reduction for each of its
    elements"."""
    g = load_graph(CASES / f"{case}.before.hlo")
    plan = plan_graph(g, "priority", CACHED_CPU)
    assert len([x for x in plan.groups if x.role == "call"]) == 1
    assert not any("recompute the reduction" in d.message for d in plan.decisions)


def test_sum_cos_33_models_xla_cpus_tree_reduction():
    """XLA:CPU makes three kernels of sum(cos(x)) on f32[33]; the xla-cpu policy made one and
    compare-xla reported F1 1.000 on 0 vs 0 pairs."""
    from workbench.planner.compare import compare_with_xla

    before = load_graph(CASES / "sum_cos_33.before.hlo")
    plan = plan_graph(before, "xla-cpu")
    assert len(plan.groups) == 2                  # cos; the reduce standing for XLA's two
    (d,) = [d for d in plan.decisions if d.reason == "tree-reduction"]
    assert "reduce-window of 32-element windows" in d.message
    after = load_graph(CASES / "sum_cos_33.after_noynn.hlo")
    ag = compare_with_xla(after, plan_graph(after, "xla-cpu"))
    assert (ag.plan_pairs, ag.xla_pairs) == (0, 0)
    assert ag.f1 is None and ag.precision is None and ag.recall is None
    assert "F1 not defined" in ag.score_text()
    assert [f.name for f in ag.fusions] == ["wrapped_cosine", "wrapped_reduce-window",
                                            "wrapped_reduce"]
    assert ag.same == 3


@pytest.mark.parametrize("case,fused", [("split_add_concat_major", True),
                                        ("split_add_concat_minor64", True),
                                        ("split_add_concat_minor128", False)])
def test_xla_cpus_concatenate_rule(case, fused):
    """split -> add -> concatenate: xla-cpu refused fusing into the concatenate "because a
    plain copy is faster" where XLA's own module fuses it."""
    from workbench.planner.compare import compare_with_xla

    after = load_graph(CASES / f"{case}.after_noynn.hlo")
    plan = plan_graph(after, "xla-cpu")
    ag = compare_with_xla(after, plan)
    assert ag.f1 == 1.0 and ag.same == len(ag.fusions)
    cat = next(n.id for n in after.nodes if n.op == "concatenate")
    assert (len(plan.groups_of(cat)[0].nodes) > 1) == fused
    before = load_graph(CASES / f"{case}.before.hlo")
    bplan = plan_graph(before, "xla-cpu")
    cat = next(n.id for n in before.nodes if n.op == "concatenate")
    assert (len(bplan.groups_of(cat)[0].nodes) > 1) == fused
    assert not any("plain copy" in d.message for d in bplan.decisions)

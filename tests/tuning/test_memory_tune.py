"""Plan memory and recomputation; measured autotuning."""

import pytest

from tests.conftest import SAMPLES_DIR
from workbench.planner.legality import check_group
from workbench.codegen import compile_plan
from workbench.importers import load_graph
from workbench.planner import make_plan, plan_graph, unfused_plan
from workbench.tuning.executors import LocalExecutor
from workbench.tuning.memory import plan_memory
from workbench.tuning.store import ResultsStore
from workbench.tuning.tune import tune
from workbench.tuning.variants import variants


@pytest.mark.parametrize("name", ["chain10", "softmax", "mlp", "multi_consumer"])
def test_plan_memory_is_the_compiled_plans_liveness(name):
    g = load_graph(SAMPLES_DIR / f"{name}.json")
    for plan in (plan_graph(g), unfused_plan(g)):
        compiled = compile_plan(g, plan, "cpu")
        scratch = sum(k.scratch_bytes for k in compiled.call)
        mem = plan_memory(g, plan)
        if scratch == 0:
            assert mem.peak_bytes == compiled.peak_bytes
        assert mem.peak_bytes <= compiled.peak_bytes


def test_recomputation_of_a_duplicated_producer():
    g = load_graph(SAMPLES_DIR / "multi_consumer.json")
    plan = make_plan(g, [{"producer", "consumer_square"}, {"producer", "consumer_sub"},
                         {"producer", "broadcast.2", "consumer_relu"}], policy="edited")
    mem = plan_memory(g, plan)
    producer = g.node("producer")
    assert mem.duplicated == (("producer", 3),)
    assert mem.recomputed_bytes == 2 * producer.type.nbytes
    assert mem.recomputed_flops == 2 * producer.type.size        # one add per element
    assert plan_memory(g, unfused_plan(g)).recomputed_bytes == 0


def test_variants_are_legal_distinct_and_ordered():
    g = load_graph(SAMPLES_DIR / "transformer_block.json")
    p = plan_graph(g)
    vs = variants(g, p)
    assert len(vs) >= 10 and len({v.plan.fingerprint for v in vs}) == len(vs)
    assert p.fingerprint not in {v.plan.fingerprint for v in vs}
    assert [v.predicted_s for v in vs] == sorted(v.predicted_s for v in vs)
    assert {"split", "peel"} <= {v.kind for v in vs}
    assert all(v.plan.decisions[-1].action == "tune" for v in vs)
    # the sample's plan is maximal (every merge is illegal); after a peel, merging back is
    # one of the variants, and gives back the plan
    peeled = next(v for v in vs if v.kind == "peel")
    back = [v for v in variants(g, peeled.plan) if v.kind in ("merge", "flip")]
    assert p.fingerprint in {v.plan.fingerprint for v in back}
    assert all(check_group(g, grp.nodes, "cpu") is None
               for v in back for grp in v.plan.groups)


def test_tune_twice_reuses_every_measurement(tmp_path):
    g = load_graph(SAMPLES_DIR / "chain10.json")
    store = ResultsStore(tmp_path / "r.sqlite")
    with LocalExecutor() as ex:
        first = tune(g, ex, store, budget=3, repeat=3)
        second = tune(g, ex, store, budget=3, repeat=3)
    assert first.start_status == "ok" and len(first.trials) == 3
    assert (first.fresh, first.reused) == (4, 0)
    assert (second.fresh, second.reused) == (0, 4)
    assert [t.measured_s for t in second.trials] == [t.measured_s for t in first.trials]
    assert second.best.fingerprint == first.best.fingerprint
    # chain10 is one kernel: splitting it must measure slower (14 kernels, 10x the traffic).
    # Its three variants (two peels, the split) are tried in turn unless one is kept first: on
    # a busy machine a peel can measure faster by more than the margin, and the next variants
    # are then of the kept plan (no split of the 14 ops among them)
    split = next((t for t in first.trials if t.kind == "split"), None)
    if split is None:
        kept = [t for t in first.trials if t.kept]
        assert kept and kept[0].measured_gain_s > first.min_gain * kept[0].base_measured_s
    else:
        assert split.measured_gain_s < 0 and split.predicted_gain_s < 0 and not split.kept


def test_tune_whose_kernel_crashes_or_hangs_stores_nothing(tmp_path):
    g = load_graph(SAMPLES_DIR / "chain10.json")
    store = ResultsStore(tmp_path / "r.sqlite")
    with LocalExecutor() as ex:
        crashed = tune(g, ex, store, budget=2, task="tests.tuning.faulty:crash")
        hung = tune(g, ex, store, budget=2, timeout_s=0.5, task="tests.tuning.faulty:hang")
    assert crashed.start_status == "crash" and "SIGSEGV" in crashed.start_message
    assert hung.start_status == "timeout" and "timed out after 0.5 s" in hung.start_message
    assert crashed.trials == () and not crashed.improved and store.count() == 0


def test_tune_text_counts_what_the_margin_counts_and_names_the_rest():
    from types import SimpleNamespace

    from workbench.cli.tune_text import tune_text
    from workbench.tuning.tune import Trial, TuneResult

    base = 100e-6
    # step 1: predicted faster, measured 10 µs slower (beyond the 3% margin): wrong
    # step 2: predicted 241 ns slower, measured 2.02 µs faster (within 3 µs): not counted
    # step 3: predicted and measured faster: right
    trials = (Trial(1, "merge", "a", "f1", "f0", 90e-6, base, base + 10e-6, base, True),
              Trial(2, "split", "b", "f2", "f0", base + 241e-9, base, base - 2.02e-6, base, True),
              Trial(3, "split", "c", "f3", "f0", 95e-6, base, 90e-6, base, True))
    start = SimpleNamespace(fingerprint="f0" * 8)
    r = TuneResult("g", start, start, base, base, base, base, trials, 3, 0, 0.03, "local",
                   "cpu", "cpu", 1.0)
    assert [t.step for t in r.misranked] == [1]
    text = tune_text(r)
    assert ("the cost model's ranking was wrong for 1 variant (steps 1): predicted faster, "
            "measured slower by more than 3% of the base, or the reverse") in text
    assert ("1 more variant (steps 2) measured the other way than predicted, by less than 3% "
            "of the base: within the noise margin, not counted as wrong") in text

"""The calibrated CPU cost of the native kernels (while, conditional, sort, topk, scatter,
select-and-scatter) and of reduce-window taps and indexed loads, on the corpus's modules and a
hand-made calibration."""

from __future__ import annotations

import pytest

from tests.conftest import REPO_ROOT
from tests.costmodel.test_calibration import CAL
from tests.planner.planner_helpers import FIXED_CPU
from workbench.costmodel import op_cost
from workbench.costmodel.calibration import Calibration, window_factor, window_taps
from workbench.costmodel.devices import with_calibration
from workbench.costmodel.native import (DEFAULTS, _trips, computation_kernels, constants,
                                        trip_count)
from workbench.importers import load_graph
from workbench.ir.index import graph_index

DEV = with_calibration(FIXED_CPU, dict(CAL))
CORPUS = REPO_ROOT / "corpus"


def _graph(name):
    return load_graph(CORPUS / f"{name}.before.hlo")


def _node(g, op):
    return next(n for n in g.topo_nodes() if n.op == op)


@pytest.mark.parametrize("name, trips, how", [
    ("power_iteration", 10, "from the condition"),
    ("gru_scan", 6, "from the condition"),
    ("dropout_dense", 5, "from the condition"),
    # (|x^2 - a| > tol) and (i < 50): XLA's upper bound
    ("newton_while", 50, "upper bound from the condition"),
])
def test_the_trip_count_follows_xlas_induction_variable_pattern(name, trips, how):
    g = _graph(name)
    assert trip_count(g, _node(g, "while").id) == (trips, how)


def test_trip_arithmetic_for_each_direction():
    assert _trips("LT", 0, 1, 10) == 10
    assert _trips("LE", 0, 2, 10) == 6
    assert _trips("GT", 10, -3, 0) == 4
    assert _trips("GE", 10, -1, 0) == 11
    assert _trips("NE", 0, 2, 8) == 4
    assert _trips("NE", 0, 3, 8) is None         # never equal: no count
    assert _trips("LT", 5, 1, 0) == 0
    assert _trips("LT", 0, -1, 10) is None       # does not end


def test_a_while_costs_its_trips_of_condition_and_body():
    g = _graph("power_iteration")
    w = _node(g, "while")
    c = op_cost(g, w.id, DEV)
    (klass,) = [k for k in c.terms if k.startswith("while")]
    assert klass == "while: 10 trips (from the condition)"
    assert c.dominant == "control (while: 10 trips (from the condition))"
    # ten trips cost about ten times one: the condition and body are at least 10 launches each
    assert c.terms[klass] > 20 * Calibration.from_json(CAL).launch_s


def test_an_unknown_trip_count_is_said(monkeypatch):
    import workbench.costmodel.native as native

    g = _graph("power_iteration")
    w = _node(g, "while")
    monkeypatch.setattr(native, "_step", lambda body, k: None)
    assert trip_count(g, w.id) == (None, "trip count unknown, 1 assumed")


def test_a_loop_bodys_kernels_are_approximated_by_loop_and_input_fusion():
    g = _graph("newton_while")
    w = _node(g, "while")
    # the body: the f32 update (divide, add, multiply) and the s32 counter: two kernels, as the
    # backend's priority plan makes them; the condition is one (its compares fuse into the and)
    assert len(computation_kernels(graph_index(w.attrs["body"]))) == 2
    assert len(computation_kernels(graph_index(w.attrs["condition"]))) <= 2


@pytest.mark.parametrize("name, op, word", [
    ("sort_argsort", "sort", "sort (sort: n log2 n comparisons)"),
    ("topk_softmax", "topk", "sort (topk)"),
    ("scatter_combiners", "scatter", "indexing (scatter: per update)"),
    ("maxpool_grad", "select-and-scatter", "indexing (select-and-scatter: per window tap)"),
    ("cond_branch", "conditional", "control (conditional: mean of 2 branches)"),
])
def test_native_ops_are_priced_beyond_a_launch(name, op, word):
    g = _graph(name)
    c = op_cost(g, _node(g, op).id, DEV)
    native = [k for k in c.terms if k.split(":")[0] == op]
    assert native and c.terms[native[0]] > 0
    if c.dominant.startswith(word.split(" ")[0]):
        assert c.dominant == word


def test_a_calibration_without_native_constants_uses_the_defaults():
    cal = Calibration.from_json(CAL)
    assert cal.native == {}
    assert constants(cal) == DEFAULTS
    cal2 = Calibration.from_json(dict(CAL, native={"topk_element_s": 1e-9}))
    assert constants(cal2)["topk_element_s"] == 1e-9
    assert constants(cal2)["sort_compare_s"] == DEFAULTS["sort_compare_s"]


def test_a_reduce_window_is_charged_its_taps():
    g = _graph("cumulative")
    ix = graph_index(g)
    rws = [i for i in range(len(ix)) if ix.ops[i] == "reduce-window"]
    assert rws
    for i in rws:
        # f32[2,16] cumulative windows of 16 over 15 of padding: 32 x 16 taps
        assert window_taps(ix, i) == 512
        assert window_factor(ix, i) >= 3.0          # padded: a bounds test and select per tap


def test_a_miss_is_told_in_the_native_kernels_own_unit():
    from workbench.costmodel.text import miss_text

    g = _graph("sort_argsort")
    c = op_cost(g, _node(g, "sort").id, DEV)
    # [2, 17] along the rows: 2 x 17 x ceil(log2 17) comparisons
    assert c.term_units[c.dominant_key] == (170, "comparison")
    assert "per comparison (170 comparisons" in miss_text(c, 10 * c.predicted_s)
    g = _graph("power_iteration")
    c = op_cost(g, _node(g, "while").id, DEV)
    assert "per trip (10 trips" in miss_text(c, 10 * c.predicted_s)


@pytest.mark.parametrize("name, trips", [("power_iteration", 10), ("gru_scan", 6),
                                         ("dropout_dense", 5)])
def test_xlas_known_trip_count_is_taken_when_the_module_has_it(name, trips):
    g = load_graph(CORPUS / f"{name}.after_noynn.hlo")
    w = _node(g, "while")
    assert trip_count(g, w.id) == (trips, "known_trip_count")


def test_a_loop_in_a_loop_body_costs_its_trips_times_the_inner_loops():
    from tests.codegen.test_cpu_while import NESTED
    from workbench.importers.hlo import parse_hlo

    g = parse_hlo(NESTED, "nested.hlo")
    w = _node(g, "while")
    assert trip_count(g, w.id) == (2, "from the condition")
    inner = _node(w.attrs["body"], "while")
    assert trip_count(w.attrs["body"], inner.id) == (3, "from the condition")
    c = op_cost(g, w.id, DEV)
    outer = c.terms["while: 2 trips (from the condition)"]
    ib = op_cost(w.attrs["body"], inner.id, DEV)
    # two trips, each at least the inner loop's three
    assert outer > 2 * ib.terms["while: 3 trips (from the condition)"]


def test_the_core_flops_knob_scales_the_native_kernels():
    from dataclasses import replace

    from workbench.costmodel.knobs import apply_knobs

    dev = with_calibration(replace(FIXED_CPU, core_flops=50e9), dict(CAL))
    g = _graph("sort_argsort")
    sid = _node(g, "sort").id
    base = op_cost(g, sid, dev)
    fast = op_cost(g, sid, apply_knobs(dev, {"core_flops": 100e9}))
    key = "sort: n log2 n comparisons"
    assert fast.terms[key] == pytest.approx(base.terms[key] / 2)

"""Number formats and sentences of the planner's text."""

import pytest

from tests.planner.planner_helpers import hlo
from workbench.planner import plan_graph
from workbench.fmt import fmt_bytes, fmt_count, fmt_rate, fmt_time, plural


@pytest.mark.parametrize("n, text", [
    (0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"),
    (1024 ** 2 - 10, "1.0 MiB"), (3725.3 * 1024 ** 3, "3.6 TiB"), (3 * 1024 ** 5, "3.0 PiB")])
def test_bytes(n, text):
    assert fmt_bytes(n) == text


@pytest.mark.parametrize("n, text", [
    (0, "0"), (999, "999"), (1000, "1k"), (1.234e6, "1.23M"), (999.96e9, "1T"), (1e12, "1T"),
    (2.5e16, "25P")])
def test_counts_never_print_exponents(n, text):
    assert fmt_count(n) == text


@pytest.mark.parametrize("s, text", [
    (0, "0 s"), (2.07e-6, "2.07 µs"), (999.96e-6, "1 ms"), (1.5, "1.5 s"), (4200, "4200 s"),
    (-1.5e-6, "-1.5 µs")])
def test_times(s, text):
    assert fmt_time(s) == text


def test_rates_and_plurals():
    assert fmt_rate(3.35e12, "B/s") == "3.35 TB/s" and fmt_rate(67e12, "FLOP/s") == "67 TFLOP/s"
    assert plural(1, "kernel") == "1 kernel" and plural(2, "kernel") == "2 kernels"


def test_xla_cpu_log_names_the_kernel_as_it_was_before_the_step():
    plan = plan_graph(hlo("softmax.after_noynn.hlo"), "xla-cpu", "cpu")
    msgs = [d.message for d in plan.decisions if d.fused]
    # the first fusion into a lone op names the op, not a "2-op fusion"
    assert msgs[0] == ("fused broadcast.3 (broadcast) into multiply.1 (multiply), which makes it "
                       "a loop fusion of 2 ops: broadcast.3's result is no longer written to "
                       "memory")
    # a kernel holding a reduce is an input fusion, as the plan's kernel header says
    reduce_step = [m for m in msgs if m.startswith("fused broadcast.4")][0]
    assert "into the input fusion of 2 ops rooted at divide.1" in reduce_step
    assert "makes it an input fusion of 3 ops" in reduce_step
    assert plan.group_of("divide.1").kind == "input"

"""The cost model's numbers for small groups, computed by hand."""

import json

import pytest

from workbench.errors import InputError
from workbench.ir import GraphBuilder
from workbench.planner import get_device, group_cost, make_plan, op_cost, plan_cost
from workbench.planner.cost_model import (CostBreakdown, combine_times, estimate,
                                          registers_and_occupancy)
from workbench.planner.devices import GPU_PROFILES, cpu_profile, probe_cpu

H100 = GPU_PROFILES["h100"]


def small(n=1024):
    """e = exp((x + y) * 2): an add, a broadcast of the scalar 2.0, a multiply, an exp."""
    b = GraphBuilder("small")
    x = b.parameter("x", (n,))
    y = b.parameter("y", (n,))
    a = b.op("add", [x, y], node_id="a")
    two = b.splat(2.0, (n,))
    m = b.op("multiply", [a, two], node_id="m")
    e = b.op("exponential", [m], node_id="e")
    return b.build([e]), two


def test_group_bytes_flops_and_time_by_hand():
    g, two = small()
    c = group_cost(g, ["a", two, "m", "e"], "h100")
    # Reads x and y once (4 KiB each); the constant 2.0 is an immediate; the broadcast is
    # computed in the kernel. Writes only e, the graph output.
    assert (c.bytes_read, c.bytes_written) == (8192, 4096)
    # add and multiply: one FLOP per element; broadcast: none; exp: one transcendental each.
    assert (c.flops, c.transcendentals) == (2048, 1024)
    compute = (2048 + 8 * 1024) / 67e12          # H100: a transcendental = 8 FLOP
    memory = 12288 / 3.35e12
    assert c.compute_s == pytest.approx(compute)
    assert c.memory_s == pytest.approx(memory)
    assert c.predicted_s == pytest.approx(compute + memory - 0.95 * min(compute, memory) + 1e-6)
    assert c.arithmetic_intensity == pytest.approx(2048 / 12288)
    assert c.bound == "launch"                   # 1 us launch > 3.7 ns of memory traffic


def test_registers_of_the_small_group():
    g, two = small()
    c = group_cost(g, ["a", two, "m", "e"], "h100")
    # x, y and a are live together (3); then a, the broadcast and m (3): peak 3 values,
    # plus 16 base registers; 19 registers allow full occupancy on an H100.
    assert c.live_values == 3
    assert c.registers_per_thread == 19
    assert c.occupancy == 1.0


def test_occupancy_rules():
    # 60 live + 16 = 76 registers -> 2560 per warp (10 units of 256) -> 25 warps fit in 64K
    # registers -> 6 blocks of 4 warps -> 24 of 64 warp slots.
    assert registers_and_occupancy(60, H100) == (76, 24 / 64)
    assert registers_and_occupancy(3, get_device("cpu")) == (None, None)


def test_cpu_profile_numbers_and_no_registers(fixed_cpu_profile):
    g, two = small()
    c = group_cost(g, ["a", two, "m", "e"], "cpu")
    compute = (2048 + 10 * 1024) / 100e9
    memory = 12288 / 20e9
    assert c.predicted_s == pytest.approx(compute + memory - 0.95 * compute + 2e-6)
    assert c.registers_per_thread is None and c.occupancy is None


def test_unfused_ops_sum_and_plan_saving():
    g, two = small()
    # Unfused: add reads 8 KiB writes 4; broadcast reads nothing writes 4; multiply reads a and
    # the broadcast (8 KiB) writes 4; exp reads 4 writes 4: 36 KiB moved, four launches.
    ops = [op_cost(g, n, "h100") for n in ("a", two, "m", "e")]
    assert sum(o.bytes_total for o in ops) == 36864
    plan = make_plan(g, [["a", two, "m", "e"]], policy="test", device="h100")
    pc = plan_cost(g, plan)
    assert pc.unfused_total.kernels == 4 and pc.total.kernels == 1
    assert pc.unfused_total.bytes_total == 36864
    assert pc.saving_s == pytest.approx(sum(o.predicted_s for o in ops) - pc.total.predicted_s)
    assert pc.saving_s > 3e-6                    # three launches saved
    json.dumps(pc.to_json())


def test_memory_and_compute_bound():
    g, two = small(1 << 20)
    c = group_cost(g, ["a", two, "m", "e"], "h100")
    assert c.bound == "memory"                   # 12 MiB at 3.35 TB/s = 3.8 us > 1 us launch
    assert estimate(10 ** 9, 0, 1000, 0, 1, H100).bound == "compute"


def test_combine_times_is_xla_formula():
    assert combine_times(2.0, 1.0) == pytest.approx(2.0 + 1.0 - 0.95 * 1.0)


def test_total_sums_breakdowns():
    a = estimate(100, 0, 400, 400, 2, H100)
    b = estimate(50, 10, 800, 0, 5, H100)
    t = CostBreakdown.total([a, b])
    assert (t.flops, t.transcendentals, t.bytes_total, t.kernels) == (150, 10, 1600, 2)
    assert t.predicted_s == pytest.approx(a.predicted_s + b.predicted_s)
    assert t.registers_per_thread == 21          # the larger of 18 and 21


def test_devices_by_name_and_errors():
    assert get_device("H100").bandwidth_Bps == 3.35e12
    assert get_device("h200").bandwidth_Bps == 4.8e12
    assert get_device("a100").peak_flops == 19.5e12
    assert get_device(H100) is H100
    with pytest.raises(InputError, match="unknown device 'tpu'"):
        get_device("tpu")


def test_cpu_probe_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path))
    first = cpu_profile()                        # probes and writes the cache
    assert (tmp_path / "cpu_profile.json").exists()
    assert first.bandwidth_Bps > 1e8 and first.peak_flops > 1e8
    assert cpu_profile() == first                # read back, not probed again


def test_probe_measures_positive_numbers():
    p = probe_cpu()
    assert p.kind == "cpu" and p.launch_overhead_s > 0 and p.max_registers_per_thread is None

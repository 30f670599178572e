"""The cost model's numbers for small groups, computed by hand."""

import json

import pytest

from workbench.errors import InputError
from workbench.ir import GraphBuilder
from workbench.costmodel import get_device, group_cost, op_cost, plan_cost
from workbench.planner import make_plan
from workbench.costmodel.model import (CostBreakdown, combine_times, estimate,
                                          registers_and_occupancy)
from workbench.costmodel.devices import GPU_PROFILES, DeviceProfile, cpu_profile, probe_cpu

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
    # XLA's ReadTime: the 8 KiB read fits in the L2 (x 2.5) and in 2 KiB of L1 on each of
    # the 132 SMs (x 8 more); the 4 KiB written goes at HBM bandwidth
    memory = 8192 / (3.35e12 * 2.5 * 8) + 4096 / 3.35e12
    assert c.compute_s == pytest.approx(compute)
    assert c.memory_s == pytest.approx(memory)
    assert c.predicted_s == pytest.approx(compute + memory - 0.95 * min(compute, memory) + 1e-6)
    # Intensity counts FLOP-equivalents (what compute time counts): 2048 + 8 * 1024 per 12 KiB.
    assert c.flop_equivalents == 2048 + 8 * 1024
    assert c.arithmetic_intensity == pytest.approx((2048 + 8 * 1024) / 12288)
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


def _fake_probes(monkeypatch, tmp_path, busy=False):
    from workbench.costmodel import devices

    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path))
    probes = []

    def fake_measure():
        probes.append(1)
        k = len(probes)
        return DeviceProfile("cpu", "cpu", 1e10 * k, 5e10 / k, None, None, None, 1e-6,
                             f"fake probe {k}", transcendental_flops=10.0), busy

    monkeypatch.setattr(devices, "measure_cpu", fake_measure)
    return probes


def test_cpu_probe_is_cached_and_refreshed(tmp_path, monkeypatch):
    probes = _fake_probes(monkeypatch, tmp_path)
    first = cpu_profile()                        # probes and writes the cache
    assert (tmp_path / "cpu_profile.json").exists() and first.source == "fake probe 1"
    assert cpu_profile() == first and len(probes) == 1   # read back, not probed again
    again = cpu_profile(refresh=True)            # `workbench devices --refresh`
    assert again.source == "fake probe 2" and again.bandwidth_Bps == 2e10
    assert cpu_profile() == again and len(probes) == 2


def test_a_profile_measured_on_a_busy_machine_is_measured_again_when_idle(tmp_path,
                                                                           monkeypatch):
    from workbench.costmodel import devices

    probes = _fake_probes(monkeypatch, tmp_path, busy=True)
    monkeypatch.setattr(devices, "machine_busy", lambda: False)
    first = cpu_profile()
    assert cpu_profile() == first and len(probes) == 1   # too soon to measure again
    monkeypatch.setattr(devices, "REPROBE_AFTER_S", 0)
    second = cpu_profile()
    assert len(probes) == 2
    # each number the better of the two probes: bandwidth from the second, peak from the first
    assert (second.bandwidth_Bps, second.peak_flops) == (2e10, 5e10)
    assert second.source == "fake probe 2; the better of two probes"
    monkeypatch.setattr(devices, "machine_busy", lambda: True)
    assert cpu_profile() == second and len(probes) == 2  # still busy: keep what we have


def test_probe_is_the_best_of_several_trials_after_a_warm_up():
    from workbench.costmodel.devices import _best_time

    calls = []
    best, trials = _best_time(lambda: calls.append(1), budget_s=0.0, min_trials=4)
    assert trials == 4 and len(calls) == 5       # one warm-up call, not timed
    assert 0 <= best < 0.01


def test_probe_measures_positive_numbers():
    # the probe's time budget is _best_time's (tested above); wall time is not asserted here:
    # on a loaded CI machine it is not the code's to keep
    p = probe_cpu()
    assert p.kind == "cpu" and p.launch_overhead_s > 0 and p.max_registers_per_thread is None
    assert p.bandwidth_Bps > 1e8 and p.peak_flops > 1e8
    assert "best of" in p.source


# ----- operand utilisation of slices (XLA's HloCostAnalysis::HandleSlice) ------------------------

def _qkv():
    from tests.planner.planner_helpers import sample

    return sample("transformer_block")


def test_a_slice_reads_only_its_box():
    g = _qkv()
    # qkv is f32[2, 64, 384] (192 KiB); k_slice is its middle third, f32[2, 64, 128] (64 KiB).
    assert op_cost(g, "k_slice", "h100").bytes_read == 2 * 64 * 128 * 4
    c = group_cost(g, ["k_slice", "k_heads", "k_t"], "h100")
    assert (c.bytes_read, c.bytes_written) == (65536, 65536)


def test_disjoint_slices_of_one_operand_read_their_union():
    g = _qkv()
    # q (columns 0..127) and v (256..383) are disjoint: the kernel reads two thirds of qkv.
    c = group_cost(g, ["q_slice", "q_heads", "q_t", "v_slice", "v_heads", "v_t"], "h100")
    assert c.bytes_read == 2 * 65536
    # all three read all of it, once
    c = group_cost(g, ["q_slice", "k_slice", "v_slice"], "h100")
    assert c.bytes_read == 3 * 65536


def test_overlapping_slices_read_the_union_and_a_full_reader_reads_everything():
    b = GraphBuilder("slices")
    x = b.parameter("x", (100, 10))                       # 4000 B
    s1 = b.op("slice", [x], node_id="s1", start_indices=[0, 0], limit_indices=[60, 10],
              strides=[1, 1])
    s2 = b.op("slice", [x], node_id="s2", start_indices=[40, 0], limit_indices=[100, 10],
              strides=[1, 1])
    s3 = b.op("slice", [x], node_id="s3", start_indices=[0, 0], limit_indices=[20, 5],
              strides=[1, 1])
    n = b.op("negate", [x], node_id="n")
    g = b.build([s1, s2, s3, n])
    # rows 0..59 and 40..99 overlap in 40..59: the union is all 100 rows
    assert group_cost(g, ["s1", "s2"], "h100").bytes_read == 4000
    # rows 0..59 with a 20x5 corner inside them: 600 elements
    assert group_cost(g, ["s1", "s3"], "h100").bytes_read == 2400
    # negate reads x whole; with it the slices add nothing
    assert group_cost(g, ["s3", "n"], "h100").bytes_read == 4000


def test_sibling_fusion_of_disjoint_slices_says_it_saves_a_launch_only():
    from workbench.planner import plan_graph

    plan = plan_graph(_qkv(), "priority", "h100")
    sib = [d for d in plan.decisions if d.action == "sibling" and d.fused]
    assert len(sib) == 1 and sib[0].nodes[0] == "qkv"
    assert "disjoint slices of qkv (64.0 KiB and 64.0 KiB)" in sib[0].message
    assert "saves a launch" in sib[0].message
    assert "192.0 KiB" not in sib[0].message


# ----- arithmetic intensity counts transcendentals ------------------------------------------------

def test_intensity_counts_transcendentals_so_it_agrees_with_the_bound():
    from tests.planner.planner_helpers import sample

    g = sample("sin_cos")
    c = group_cost(g, ["sin"], "cpu")
    # 65536 sines and no plain FLOPs, 512 KiB moved; at 10 FLOP per transcendental (the CPU
    # profile's rate) that is 655360 FLOP-eq, 1.25 FLOP-eq/B.
    assert c.flops == 0 and c.transcendentals == 65536
    assert c.flop_equivalents == 655360
    assert c.arithmetic_intensity == pytest.approx(655360 / 524288)
    # Fixed CPU: compute 655360 / 100e9 = 6.6 us < memory 524288 / 20e9 = 26.2 us. On a CPU
    # of 14 GFLOP/s and 29 GB/s (ridge point 0.48 FLOP/B) the same kernel is compute-bound, and
    # its intensity, 1.25, is above the ridge: the two agree.
    assert c.bound == "memory"
    slow = DeviceProfile("slow", "cpu", 29e9, 14e9, None, None, None, 3e-7, "test",
                         transcendental_flops=10.0)
    c = group_cost(g, ["sin"], slow)
    assert c.bound == "compute" and c.arithmetic_intensity > slow.peak_flops / slow.bandwidth_Bps


def test_a_small_contraction_on_a_cpu_profile_with_a_one_core_rate_is_charged_at_that_rate():
    """A dot or convolution writing under ``parallel_min_bytes`` runs on one core (the cpu
    backend runs a dot with a result under 64 KiB as one single-threaded BLAS call): its FLOPs
    at ``core_flops``. Other kernels, and larger contractions, at ``peak_flops``."""
    from dataclasses import replace

    from workbench.costmodel.model import kernel_time

    cpu = DeviceProfile("cpu", "cpu", 2e10, 2e11, None, None, None, 1e-6, "test",
                        transcendental_flops=10.0, core_flops=8e10, parallel_min_bytes=2 << 20)
    flops, trans, work = 10**8, 10**6, 1.1e8
    small_write, big_write = 1 << 20, 4 << 20
    one_core = estimate(flops, trans, 1 << 20, small_write, 4, cpu, contraction=True)
    assert one_core.compute_s == pytest.approx(work / 8e10)
    assert one_core.bound == "compute"
    every_core = estimate(flops, trans, 1 << 20, big_write, 4, cpu, contraction=True)
    assert every_core.compute_s == pytest.approx(work / 2e11)
    loop = estimate(flops, trans, 1 << 20, small_write, 4, cpu)         # no contraction
    assert loop.compute_s == pytest.approx(work / 2e11)
    assert kernel_time(flops, trans, 2 << 20, cpu, small_write, True) == pytest.approx(
        combine_times(work / 8e10, (2 << 20) / 2e10) + 1e-6)
    assert kernel_time(flops, trans, 2 << 20, cpu) == pytest.approx(
        combine_times(work / 2e11, (2 << 20) / 2e10) + 1e-6)
    without = replace(cpu, core_flops=None)
    assert estimate(flops, trans, 1 << 20, small_write, 4, without, True).compute_s == \
        pytest.approx(work / 2e11)
    assert H100.flop_rate(1, True) == H100.peak_flops                    # GPUs: no such rate


def test_group_and_op_costs_use_the_one_core_rate_for_a_small_dot():
    from dataclasses import replace

    b = GraphBuilder("dot")
    x = b.parameter("x", (64, 256))
    w = b.parameter("w", (256, 128))
    d = b.op("dot", [x, w], node_id="d", lhs_contracting_dims=[1], rhs_contracting_dims=[0])
    r = b.op("tanh", [d], node_id="r")
    g = b.build([r])
    cpu = DeviceProfile("cpu", "cpu", 2e10, 2e11, None, None, None, 1e-6, "test",
                        transcendental_flops=10.0, core_flops=5e10, parallel_min_bytes=2 << 20)
    dot_flops = 2 * 64 * 256 * 128
    assert g.node("d").type.shape == (64, 128)
    c = group_cost(g, ["d", "r"], cpu)
    assert c.compute_s == pytest.approx((c.flops + 10 * c.transcendentals) / 5e10)
    assert op_cost(g, "d", cpu).compute_s == pytest.approx(dot_flops / 5e10)
    assert op_cost(g, "r", cpu).compute_s == pytest.approx(10 * 64 * 128 / 2e11)  # a loop
    big = replace(cpu, parallel_min_bytes=1024)          # the dot's 32 KiB result: all cores
    assert op_cost(g, "d", big).compute_s == pytest.approx(dot_flops / 2e11)


def test_the_one_core_threshold_is_the_cpu_backends_blocking_threshold():
    from workbench.codegen.cpu_contraction import PARALLEL_MIN_BYTES as BLOCKED_MIN_BYTES
    from workbench.costmodel.devices import CPU_PARALLEL_MIN_BYTES

    assert CPU_PARALLEL_MIN_BYTES == BLOCKED_MIN_BYTES == 64 << 10

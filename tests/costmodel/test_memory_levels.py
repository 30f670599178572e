"""The cache-aware memory term: a kernel streams at the bandwidth of the smallest memory level
that holds the bytes it moves. Numbers computed by hand on a hand-made cpu profile."""

import json
import os
import platform
import time

import pytest

from workbench.cli import main
from workbench.ir import GraphBuilder
from workbench.costmodel import group_cost, op_cost, plan_cost
from workbench.planner import make_plan
from workbench.costmodel.model import CostBreakdown, estimate, kernel_time
from workbench.costmodel.cpu_probe import transcendental_flops
from workbench.costmodel.devices import GPU_PROFILES, DeviceProfile, cpu_profile, write_cpu_profile
from workbench.costmodel.text import breakdown_line, memory_ceilings

KiB, MiB = 1 << 10, 1 << 20

#: 20 GB/s DRAM, 100 GFLOP/s, 2 us launch; an L2 of 1 MiB at 100 GB/s, an LLC of 8 MiB at 50 GB/s
CACHED = DeviceProfile("cpu", "cpu", 20e9, 100e9, None, None, None, 2e-6, "hand-made",
                       transcendental_flops=10.0, l2_bytes=MiB, l2_bandwidth_Bps=100e9,
                       llc_bytes=8 * MiB, llc_bandwidth_Bps=50e9)


def add_mul(n):
    """m = (x + y) * 2 over n float32: the fused kernel reads x and y (8n bytes), writes m (4n),
    and does 2n FLOPs (the constant 2.0 is an immediate)."""
    b = GraphBuilder("add_mul")
    x = b.parameter("x", (n,))
    y = b.parameter("y", (n,))
    a = b.op("add", [x, y], node_id="a")
    two = b.splat(2.0, (n,))
    m = b.op("multiply", [a, two], node_id="m")
    return b.build([m]), ["a", two, "m"]


def test_levels_and_their_boundaries():
    assert CACHED.memory_levels() == [("l2", MiB, 100e9), ("llc", 8 * MiB, 50e9),
                                      ("dram", None, 20e9)]
    assert CACHED.memory_level(MiB) == ("l2", 100e9)          # fits exactly
    assert CACHED.memory_level(MiB + 1) == ("llc", 50e9)
    assert CACHED.memory_level(8 * MiB) == ("llc", 50e9)
    assert CACHED.memory_level(8 * MiB + 1) == ("dram", 20e9)
    h100 = GPU_PROFILES["h100"]                                # GPUs: one ceiling, HBM
    assert h100.memory_levels() == [("dram", None, 3.35e12)]
    assert h100.memory_level(1) == ("dram", 3.35e12)


def test_a_level_measured_slower_than_the_one_beyond_it_is_not_used_slower():
    from dataclasses import replace

    odd = replace(CACHED, llc_bandwidth_Bps=10e9)             # a disturbed probe: LLC < DRAM
    assert odd.memory_level(2 * MiB) == ("llc", 20e9)
    assert odd.memory_level(MiB) == ("l2", 100e9)


def test_a_small_group_streams_from_the_l2():
    g, members = add_mul(65536)                               # 768 KiB moved <= 1 MiB
    c = group_cost(g, members, CACHED)
    assert (c.bytes_read, c.bytes_written, c.flops) == (512 * KiB, 256 * KiB, 131072)
    memory = 786432 / 100e9                                   # 7.86432 us at the L2's 100 GB/s
    compute = 131072 / 100e9                                  # 1.31072 us
    assert c.memory_level == "l2" and c.bound == "memory"
    assert c.memory_s == pytest.approx(7.86432e-6)
    assert c.predicted_s == pytest.approx(memory + compute - 0.95 * compute + 2e-6)
    assert c.predicted_s == pytest.approx(9.929856e-6)
    # the DRAM-only model would say 786432 B / 20 GB/s = 39.3 us of memory traffic
    dram_only = DeviceProfile("cpu", "cpu", 20e9, 100e9, None, None, None, 2e-6, "dram only",
                              transcendental_flops=10.0)
    assert group_cost(g, members, dram_only).memory_s == pytest.approx(39.3216e-6)
    assert group_cost(g, members, dram_only).memory_level == "dram"


def test_a_middle_group_streams_from_the_llc_and_a_big_one_from_dram():
    g, members = add_mul(1 << 19)                             # 6 MiB moved: LLC
    c = group_cost(g, members, CACHED)
    assert c.memory_level == "llc"
    assert c.memory_s == pytest.approx(6291456 / 50e9)        # 125.8 us
    assert c.predicted_s == pytest.approx(125.82912e-6 + 0.05 * 10.48576e-6 + 2e-6)
    g, members = add_mul(1 << 20)                             # 12 MiB moved: DRAM
    c = group_cost(g, members, CACHED)
    assert c.memory_level == "dram"
    assert c.memory_s == pytest.approx(12582912 / 20e9)       # 629.1 us
    assert c.predicted_s == pytest.approx(629.1456e-6 + 0.05 * 20.97152e-6 + 2e-6)


def test_unfused_ops_each_use_their_own_level_and_totals_name_the_common_one():
    g, members = add_mul(1 << 17)                             # fused: 1.5 MiB moved, LLC
    plan = make_plan(g, [members], policy="test", device="cpu")
    pc = plan_cost(g, plan, CACHED)
    assert pc.groups["g0"].memory_level == "llc"
    # unfused: the add moves 1.5 MiB (LLC); the broadcast writes 512 KiB (L2); the multiply
    # reads a and the broadcast and writes m, 1.5 MiB (LLC)
    ops = [op_cost(g, n, CACHED) for n in members]
    assert [o.memory_level for o in ops] == ["llc", "l2", "llc"]
    assert pc.unfused_total.memory_level == "mixed"
    assert pc.total.memory_level == "llc"
    assert CostBreakdown.total([]).memory_level == "dram"
    assert json.loads(json.dumps(pc.to_json()))["groups"]["g0"]["memory_level"] == "llc"


def test_the_planner_times_kernels_as_the_cost_model_does():
    for nbytes in (4 * KiB, 3 * MiB, 64 * MiB):
        assert kernel_time(1000, 10, nbytes, CACHED) == pytest.approx(
            estimate(1000, 10, nbytes, 0, 1, CACHED).predicted_s)


def test_plan_text_names_the_memory_level_on_cpus_only():
    g, members = add_mul(1 << 19)
    c = group_cost(g, members, CACHED)
    assert breakdown_line(c, CACHED).endswith("-> 128 µs, memory-bound (LLC)")
    h = group_cost(*add_mul(1 << 22), "h100")               # 48 MiB on an H100: 15 us, memory
    assert breakdown_line(h, GPU_PROFILES["h100"]).endswith(", memory-bound")
    assert memory_ceilings(CACHED) == ("L2 (up to 1.0 MiB) 100 GB/s, LLC (up to 8.0 MiB) "
                                       "50 GB/s, DRAM 20 GB/s")
    assert memory_ceilings(GPU_PROFILES["h200"]) == "4.8 TB/s"


def test_plan_and_devices_commands_show_the_levels(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path))
    write_cpu_profile(CACHED, tmp_path)
    assert main(["plan", "chain10", "--explain"]) == 0       # kernels of 768 KiB: the L2
    out = capsys.readouterr().out
    assert "— memory-bound (L2) loop fusion" in out             # the decision log
    assert "cpu profile: L2 (up to 1.0 MiB) 100 GB/s, LLC (up to 8.0 MiB) 50 GB/s" in out
    # softmax is one kernel moving 2 MiB, in the LLC: 2 MiB / 50 GB/s = 41.94 us of memory,
    # (1,048,576 + 10 * 262,144) FLOP / 100 GFLOP/s = 36.70 us of compute, combined
    # 41.94 + 0.05 * 36.70 = 43.78 us, plus 2 us of launch
    assert main(["plan", "softmax"]) == 0
    assert "-> 45.8 µs, memory-bound (LLC)" in capsys.readouterr().out
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    assert "memory ceilings: L2 (up to 1.0 MiB) 100 GB/s, LLC (up to 8.0 MiB) 50 GB/s, " \
           "DRAM 20 GB/s" in out
    assert main(["devices", "--json"]) == 0
    cpu = json.loads(capsys.readouterr().out)["profiles"][0]
    assert (cpu["l2_bytes"], cpu["l2_bandwidth_Bps"], cpu["llc_bytes"],
            cpu["llc_bandwidth_Bps"]) == (MiB, 100e9, 8 * MiB, 50e9)


# ----- the probe's cache format -----------------------------------------------------------------

def _fake_measure(monkeypatch, tmp_path):
    from workbench.costmodel import devices

    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path))
    probes = []

    def fake():
        probes.append(1)
        return CACHED, False

    monkeypatch.setattr(devices, "measure_cpu", fake)
    return probes


def test_a_profile_cached_by_the_previous_probe_version_is_measured_again(tmp_path,
                                                                           monkeypatch):
    probes = _fake_measure(monkeypatch, tmp_path)
    old = {"name": "cpu", "kind": "cpu", "bandwidth_Bps": 26e9, "peak_flops": 2e11,
           "sm_count": None, "registers_per_sm": None, "max_registers_per_thread": None,
           "launch_overhead_s": 3e-7, "source": "version 2", "max_threads_per_sm": None,
           "transcendental_flops": 10.0}
    key = f"{platform.node()}|{platform.machine()}|{os.cpu_count()}|v2"
    path = tmp_path / "cpu_profile.json"
    path.write_text(json.dumps({"machine": key, "measured_at": time.time(), "busy": False,
                                "profile": old}))
    assert cpu_profile() == CACHED and len(probes) == 1       # not read as a DRAM-only profile
    doc = json.loads(path.read_text())
    assert doc["probe_version"] == 6 and doc["profile"]["llc_bytes"] == 8 * MiB
    assert cpu_profile() == CACHED and len(probes) == 1       # the new one is read back


def test_a_cache_file_without_a_probe_version_is_measured_again(tmp_path, monkeypatch):
    from workbench.costmodel.devices import _machine_key

    probes = _fake_measure(monkeypatch, tmp_path)
    doc = {"machine": _machine_key(), "measured_at": time.time(), "busy": False,
           "profile": CACHED.to_json()}
    (tmp_path / "cpu_profile.json").write_text(json.dumps(doc))
    cpu_profile()
    assert len(probes) == 1


def test_two_busy_probes_keep_the_better_cache_bandwidths():
    from dataclasses import replace

    from workbench.costmodel.devices import _better

    old = replace(CACHED, l2_bandwidth_Bps=120e9, llc_bandwidth_Bps=40e9)
    best = _better(old, CACHED)
    assert (best.l2_bandwidth_Bps, best.llc_bandwidth_Bps) == (120e9, 50e9)
    assert best.source == "hand-made; the better of two probes"
    assert _better(old, replace(CACHED, l2_bytes=None)).l2_bandwidth_Bps is None


# ----- cache sizes from the OS, working sets, the transcendental measurement -------------------

def _sysfs(root, caches):
    for k, (level, kind, size) in enumerate(caches):
        d = root / f"index{k}"
        d.mkdir(parents=True)
        (d / "level").write_text(f"{level}\n")
        (d / "type").write_text(f"{kind}\n")
        (d / "size").write_text(f"{size}\n")
    return root


def test_levels_are_found_where_bandwidth_drops():
    from workbench.costmodel.calibration import find_levels

    pts = [(32 * KiB, 90e9), (256 * KiB, 100e9), (MiB, 98e9), (4 * MiB, 60e9),
           (16 * MiB, 58e9), (64 * MiB, 20e9), (128 * MiB, 19e9)]
    levels = find_levels(pts)
    assert [lv["name"] for lv in levels] == ["L2", "LLC", "DRAM"]
    assert [lv["up_to"] for lv in levels] == [MiB, 16 * MiB, None]
    assert [lv["Bps"] for lv in levels] == [100e9, 60e9, 20e9]
    # a cache measured slower than DRAM (a disturbed probe, or sysfs's host L3 on a VM) never
    # makes the ceilings run backwards: each is at least the bandwidth of larger working sets
    noisy = find_levels([(MiB, 100e9), (8 * MiB, 15.9e9), (64 * MiB, 27.8e9), (256 * MiB, 27e9)])
    bws = [lv["Bps"] for lv in noisy]
    assert bws == sorted(bws, reverse=True) and bws[-1] == 27.8e9
    assert find_levels([(MiB, 30e9), (64 * MiB, 29e9)]) == [
        {"name": "DRAM", "up_to": None, "Bps": 30e9}]


def test_the_profile_fields_come_from_the_measured_levels():
    from workbench.costmodel.devices import levels_to_fields

    f = levels_to_fields([{"name": "L2", "up_to": MiB, "Bps": 1e11},
                          {"name": "LLC", "up_to": 16 * MiB, "Bps": 6e10},
                          {"name": "DRAM", "up_to": None, "Bps": 2e10}])
    assert (f["l2_bytes"], f["llc_bytes"], f["bandwidth_Bps"]) == (MiB, 16 * MiB, 2e10)
    one = levels_to_fields([{"name": "LLC", "up_to": 8 * MiB, "Bps": 5e10},
                            {"name": "DRAM", "up_to": None, "Bps": 2e10}])
    assert one["l2_bytes"] is None and one["llc_bytes"] == 8 * MiB


def test_transcendental_cost_from_the_timings():
    # exp 4 us and tanh 2 us against a multiply's 1 us over 16384 values: 2 us / 16384 extra per
    # value, at 100 GFLOP/s on one core = 12.2 FLOP
    assert transcendental_flops(4e-6, 2e-6, 1e-6, 1e11) == pytest.approx(2e-6 / 16384 * 1e11)
    assert transcendental_flops(1e-6, 1e-6, 2e-6, 1e11) is None


def test_the_probe_measures_each_cache_level():
    from workbench.costmodel import devices

    p, _ = devices.measure_cpu()
    # structure, not speed: levels found by the sweep, ordered, every ceiling positive (which
    # cache is where depends on the machine; on a busy one the sweep may find fewer levels)
    levels = p.memory_levels()
    assert levels[-1][0] == "dram" and all(bw > 1e8 for _, _, bw in levels)
    bws = [bw for _, _, bw in levels]
    assert bws == sorted(bws, reverse=True)
    assert "levels where their bandwidth drops" in p.source and "sysfs" not in p.source
    assert p.transcendental_flops > 0

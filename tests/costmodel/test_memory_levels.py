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
from workbench.costmodel.cpu_probe import (CacheSizes, read_cache_sizes, transcendental_flops,
                                         working_sets)
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
    assert doc["probe_version"] == 4 and doc["profile"]["llc_bytes"] == 8 * MiB
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


def test_cache_sizes_from_sysfs(tmp_path):
    root = _sysfs(tmp_path / "a", [(1, "Data", "32K"), (1, "Instruction", "32K"),
                                   (2, "Unified", "1024K"), (3, "Unified", "32768K")])
    assert read_cache_sizes(root) == CacheSizes(MiB, 32 * MiB, "sysfs")
    # a CPU whose last level is its L2: that cache is the LLC, and there is no separate L2
    root = _sysfs(tmp_path / "b", [(1, "Data", "48K"), (2, "Unified", "2M")])
    assert read_cache_sizes(root) == CacheSizes(None, 2 * MiB, "sysfs")


def test_cache_sizes_fall_back_to_sysconf_then_to_none(tmp_path, monkeypatch):
    sizes = {"SC_LEVEL2_CACHE_SIZE": 512 * KiB, "SC_LEVEL3_CACHE_SIZE": 16 * MiB,
             "SC_LEVEL4_CACHE_SIZE": 0}
    monkeypatch.setattr(os, "sysconf", lambda name: sizes[name])
    assert read_cache_sizes(tmp_path / "none") == CacheSizes(512 * KiB, 16 * MiB, "sysconf")

    def unknown(name):
        raise ValueError(name)

    monkeypatch.setattr(os, "sysconf", unknown)
    assert read_cache_sizes(tmp_path / "none") == CacheSizes(None, None, "cache sizes unknown")


def test_this_machines_cache_sizes_have_a_shape():
    sizes = read_cache_sizes()
    assert sizes.llc_bytes is None or sizes.llc_bytes > 0
    assert sizes.l2_bytes is None or 0 < sizes.l2_bytes < sizes.llc_bytes


def test_working_sets_fit_their_level():
    assert working_sets(CacheSizes(MiB, 32 * MiB, "t")) == {
        "l2": 512 * KiB, "llc": 8 * MiB, "dram": 128 * MiB}
    # a small LLC: a quarter of it (1 MiB) is raised to four L2s (1 MiB), at most half (2 MiB)
    assert working_sets(CacheSizes(256 * KiB, 4 * MiB, "t")) == {
        "l2": 128 * KiB, "llc": MiB, "dram": 128 * MiB}
    # a 96 MiB LLC: the DRAM copy's arrays are twice its size
    assert working_sets(CacheSizes(MiB, 96 * MiB, "t"))["dram"] == 384 * MiB
    assert working_sets(CacheSizes(None, None, "t")) == {"dram": 128 * MiB}


def test_transcendental_cost_from_the_timings():
    # exp 4 us and tanh 2 us against a multiply's 1 us over 16384 values: 2 us / 16384 extra per
    # value, at 100 GFLOP/s on one core = 12.2 FLOP
    assert transcendental_flops(4e-6, 2e-6, 1e-6, 1e11) == pytest.approx(2e-6 / 16384 * 1e11)
    assert transcendental_flops(1e-6, 1e-6, 2e-6, 1e11) is None


def test_the_probe_measures_each_cache_level(monkeypatch):
    from workbench.costmodel import devices

    monkeypatch.setattr(devices, "read_cache_sizes",
                        lambda: CacheSizes(256 * KiB, 4 * MiB, "a test"))
    p, _ = devices.measure_cpu()
    assert (p.l2_bytes, p.llc_bytes) == (256 * KiB, 4 * MiB)
    # structure, not speed: every ceiling measured and positive (a cache is not asserted to be
    # faster than DRAM: on a busy machine it may not measure so)
    assert [name for name, _, _ in p.memory_levels()] == ["l2", "llc", "dram"]
    assert all(bw > 1e8 for _, _, bw in p.memory_levels())
    assert p.transcendental_flops > 0
    assert "128.0 KiB copy for the L2" in p.source and "1.0 MiB copy for the LLC" in p.source
    assert "cache sizes from a test" in p.source

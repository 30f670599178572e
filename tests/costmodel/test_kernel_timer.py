"""kernel_timer(device) gives kernel_time's seconds bit for bit (the planner relies on it for
plans identical to those of kernel_time), on every kind of profile and in every regime."""

import random
from dataclasses import replace

import pytest

from tests.costmodel.test_calibration import DEV as CALIBRATED
from tests.planner.planner_helpers import FIXED_CPU
from workbench.costmodel.devices import get_device
from workbench.costmodel.model import kernel_time, kernel_timer

CACHED = replace(FIXED_CPU, l2_bytes=1 << 20, l2_bandwidth_Bps=100e9, llc_bytes=32 << 20,
                 llc_bandwidth_Bps=80e9, core_flops=60e9, parallel_min_bytes=2 << 20)
PROFILES = {"h100": "h100", "a100": "a100", "fixed-cpu": FIXED_CPU, "cached-cpu": CACHED,
            "calibrated-cpu": CALIBRATED, "overlap-0.5": replace(CACHED, overlap=0.5)}


def _kernels(rng, n=3000):
    traffic = [(1 << 20, 30), (64 << 20, 400)]
    for _ in range(n):
        nbytes = rng.choice([0, 1, 4096, 1 << 14, 1 << 20, 3 << 20, 1 << 26]) + rng.randrange(64)
        written = rng.choice([None, 0, nbytes // 2, nbytes, 4096])
        cal = (rng.random() * 1e-4, rng.choice([0.0, rng.random() * 1e-3]),
               rng.choice([0, 100, 1 << 20, 1 << 24]), rng.choice(traffic))
        yield (rng.choice([0, 10, 1e6, 3e9]), rng.choice([0, 5, 1e5]), nbytes, written,
               rng.random() < 0.3, rng.choice([None, cal]))


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_the_timer_equals_kernel_time_bit_for_bit(name):
    dev = get_device(PROFILES[name])
    timer = kernel_timer(dev)
    rng = random.Random(7)
    seen = set()
    for flops, trans, nbytes, written, dot, cal in _kernels(rng):
        want = kernel_time(flops, trans, nbytes, dev, written, dot, cal)
        got = timer(flops, trans, nbytes, written, dot, cal)
        assert got == want and got.hex() == want.hex(), (name, flops, trans, nbytes, written,
                                                         dot, cal, got, want)
        seen.add(round(want, 12))
    assert len(seen) > 100    # the kernels span many different times, not one regime


def test_the_gpu_timer_steps_through_the_l1_and_l2_speedups():
    dev = get_device("h100")
    timer = kernel_timer(dev)
    small, mid, big = 1 << 10, 8 << 20, 1 << 30      # in L1, in L2, in HBM only
    per_byte = [timer(0, 0, n, 0) - dev.launch_overhead_s for n in (small, mid, big)]
    rates = [n / t for n, t in zip((small, mid, big), per_byte)]
    assert rates[2] == pytest.approx(dev.bandwidth_Bps)
    assert rates[1] == pytest.approx(2.5 * dev.bandwidth_Bps)
    assert rates[0] == pytest.approx(20 * dev.bandwidth_Bps)


def test_the_calibrated_timer_interpolates_each_memory_and_launch_term_once(monkeypatch):
    """The planner asks for the same (bytes, traffic) many times: the calibrated timer computes
    cpu_time with the calibration's memory and launch terms remembered by argument."""
    from workbench.costmodel.calibration import Calibration

    calls = {"memory": [], "launch": []}
    real_memory, real_launch = Calibration.memory, Calibration.launch
    monkeypatch.setattr(Calibration, "memory",
                        lambda self, n, ctx=None: calls["memory"].append((n, ctx))
                        or real_memory(self, n, ctx))
    monkeypatch.setattr(Calibration, "launch",
                        lambda self, ctx: calls["launch"].append(ctx) or real_launch(self, ctx))
    dev = get_device(CALIBRATED)
    timer = kernel_timer(dev)
    rng = random.Random(11)
    asked = []
    for flops, trans, nbytes, written, dot, cal in _kernels(rng):
        if cal is None:
            continue
        asked.append((nbytes, cal[3]))
        assert timer(flops, trans, nbytes, written, dot, cal) == \
            kernel_time(flops, trans, nbytes, dev, written, dot, cal)
    n_direct = len(asked)          # kernel_time asks the calibration once per kernel
    timer_memory = len(calls["memory"]) - n_direct
    assert timer_memory == len(set(asked)) < n_direct / 2
    assert len(calls["launch"]) - n_direct == 2      # the two traffics of _kernels

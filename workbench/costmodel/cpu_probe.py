"""The pieces of the quick CPU probe (:func:`workbench.costmodel.devices.measure_cpu`): the
working sets its copies sweep, its timing loop, and the kernels it times.

Memory levels are *measured*: the probe copies working sets from 32 KiB to 128 MiB and the
levels are where the copy's bandwidth drops (:func:`~workbench.costmodel.calibration.find_levels`).
The cache sizes the operating system reports are not used: on a virtual machine sysfs shows the
host's caches (a 2-core VM reported its host's 504 MiB L3), and the cost model's ceilings then ran
backwards. The calibration of :mod:`workbench.profiler.calibrate` does the same sweep with the
workbench's own kernels.
"""

from __future__ import annotations

import os
import platform
import time

#: bytes moved (source plus destination) by the copies of the quick probe's bandwidth sweep
SWEEP_BYTES = tuple(32 << (10 + k) for k in range(13))       # 32 KiB ... 128 MiB
#: elements of the arrays the transcendental probe evaluates (64 KiB of float32: L2-resident)
TRANSCENDENTAL_ELEMENTS = 1 << 14


def load_average() -> float | None:
    """The 1-minute load average (runnable processes), or None where the OS has none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def machine_busy() -> bool:
    """Whether other processes keep (almost) every CPU busy: the 1-minute load average is at
    least the CPU count. A probe then measures too low."""
    load = load_average()
    return load is not None and load >= (os.cpu_count() or 1)


def best_time(fn, budget_s: float, min_trials: int = 3, max_trials: int = 200,
              warm_up: bool = True):
    """(best seconds of one call, trials run): ``fn`` once to warm up (page faults, BLAS
    threads, caches), then repeated until ``budget_s`` has passed (at least ``min_trials``).

    The best trial is the estimate: on a shared machine interference only ever slows a trial
    down, so the fastest is the closest to what the hardware sustains.
    """
    if warm_up:
        fn()
    best, trials = float("inf"), 0
    start = time.perf_counter()
    while trials < min_trials or (time.perf_counter() - start < budget_s
                                  and trials < max_trials):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
        trials += 1
    return best, trials


def copy_kernel(nbytes_moved: int):
    """(a call copying one float32 array into another, bytes it moves): ``nbytes_moved`` split
    into a source and a destination array (``np.copyto``, one thread)."""
    import numpy as np

    a = np.ones(max(nbytes_moved // 8, 1), dtype=np.float32)
    b = np.empty_like(a)
    return (lambda: np.copyto(b, a)), 2 * a.nbytes


def transcendental_kernels():
    """Calls of numpy's float32 ``exp``, ``tanh`` and ``multiply`` on
    :data:`TRANSCENDENTAL_ELEMENTS` values in [-3, 3] (one thread, in cache), keyed ``exp``,
    ``tanh``, ``mul``."""
    import numpy as np

    x = np.linspace(-3.0, 3.0, TRANSCENDENTAL_ELEMENTS, dtype=np.float32)
    out = np.empty_like(x)
    return {"exp": lambda: np.exp(x, out=out), "tanh": lambda: np.tanh(x, out=out),
            "mul": lambda: np.multiply(x, x, out=out)}


def transcendental_flops(t_exp: float, t_tanh: float, t_mul: float,
                         one_core_flops: float) -> float | None:
    """FLOP-equivalents of one transcendental on one core, from the probe's timings.

    ``(mean(t_exp, t_tanh) - t_mul) / n * one_core_flops``: the time an ``exp`` or ``tanh``
    takes beyond a multiply over the same ``n`` = :data:`TRANSCENDENTAL_ELEMENTS` values (which
    removes the loads, stores and the call), in FLOPs of a one-thread sgemm.

    numpy's float32 ``exp`` and ``tanh`` are vectorised polynomial approximations (SIMD loops
    on x86 and ARM), the same kind of code as the fused kernels' ``exp_f32``/``tanh_f32``
    (:mod:`workbench.codegen.fastmath`, which the cost model may not import); measured on the 2-core
    AMD EPYC (Zen 4) test machine, 16K elements: numpy 0.44/0.35 ns per exp/tanh, fastmath loops
    0.38/0.31 ns, a multiply 0.08 ns, so the proxy is about 15 % dear. Returns None when the
    difference is not positive (a disturbed measurement).
    """
    extra = ((t_exp + t_tanh) / 2 - t_mul) / TRANSCENDENTAL_ELEMENTS
    if not extra > 0 or not one_core_flops > 0:
        return None
    return extra * one_core_flops


def probe_source(best, levels, sweep_trials, trans, busy: bool, contended: bool) -> str:
    """The ``source`` text of a measured profile: what was timed, how often, the levels found
    (``levels``, :func:`~workbench.costmodel.calibration.find_levels`), and whether the machine
    was busy."""
    from workbench.fmt import fmt_bytes

    load = load_average()
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime())
    # the levels are not named here: the profile's line names them with their ceilings
    # (costmodel.text.memory_ceilings), as the profile keeps them (levels_to_fields)
    found = f"{len(levels)} found" if levels else "none found"
    trans_note = (f"; transcendental from numpy float32 exp/tanh vs multiply (best of "
                  f"{best['exp'][1]})" if trans else
                  "; transcendental = 10 FLOP (its measurement failed)")
    note = ""
    if busy:
        why = (f"load {load:.1f} on {os.cpu_count()} CPUs" if load is not None else "")
        if contended:
            why += ("; " if why else "") + "the multi-threaded sgemm was no faster than one thread"
        note = f"; the machine was busy ({why}), so these may be low"
    return (f"measured on {platform.node()} ({os.cpu_count()} CPUs) at {when}: numpy copies of "
            f"{fmt_bytes(SWEEP_BYTES[0])} to {fmt_bytes(SWEEP_BYTES[-1])} ({sweep_trials} "
            f"trials), memory levels where their bandwidth drops ({found}); the better of a "
            f"512^3 sgemm "
            f"(best of {best['peak'][1]}) and 64 one-thread 64^3 sgemms (best of "
            f"{best['peak1'][1]}), one-element ufunc call{trans_note}{note}")

"""The pieces of the CPU probe (:func:`workbench.costmodel.devices.measure_cpu`): this machine's
cache sizes, the working sets the probe copies, its timing loop, and the kernels it times.

Cache sizes come from the operating system, not from a measurement:

* Linux: ``/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}``, one directory per
  cache seen by CPU 0 (the kernel's ABI, Documentation/ABI/testing/sysfs-devices-system-cpu,
  "/sys/devices/system/cpu/cpuX/cache/indexY/"); instruction caches are skipped;
* elsewhere, or when that directory is missing: ``os.sysconf("SC_LEVEL2_CACHE_SIZE")`` and
  ``SC_LEVEL3_CACHE_SIZE`` / ``SC_LEVEL4_CACHE_SIZE`` (glibc's extensions to sysconf(3));
* otherwise the sizes are unknown and the cost model uses DRAM bandwidth for every kernel.

The *last-level cache* (LLC) is the highest level found (level 2 or more); the L2 is reported
apart only when a higher level exists (on a CPU whose last level is the L2, that cache is the
LLC). Sizes are what CPU 0 sees: its own L2, and the LLC it shares with other cores.
"""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path
from typing import NamedTuple

#: where Linux describes CPU 0's caches
SYSFS_CACHE_DIR = "/sys/devices/system/cpu/cpu0/cache"
#: each array of the DRAM copy: at least 64 MiB, and twice the LLC, so that the copy (two arrays)
#: moves at least four times what the LLC holds; at most 512 MiB
DRAM_ARRAY_MIN_BYTES = 64 << 20
DRAM_ARRAY_MAX_BYTES = 512 << 20
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


class CacheSizes(NamedTuple):
    """Cache sizes from the OS, bytes (``None`` when unknown), and where they came from."""

    l2_bytes: int | None
    llc_bytes: int | None
    source: str


def _parse_size(text: str) -> int:
    """``"32K"``, ``"1024K"``, ``"32M"`` or ``"512"`` (sysfs) as bytes."""
    text = text.strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    return int(text[:-1] if scale > 1 else text) * scale


def _levels_from_sysfs(root) -> dict[int, int]:
    levels: dict[int, int] = {}
    for d in sorted(Path(root).glob("index*")):
        try:
            kind = (d / "type").read_text().strip()
            level = int((d / "level").read_text())
            size = _parse_size((d / "size").read_text())
        except (OSError, ValueError):
            continue
        if kind != "Instruction" and size > 0:
            levels[level] = max(levels.get(level, 0), size)
    return levels


def _levels_from_sysconf() -> dict[int, int]:
    levels: dict[int, int] = {}
    for level in (2, 3, 4):
        try:
            size = os.sysconf(f"SC_LEVEL{level}_CACHE_SIZE")
        except (AttributeError, ValueError, OSError):
            continue
        if size and size > 0:
            levels[level] = int(size)
    return levels


def read_cache_sizes(root=SYSFS_CACHE_DIR) -> CacheSizes:
    """This machine's L2 and last-level cache sizes (see the module notes for the sources).

    Parameters
    ----------
    root : str or Path
        The sysfs directory of CPU 0's caches (tests pass a fake one).

    Returns
    -------
    CacheSizes
        ``l2_bytes`` only when a level above 2 exists; ``llc_bytes`` the highest level >= 2;
        both ``None`` when the OS says nothing.
    """
    levels, source = _levels_from_sysfs(root), "sysfs"
    if not any(k >= 2 for k in levels):
        levels, source = _levels_from_sysconf(), "sysconf"
    levels = {k: v for k, v in levels.items() if k >= 2}
    if not levels:
        return CacheSizes(None, None, "cache sizes unknown")
    last = max(levels)
    l2 = levels.get(2) if last > 2 else None
    return CacheSizes(l2, levels[last], source)


def working_sets(sizes: CacheSizes) -> dict[str, int]:
    """Bytes each probe copy moves through the cache (source plus destination array), per level.

    * ``l2``: half the L2, so both arrays stay in it beside the interpreter's own data;
    * ``llc``: a quarter of the LLC, but at least four times the L2 (so that it is not the L2
      that answers) and at most half the LLC;
    * ``dram``: two arrays of :data:`DRAM_ARRAY_MIN_BYTES` or more (see there).
    """
    out = {}
    if sizes.l2_bytes:
        out["l2"] = sizes.l2_bytes // 2
    if sizes.llc_bytes:
        out["llc"] = min(sizes.llc_bytes // 2, max(sizes.llc_bytes // 4,
                                                    4 * (sizes.l2_bytes or 0)))
    array = max(DRAM_ARRAY_MIN_BYTES, min(2 * (sizes.llc_bytes or 0), DRAM_ARRAY_MAX_BYTES))
    out["dram"] = 2 * array
    return out


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


def probe_source(best, sets, caches, trans, busy: bool, contended: bool) -> str:
    """The ``source`` text of a measured profile: what was timed (``sets``: bytes per level),
    how often (``best``: key -> (seconds, trials)), where the cache sizes came from, and
    whether the machine was busy."""
    from workbench.fmt import fmt_bytes

    load = load_average()
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime())
    levels = "".join(f", {fmt_bytes(sets[k])} copy for the {k.upper()} (best of {best[k][1]})"
                     for k in ("l2", "llc") if k in sets)
    cache_note = (f"; cache sizes from {caches.source}" if caches.llc_bytes else
                  "; cache sizes unknown, so DRAM bandwidth for every kernel")
    trans_note = (f"; transcendental from numpy float32 exp/tanh vs multiply (best of "
                  f"{best['exp'][1]})" if trans else
                  "; transcendental = 10 FLOP (its measurement failed)")
    note = ""
    if busy:
        why = (f"load {load:.1f} on {os.cpu_count()} CPUs" if load is not None else "")
        if contended:
            why += ("; " if why else "") + "the multi-threaded sgemm was no faster than one thread"
        note = f"; the machine was busy ({why}), so these may be low"
    return (f"measured on {platform.node()} ({os.cpu_count()} CPUs) at {when}: "
            f"{fmt_bytes(sets['dram'])} numpy copy for DRAM (best of {best['bandwidth'][1]})"
            f"{levels}, the better of a 512^3 sgemm (best of {best['peak'][1]}) and 64 "
            f"one-thread 64^3 sgemms (best of {best['peak1'][1]}), one-element ufunc call"
            f"{cache_note}{trans_note}{note}")

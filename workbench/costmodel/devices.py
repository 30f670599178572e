"""Device profiles for the cost model: the CPU this runs on (measured) and published GPUs.

A :class:`DeviceProfile` is data: memory bandwidth, FP32 peak, launch overhead, and for GPUs the
register file and thread limits that decide occupancy. GPU numbers are the vendors' published
figures (SXM parts, FP32 without tensor cores, which is what fused elementwise and reduction
kernels run on):

* H100 SXM5 80 GB: 3.35 TB/s HBM3, 67 TFLOP/s FP32, 132 SMs — *NVIDIA H100 Tensor Core GPU
  datasheet* (2023).
* H200 SXM 141 GB: 4.8 TB/s HBM3e, 67 TFLOP/s FP32, 132 SMs — *NVIDIA H200 Tensor Core GPU
  datasheet* (2024).
* A100 SXM4 80 GB: 2.039 TB/s HBM2e, 19.5 TFLOP/s FP32, 108 SMs — *NVIDIA A100 Tensor Core GPU
  datasheet* (2021).
* Per SM (compute capability 8.0 and 9.0): 65,536 32-bit registers, at most 255 per thread, at
  most 2,048 resident threads — *CUDA C++ Programming Guide*, "Technical Specifications per
  Compute Capability".
* Launch overhead 1 µs: XLA's ``kKernelLaunchOverhead``
  (xla/service/gpu/model/gpu_performance_model_base.h).
* Transcendentals in FLOP-equivalents: the guide's "Arithmetic Instructions" throughput table
  gives, per SM per clock, 128 FP32 add/multiply/FMA results on cc 9.0 (64 on cc 8.0) against 16
  special-function (exp2, log2, rsqrt, sin, cos) results: one transcendental costs 8 FLOPs on
  Hopper and 4 on Ampere.

The ``cpu`` profile is measured by :func:`measure_cpu` (each number the best of many short trials
in interleaved rounds, about 1 s in all), once per machine (again when it was measured on a
busy machine and the machine is idle), and cached as JSON in ``$WORKBENCH_CACHE_DIR`` (default
``~/.cache/fusion-workbench``); ``workbench devices`` shows every profile and ``workbench devices
--refresh`` measures the CPU again, with the calibration probe of the workbench's own CPU backend
(:mod:`workbench.profiler.calibrate`, stored in the profile's ``calibration``; the cost model
then uses it, :mod:`~workbench.costmodel.calibration`). The quick probe has memory ceilings found
where the bandwidth of a copy drops as its working set grows from 32 KiB to 256 MiB
(:func:`~workbench.costmodel.calibration.find_levels`): never the cache sizes the OS reports,
which on a virtual machine are the host's (a VM reported a 504 MiB L3 from sysfs and measured
its "LLC" slower than DRAM). The innermost level becomes ``l2``, the outermost cache ``llc``, the
last ``dram``; a kernel's memory time uses the ceiling of the smallest level that holds the
bytes it moves (:meth:`DeviceProfile.memory_level`). This is the cache-aware roofline of Ilic,
Pratas and Sousa ("Cache-aware Roofline model: Upgrading the loft", IEEE Computer Architecture
Letters 13(1), 2014): one bandwidth ceiling per memory level, measured from the core.

A transcendental costs, in FLOPs, what the probe measures: the extra time of numpy's vectorised
float32 ``exp``/``tanh`` over a multiply, in one-core sgemm FLOPs
(:func:`~workbench.costmodel.cpu_probe.transcendental_flops`; about 35 on the AMD EPYC test
machine); 10 when that measurement fails (a range reduction plus a polynomial of about ten
multiply-adds, XLA:CPU's xla/service/cpu/polynomial_approximations.cc). The CPU has no
register-file occupancy model: its profile's register fields are ``None`` and the cost model
reports registers and occupancy as not applicable.

GPU profiles keep XLA's model, one ceiling (HBM): NVIDIA publishes no L2 bandwidth for the H100
or H200 (their datasheets and the Hopper whitepaper give the L2's size, 50 MB, not its
bandwidth), so their L2 bandwidth is ``None``; the L2's size (50 MB on H100 and H200, *NVIDIA
H100 Tensor Core GPU Architecture* whitepaper; 40 MB on A100, *NVIDIA A100 Tensor Core GPU
Architecture* whitepaper) gives XLA's read-time heuristic its cache speedups (``ReadTime`` in
xla/service/gpu/model/gpu_performance_model_base.cc: reads that fit in the L2 run 2.5 times the
HBM bandwidth, 8 times more in 2 KiB of L1 per SM; :func:`~workbench.costmodel.model.gpu_memory_time`).
"""

from __future__ import annotations

import json
import os
import platform
import tempfile
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from workbench.errors import InputError
from workbench.paths import cache_dir
from workbench.costmodel.calibration import find_levels
from workbench.costmodel.cpu_probe import (SWEEP_BYTES, best_time, copy_kernel, machine_busy,
                                         probe_source, transcendental_flops,
                                         transcendental_kernels)

#: the memory levels a profile may have, smallest first (names used in CostBreakdown)
MEMORY_LEVELS = ("l2", "llc", "dram")
#: how the text names them
LEVEL_WORDS = {"l2": "L2", "llc": "LLC", "dram": "DRAM"}


@dataclass(frozen=True)
class DeviceProfile:
    """What the cost model knows about a device.

    Parameters
    ----------
    name : str
    kind : str
        ``"cpu"`` or ``"gpu"``.
    bandwidth_Bps : float
        Sustained memory bandwidth, bytes per second.
    peak_flops : float
        FP32 peak, FLOP per second.
    sm_count : int or None
        Streaming multiprocessors (GPU).
    registers_per_sm : int or None
        32-bit registers per SM (GPU).
    max_registers_per_thread : int or None
        The cap a kernel's register estimate must stay under (GPU); ``None`` on the CPU.
    launch_overhead_s : float
        Fixed cost of launching one kernel, seconds.
    source : str
        Where the numbers come from.
    max_threads_per_sm : int or None
        Resident threads per SM (GPU), for occupancy.
    transcendental_flops : float
        FLOP-equivalents charged per transcendental (exp, tanh, rsqrt ...).
    l2_bytes, llc_bytes : int or None
        Size of the L2 (per core) and of the last-level cache, bytes, as the OS reports them;
        ``None`` when unknown, when the L2 is the last level (``l2_bytes``), and on GPUs.
    l2_bandwidth_Bps, llc_bandwidth_Bps : float or None
        Measured copy bandwidth, bytes per second, of a working set that stays in the L2 / in
        the LLC; ``None`` where the size is. ``bandwidth_Bps`` is the DRAM (HBM) ceiling.
    core_flops : float or None
        FP32 FLOP per second of one core (CPU; the one-thread sgemm of the probe), the rate of
        a contraction that runs on one core; ``None`` on GPUs.
    parallel_min_bytes : int or None
        A kernel with a contraction (dot, convolution) that writes fewer bytes than this runs
        on one core, at ``core_flops`` (:meth:`flop_rate`); ``None``: every kernel gets
        ``peak_flops``.
    overlap : float
        The share of the shorter of a kernel's compute and memory times hidden under the longer,
        in [0, 1]: XLA's ``kMemoryComputeParallelism``, 0.95
        (xla/service/gpu/model/gpu_performance_model_base.h), on every named profile; a what-if
        knob (:mod:`~workbench.costmodel.knobs`).
    calibration : dict or None
        CPU: what the calibration probe of the workbench's own backend measured
        (:mod:`workbench.profiler.calibrate`); when present the cost model predicts with it
        (:mod:`~workbench.costmodel.calibration`) instead of the roofline terms above.
    """

    name: str
    kind: str
    bandwidth_Bps: float
    peak_flops: float
    sm_count: int | None
    registers_per_sm: int | None
    max_registers_per_thread: int | None
    launch_overhead_s: float
    source: str
    max_threads_per_sm: int | None = None
    transcendental_flops: float = 8.0
    l2_bytes: int | None = None
    l2_bandwidth_Bps: float | None = None
    llc_bytes: int | None = None
    llc_bandwidth_Bps: float | None = None
    core_flops: float | None = None
    parallel_min_bytes: int | None = None
    overlap: float = 0.95
    calibration: dict | None = field(default=None, compare=False)

    @property
    def is_gpu(self) -> bool:
        return self.kind == "gpu"

    def flop_rate(self, bytes_written: float | None = None, contraction: bool = False) -> float:
        """FP32 FLOP per second of a kernel that writes ``bytes_written`` bytes.

        ``core_flops`` for a kernel with a ``contraction`` that writes less than
        ``parallel_min_bytes``, when the profile has both (it runs on one core); else
        ``peak_flops``. This follows the workbench's CPU backend: a dot or convolution whose
        result is under 64 KiB is one single-threaded BLAS call (``PARALLEL_MIN_BYTES`` in
        workbench/codegen/cpu_contraction.py; see :data:`CPU_PARALLEL_MIN_BYTES`), while
        larger ones are split into blocks across the cores (one single-threaded BLAS call per
        block, on numba's threads). Elementwise and reduction kernels keep
        ``peak_flops``: the backend runs them on every core once they do enough work to pay
        for it (``PARALLEL_MIN_WORK``), and below that their compute time is microseconds.
        """
        if (contraction and self.core_flops and self.parallel_min_bytes
                and bytes_written is not None and bytes_written < self.parallel_min_bytes):
            return min(self.core_flops, self.peak_flops)
        return self.peak_flops

    def memory_levels(self) -> list[tuple[str, int | None, float]]:
        """The memory ceilings, smallest level first: ``(level, bytes it holds or None,
        bandwidth in B/s)``, ending with ``("dram", None, bandwidth_Bps)``. A cache level is
        listed when both its size and its bandwidth are known; the app draws one roofline
        ceiling per entry."""
        out = [(name, size, bw) for name, size, bw in (
            ("l2", self.l2_bytes, self.l2_bandwidth_Bps),
            ("llc", self.llc_bytes, self.llc_bandwidth_Bps)) if size and bw]
        return out + [("dram", None, self.bandwidth_Bps)]

    def memory_level(self, nbytes: float) -> tuple[str, float]:
        """(level, bandwidth in B/s) for a kernel moving ``nbytes`` (read + written).

        The smallest level that holds all of them (``nbytes <= size``), else DRAM: a step, not
        a blend. The kernel's data are taken to be warm: written by the kernel before it, or
        by the previous call, as when the profiler times a kernel again and again. A level is
        never slower than the levels beyond it (a probe disturbed by another process could
        measure a cache slower than DRAM): its bandwidth is the largest of its own and theirs.
        """
        dram = self.bandwidth_Bps
        l2 = self.l2_bandwidth_Bps if self.l2_bytes else None
        llc = self.llc_bandwidth_Bps if self.llc_bytes else None
        if l2 and nbytes <= self.l2_bytes:
            return "l2", max(l2, llc or 0.0, dram)
        if llc and nbytes <= self.llc_bytes:
            return "llc", max(llc, dram)
        return "dram", dram

    def to_json(self) -> dict:
        return asdict(self)


_CC90 = dict(registers_per_sm=65536, max_registers_per_thread=255, max_threads_per_sm=2048)

GPU_PROFILES = {
    "h100": DeviceProfile(
        "h100", "gpu", 3.35e12, 67e12, 132, launch_overhead_s=1e-6, transcendental_flops=8.0,
        l2_bytes=50 * 10**6,
        source="NVIDIA H100 SXM5 datasheet (3.35 TB/s, 67 TFLOP/s FP32, 132 SMs); CUDA guide "
               "cc 9.0 limits; XLA kKernelLaunchOverhead", **_CC90),
    "h200": DeviceProfile(
        "h200", "gpu", 4.8e12, 67e12, 132, launch_overhead_s=1e-6, transcendental_flops=8.0,
        l2_bytes=50 * 10**6,
        source="NVIDIA H200 SXM datasheet (4.8 TB/s, 67 TFLOP/s FP32, 132 SMs); CUDA guide "
               "cc 9.0 limits; XLA kKernelLaunchOverhead", **_CC90),
    "a100": DeviceProfile(
        "a100", "gpu", 2.039e12, 19.5e12, 108, launch_overhead_s=1e-6, transcendental_flops=4.0,
        l2_bytes=40 * 10**6,
        source="NVIDIA A100 SXM4 80GB datasheet (2.039 TB/s, 19.5 TFLOP/s FP32, 108 SMs); CUDA "
               "guide cc 8.0 limits; XLA kKernelLaunchOverhead", **_CC90),
}

#: names accepted by :func:`get_device`
DEVICES = ("cpu", "h100", "h200", "a100")

#: the probe's format; a cached profile of another version is measured again, not misread
#: (version 3 added the cache sizes and bandwidths and the measured transcendental cost)
_PROBE_VERSION = 6  # 4: core_flops and parallel_min_bytes; 5: levels measured, calibration
#: 6: the CPU backend's bf16 code (bit operations, ~70x faster) and the batched-dot points:
#: a profile measured on the older backend would charge bf16 kernels 20-30x too much

#: contraction kernels writing less than this run on one core in the cpu profile (bytes): the
#: cpu backend's threshold for splitting a dot or convolution into blocks across the cores
#: (PARALLEL_MIN_BYTES in workbench/codegen/cpu_contraction.py; a test keeps the two equal).
#: A property of the backend, not of the machine: a cached profile gets the current value.
CPU_PARALLEL_MIN_BYTES = 64 << 10

#: rounds of the probe; each round times every measurement (the copies, the sgemms, the call
#: overhead, the transcendentals) in turn, so that a burst of load from another process spoils
#: some rounds, not a whole measurement
PROBE_ROUNDS = 4
#: wall-clock budget of each measurement in one round, seconds (about 0.6 s in all, 0.8 s with
#: the warm-up calls and the allocation of the arrays)
PROBE_BUDGET_S = {"sweep": 0.004, "peak": 0.045, "peak1": 0.025, "launch": 0.01, "exp": 0.004,
                  "tanh": 0.004, "mul": 0.004}


def cpu_profile_path() -> Path:
    """Where the measured ``cpu`` profile is cached."""
    return cache_dir() / "cpu_profile.json"


#: the probe's timing loop (kept under its old name for callers of this module)
_best_time = best_time


def probe_cpu() -> DeviceProfile:
    """Measure this machine (see :func:`measure_cpu`, which also says whether it was busy)."""
    return measure_cpu()[0]


def measure_cpu() -> tuple[DeviceProfile, bool]:
    """Measure this machine in about a second: memory bandwidth per level, FP32 peak,
    per-call overhead and the cost of a transcendental.

    Each number is the best of many short trials after a warm-up call (see
    :func:`~workbench.costmodel.cpu_probe.best_time`), taken in :data:`PROBE_ROUNDS` interleaved
    rounds, so a slow trial, or a burst of load from another process, does not set it.

    * Memory levels: copying one float32 array into another (``np.copyto``, one thread; read
      and write counted) with working sets from 32 KiB to 256 MiB
      (:data:`~workbench.costmodel.cpu_probe.SWEEP_BYTES`); the levels are where the bandwidth
      drops (:func:`~workbench.costmodel.calibration.find_levels`, always ordered), never the
      cache sizes the OS reports. A cache copy takes microseconds, so the per-call overhead
      (below) is taken off its time: the cost model adds that overhead to every kernel apart.
    * Peak: float32 matrix products through numpy's BLAS sgemm (2 n^3 FLOP each), compute-bound
      on any CPU (n / 6 FLOP per byte): one 512^3 product, which the BLAS spreads over all
      cores, and a batch of 64 products of 64^3, each run on one thread (OpenBLAS splits a
      product only above 64^3, ``GEMM_MULTITHREAD_THRESHOLD``); the better of the two. A
      multi-threaded product waits for its slowest thread, so when another process holds a
      core it can run ten times slower, while the one-thread batch still measures a core.
    * Launch overhead: a ufunc on a one-element array, the cost of dispatching a compiled kernel
      from Python: best mean of 200 calls.
    * Transcendental cost: numpy's float32 ``exp`` and ``tanh`` against a multiply, in the
      one-thread sgemm's FLOPs (:func:`~workbench.costmodel.cpu_probe.transcendental_flops`).

    Returns
    -------
    (DeviceProfile, bool)
        The profile, and whether the machine was busy: the load average said so
        (:func:`machine_busy`), or the multi-threaded product ran less than 1.2 times as fast
        as one thread (another process held a core). The source says so too, and
        :func:`cpu_profile` measures a busy profile again later.
    """
    import numpy as np

    busy = machine_busy()
    copies = {f"copy{nb}": copy_kernel(nb) for nb in SWEEP_BYTES}
    n = 512
    m1 = np.full((n, n), 0.5, dtype=np.float32)
    m2 = np.full((n, n), 0.25, dtype=np.float32)
    out = np.empty((n, n), dtype=np.float32)
    small, batch = 64, 64
    s1 = np.full((batch, small, small), 0.5, dtype=np.float32)
    s2 = np.full((batch, small, small), 0.25, dtype=np.float32)
    s_out = np.empty((batch, small, small), dtype=np.float32)
    one = np.ones(1, dtype=np.float32)
    res = np.empty_like(one)

    def calls():
        for _ in range(200):
            np.add(one, one, out=res)

    fns = {"peak": lambda: np.matmul(m1, m2, out=out),
           "peak1": lambda: np.matmul(s1, s2, out=s_out), "launch": calls,
           **{key: fn for key, (fn, _) in copies.items()}, **transcendental_kernels()}
    best = {key: (float("inf"), 0) for key in fns}
    for r in range(PROBE_ROUNDS):
        for key, fn in fns.items():
            budget = PROBE_BUDGET_S.get(key, PROBE_BUDGET_S["sweep"])
            t, trials = best_time(fn, budget, min_trials=2, warm_up=r == 0)
            best[key] = (min(best[key][0], t), best[key][1] + trials)
    multi = 2 * n ** 3 / best["peak"][0]
    single = 2 * small ** 3 * batch / best["peak1"][0]
    contended = (os.cpu_count() or 1) > 1 and multi < 1.2 * single
    busy = busy or machine_busy() or contended
    launch = max(best["launch"][0] / 200, 1e-7)
    sweep = [(moved, moved / max(best[key][0] - launch, best[key][0] / 2))
             for key, (_, moved) in copies.items()]
    levels = find_levels(sweep)
    fields = levels_to_fields(levels)
    trans = transcendental_flops(best["exp"][0], best["tanh"][0], best["mul"][0], single)
    trials = sum(best[k][1] for k in copies)
    return DeviceProfile(
        "cpu", "cpu", peak_flops=max(multi, single),
        sm_count=None, registers_per_sm=None, max_registers_per_thread=None,
        launch_overhead_s=launch, transcendental_flops=round(trans, 1) if trans else 10.0,
        core_flops=single,
        parallel_min_bytes=CPU_PARALLEL_MIN_BYTES if (os.cpu_count() or 1) > 1 else None,
        source=probe_source(best, levels, trials, trans, busy, contended), **fields), busy


def levels_to_fields(levels: list[dict]) -> dict:
    """The profile's level fields from measured levels (innermost first, DRAM last): the
    innermost cache is the ``l2``, the outermost the ``llc`` (one cache: only the ``llc``)."""
    caches, dram = levels[:-1], levels[-1] if levels else {"Bps": 1e9}
    out = {"bandwidth_Bps": float(dram["Bps"]), "l2_bytes": None, "l2_bandwidth_Bps": None,
           "llc_bytes": None, "llc_bandwidth_Bps": None}
    if caches:
        out.update(llc_bytes=int(caches[-1]["up_to"]), llc_bandwidth_Bps=float(caches[-1]["Bps"]))
    if len(caches) > 1:
        out.update(l2_bytes=int(caches[0]["up_to"]), l2_bandwidth_Bps=float(caches[0]["Bps"]))
    return out


#: the fields a what-if knob may set that a calibrated profile's model reads; the calibration
#: stores their values when it is attached (:func:`with_calibration`)
KNOB_FIELDS = ("launch_overhead_s", "bandwidth_Bps", "llc_bandwidth_Bps", "l2_bandwidth_Bps",
               "peak_flops", "core_flops", "transcendental_flops", "overlap", "l2_bytes",
               "llc_bytes")


def with_calibration(profile: DeviceProfile, calibration: dict) -> DeviceProfile:
    """``profile`` carrying ``calibration`` (the probe of :mod:`workbench.profiler.calibrate`):
    its levels, warm launch and source replace the quick probe's, and the calibration records
    the profile's knob fields as they are (``profile``), the values a what-if knob is measured
    against (:mod:`~workbench.costmodel.calibrated`)."""
    fields = levels_to_fields(calibration.get("levels") or [])
    out = replace(profile, launch_overhead_s=float(calibration.get("launch_s",
                                                                   profile.launch_overhead_s)),
                  source=str(calibration.get("source", "")) + "; quick probe: "
                  + profile.source.split("; calibrated on")[0], **fields)
    stored = dict(calibration, profile={f: getattr(out, f) for f in KNOB_FIELDS})
    return replace(out, calibration=stored)


def _machine_key() -> str:
    return f"{platform.node()}|{platform.machine()}|{os.cpu_count()}|v{_PROBE_VERSION}"


def write_cpu_profile(profile: DeviceProfile, directory=None, busy: bool = False) -> Path:
    """Store ``profile`` as this machine's cached ``cpu`` profile (in ``directory``, default
    :func:`cache_dir`); tests use it to plan with fixed CPU numbers, without the probe.
    ``busy`` marks a profile measured on a busy machine (replaced when it is idle)."""
    path = Path(directory or cache_dir()) / "cpu_profile.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"machine": _machine_key(), "probe_version": _PROBE_VERSION,
                       "measured_at": time.time(), "busy": bool(busy),
                       "profile": profile.to_json()}, indent=1)
    # atomically: a reader (another process) sees the old profile or the new one, never a
    # half-written file; the temporary file is in the same directory, so os.replace is a rename
    fd, tmp = tempfile.mkstemp(prefix=".cpu_profile.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def profile_lock_path(directory=None) -> Path:
    """The lock file beside the cached ``cpu`` profile (``cpu_profile.lock``)."""
    return Path(directory or cache_dir()) / "cpu_profile.lock"


@contextmanager
def profile_lock(blocking: bool = True, directory=None):
    """Hold the lock of the cached ``cpu`` profile while measuring and writing it.

    An exclusive ``flock`` on :func:`profile_lock_path` (released when the holder exits, even
    when it is killed), so that two processes do not both calibrate this machine or overwrite
    each other's profile. Yields True when the lock is held; with ``blocking=False`` it yields
    False at once when another process holds it (the caller then leaves the profile alone).
    Where ``fcntl`` is missing (Windows) or the directory cannot be written it yields True
    without a lock: the atomic write of :func:`write_cpu_profile` still keeps the file whole.
    """
    try:
        import fcntl
    except ImportError:         # no flock here: the atomic write is all the protection
        yield True
        return
    path = profile_lock_path(directory)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield True
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


#: a profile measured on a busy machine is measured again, when idle, after this many seconds
REPROBE_AFTER_S = 600


def _read_cache():
    """(profile, busy, measured_at) from the cache for this machine, or None: another
    machine's profile, or one an older probe wrote (another ``probe_version``: version 2 had no
    cache fields, and would read as a DRAM-only profile), is not read."""
    try:
        doc = json.loads(cpu_profile_path().read_text())
        if doc.get("machine") == _machine_key() and \
                doc.get("probe_version") == _PROBE_VERSION:
            prof = dict(doc["profile"])
            if prof.get("parallel_min_bytes"):
                prof["parallel_min_bytes"] = CPU_PARALLEL_MIN_BYTES
            return (DeviceProfile(**prof), bool(doc.get("busy", False)),
                    float(doc.get("measured_at", 0)))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def cached_cpu_profile() -> DeviceProfile | None:
    """The cached ``cpu`` profile for this machine, or None (no cache, another machine's, an
    older probe's, or unreadable)."""
    got = _read_cache()
    return got[0] if got else None


def _better(old: DeviceProfile, new: DeviceProfile) -> DeviceProfile:
    """Each number the better of two measurements of one machine (interference only makes a
    measurement worse)."""
    def most(a, b):
        return max(x for x in (a, b) if x is not None) if (a, b) != (None, None) else None

    better = replace(new, bandwidth_Bps=max(old.bandwidth_Bps, new.bandwidth_Bps),
                     peak_flops=max(old.peak_flops, new.peak_flops),
                     core_flops=most(old.core_flops, new.core_flops),
                     launch_overhead_s=min(old.launch_overhead_s, new.launch_overhead_s),
                     l2_bandwidth_Bps=most(old.l2_bandwidth_Bps, new.l2_bandwidth_Bps)
                     if new.l2_bytes else None,
                     llc_bandwidth_Bps=most(old.llc_bandwidth_Bps, new.llc_bandwidth_Bps)
                     if new.llc_bytes else None)
    if better == new:
        return new
    return replace(better, source=new.source + "; the better of two probes")


def cpu_profile(refresh: bool = False) -> DeviceProfile:
    """The ``cpu`` profile: read from the cache, or probed (:func:`probe_cpu`) and cached.

    Parameters
    ----------
    refresh : bool
        Probe again and replace the cache (``workbench devices --refresh``).

    A profile measured while the machine was busy is measured again when it is called on an
    idle machine at least :data:`REPROBE_AFTER_S` later, keeping the better of the two
    measurements of each number (a calibrated profile, which ``workbench devices --refresh``
    writes, is kept until the next refresh). ``refresh`` here runs the quick probe only; the
    calibration needs the code generator, so the command line runs
    :func:`workbench.profiler.calibrate.refresh_cpu_profile`. A
    cache file for another machine (host name, architecture, CPU count) or an older probe is
    ignored and replaced; an unwritable cache directory only costs a new probe next time. The
    profile is written atomically, under :func:`profile_lock`; while another process holds
    that lock (it is calibrating), or when a calibrated profile was stored meanwhile, the quick
    probe is used but not stored.
    """
    cached = None if refresh else _read_cache()
    if cached is not None:
        prof, was_busy, at = cached
        if (prof.calibration or not was_busy or machine_busy()
                or time.time() - at < REPROBE_AFTER_S):
            return prof
    prof, busy = measure_cpu()
    if cached is not None:
        prof = _better(cached[0], prof)
    try:
        with profile_lock(blocking=False) as held:
            # another process holding the lock is calibrating: its profile is better than
            # this quick probe's, so this one is used here and not stored over it; nor is a
            # calibrated profile stored while this probe ran replaced
            now = _read_cache()
            if held and not (now is not None and now[0].calibration):
                write_cpu_profile(prof, cpu_profile_path().parent, busy=busy)
    except OSError:
        pass
    return prof


def all_profiles(refresh: bool = False) -> list[DeviceProfile]:
    """Every named profile, ``cpu`` first (probed when not cached, or when ``refresh``)."""
    return [cpu_profile(refresh)] + [GPU_PROFILES[n] for n in DEVICES if n != "cpu"]


def get_device(device) -> DeviceProfile:
    """A :class:`DeviceProfile` from a name (``cpu``, ``h100``, ``h200``, ``a100``, a GPU
    with another register cap, ``h100-r64``, or a profile with what-if knobs set,
    ``h100+launch_overhead_s=5e-06``: :func:`~workbench.costmodel.knobs.apply_knobs`) or a
    profile.

    Raises
    ------
    InputError
        If the name is not a known device, or names an unknown knob or a bad value.
    """
    if isinstance(device, DeviceProfile):
        return device
    name = str(device)
    if "+" in name:
        from workbench.costmodel.knobs import apply_knobs, split_name

        base, settings = split_name(name)
        return apply_knobs(get_device(base), settings)
    name = name.lower()
    if name == "cpu":
        return cpu_profile()
    if name in GPU_PROFILES:
        return GPU_PROFILES[name]
    base, _, cap = name.rpartition("-r")
    if base in GPU_PROFILES and cap.isdigit():
        return with_register_cap(base, int(cap))
    raise InputError(f"unknown device {device!r} (known: {', '.join(DEVICES)}; a GPU with "
                     "another register cap: h100-r64)")


def with_register_cap(device, cap: int) -> DeviceProfile:
    """A copy of a GPU profile with another register cap (to explore register pressure); its
    name, ``<gpu>-r<cap>``, is accepted by :func:`get_device`."""
    base = get_device(device)
    return replace(base, max_registers_per_thread=int(cap), name=f"{base.name}-r{int(cap)}")

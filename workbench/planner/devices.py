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

The ``cpu`` profile is measured by :func:`probe_cpu` (a streaming copy for bandwidth, a float32
matrix product for peak, a one-element ufunc call for the per-kernel overhead), once per machine,
and cached as JSON in ``$WORKBENCH_CACHE_DIR`` (default ``~/.cache/fusion-workbench``). A
transcendental is charged 10 FLOPs on the CPU: a vectorised ``exp``/``tanh`` is a range reduction
plus a polynomial of about that many multiply-adds (XLA:CPU's polynomial approximations,
xla/service/cpu/polynomial_approximations.cc). The CPU has no register-file occupancy model:
its profile's register fields are ``None`` and the cost model reports registers and occupancy
as not applicable.
"""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from workbench.errors import InputError


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

    @property
    def is_gpu(self) -> bool:
        return self.kind == "gpu"

    def to_json(self) -> dict:
        return asdict(self)


_CC90 = dict(registers_per_sm=65536, max_registers_per_thread=255, max_threads_per_sm=2048)

GPU_PROFILES = {
    "h100": DeviceProfile(
        "h100", "gpu", 3.35e12, 67e12, 132, launch_overhead_s=1e-6, transcendental_flops=8.0,
        source="NVIDIA H100 SXM5 datasheet (3.35 TB/s, 67 TFLOP/s FP32, 132 SMs); CUDA guide "
               "cc 9.0 limits; XLA kKernelLaunchOverhead", **_CC90),
    "h200": DeviceProfile(
        "h200", "gpu", 4.8e12, 67e12, 132, launch_overhead_s=1e-6, transcendental_flops=8.0,
        source="NVIDIA H200 SXM datasheet (4.8 TB/s, 67 TFLOP/s FP32, 132 SMs); CUDA guide "
               "cc 9.0 limits; XLA kKernelLaunchOverhead", **_CC90),
    "a100": DeviceProfile(
        "a100", "gpu", 2.039e12, 19.5e12, 108, launch_overhead_s=1e-6, transcendental_flops=4.0,
        source="NVIDIA A100 SXM4 80GB datasheet (2.039 TB/s, 19.5 TFLOP/s FP32, 108 SMs); CUDA "
               "guide cc 8.0 limits; XLA kKernelLaunchOverhead", **_CC90),
}

#: names accepted by :func:`get_device`
DEVICES = ("cpu", "h100", "h200", "a100")

_PROBE_VERSION = 1


def cache_dir() -> Path:
    """``$WORKBENCH_CACHE_DIR``, or ``~/.cache/fusion-workbench``."""
    env = os.environ.get("WORKBENCH_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "fusion-workbench"


def _best_time(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def probe_cpu() -> DeviceProfile:
    """Measure this machine (about half a second): bandwidth, FP32 peak, per-call overhead.

    Bandwidth: copying a 32 MiB float32 array (read + write counted). Peak: a 512x512 float32
    matrix product (2 n^3 FLOP) through numpy's BLAS. Launch overhead: a ufunc on a one-element
    array, the cost of dispatching a compiled kernel from Python. Best of several runs each.
    """
    import numpy as np

    a = np.ones(8 << 20, dtype=np.float32)
    b = np.empty_like(a)
    t_copy = _best_time(lambda: np.copyto(b, a), 5)
    n = 512
    m1 = np.ones((n, n), dtype=np.float32)
    m2 = np.ones((n, n), dtype=np.float32)
    t_mm = _best_time(lambda: m1 @ m2, 5)
    one = np.ones(1, dtype=np.float32)
    out = np.empty_like(one)

    def calls():
        for _ in range(200):
            np.add(one, one, out=out)
    t_call = _best_time(calls, 5) / 200
    return DeviceProfile(
        "cpu", "cpu", bandwidth_Bps=2 * a.nbytes / t_copy, peak_flops=2 * n ** 3 / t_mm,
        sm_count=None, registers_per_sm=None, max_registers_per_thread=None,
        launch_overhead_s=max(t_call, 1e-7), transcendental_flops=10.0,
        source=f"measured on {platform.node()} ({os.cpu_count()} CPUs): numpy copy, 512^3 "
               "matmul, one-element ufunc call")


def _machine_key() -> str:
    return f"{platform.node()}|{platform.machine()}|{os.cpu_count()}|v{_PROBE_VERSION}"


def write_cpu_profile(profile: DeviceProfile, directory=None) -> Path:
    """Store ``profile`` as this machine's cached ``cpu`` profile (in ``directory``, default
    :func:`cache_dir`); tests use it to plan with fixed CPU numbers, without the probe."""
    path = Path(directory or cache_dir()) / "cpu_profile.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"machine": _machine_key(), "profile": profile.to_json()},
                               indent=1))
    return path


def cpu_profile() -> DeviceProfile:
    """The ``cpu`` profile: read from the cache, or probed once and cached.

    A cache file for another machine (host name, architecture, CPU count) is ignored and
    replaced; an unwritable cache directory only costs a new probe next time.
    """
    path = cache_dir() / "cpu_profile.json"
    try:
        doc = json.loads(path.read_text())
        if doc.get("machine") == _machine_key():
            return DeviceProfile(**doc["profile"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    prof = probe_cpu()
    try:
        write_cpu_profile(prof, path.parent)
    except OSError:
        pass
    return prof


def get_device(device) -> DeviceProfile:
    """A :class:`DeviceProfile` from a name (``cpu``, ``h100``, ``h200``, ``a100``, or a GPU
    with another register cap, ``h100-r64``) or a profile.

    Raises
    ------
    InputError
        If the name is not a known device.
    """
    if isinstance(device, DeviceProfile):
        return device
    name = str(device).lower()
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

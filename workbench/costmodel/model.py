"""The cost model: what one kernel (a fusion group, or one op alone) costs on a device.

For a group of ops run as one kernel:

* **bytes read** — each distinct value the group reads from outside itself, once, at its own
  size: a broadcast inside the group reads its (small) operand, not the broadcast result; scalar
  constants are immediates and cost nothing. A value read only through ``slice`` ops reads only
  what they cover: a slice accesses its own size of its operand (XLA's
  ``HloCostAnalysis::HandleSlice`` sets the operand's ``operand_bytes_accessed`` to the slice's
  size, and ``operand_utilization`` to its share of the elements; xla/service/hlo_cost_analysis.cc,
  ``kBytesAccessedKey``), and several slices of one value in one kernel read the union of their
  boxes (:meth:`~workbench.ir.index.GraphIndex.union_bytes`): the q, k and v slices of a
  fused qkv projection each read a third of it, and a kernel holding q and v reads two thirds.
* **bytes written** — each member value used outside the group, or returned by the graph.
* **FLOPs and transcendentals** — summed over the members, with the op registry's counts
  (xla/service/hlo_cost_analysis.cc conventions); a duplicated producer is charged in every group
  that computes it.
* **arithmetic intensity** — FLOP-equivalents per byte moved: FLOPs plus each transcendental at
  the device's FLOP-equivalent cost (``transcendental_flops``: 8 on H100/H200, 4 on A100, 10 on the
  CPU; see :mod:`~workbench.costmodel.devices`). This is the work the compute time below counts,
  so the intensity and the bound agree: a kernel of sines is compute-bound *and* has a high
  intensity. Plain FLOPs and transcendentals are reported beside it.
* **time** — XLA's GPU performance model (``CombineComputeAndMemoryAccessTime`` in
  xla/service/gpu/model/gpu_performance_model_base.cc)::

      compute = (FLOPs + transcendental_flops * transcendentals) / peak
      memory  = (bytes read + bytes written) / bandwidth(level)
      time    = compute + memory - 0.95 * min(compute, memory) + launch overhead

  0.95 is ``kMemoryComputeParallelism``: compute and memory traffic overlap almost entirely, so a
  kernel costs about the larger of the two. The *bound* is whichever of compute, memory and
  launch overhead is largest.
* **memory level** — on a profile with cache ceilings (the measured ``cpu`` profile), the
  bandwidth is that of the smallest level that holds the bytes the kernel moves, read plus
  written: L2, else the last-level cache, else DRAM
  (:meth:`~workbench.costmodel.devices.DeviceProfile.memory_level`). This is the cache-aware
  roofline (Ilic, Pratas and Sousa, "Cache-aware Roofline model: Upgrading the loft", IEEE
  Computer Architecture Letters 13(1), 2014), used as a step: a kernel whose data fit in a level
  streams them at that level's measured bandwidth. A step rather than a blend of levels, because
  it is explainable in one sentence and needs no guess of which values are already in cache; it
  takes the data to be warm (written by the kernel before, or by the previous call), which is
  how the profiler times kernels and how a plan's kernels pass values that fit. GPU profiles have
  one level, HBM (XLA's model). The breakdown records the level (``memory_level``).
* **register pressure** (GPU profiles) — the peak number of values live at once while one thread
  evaluates the fused expression for one element (operands loaded, intermediates not yet dead),
  times registers per value (1 for 32-bit, 2 for 64-bit), plus :data:`BASE_REGISTERS` for
  indexing and addresses (an assumed constant, typical of ``ptxas -v`` reports for XLA's
  elementwise kernels). Occupancy follows the CUDA occupancy calculator's rules: registers are
  allocated per warp in units of 256, blocks of :data:`BLOCK_THREADS` threads (XLA's usual
  loop-fusion block size) fit while the SM's register file and thread limit allow. Library
  contractions are counted as one live value (their register tiling is not modelled). On the
  ``cpu`` profile registers and occupancy are not applicable and reported as ``None``.

Alongside each group, :func:`plan_cost` gives what the same ops cost unfused (each op its own
kernel, as in the unfused baseline), and the saving.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from workbench.ir.graph import Graph
from workbench.costmodel.calibrated import calibration_of, graph_traffic, node_costs_of
from workbench.costmodel.calibration import (LOAD_BYTES, SHORT_LOOP, cpu_terms, cpu_time,
                                             node_basis)
from workbench.costmodel.devices import (DEVICES, LEVEL_WORDS, DeviceProfile, cpu_profile,
                                         get_device, probe_cpu)
from workbench.ir.index import GraphIndex, graph_index

#: XLA's kMemoryComputeParallelism (xla/service/gpu/model/gpu_performance_model_base.h)
MEMORY_COMPUTE_PARALLELISM = 0.95
#: registers a thread needs besides live values (thread index, bounds, addresses): an assumption
BASE_REGISTERS = 16
#: threads per block assumed for occupancy (XLA's default for loop fusions)
BLOCK_THREADS = 128
#: register allocation granularity per warp (CUDA occupancy calculator, cc 8.x and 9.x)
REGISTER_ALLOCATION_UNIT = 256

__all__ = ["BASE_REGISTERS", "CostBreakdown", "DEVICES", "DeviceProfile", "PlanCost",
           "combine_times", "cpu_profile", "get_device", "group_cost", "kernel_time",
           "kernel_timer",
           "op_cost", "peak_live", "plan_cost", "probe_cpu", "registers_and_occupancy"]


def combine_times(compute_s: float, memory_s: float,
                  overlap: float = MEMORY_COMPUTE_PARALLELISM) -> float:
    """XLA's ``CombineComputeAndMemoryAccessTime``: ``c + m - overlap * min(c, m)``, seconds
    (``overlap`` 0.95 there; a profile's :attr:`~DeviceProfile.overlap`, a what-if knob)."""
    return compute_s + memory_s - overlap * min(compute_s, memory_s)


def kernel_time(flops: float, trans: float, nbytes: float, device: DeviceProfile,
                written: float | None = None, contraction: bool = False,
                calibrated: tuple | None = None, read: float | None = None) -> float:
    """Predicted seconds of one kernel: combined compute and memory time plus launch overhead
    (memory at the bandwidth of the level that holds ``nbytes``, see the module notes; compute
    at :meth:`DeviceProfile.flop_rate`: one core's rate for a small ``contraction`` kernel,
    writing ``written`` bytes, on a CPU profile).

    On a calibrated CPU profile, ``calibrated`` is ``(compute seconds on one core, contraction
    seconds, work, graph traffic)`` summed over the members
    (:class:`~workbench.costmodel.calibration.NodeCosts`), and the time is
    :func:`~workbench.costmodel.calibration.cpu_time`. On a GPU, ``read`` bytes (default: all
    of ``nbytes`` less ``written``) get XLA's L1/L2 read speedups (:func:`gpu_memory_time`).
    """
    cal = calibration_of(device)
    if cal is not None and calibrated is not None:
        cs, ds, work, traffic = calibrated
        return cpu_time(cal, cs, ds, nbytes, work, traffic)
    compute = ((flops + device.transcendental_flops * trans)
               / device.flop_rate(written, contraction))
    if device.is_gpu:
        memory = gpu_memory_time(device, nbytes, written, read)
    else:
        memory = nbytes / device.memory_level(nbytes)[1]
    return combine_times(compute, memory, device.overlap) + device.launch_overhead_s


def kernel_timer(device: DeviceProfile):
    """:func:`kernel_time` for many kernels on one ``device``: a function of ``(flops, trans,
    nbytes, written=None, contraction=False, calibrated=None)`` returning the same seconds,
    bit for bit, as ``kernel_time(flops, trans, nbytes, device, written, contraction,
    calibrated)``.

    The device's constants are read once, and on a calibrated CPU the time is
    :func:`~workbench.costmodel.calibration.cpu_time` with the launch term of a plan's
    ``traffic`` and the memory term of each (byte count, traffic) computed once and reused
    (each is an interpolation on a measured table). The planner estimates hundreds of thousands of
    candidate kernels on one device; this is its clock.

    Parameters
    ----------
    device : DeviceProfile

    Returns
    -------
    callable
        ``(flops, trans, nbytes [B], written [B] or None, contraction, calibrated) -> seconds``.
    """
    tf, peak, overlap = device.transcendental_flops, device.peak_flops, device.overlap
    launch_s = device.launch_overhead_s
    core, pmin = device.core_flops, device.parallel_min_bytes
    one_core = min(core, peak) if core and pmin else None
    gpu = device.is_gpu
    bw = device.bandwidth_Bps
    l2 = device.l2_bytes if gpu else None
    l1 = GPU_L1_BYTES_PER_SM * device.sm_count if gpu and device.sm_count else None
    bw_l2 = bw * GPU_L2_SPEEDUP
    bw_l1 = bw_l2 * GPU_L1_SPEEDUP
    level = device.memory_level

    def plain(flops, trans, nbytes, written=None, contraction=False, calibrated=None):
        rate = (one_core if contraction and one_core is not None and written is not None
                and written < pmin else peak)
        compute = (flops + tf * trans) / rate
        if gpu:
            w = float(written or 0.0)
            read = max(float(nbytes) - w, 0.0)
            read_bw = bw
            if l2 and read < l2:
                read_bw = bw_l1 if l1 and read < l1 else bw_l2
            memory = read / read_bw + w / bw
        else:
            memory = nbytes / level(nbytes)[1]
        return compute + memory - overlap * min(compute, memory) + launch_s

    cal = calibration_of(device)
    if cal is None:
        return _remembered(plain)
    # cpu_time itself (its formula is the model's, issue 11's terms included), on the
    # calibration with its launch and memory terms remembered by their arguments: the planner
    # asks for the same (bytes, traffic) many times, and each is an interpolation
    memo = _RememberedTerms(cal)
    # cpu_time(memo, ...) written out, term by term in the same order (speedup's two cases,
    # combine's formula); a plan asks with one traffic object throughout, so the launch term
    # and the memory terms by bytes of the last traffic seen are kept without hashing it
    min_work, par, overlap = cal.parallel_min_work, max(cal.parallel_speedup, 1.0), cal.overlap
    launch_of, memory_of = memo.launch, cal.memory
    by_traffic: dict = {}
    last, last_launch, last_memory = None, 0.0, {}

    def calibrated_time(flops, trans, nbytes, written=None, contraction=False,
                        calibrated=None):
        nonlocal last, last_launch, last_memory
        if calibrated is None:
            return plain(flops, trans, nbytes, written, contraction)
        cs, ds, work, traffic = calibrated
        compute = cs / (par if work + nbytes / LOAD_BYTES >= min_work else 1.0) + ds
        if traffic is not last:
            last, last_launch = traffic, launch_of(traffic)
            last_memory = by_traffic.setdefault(traffic, {})
        m = last_memory.get(nbytes)
        if m is None:
            m = last_memory[nbytes] = memory_of(nbytes, traffic)
        return last_launch + (compute + m - overlap * min(compute, m))

    return calibrated_time


def _remembered(plain):
    """``plain`` remembering its answers by its arguments, for one timer (one plan): a pure
    function of them (``None`` and ``0`` are different keys, as they are different
    arguments), so the seconds are the same to the bit; large graphs repeat the same few
    kernels' numbers thousands of times."""
    memo: dict = {}
    get = memo.get

    def timer(flops, trans, nbytes, written=None, contraction=False, calibrated=None):
        key = (flops, trans, nbytes, written, contraction)
        t = get(key)
        if t is None:
            t = memo[key] = plain(flops, trans, nbytes, written, contraction)
        return t

    return timer


class _RememberedTerms:
    """A :class:`~workbench.costmodel.calibration.Calibration` whose ``launch(context)`` and
    ``memory(nbytes, context)`` are computed once per argument and remembered (both are pure
    functions of their arguments and the frozen calibration, so the seconds are the same to
    the bit); its fields are copied, and anything else is the calibration's own."""

    def __init__(self, cal):
        from dataclasses import fields

        self.__dict__.update({f.name: getattr(cal, f.name) for f in fields(cal)})
        self._cal = cal
        self._launch: dict = {}
        self._memory: dict = {}

    def launch(self, context) -> float:
        t = self._launch.get(context)
        if t is None:
            t = self._launch[context] = self._cal.launch(context)
        return t

    def memory(self, nbytes: float, context=None) -> float:
        key = (nbytes, context)
        t = self._memory.get(key)
        if t is None:
            t = self._memory[key] = self._cal.memory(nbytes, context)
        return t

    def __getattr__(self, name):
        return getattr(self._cal, name)


#: XLA's kL2CacheSpeedup, kL1CacheSpeedup and kL1CacheSizePerSM
#: (xla/service/gpu/model/gpu_performance_model_base.h, .cc: ``ReadTime``)
GPU_L2_SPEEDUP, GPU_L1_SPEEDUP, GPU_L1_BYTES_PER_SM = 2.5, 8.0, 2 * 1024


def gpu_memory_time(device: DeviceProfile, nbytes: float, written: float | None,
                    read: float | None = None) -> float:
    """Seconds a GPU kernel spends on memory, as XLA's ``GpuPerformanceModelBase::ReadTime``:
    bytes read at the HBM bandwidth times 2.5 when they fit in the L2 (``l2_bytes``, the
    datasheet's L2 size), times 8 more when they fit in 2 KiB per SM of L1; bytes written at
    the HBM bandwidth."""
    written = float(written or 0.0)
    read = max(float(nbytes) - written, 0.0) if read is None else float(read)
    bw = device.bandwidth_Bps
    read_bw = bw
    if device.l2_bytes and read < device.l2_bytes:
        read_bw *= GPU_L2_SPEEDUP
        if device.sm_count and read < GPU_L1_BYTES_PER_SM * device.sm_count:
            read_bw *= GPU_L1_SPEEDUP
    return read / read_bw + written / bw


def registers_and_occupancy(live_regs: int, device: DeviceProfile):
    """(registers per thread, occupancy in [0, 1]) for a kernel with ``live_regs`` live registers.

    Returns ``(None, None)`` for a CPU profile.
    """
    if not device.is_gpu or not device.registers_per_sm:
        return None, None
    regs = BASE_REGISTERS + live_regs
    per_warp = math.ceil(regs * 32 / REGISTER_ALLOCATION_UNIT) * REGISTER_ALLOCATION_UNIT
    warps_per_block = BLOCK_THREADS // 32
    max_warps = (device.max_threads_per_sm or 2048) // 32
    blocks = (device.registers_per_sm // per_warp) // warps_per_block
    warps = min(blocks * warps_per_block, max_warps)
    return regs, warps / max_warps


@dataclass(frozen=True)
class CostBreakdown:
    """The cost of one kernel (or a sum of kernels), as the cost model predicts it.

    Attributes
    ----------
    bytes_read, bytes_written : int
        Bytes moved from and to memory.
    flops, transcendentals : int
    arithmetic_intensity : float
        FLOP-equivalents (``flop_equivalents``) per byte moved (0 when nothing moves).
    registers_per_thread : int or None
        Estimated registers per thread (GPU profiles; ``None`` on the CPU).
    occupancy : float or None
        Fraction of the SM's warp slots the register estimate allows (GPU; ``None`` on the CPU).
    launch_overhead_s, compute_s, memory_s, predicted_s : float
        Seconds.
    bound : str
        ``"memory"``, ``"compute"`` or ``"launch"``: the largest of the three times.
    live_values : int
        Peak registers' worth of values live at once in the fused expression.
    kernels : int
        Kernels this breakdown covers (1 for a group; more for sums).
    flop_equivalents : float
        ``flops + transcendental_flops * transcendentals`` on the device (what compute time
        counts).
    memory_level : str
        The memory level whose bandwidth ``memory_s`` assumes: ``"l2"``, ``"llc"`` (last-level
        cache) or ``"dram"`` (DRAM or HBM; always on GPU profiles); for a sum of kernels, their
        common level or ``"mixed"``.
    """

    bytes_read: int
    bytes_written: int
    flops: int
    transcendentals: int
    arithmetic_intensity: float
    registers_per_thread: int | None
    occupancy: float | None
    launch_overhead_s: float
    compute_s: float
    memory_s: float
    predicted_s: float
    bound: str
    live_values: int = 0
    kernels: int = 1
    flop_equivalents: float = 0.0
    memory_level: str = "dram"
    terms: dict = field(default_factory=dict, compare=False)
    dominant: str = ""
    #: what each term counts: term -> (amount, unit), e.g. ``memory -> (bytes, "B")``,
    #: ``contraction -> (FLOPs, "FLOP")``, a compute class -> (elements, "element")
    term_units: dict = field(default_factory=dict, compare=False)

    @property
    def bytes_total(self) -> int:
        return self.bytes_read + self.bytes_written

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["terms"] = dict(self.terms)
        out["term_units"] = {k: list(v) for k, v in self.term_units.items()}
        return out

    @property
    def dominant_key(self) -> str:
        """The key of ``terms`` that dominates (``""`` when there are no terms)."""
        return max(self.terms, key=lambda k: self.terms[k]) if self.terms else ""

    @staticmethod
    def total(items: Iterable["CostBreakdown"]) -> "CostBreakdown":
        """The sum of several kernels' breakdowns (registers: the largest; occupancy: the
        smallest; bound: whichever summed time dominates)."""
        items = list(items)
        s = {k: sum(getattr(c, k) for c in items) for k in (
            "bytes_read", "bytes_written", "flops", "transcendentals", "launch_overhead_s",
            "compute_s", "memory_s", "predicted_s", "kernels", "flop_equivalents")}
        regs = [c.registers_per_thread for c in items if c.registers_per_thread is not None]
        occ = [c.occupancy for c in items if c.occupancy is not None]
        moved = s["bytes_read"] + s["bytes_written"]
        levels = {c.memory_level for c in items}
        return CostBreakdown(
            s["bytes_read"], s["bytes_written"], s["flops"], s["transcendentals"],
            s["flop_equivalents"] / moved if moved else 0.0, max(regs) if regs else None,
            min(occ) if occ else None, s["launch_overhead_s"], s["compute_s"], s["memory_s"],
            s["predicted_s"], _bound(s["compute_s"], s["memory_s"], s["launch_overhead_s"]),
            max((c.live_values for c in items), default=0), s["kernels"],
            s["flop_equivalents"], levels.pop() if len(levels) == 1 else
            "mixed" if levels else "dram", _sum_terms(items))


def _sum_terms(items) -> dict:
    out: dict = {}
    for c in items:
        for k, v in c.terms.items():
            out[k] = out.get(k, 0.0) + v
    return out


def _bound(compute: float, memory: float, launch: float) -> str:
    if launch >= max(compute, memory):
        return "launch"
    return "compute" if compute > memory else "memory"


def estimate(flops: int, trans: int, bytes_read: int, bytes_written: int, live: int,
             device: DeviceProfile, contraction: bool = False) -> CostBreakdown:
    """A :class:`CostBreakdown` from raw counts (one kernel; ``contraction``: it holds a dot
    or a convolution, see :meth:`DeviceProfile.flop_rate`): XLA's model (GPU profiles, and a
    CPU profile without calibration)."""
    work = flops + device.transcendental_flops * trans
    compute = work / device.flop_rate(bytes_written, contraction)
    moved = bytes_read + bytes_written
    level, bandwidth = device.memory_level(moved)
    memory = (gpu_memory_time(device, moved, bytes_written, bytes_read) if device.is_gpu
              else moved / bandwidth)
    launch = device.launch_overhead_s
    regs, occ = registers_and_occupancy(live, device)
    bound = _bound(compute, memory, launch)
    terms = {"launch": launch, "memory": memory, "compute": compute}
    dominant = (f"memory ({LEVEL_WORDS.get(level, level)})" if bound == "memory"
                and len(device.memory_levels()) > 1 else bound)
    units = {"launch": (1, "launch"), "memory": (moved, "B"), "compute": (work, "FLOP")}
    return CostBreakdown(bytes_read, bytes_written, flops, trans, work / moved if moved else 0.0,
                         regs, occ, launch, compute, memory,
                         combine_times(compute, memory, device.overlap) + launch, bound,
                         live, 1, work, level, terms, dominant, units)


def calibrated_estimate(index: GraphIndex, mem, bytes_read: int, bytes_written: int,
                        device: DeviceProfile, cal) -> CostBreakdown:
    """A :class:`CostBreakdown` on a calibrated CPU profile: the terms of
    :func:`~workbench.costmodel.calibration.cpu_terms`, by class, for the members ``mem``
    (node indices)."""
    costs = node_costs_of(index, device, cal)
    by_class: dict[str, float] = {}
    units: dict[str, tuple] = {"launch": (1, "launch")}
    dot_s, work, dot_flops = 0.0, 0, 0
    dots = costs.dot_fused_s if len(mem) > 1 and costs.dot_fused_s else costs.dot_s
    for m in mem:
        k = costs.klass[m]
        by_class[k] = by_class.get(k, 0.0) + costs.compute_s[m]
        dot_s += dots[m]
        work += costs.work[m]
        if k == "contraction":
            dot_flops += index.flops[m]
        elif m in costs.units:
            amount, unit = costs.units[m]
            units[k] = (units.get(k, (0, unit))[0] + amount, unit)
        else:
            n = units.get(k, (0, "element"))[0] + node_basis(index, m)[0]
            units[k] = (n, "element")
    by_class.pop("contraction", None)
    if len(mem) == 1 and costs.loop_s:
        (m,) = mem
        if costs.loop_s[m] > 0:
            by_class[SHORT_LOOP] = costs.loop_s[m]
            units[SHORT_LOOP] = (index.elements[m], "element")
    units["contraction"] = (dot_flops, "FLOP")
    units["memory"] = (bytes_read + bytes_written, "B")
    moved = bytes_read + bytes_written
    rows = 1 if any(index.reduction[m] and index.elements[m] <= 1 for m in mem) else 2
    terms, dominant, predicted = cpu_terms(cal, by_class, dot_s, moved, work,
                                           graph_traffic(index), rows)
    flops = sum(index.flops[m] for m in mem)
    trans = sum(index.trans[m] for m in mem)
    compute = sum(v for k, v in terms.items() if k not in ("launch", "memory"))
    level = device.memory_level(moved)[0]
    fe = flops + device.transcendental_flops * trans
    return CostBreakdown(bytes_read, bytes_written, flops, trans, fe / moved if moved else 0.0,
                         None, None, terms["launch"], compute, terms["memory"], predicted,
                         _bound(compute, terms["memory"], terms["launch"]), 0, 1, fe, level,
                         terms, dominant, {k: v for k, v in units.items() if k in terms})


def peak_live(index: GraphIndex, members) -> int:
    """Peak registers of values live at once when one thread evaluates the fused expression.

    Members are evaluated in topological order; an operand from outside the group becomes live
    when first loaded, a member when computed; each dies after its last use inside the group (a
    member nobody inside uses dies once stored). Scalar constants are immediates.
    """
    mem = set(members)
    remaining: dict[int, int] = {}
    for m in mem:
        for o in index.operands[m]:
            remaining[o] = remaining.get(o, 0) + 1
    live = peak = 0
    loaded: set[int] = set()
    for m in sorted(mem):
        for o in index.operands[m]:
            if o not in mem and o not in loaded and index.read_bytes[o]:
                loaded.add(o)
                live += index.reg_width[o]
        live += index.reg_width[m]
        peak = max(peak, live)
        for o in index.operands[m]:
            remaining[o] -= 1
            if remaining[o] == 0 and (o in mem or o in loaded):
                live -= index.reg_width[o]
        if m not in remaining:
            live -= index.reg_width[m]
    return peak


def group_outputs(index: GraphIndex, members) -> set[int]:
    """Members whose value is read outside the group or returned by the graph."""
    mem = set(members)
    return {m for m in mem if index.output[m] or any(u not in mem for u in index.users[m])}


def _members_idx(index: GraphIndex, members) -> set[int]:
    return {index.pos[m] for m in members if not index.source[index.pos[m]]}


def group_cost(graph: Graph, members, device="cpu", outputs=None) -> CostBreakdown:
    """The cost of running ``members`` as one kernel.

    Parameters
    ----------
    graph : Graph
    members : iterable of str
        Node ids of the group (sources are ignored).
    device : str or DeviceProfile
    outputs : iterable of str, optional
        The values the kernel writes; by default every member read outside the group or
        returned by the graph (a plan passes its group's ``outputs``, which leaves out values a
        duplicated copy elsewhere writes).

    Returns
    -------
    CostBreakdown

    Raises
    ------
    InputError
        For an unknown device name.
    DanglingReferenceError
        For a member that is not in the graph.
    """
    dev = get_device(device)
    index = graph_index(graph)
    for m in members:
        graph.node(m)
    mem = _members_idx(index, members)
    outs = (group_outputs(index, mem) if outputs is None
            else {index.pos[o] for o in outputs})
    read = sum(external_reads(index, mem).values())
    written = sum(index.nbytes[o] for o in outs)
    cal = calibration_of(dev)
    if cal is not None:
        return calibrated_estimate(index, mem, read, written, dev, cal)
    flops = sum(index.flops[m] for m in mem)
    trans = sum(index.trans[m] for m in mem)
    return estimate(flops, trans, read, written, peak_live(index, mem), dev,
                    any(index.contraction[m] for m in mem))


def external_reads(index: GraphIndex, mem) -> dict[int, int]:
    """Bytes a kernel of members ``mem`` (node indices) reads of each value from outside it:
    the whole value, or, when every member that reads it is a slice, the union of the slices'
    boxes (see the module notes)."""
    regions: dict[int, list] = {}
    full: set[int] = set()
    for m in mem:
        box = index.region[m]
        for o in index.operands[m]:
            if o in mem:
                continue
            if box is None:
                full.add(o)
            else:
                regions.setdefault(o, []).append(box)
    out = {o: index.read_bytes[o] for o in full}
    for o, boxes in regions.items():
        if o not in full:
            out[o] = index.union_bytes(o, boxes)
    return out


def op_cost(graph: Graph, node_id: str, device="cpu") -> CostBreakdown:
    """The cost of one op run as its own kernel (the unfused baseline's kernel)."""
    dev = get_device(device)
    index = graph_index(graph)
    i = index.pos[graph.node(node_id).id]
    read = sum(index.reads_of(i, o) for o in index.operands[i])
    cal = calibration_of(dev)
    if cal is not None:
        return calibrated_estimate(index, {i}, read, index.nbytes[i], dev, cal)
    return estimate(index.flops[i], index.trans[i], read, index.nbytes[i],
                    peak_live(index, {i}), dev, index.contraction[i])


def unfused_cost(graph: Graph, members, device="cpu", ops: dict | None = None) -> CostBreakdown:
    """What ``members`` cost each as its own kernel, summed; ``ops`` (optional, a dict kept by
    the caller for one graph and device) keeps each op's cost by its index, to cost it once."""
    dev = get_device(device)
    index = graph_index(graph)
    ops = {} if ops is None else ops
    return CostBreakdown.total(_op_cost(graph, index, m, dev, ops)
                               for m in sorted(_members_idx(index, members)))


def _op_cost(graph: Graph, index: GraphIndex, i: int, dev, ops: dict) -> CostBreakdown:
    c = ops.get(i)
    if c is None:
        c = ops[i] = op_cost(graph, index.ids[i], dev)
    return c


@dataclass(frozen=True)
class PlanCost:
    """A plan's cost breakdown.

    Attributes
    ----------
    groups : dict of str to CostBreakdown
        Group id -> the group as one kernel (every group of the plan).
    unfused : dict of str to CostBreakdown
        Group id -> the same ops each as its own kernel, summed.
    total : CostBreakdown
        Sum over the kernels each call runs: the plan's groups except the offline and the dead
        ones (see ``roles``).
    unfused_total : CostBreakdown
        The unfused baseline: every per-call op of the graph once (neither offline nor dead),
        each its own kernel.
    saving_s : float
        ``unfused_total.predicted_s - total.predicted_s``.
    device : str
    offline_total : CostBreakdown
        Sum over the offline groups (weight folding: run once, when the weights are loaded, not
        per call); zero kernels when there are none.
    dead_total : CostBreakdown
        Sum over the dead groups (no graph output depends on them; XLA's DCE would remove them).
    roles : dict of str to str
        Group id -> ``"offline"`` or ``"dead"`` for the groups that are not per-call kernels.
    """

    groups: dict
    unfused: dict
    total: CostBreakdown
    unfused_total: CostBreakdown
    saving_s: float
    device: str = "cpu"
    offline_total: CostBreakdown | None = None
    dead_total: CostBreakdown | None = None
    roles: dict = field(default_factory=dict)

    @property
    def speedup(self) -> float:
        """Predicted unfused time over fused time."""
        return self.unfused_total.predicted_s / self.total.predicted_s if self.total.predicted_s \
            else 1.0

    def to_json(self) -> dict:
        out = {"device": self.device,
               "groups": {k: v.to_json() for k, v in self.groups.items()},
               "unfused": {k: v.to_json() for k, v in self.unfused.items()},
               "total": self.total.to_json(), "unfused_total": self.unfused_total.to_json(),
               "saving_s": self.saving_s, "speedup": self.speedup}
        if self.roles:
            out["roles"] = dict(self.roles)
            out["offline_total"] = self.offline_total.to_json()
            out["dead_total"] = self.dead_total.to_json()
        return out


def plan_cost(graph: Graph, plan, device=None, cache: dict | None = None) -> PlanCost:
    """Cost every group of ``plan`` (on ``device``, by default the plan's own) and the baseline.

    Offline groups (weight folding) and dead groups are costed but summed apart from the
    per-call ``total``; free groups (one bitcast or get-tuple-element: an alias, no kernel)
    are in neither; the unfused baseline is the per-call ops alone, free ops excluded.

    ``cache`` (optional, a dict the caller keeps for one graph and device) holds each group's
    costs by its members and outputs, and the baseline: after an edit only the groups that
    changed are costed again (a group's cost depends on nothing else).

    Raises
    ------
    PlanError
        If the plan was made for another graph.
    """
    from workbench.errors import PlanError

    if plan.graph_fingerprint != graph.fingerprint:
        raise PlanError(f"the plan is for graph {plan.graph_name!r}, not {graph.name!r}")
    dev = get_device(device if device is not None else plan.device)
    cache = {} if cache is None else cache
    groups, unfused = {}, {}
    ops: dict = {}      # each op's own cost, computed once for the groups and the baseline
    for g in plan.groups:
        key = (g.nodes, g.outputs)
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = (group_cost(graph, g.nodes, dev, outputs=g.outputs),
                                unfused_cost(graph, g.nodes, dev, ops))
        groups[g.id], unfused[g.id] = hit
    roles = {g.id: g.role for g in plan.groups if g.role != "call"}
    total = CostBreakdown.total(c for k, c in groups.items() if k not in roles)
    by_role = {r: CostBreakdown.total(groups[k] for k, v in roles.items() if v == r)
               for r in ("offline", "dead")}
    base = cache.get("baseline")
    if base is None:
        index = graph_index(graph)
        # free ops (a bitcast keeping the row-major order, a get-tuple-element) launch nothing
        base = cache["baseline"] = CostBreakdown.total(
            _op_cost(graph, index, i, dev, ops) for i in range(len(index.ids))
            if not index.source[i] and index.live[i] and not index.offline[i]
            and not index.free[i])
    return PlanCost(groups, unfused, total, base, base.predicted_s - total.predicted_s, dev.name,
                    by_role["offline"], by_role["dead"], roles)

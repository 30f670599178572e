"""The calibrated CPU cost model: what the probe measured, and a kernel's time from it.

The probe (:mod:`workbench.profiler.calibrate`, which may compile kernels; the cost model may
not) times micro-kernels compiled by the workbench's own CPU backend and stores the numbers in
the ``cpu`` profile's ``calibration`` (a JSON object, :class:`Calibration` reads it). Each number
is a measurement of this machine running our kernels, not a datasheet or a sysfs value:

``launch_s``, ``launch_cold``, ``launch_ctx``
    The time of a one-element kernel called again and again (a warm launch); of the same kernel
    in a plan whose other kernel streams a working set of ``S`` bytes between two of its calls
    (``launch_cold``, ``[S, seconds]``); and its median time in plans of ``K`` distinct kernels
    and a footprint of ``S`` bytes (``launch_ctx``, ``[K, S, seconds]``): between two of its
    calls the other kernels evict its dispatch's code and data. A kernel's launch term is this
    launch in the graph's *context* (:func:`~workbench.costmodel.model.graph_traffic`): its
    footprint (the peak bytes alive at once, parameters included) and the kernels a profiling
    round runs (the unfused plan's and the fused plan's, about twice its ops). Measured on the
    2-core VM, the small kernels of graphs with footprints under 3 MiB ran in 0.6-1.6 µs, those
    of 8-32 MiB footprints in 3-7 µs, whatever their own size; a one-element kernel ran in 1.0
    µs alone and 3.4 µs (median) among 100 others.
``launch_interp``
    ``[[seconds, seconds]]``: the typical time (the probe's 25th percentile) of a one-element
    kernel called after that many
    seconds of the numpy reference interpreter (what a fallback kernel runs: a sort, a while
    loop, a scatter) between two of its calls. The interpreter evicts the kernel's code, data
    and page-table entries: on the 2-core VM a kernel ran in 30 ns after 0.1 ms of
    interpretation, 0.3 µs after 1 ms, 0.9 µs after 10 ms, and the compiled kernels of plans
    with a fallback of 1-8 ms ran in 0.5-1 µs however little they did. The interpreter's own
    time is not something this model predicts (fallback kernels are outside it); the seconds
    it spends between two calls of a compiled kernel are part of the kernel's *context*,
    given by whoever runs the plan (:func:`~workbench.costmodel.calibrated.interpreted_context`:
    the profiler and the benchmark, the longest fallback kernel's measured time), 0 otherwise.
``stream``
    ``[bytes moved, seconds]`` of a streaming elementwise kernel (``y = 2 x``) at working sets
    from a few KiB to hundreds of MiB, launch taken off: the memory term interpolates it
    (log-log) at the bytes a kernel moves. Its ``levels`` are found where its bandwidth drops
    (:func:`find_levels`), always ordered (a smaller working set is never slower).
``per_element``
    ``class -> [[bytes, seconds per element], ...]``: the compute time one element of an op
    class costs on one core beyond streaming its bytes (the probe kernel's time with the memory
    term taken off by inverting the combination below), at one or more working-set sizes:
    cheap elementwise ops, each transcendental (exp, log, tanh, logistic, erf, sin, cos, pow;
    also over rows of 16, ``exp@short``..., the cost of a node whose rows are shorter than
    :data:`SHORT_ROW`: scalar code, 5-20x the vectorised cost),
    divide, sqrt, rsqrt, row and column reductions, reduce-window, transpose, broadcasts along
    inner and outer dimensions, concatenate, slice, pad, reverse.
``loop``
    ``kind -> [[inner extent, seconds per element], ...]``: what one element of a loop kernel
    costs beyond streaming its bytes when its innermost loop has that many iterations, for a
    kernel that only stores (``store``: a broadcast scalar), reads one array (``unary``) or two
    (``binary``). The backend's loops are vectorised by LLVM only for some inner extents: on
    the 2-core VM a multiply ran at 0.05 ns per element with rows of 8 or of 48 and more
    elements, at 0.77 ns (scalar code) with rows of 12 to 32; a negate up to 48, a broadcast
    store up to 64. A kernel's nest iterates over its result's shape, the last dimension
    innermost, so ``f32[2,16,16,16]`` runs rows of 16. An op run as a kernel of its own is
    charged its elements at the measurement for its kind and the extent measured nearest below
    its own (a step: the cliffs are sharp), less the cost over the longest rows
    (:func:`node_loop_s`, class :data:`SHORT_LOOP`); a fused kernel is taken to be vectorised
    (on the 2-core VM fused kernels over rows of 32 mostly were), and the planner prices it so.
    A broadcast of a *constant* scalar (``store_const``) has a measurement of its own: the
    backend stores the constant as an immediate, and on the 2-core VM that loop ran 2.3x
    slower per element than the store of a loaded scalar at every row length (0.26-0.41 ns,
    not 0.125: the ``f32[2,5,64]`` broadcasts of a ViT block took 310 ns, predicted 112); it is
    charged beyond the longest rows of the plain ``store`` loop.
``half``
    ``dtype -> {"write": s, "read": s}`` for ``bf16`` and ``f16``: the seconds per element,
    beyond streaming, of rounding a float32 to that dtype and storing its bits (``write``), and
    of loading and widening one (``read``). The backend computes in float32 and rounds each
    half-precision op's result in software: on the 2-core VM a write cost 23-29 ns per element
    and a read 3.5 ns, a hundred times an f32 multiply, so a bf16 multiply of 4,096 elements
    took 140 µs, and a copy of bf16 values (a reshape or broadcast of its own, which widens and
    encodes each value too) 20-40 ns per element. Each op with a half result is charged a
    write per element (but a broadcast scalar, encoded once), each half operand a read per
    element (a dot or convolution on half operands, which runs as loops rather than
    BLAS, a read per FLOP: two reads per multiply-add), in class :data:`HALF`. A copy of
    half values (a reshape, broadcast, transpose, slice ... whose operand has the result's
    dtype) is charged the probe's ``copy`` per element instead (a broadcast of a bf16 row:
    values already representable; on the 2-core VM the bf16 reshapes and broadcasts of a
    layer norm ran 3x under a write and a read).
``parallel_speedup``, ``parallel_min_work``
    How much faster a compute-bound kernel runs when the backend spreads it over the cores (a
    sine kernel above and below the backend's threshold), and that threshold (statement
    executions; ``PARALLEL_MIN_WORK`` in workbench/codegen/cpu.py, a test keeps the two equal).
``contraction``
    ``kind -> [[FLOPs, result bytes, seconds], ...]`` for dots and convolutions (plain and
    grouped) by shape, alone and (``dot_fused``, ``conv_fused``, ``conv_grouped_fused``) with a
    bias + ReLU epilogue in the same kernel; a contraction's time is its FLOPs at the rate
    interpolated (log-log) on FLOPs among the points of its kind and regime (a result under 2 MiB
    is one BLAS call on one core, larger ones row blocks over the cores: ``BLOCKED_MIN_BYTES``),
    the fused kind's when other ops share its kernel. On the 2-core VM the backend's output
    fusions ran slower than the dot and its epilogue as separate kernels (the block's result is a
    scratch array allocated per call): the fused kind measures that.
    ``dot_batched``: the seconds *per batch* of batched dots whose result is small (one BLAS
    call per batch, :func:`dot_calls`), interpolated on a batch's FLOPs; a batched dot costs its
    calls times that (plain and fused alike). Profiles measured before it was probed charge each
    call as a dot alone (2-3x too much for eight calls of 1 kFLOP on the 2-core VM).

A kernel's time (:func:`cpu_terms`)::

    compute = sum over members of elements x per_element(class, bytes) / speedup + contraction
              (+ the short-row loop of a one-op kernel, + half-precision rounding)
    memory  = stream(bytes read + bytes written), at most at the footprint's bandwidth
    time    = launch(traffic) + compute + memory - 0.95 * min(compute, memory)

(XLA's ``CombineComputeAndMemoryAccessTime``, kMemoryComputeParallelism = 0.95; ``speedup`` is
``parallel_speedup`` when the kernel does at least ``parallel_min_work`` and has more than one
row, else 1). The term that dominates is named: launch, memory (at a level), or the compute
class that costs most (a transcendental by name, a reduction, a layout op, a contraction).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

#: XLA's kMemoryComputeParallelism (xla/service/gpu/model/gpu_performance_model_base.h)
OVERLAP = 0.95
#: level names, innermost last-but-one; the outermost level is always DRAM
LEVEL_NAMES = ("L1", "L2", "LLC")
#: a level ends where the bandwidth falls below this share of the level's best (the drops of
#: the 2-core VM: 96 -> 64 -> 38 -> 26 GB/s; a smaller threshold merged noise into levels)
LEVEL_DROP = 0.7
#: footprints up to this many bytes launch as the probe's plans without a streaming kernel
#: (``launch_ctx`` footprint 0; those plans' own kernels touch up to ~160 KiB): the launch
#: grows with a footprint that leaves the caches, not from the first byte. On the 2-core VM the
#: one-element kernels of real models with footprints of 1 KiB to 1 MiB ran in 20-40 ns
#: whatever the footprint, as the probe's plans of footprint 0 did, while interpolating from
#: 1 byte to the 4 MiB point predicted 45-60 ns
LAUNCH_FOOTPRINT_FLOOR = 1 << 20
#: the working set a plan's kernels stream from, in footprints (see ``Calibration.memory``;
#: tuned on the tune split: 1, 2 and 4 footprints gave 78.7%, 78.4%, 78.0% within 2x)
CONTEXT_SETS = 1.0
#: ops that are transcendental classes of their own
TRANSCENDENTAL_CLASSES = ("exponential", "log", "tanh", "logistic", "erf", "sine", "cosine",
                          "power")
#: the per-element key of a class measured over short rows (``exponential@short``): rows of 16,
#: scalar code; used for a node whose rows the loop measurements say run as scalar code
SHORT_SUFFIX = "@short"
#: rows shorter than this many elements count as short for the transcendental classes (the
#: backend's loops over rows of 12-48 ran as scalar code on the 2-core VM; a softmax over rows
#: of 8, its exponentials inside a reduction's row loop, took 5 ns per exp, not 0.23)
SHORT_ROW = 64
#: a loop costing more than this many times the loop over the longest rows runs as scalar code
SCALAR_FACTOR = 3.0
#: slower arithmetic with a class of its own
ARITH_CLASSES = ("divide", "sqrt", "rsqrt")
#: data-movement ops with a class of their own
LAYOUT_CLASSES = ("transpose", "concatenate", "slice", "pad", "reverse")
#: the class of a node whose cost is half-precision rounding and conversion (``Calibration.half``)
HALF = "half_precision"
#: the loop kinds of ``Calibration.loop``, by the array operands a node reads
LOOP_KINDS = ("store", "unary", "binary", "ternary")
#: the kind of a broadcast of a constant scalar (stored as an immediate: its own measurement),
#: and the kind whose longest rows it is compared with
STORE_CONST = "store_const"
#: the class of a node whose loop the backend does not vectorise (its row is too short)
SHORT_LOOP = "short_loop"
#: what the dominant-term sentence calls each class
CLASS_WORDS = {
    SHORT_LOOP: "short rows, not vectorised",
    HALF: "bf16/f16 rounding in software",
    "elementwise": "elementwise", "reduce_row": "row reduction",
    "indexed": "loads through computed indices",
    "reduce_col": "column reduction", "reduce_window": "reduce-window",
    "broadcast_inner": "broadcast along inner dimensions",
    "broadcast_outer": "broadcast along outer dimensions",
    **{c: c for c in TRANSCENDENTAL_CLASSES + ARITH_CLASSES + LAYOUT_CLASSES},
    "exponential": "exp", "sine": "sin", "cosine": "cos", "logistic": "logistic",
}
#: the kind of term each class is (the dominant term's first word)
CLASS_KIND = {**{c: "transcendental" for c in TRANSCENDENTAL_CLASSES},
              **{c: "arithmetic" for c in ARITH_CLASSES},
              **{c: "layout" for c in LAYOUT_CLASSES + ("broadcast_inner",
                                                         "broadcast_outer")},
              "reduce_row": "reduction", "reduce_col": "reduction",
              "reduce_window": "reduction", "elementwise": "elementwise", SHORT_LOOP: "loop",
              HALF: "dtype", "indexed": "indexing"}
#: ops whose every result element is loaded through a computed (clamped) index: their class
INDEXED_OPS = ("gather", "dynamic-slice", "dynamic-update-slice")
INDEXED = "indexed"
#: one core's seconds per result element of an :data:`INDEXED_OPS` op (the index vector's
#: loads, the clamp, the address; for dynamic-update-slice the in-window test of every element).
#: Fitted on the tune split: resize_nearest's gathers (0.9-1.0 ns per element beyond the launch),
#: embedding_gather's (1.0 ns), kv_cache_decode's dynamic-update-slices (0.75 ns); the probe's
#: gather measures it (``native["indexed_element_s"]``), this is the default without one
INDEXED_ELEMENT_S = 0.85e-9
#: the native kernels' classes (:mod:`~workbench.costmodel.native`): a class is the op's name,
#: a colon and how it was counted (``while: 6 trips (from the condition)``); its kind
NATIVE_KIND = {"while": "control", "conditional": "control", "sort": "sort", "topk": "sort",
               "scatter": "indexing", "select-and-scatter": "indexing"}


def interp_loglog(points, x: float, extrapolate_linear: bool = True) -> float:
    """``y`` at ``x`` on the piecewise log-log line through ``points`` (``(x, y)``, x > 0,
    sorted or not). Outside the points: proportional to ``x`` from the nearest end
    (``extrapolate_linear``: a time that grows with bytes or FLOPs) or constant."""
    pts = sorted((float(a), float(b)) for a, b in points if a > 0 and b > 0)
    if not pts:
        return 0.0
    if x <= 0:
        return 0.0 if extrapolate_linear else pts[0][1]
    if x <= pts[0][0]:
        return pts[0][1] * (x / pts[0][0] if extrapolate_linear else 1.0)
    if x >= pts[-1][0]:
        return pts[-1][1] * (x / pts[-1][0] if extrapolate_linear else 1.0)
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if x0 <= x <= x1:
            t = (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0)) if x1 > x0 else 0
            return math.exp(math.log(y0) + t * (math.log(y1) - math.log(y0)))
    return pts[-1][1]


def combine(compute_s: float, memory_s: float, overlap: float = OVERLAP) -> float:
    """``c + m - overlap min(c, m)`` (XLA's CombineComputeAndMemoryAccessTime, overlap 0.95;
    a profile's ``overlap`` knob), seconds."""
    return compute_s + memory_s - overlap * min(compute_s, memory_s)


def compute_beyond_memory(total_s: float, memory_s: float) -> float:
    """The compute time ``c`` with :func:`combine` ``(c, memory_s) == total_s``: the probe's
    way of taking the memory term off a measured kernel (0 when it ran at memory speed)."""
    if memory_s <= 0:
        return max(total_s, 0.0)
    if total_s >= (1 + 1 - OVERLAP) * memory_s:
        return total_s - (1 - OVERLAP) * memory_s
    return max(0.0, (total_s - memory_s) / (1 - OVERLAP))


def find_levels(points) -> list[dict]:
    """Memory levels from ``[bytes moved, bandwidth B/s]`` points: where the bandwidth drops.

    The bandwidths are first made non-increasing with size (each the largest of its own and
    those of larger working sets: interference only slows a measurement, and a smaller working
    set is never slower). Scanning by size, a point whose bandwidth is below
    :data:`LEVEL_DROP` of the current level's best opens a new level. The last level is DRAM;
    the ones before it are named LLC, L2, L1 from the outside in.

    Returns
    -------
    list of dict
        ``{"name", "up_to" (bytes the level holds: the largest working set measured in it;
        None for DRAM), "Bps" (its best bandwidth)}``, innermost first.
    """
    pts = sorted((float(b), float(bw)) for b, bw in points if b > 0 and bw > 0)
    if not pts:
        return []
    fixed, best = [], 0.0
    for b, bw in reversed(pts):
        best = max(best, bw)
        fixed.append((b, best))
    fixed.reverse()
    groups = [[fixed[0]]]
    for b, bw in fixed[1:]:
        if bw < LEVEL_DROP * groups[-1][0][1]:
            groups.append([])
        groups[-1].append((b, bw))
    caches = len(groups) - 1
    names = list(LEVEL_NAMES[-caches:]) if caches else []
    while len(names) < caches:
        names.insert(0, f"cache{caches - len(names)}")
    out = [{"name": n, "up_to": int(g[-1][0]), "Bps": g[0][1]} for n, g in zip(names, groups)]
    out.append({"name": "DRAM", "up_to": None, "Bps": groups[-1][0][1]})
    return out


@dataclass(frozen=True)
class Calibration:
    """The probe's measurements (see the module notes); built from the stored JSON object."""

    launch_s: float
    launch_cold: tuple = ()
    stream: tuple = ()
    levels: tuple = ()
    per_element: dict = field(default_factory=dict)
    parallel_speedup: float = 1.0
    parallel_min_work: int = 1 << 20
    contraction: dict = field(default_factory=dict)
    source: str = ""
    launch_ctx: tuple = ()
    #: the share of the shorter of compute and memory hidden (the profile's ``overlap`` knob)
    overlap: float = OVERLAP
    #: loop kind -> ((inner extent, seconds per element), ...) (see the module notes)
    loop: dict = field(default_factory=dict)
    #: half dtype -> {"write": seconds per element, "read": seconds per element}
    half: dict = field(default_factory=dict)
    #: ((seconds of interpreter work between two calls, launch seconds), ...)
    launch_interp: tuple = ()
    #: the native kernels' constants (:data:`workbench.costmodel.native.DEFAULTS` keys, seconds)
    native: dict = field(default_factory=dict)

    @staticmethod
    def from_json(doc: dict) -> "Calibration":
        """Read the stored object (``DeviceProfile.calibration``).

        Raises
        ------
        KeyError, TypeError, ValueError
            For a malformed object (the profile loader then measures again).
        """
        return Calibration(
            float(doc["launch_s"]), tuple(tuple(p) for p in doc.get("launch_cold", ())),
            tuple(tuple(p) for p in doc["stream"]), tuple(dict(x) for x in doc["levels"]),
            {k: tuple(tuple(p) for p in v) for k, v in doc["per_element"].items()},
            float(doc.get("parallel_speedup", 1.0)), int(doc.get("parallel_min_work", 1 << 20)),
            {k: tuple(tuple(p) for p in v) for k, v in doc.get("contraction", {}).items()},
            str(doc.get("source", "")), tuple(tuple(p) for p in doc.get("launch_ctx", ())),
            loop={k: tuple(sorted(tuple(p) for p in v)) for k, v in doc.get("loop", {}).items()},
            half={k: {d: float(x) for d, x in v.items()} for k, v in doc.get("half", {}).items()},
            launch_interp=tuple(tuple(float(x) for x in p)
                                for p in doc.get("launch_interp", ())),
            native={k: float(v) for k, v in doc.get("native", {}).items()})

    # ----- the terms -------------------------------------------------------------------------

    def launch(self, context) -> float:
        """Seconds to launch a kernel in a plan of ``context`` = (footprint bytes, kernels per
        round[, interpreter seconds between two of its calls]), at least the warm launch: the
        ``launch_ctx`` table (plans of 1 to 64 distinct kernels and a footprint of 0 to 32 MiB,
        interpolated log-log in both; a footprint under :data:`LAUNCH_FOOTPRINT_FLOOR` counts
        as the probe's footprint 0), else the ``launch_cold`` curve by footprint (a number
        ``context`` is a footprint); and at least the launch after that much interpretation
        (:meth:`launch_after_interpreter`)."""
        interp = context[2] if isinstance(context, tuple) and len(context) > 2 else 0.0
        base = self._launch(context)
        return max(base, self.launch_after_interpreter(interp)) if interp > 0 else base

    def launch_after_interpreter(self, seconds: float) -> float:
        """The ``launch_interp`` curve at ``seconds`` of interpreter work between two calls of
        a kernel (interpolated log-log, constant beyond its ends; 0 below its first point,
        where the probe saw no difference from the warm launch, or without the curve)."""
        pts = self.launch_interp
        if not pts or seconds < min(p[0] for p in pts):
            return 0.0
        return interp_loglog(pts, seconds, extrapolate_linear=False)

    def _launch(self, context) -> float:
        footprint, kernels = context[:2] if isinstance(context, tuple) else (context, 1)
        if self.launch_ctx:
            rows: dict = {}
            floor = float(LAUNCH_FOOTPRINT_FLOOR)
            for k, fp, sec in self.launch_ctx:
                rows.setdefault(k, []).append((max(fp, floor), sec))
            by_k = [(k, interp_loglog(pts, max(footprint, floor), extrapolate_linear=False))
                    for k, pts in sorted(rows.items())]
            return max(self.launch_s, interp_loglog(by_k, max(kernels, 1),
                                                    extrapolate_linear=False))
        if not self.launch_cold or footprint <= 0:
            return self.launch_s
        return max(self.launch_s, interp_loglog(self.launch_cold, footprint,
                                                extrapolate_linear=False))

    def loop_s(self, kind: str, inner: int) -> float:
        """One core's seconds per element of a loop kernel of ``kind`` (``store``, ``unary``,
        ``binary``) whose innermost loop runs ``inner`` iterations: the measurement at the
        largest extent not above ``inner`` (the smallest one below all of them); 0 when the
        calibration has none."""
        pts = self.loop.get(kind) or ()
        if not pts or inner <= 0:
            return 0.0
        below = [s for n, s in pts if n <= inner]
        return float(below[-1] if below else pts[0][1])

    def memory(self, nbytes: float, context=None) -> float:
        """Seconds to stream ``nbytes`` (read + written) as the probe's kernel does, in a plan
        of ``context`` = (footprint bytes, kernels per round): at most the bandwidth of a
        working set of :data:`CONTEXT_SETS` times the footprint (the operands of a kernel in a
        plan that keeps touching more than a cache holds come from further out)."""
        if nbytes <= 0:
            return 0.0
        own = interp_loglog(self.stream, nbytes)
        footprint = context[0] if isinstance(context, tuple) else (context or 0)
        ws = CONTEXT_SETS * float(footprint)
        if ws <= nbytes:
            return own
        return max(own, nbytes * interp_loglog(self.stream, ws) / ws)

    def level(self, nbytes: float) -> dict:
        """The memory level of a kernel moving ``nbytes``: the innermost that holds them."""
        for lv in self.levels:
            if lv["up_to"] is None or nbytes <= lv["up_to"]:
                return lv
        return self.levels[-1] if self.levels else {"name": "DRAM", "up_to": None, "Bps": 0}

    def per_element_s(self, klass: str, nbytes: float) -> float:
        """One core's seconds per element of ``klass`` at a working set of ``nbytes``."""
        pts = self.per_element.get(klass) or self.per_element.get("elementwise") or ()
        return interp_loglog(pts, max(nbytes, 1.0), extrapolate_linear=False)

    def contraction_s(self, kind: str, flops: float, out_bytes: float,
                      blocked_min_bytes: int) -> float:
        """Seconds of a dot (``kind`` ``dot``) or convolution (``conv``, ``conv_grouped``) of
        ``flops`` writing ``out_bytes``: FLOPs over the rate interpolated among the measured
        shapes of its regime (one BLAS call under ``blocked_min_bytes``, row blocks above)."""
        pts = self.contraction.get(kind) or self.contraction.get("dot") or ()
        if not pts or flops <= 0:
            return 0.0
        big = out_bytes >= blocked_min_bytes
        same = [p for p in pts if (p[1] >= blocked_min_bytes) == big] or list(pts)
        rate = interp_loglog([(f, f / s) for f, _, s in same if s > 0], flops,
                             extrapolate_linear=False)
        return flops / rate if rate > 0 else 0.0


def node_class(index, i: int) -> str:
    """The per-element class of node ``i`` (see the module notes)."""
    graph = index.graph
    op = index.ops[i]
    node = graph.node(index.ids[i])
    if op == "transpose":
        perm = tuple(node.attrs.get("dimensions", ()))
        # keeping the last dimension in place moves whole contiguous rows: a copy
        if perm and perm[-1] == len(perm) - 1:
            return "elementwise"
        return "transpose"
    if op in TRANSCENDENTAL_CLASSES or op in ARITH_CLASSES or op in LAYOUT_CLASSES:
        return op
    if op == "reduce":
        x = graph.node(node.operands[0]).type
        return "reduce_row" if x.rank - 1 in node.attrs.get("dimensions", ()) else "reduce_col"
    if op == "reduce-window":
        return "reduce_window"
    if op in INDEXED_OPS:
        return INDEXED
    if op == "broadcast":
        src = graph.node(node.operands[0]).type
        dims = tuple(node.attrs.get("dimensions", ()))
        if src.size <= 1:
            return "elementwise"
        out_rank = node.type.rank
        return "broadcast_outer" if dims and dims[-1] == out_rank - 1 else "broadcast_inner"
    return "elementwise"


def node_basis(index, i: int) -> tuple[int, int]:
    """(elements the class cost is charged for, bytes of its working set): a reduction's
    input, a reduce-window's taps (:func:`window_taps`), anything else its own result."""
    op = index.ops[i]
    if op == "reduce-window" and index.operands[i]:
        return window_taps(index, i), index.nbytes[index.operands[i][0]]
    if op == "reduce" and index.operands[i]:
        o = index.operands[i][0]
        return index.elements[o], index.nbytes[o]
    return index.elements[i], index.nbytes[i]


#: extra cost of a reduce-window tap, in the probe's per element (an ``add`` over a contiguous
#: unpadded window of 32): a ``maximum``/``minimum`` reducer (NaN-propagating: a compare and a
#: select per tap) and a tap that may fall in padding or a hole of base dilation (the bounds
#: test and select of ``rule_reduce_window``). Fitted on the tune split: maxpool_grad's 2x2
#: max (2.75x the probe's 0.40 ns per tap), avgpool_same's padded 3x3 add (3.0x), cumulative's
#: padded 16-tap add and max (3.6x, 5.1x)
REDUCE_WINDOW_MINMAX = 1.75
REDUCE_WINDOW_SELECT = 2.0


def window_taps(index, i: int) -> int:
    """The taps reduce-window node ``i`` reads: its result's elements times its window's
    (``rule_reduce_window`` of the CPU backend reduces each output element's window tap by tap,
    padding and the holes of base dilation included). On the 2-core VM the cumulative sum of a
    [2, 16] row (window 16, 15 of padding: 512 taps) took 0.8-1.1 µs, charged 32 elements
    (its operand's) before."""
    node = index.graph.node(index.ids[i])
    size = tuple(node.attrs.get("window_size", ()) or ())
    return _first(node.type).size * (math.prod(size) if size else 1)


def _first(t):
    """``t``, or the first element of a tuple type (a variadic reduce-window's result)."""
    return t.elements[0] if hasattr(t, "elements") else t


def window_factor(index, i: int) -> float:
    """The cost of one tap of reduce-window node ``i`` in the probe's per element: 1, plus
    :data:`REDUCE_WINDOW_MINMAX` for a max/min reducer, plus :data:`REDUCE_WINDOW_SELECT` when
    a tap may fall outside the operand (low padding, a window overhanging the high end, base
    dilation: where ``rule_reduce_window`` emits a bounds test and a select)."""
    node = index.graph.node(index.ids[i])
    xs = _first(index.graph.node(node.operands[0]).type).shape
    out = _first(node.type).shape
    rank = len(xs)
    size = node.attrs.get("window_size", (1,) * rank)
    stride = node.attrs.get("window_stride", (1,) * rank)
    pad = node.attrs.get("window_padding", ((0, 0),) * rank)
    base = node.attrs.get("base_dilation", (1,) * rank)
    wdil = node.attrs.get("window_dilation", (1,) * rank)
    select = any(base[d] > 1 or pad[d][0] > 0
                 or (out[d] - 1) * stride[d] + (size[d] - 1) * wdil[d] - pad[d][0] >= xs[d]
                 for d in range(rank))
    minmax = node.attrs.get("reducer") in ("maximum", "minimum")
    return 1.0 + (REDUCE_WINDOW_MINMAX if minmax else 0.0) + (REDUCE_WINDOW_SELECT if select
                                                              else 0.0)


def node_compute_s(index, i: int, cal: Calibration) -> tuple[str, float]:
    """(class, one core's compute seconds) of node ``i`` outside a contraction: its elements
    at its class's per-element cost; a composite (gelu, softmax ...) by its FLOPs at the
    elementwise cost and its transcendentals at the cost of ``exp``."""
    if index.source[i] or index.contraction[i] or index.opaque[i]:
        return "elementwise", 0.0
    elements, nbytes = node_basis(index, i)
    klass = node_class(index, i)
    from workbench.ir.ops import get_op

    if get_op(index.ops[i]).composite:
        exp = "exponential" + (SHORT_SUFFIX if _short_rows(index, i, cal, "exponential")
                               else "")
        per = (index.flops[i] * cal.per_element_s("elementwise", nbytes)
               + index.trans[i] * cal.per_element_s(exp, nbytes))
        return "elementwise", per
    if klass == "elementwise" and _no_statement(index, i):
        return klass, 0.0
    scale = 1.0
    if klass == "elementwise" and elements:
        scale = max(1.0, index.flops[i] / elements)
    if klass == INDEXED:
        return klass, elements * cal.native.get("indexed_element_s", INDEXED_ELEMENT_S)
    if klass == "reduce_window":
        return klass, elements * window_factor(index, i) * cal.per_element_s(klass, nbytes)
    if klass in TRANSCENDENTAL_CLASSES and _short_rows(index, i, cal, klass):
        return klass, elements * cal.per_element_s(klass + SHORT_SUFFIX, nbytes)
    return klass, elements * scale * cal.per_element_s(klass, nbytes)


def _no_statement(index, i: int) -> bool:
    """Whether node ``i`` lowers to no arithmetic of its own: a reshape or bitcast (an index
    computation) or a broadcast of one element (a literal, or a value hoisted out of the
    loop). Its elements cost nothing beyond the bytes its kernel moves."""
    op = index.ops[i]
    if op in ("reshape", "bitcast"):
        return True
    return op == "broadcast" and all(index.elements[o] <= 1 for o in index.operands[i])


def _short_rows(index, i: int, cal: Calibration, klass: str) -> bool:
    """Whether ``klass`` was measured over short rows and node ``i``'s rows are short: the
    one-input loop over rows of its length ran as scalar code (more than
    :data:`SCALAR_FACTOR` times the loop over the longest rows; without loop measurements, rows
    under :data:`SHORT_ROW`)."""
    if klass + SHORT_SUFFIX not in cal.per_element:
        return False
    shape = getattr(index.graph.node(index.ids[i]).type, "shape", ())
    if not shape:
        return False
    pts = cal.loop.get("unary")
    if pts:
        return cal.loop_s("unary", int(shape[-1])) > SCALAR_FACTOR * max(pts[-1][1], 1e-12)
    return shape[-1] < SHORT_ROW


#: the classes whose node is a loop over its result (the ones :attr:`Calibration.loop` covers)
LOOP_CLASSES = ("elementwise", "broadcast_inner", "broadcast_outer") + ARITH_CLASSES


def node_loop(index, i: int) -> tuple[str, int] | None:
    """(loop kind, inner extent) of node ``i`` run as a kernel of its own, or None for a node
    that is no loop over its result (a scalar, a reduction, a contraction, a layout op, a
    transcendental, a free alias). The kind counts the arrays it streams besides its result
    (``store``: none, ``unary``, ``binary``, ``ternary``: three or more); the inner extent is
    its result's last dimension."""
    if index.source[i] or index.free[i] or index.opaque[i] or index.reduction[i] \
            or index.contraction[i]:
        return None
    node = index.graph.node(index.ids[i])
    shape = getattr(node.type, "shape", None)
    if not shape or index.elements[i] <= 1:
        return None
    arrays = sum(1 for o in dict.fromkeys(index.operands[i]) if index.elements[o] > 1)
    if node.op == "broadcast":
        # along the inner dimension the row stores one loaded value: a store loop
        dims = tuple(node.attrs.get("dimensions", ()))
        arrays = 1 if arrays and dims and dims[-1] == len(shape) - 1 else 0
        if not arrays and index.operands[i] and index.ops[index.operands[i][0]] == "constant":
            return STORE_CONST, int(shape[-1])
    return LOOP_KINDS[min(arrays, len(LOOP_KINDS) - 1)], int(shape[-1])


def node_loop_s(index, i: int, cal: Calibration, klass: str) -> float:
    """One core's seconds node ``i``'s loop costs beyond the same loop over long rows, when it
    runs as a kernel of its own (see the module notes): its elements at the loop cost of its
    kind and inner extent less the cost at the longest rows measured. 0 for a node of another
    class, or without ``Calibration.loop``."""
    if klass not in LOOP_CLASSES or not cal.loop:
        return 0.0
    loop = node_loop(index, i)
    if loop is not None and loop[0] == STORE_CONST and not cal.loop.get(STORE_CONST):
        loop = ("store", loop[1])        # a calibration from before the constant's kind
    if loop is None or not cal.loop.get(loop[0]):
        return 0.0
    # a constant's store is compared with the vectorised store of a loaded value: it is
    # slower at every row length, not only over short rows
    kind = "store" if loop[0] == STORE_CONST and cal.loop.get("store") else loop[0]
    base = cal.loop[kind][-1][1]
    return index.elements[i] * max(cal.loop_s(*loop) - base, 0.0)


def node_work(index, i: int) -> int:
    """Statement executions of node ``i`` in a kernel, the measure of the backend's parallel
    threshold (``nest_work`` in workbench/codegen/kernel_ir.py counts the lowered kernel's):
    one per element of its value (a reduction's per element of its input), none for a node
    that lowers to no statement (a reshape or bitcast: an index; a broadcast of a constant or
    of a value computed in the kernel: a literal or a temporary reused), for a broadcast of a
    parameter a load in the loop of its operand's innermost dimension (once per element of
    the result's dimensions up to that one: a row vector broadcast along rows loads once
    per row). The loads and stores of the kernel's own inputs
    and outputs are added by :func:`speedup`, from the bytes it moves.

    On every compiled kernel of the 63 benchmark models (2,633, the contractions left out)
    this and :func:`speedup` chose the backend's serial or parallel loop for all but the
    three of composite ops (sample graphs' ``layer_norm``, ``gelu``); two per node, the
    measure before, chose wrongly for 10, among them the fused chains of ``chain10`` and
    ``chain10_transc`` (predicted parallel, run serial: 2.6x slower than predicted)."""
    if index.source[i] or index.free[i] or _no_statement(index, i):
        return 0
    if index.ops[i] == "broadcast":
        o = index.operands[i][0] if index.operands[i] else None
        if o is None or index.ops[o] != "parameter":
            return 0
        # the load sits in the loop of the operand's innermost dimension (hoisted out of the
        # loops inside it): once per element of the result's leading dimensions up to there
        node = index.graph.node(index.ids[i])
        dims = tuple(node.attrs.get("dimensions", ()) or ())
        shape = tuple(getattr(node.type, "shape", ()) or ())
        return math.prod(shape[:max(dims) + 1]) if dims else 0
    return node_basis(index, i)[0]


@dataclass(frozen=True)
class NodeCosts:
    """Per node of one graph, on one calibrated CPU: class, compute seconds (one core),
    contraction seconds, work; what the planner sums incrementally."""

    klass: list
    compute_s: list
    dot_s: list
    work: list
    #: the contraction's seconds when other ops share its kernel (an output fusion)
    dot_fused_s: list = field(default_factory=list)
    #: the extra seconds of the node's loop over short rows when it is a kernel of its own
    #: (:func:`node_loop_s`; a fused kernel is taken to be vectorised)
    loop_s: list = field(default_factory=list)
    #: node -> (amount, unit) its compute is counted in, where it is not elements (the native
    #: kernels: trips, comparisons, taps ...; :mod:`~workbench.costmodel.native`)
    units: dict = field(default_factory=dict)


def contraction_kind(index, i: int) -> str:
    node = index.graph.node(index.ids[i])
    if node.op in ("convolution", "conv2d"):
        return "conv_grouped" if int(node.attrs.get("feature_group_count", 1) or 1) > 1 \
            else "conv"
    return "dot"


def dot_calls(index, i: int, blocked_min_bytes: int) -> int:
    """The BLAS calls a dot runs: one per batch (the product of its batch dimensions) when its
    result is small enough for one core (under ``blocked_min_bytes``), else 1 (the row blocks
    of a large one are timed as one contraction). On the 2-core VM a dot of 512 FLOPs took
    0.17 µs, and a batch of eight of them 1.1 µs."""
    node = index.graph.node(index.ids[i])
    if node.op != "dot" or index.nbytes[i] >= blocked_min_bytes or not node.operands:
        return 1
    lhs = index.graph.node(node.operands[0]).type
    calls = 1
    for d in node.attrs.get("lhs_batch_dims", ()) or ():
        calls *= int(lhs.shape[d])
    return max(calls, 1)


def node_costs(index, cal: Calibration, blocked_min_bytes: int) -> NodeCosts:
    """:class:`NodeCosts` of every node of ``index`` on ``cal``."""
    n = len(index)
    klass, comp, dots, work = [""] * n, [0.0] * n, [0.0] * n, [0] * n
    fused, loops = [0.0] * n, [0.0] * n
    for i in range(n):
        if index.contraction[i]:
            kind = contraction_kind(index, i)
            calls = dot_calls(index, i, blocked_min_bytes)
            flops, out = index.flops[i] / calls, index.nbytes[i] / calls
            if calls > 1 and cal.contraction.get("dot_batched"):
                dots[i] = fused[i] = calls * cal.contraction_s("dot_batched", flops, out,
                                                               blocked_min_bytes)
            else:
                dots[i] = calls * cal.contraction_s(kind, flops, out, blocked_min_bytes)
                fused[i] = (calls * cal.contraction_s(kind + "_fused", flops, out,
                                                      blocked_min_bytes)
                            if cal.contraction.get(kind + "_fused") else dots[i])
            klass[i] = "contraction"
        else:
            klass[i], comp[i] = node_compute_s(index, i, cal)
            loops[i] = node_loop_s(index, i, cal, klass[i])
        half = half_s(index, i, cal)
        if half > 0:
            if index.contraction[i]:
                dots[i] += half
                fused[i] += half
            else:
                if half > comp[i]:
                    klass[i] = HALF
                comp[i] += half
        work[i] = node_work(index, i)
    return NodeCosts(klass, comp, dots, work, fused, loops)


#: ops whose half-precision result copies values of their (first) operand's dtype
HALF_COPY_OPS = ("reshape", "broadcast", "transpose", "slice", "copy", "reverse",
                 "concatenate", "pad", "bitcast")


def half_s(index, i: int, cal: Calibration) -> float:
    """One core's seconds node ``i`` spends rounding its half-precision result and widening its
    half-precision operands (see the module notes; 0 without ``Calibration.half``)."""
    if not cal.half or index.source[i] or index.free[i] or index.opaque[i]:
        return 0.0
    # a broadcast scalar is encoded once, out of the loop
    if index.ops[i] in ("broadcast", "iota") and all(index.elements[o] <= 1
                                                     for o in index.operands[i]):
        return 0.0
    graph = index.graph
    dtype = getattr(graph.node(index.ids[i]).type, "dtype", None)
    copy = (cal.half.get(dtype) or {}).get("copy")
    if copy is not None and index.ops[i] in HALF_COPY_OPS and all(
            getattr(graph.node(index.ids[o]).type, "dtype", None) == dtype
            for o in index.operands[i][:1]):
        # a copy of values already in the dtype: the probe's copy, not a write and a read
        return index.elements[i] * copy
    total = 0.0
    if dtype in cal.half:
        total += index.elements[i] * cal.half[dtype].get("write", 0.0)
    elements = node_basis(index, i)[0]
    for o in dict.fromkeys(index.operands[i]):
        od = getattr(graph.node(index.ids[o]).type, "dtype", None)
        if od in cal.half and index.elements[o] > 1:
            reads = index.flops[i] / 2 if index.contraction[i] else elements
            total += reads * cal.half[od].get("read", 0.0)
    return total


#: bytes a kernel moves per load or store statement (float32), for :func:`speedup`
LOAD_BYTES = 4


def speedup(cal: Calibration, work: float, rows: int = 2, nbytes: float = 0.0) -> float:
    """The parallel speedup of a kernel doing ``work`` statement executions (:func:`node_work`
    summed over its members) and moving ``nbytes`` (read + written; one load or store per
    :data:`LOAD_BYTES`) over ``rows`` outer iterations: 1 below the backend's threshold
    (``parallel_min_work``), or with one row."""
    if work + nbytes / LOAD_BYTES >= cal.parallel_min_work and rows > 1:
        return max(cal.parallel_speedup, 1.0)
    return 1.0


def cpu_time(cal: Calibration, compute_s: float, dot_s: float, nbytes: float, work: float,
             traffic: float, rows: int = 2) -> float:
    """Predicted seconds of a kernel from its summed terms (see the module notes)."""
    compute = compute_s / speedup(cal, work, rows, nbytes) + dot_s
    return cal.launch(traffic) + combine(compute, cal.memory(nbytes, traffic), cal.overlap)


def cpu_terms(cal: Calibration, by_class: dict, dot_s: float, nbytes: float, work: float,
              traffic: float, rows: int = 2) -> tuple[dict, str, float]:
    """(terms, dominant, predicted seconds) of one kernel: ``terms`` maps ``launch``,
    ``memory`` and each compute class present (``contraction`` included) to seconds after the
    parallel speedup; ``dominant`` names the largest (``memory (L2)``, ``transcendental
    (sin)``, ``reduction (column reduction)``, ``layout (transpose)``, ``contraction``,
    ``launch``)."""
    sp = speedup(cal, work, rows, nbytes)
    terms = {"launch": cal.launch(traffic), "memory": cal.memory(nbytes, traffic)}
    for k, v in by_class.items():
        if v > 0:
            terms[k] = terms.get(k, 0.0) + v / sp
    if dot_s > 0:
        terms["contraction"] = dot_s
    compute = sum(v for k, v in terms.items() if k not in ("launch", "memory"))
    predicted = terms["launch"] + combine(compute, terms["memory"], cal.overlap)
    return terms, dominant_term(terms, cal.level(nbytes)["name"]), predicted


def dominant_term(terms: dict, level: str) -> str:
    """The largest of ``terms`` in words (see :func:`cpu_terms`)."""
    if not terms:
        return "launch"
    name = max(terms, key=lambda k: terms[k])
    if name == "memory":
        return f"memory ({level})"
    if name in ("launch", "contraction", "compute"):
        return name
    kind = CLASS_KIND.get(name) or NATIVE_KIND.get(name.split(":", 1)[0], "compute")
    return f"{kind} ({CLASS_WORDS.get(name, name)})"

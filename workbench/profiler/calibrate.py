"""The CPU calibration probe: micro-kernels compiled by the workbench's own CPU backend, timed
as the profiler times kernels, turned into the numbers the cost model reads.

``workbench devices --refresh`` runs :func:`calibrate_cpu`, which measures (see
:mod:`workbench.costmodel.calibration` for what each number means and how the model uses it):

* the launch of a one-element kernel, warm, after the plan streams 256 KiB to 256 MiB, and
  after 0.1 to 10 ms of the numpy reference interpreter (what a fallback kernel runs);
* a streaming kernel (``y = 2 x``) at 16 working sets from 8 KiB to 256 MiB moved: the memory
  term, and the memory levels, found where its bandwidth drops;
* one kernel per op class on 16,384 float32 elements (64 KiB, a working set every level-2
  cache holds), and the classes whose speed depends on the access pattern (column reductions,
  transposes, broadcasts) again at 2 M elements (8 MiB): cheap elementwise ops (a chain of
  32), exp, log, tanh, logistic, erf, sin, cos, pow (also over rows of 16, where they run as
  scalar code), divide, sqrt, rsqrt, row and column reductions, reduce-window, transpose, broadcasts along inner and outer dimensions,
  concatenate, slice, pad, reverse;
* a sine kernel above the backend's parallel threshold: the parallel speedup;
* loop kernels (a broadcast scalar, a negate, a multiply, ``x * y + z``) on 16,384 elements in
  rows of 2 to 256:
  where the backend's row loops are vectorised and where they run as scalar code;
* converts of 4,096 elements into and out of bf16 and f16 (stored as bits, rounded and widened
  in software): what a half-precision value costs to write and to read;
* the native kernels (:mod:`workbench.profiler.calibrate_native`): sorts, a topk, scatters, a
  gather, a select-and-scatter (of small models' sizes) and a counting while loop: seconds per
  comparison, element, update window and element, tap and trip;
* dots from 4x8x8 to 1024^3 (the small ones: a call costs ~0.2 µs however little it computes)
  and convolutions (3x3, 1x1, depthwise) by shape.

Each kernel runs in a plan of its own, many times in a row; its typical run counts (the 25th
percentile of its runs: the profile reports medians, which a burst of load inflates more), and
the whole probe runs three times, each number the best of the rounds (interference only slows a
run); the launch in context takes the median. The probe measures whatever the backend does: run it again after the
code generator changes (threads, vectorised math, serial or parallel choices) and the cost model
follows. It takes about a minute the first time (compiling about 70 kernels; cached after) and
10-20 s after that.
"""

from __future__ import annotations

import os
import platform
import time

import numpy as np

from workbench.costmodel.calibration import (SHORT_SUFFIX, TRANSCENDENTAL_CLASSES,
                                             compute_beyond_memory, find_levels, interp_loglog)
from workbench.ir import GraphBuilder, verify
from workbench.profiler.calibrate_native import measure_native

#: seconds each kernel's timing loop runs in one round (at least MIN_RUNS runs)
RUN_BUDGET_S = 0.08
MIN_RUNS = 5
#: elements of the per-class kernels (64 KiB of float32), and of the large-working-set ones
SMALL = 1 << 14
LARGE = 1 << 21
#: streaming kernel sizes (elements of the input; bytes moved = 8 x elements)
STREAM_ELEMENTS = tuple(1 << k for k in range(10, 26))
#: streams between two calls of the tiny kernel for the cold launch (elements)
COLD_ELEMENTS = (1 << 15, 1 << 18, 1 << 21, 1 << 23, 1 << 25)
#: classes measured at both sizes (their speed depends on the access pattern)
STRIDED = ("reduce_col", "reduce_row", "transpose", "broadcast_inner", "broadcast_outer")
#: elements of the small reductions (4 KiB: rows of 32, what small models reduce), and the
#: classes measured at that size too (a column reduction of 32 columns ran 5-10x faster per
#: element than one of 16,384 elements)
TINY = 1 << 10
TINY_CLASSES = ("reduce_col", "reduce_row")
#: batched dots (batch, M, K, N) whose result is under CPU_PARALLEL_MIN_BYTES: the backend runs
#: one BLAS call per batch, and a call after the first costs less than one alone (on the 2-core
#: VM eight calls of 1,024 FLOPs took 3.1 us in all, one alone 0.9 us beyond the launch)
DOT_BATCHES = ((8, 4, 8, 8), (8, 8, 8, 8), (8, 8, 16, 16), (8, 16, 32, 32), (4, 32, 64, 64))
#: dot shapes (M, K, N) and convolutions (NHWC input, HWIO kernel, groups); each regime (a
#: result under the backend's parallel threshold, one BLAS call on one core; a larger one in
#: blocks over the cores) has points across its FLOPs: with only the 1 KiB convolution in the
#: one-core regime, every small convolution was charged its rate (a 2.4 MFLOP one of a ResNet
#: block predicted 369 us, measured 216 us), and the one-core dots stopped at 0.5 MFLOP
DOTS = ((4, 8, 8), (8, 16, 16), (16, 32, 32), (32, 64, 64), (64, 64, 64), (16, 1024, 256),
        (128, 128, 128), (128, 512, 256), (256, 256, 256), (256, 512, 512),
        (512, 512, 512), (512, 512, 1024), (1024, 1024, 1024))
CONVS = (((2, 4, 4, 8), (3, 3, 8, 8), 1), ((4, 8, 8, 32), (3, 3, 32, 32), 1),
         ((4, 16, 16, 16), (3, 3, 16, 32), 1), ((8, 32, 32, 32), (3, 3, 32, 64), 1),
         ((8, 32, 32, 64), (1, 1, 64, 64), 1), ((2, 8, 16, 32), (3, 3, 1, 32), 32),
         ((8, 32, 32, 64), (3, 3, 1, 64), 64), ((8, 64, 64, 64), (3, 3, 1, 64), 64))


# ----- running one plan ---------------------------------------------------------------------------

def time_plan(graph, groups, inputs, cache_dir=None, budget_s=RUN_BUDGET_S):
    """Compile ``graph`` with ``groups`` (lists of node ids, one kernel each) on the CPU
    backend, run it until ``budget_s`` has passed, and return ``(times, kernels)``: an array
    (runs x kernels) of seconds and the compiled kernels."""
    from workbench.codegen import compile_plan
    from workbench.planner.plan import make_plan

    plan = make_plan(graph, groups, policy="calibrate")
    compiled = compile_plan(graph, plan, "cpu", cache_dir=cache_dir)
    env = compiled.prepare(inputs)
    compiled.execute(env)
    runs, t0 = [], time.perf_counter()
    while len(runs) < MIN_RUNS or time.perf_counter() - t0 < budget_s:
        times: list[float] = []
        compiled.execute(env, times)
        runs.append(times)
        if len(runs) >= 20000:
            break
    return np.asarray(runs), compiled.call


#: the percentile of a kernel's runs the probe keeps: a typical run (the profile reports
#: medians), less sensitive to bursts of load than the median; the rounds take the best of it
TYPICAL_PERCENTILE = 25


def typical(seconds) -> float:
    """The :data:`TYPICAL_PERCENTILE` of a kernel's run times."""
    return float(np.percentile(np.asarray(seconds), TYPICAL_PERCENTILE))


def _inputs(graph, low=0.5, high=1.5):
    """Inputs in [low, high) for every parameter (positive, so log, sqrt, pow are finite)."""
    rng = np.random.default_rng(0)
    return [rng.uniform(low, high, p.type.shape).astype(np.float32) for p in graph.parameters]


def _one_kernel(graph):
    return [[n for n in graph.topo_order if graph.node(n).op not in ("parameter", "constant")]]


class FellBack(Exception):
    """A probe kernel ran through numpy: it measures nothing of the backend."""


def _best(graph, cache_dir):
    times, kernels = time_plan(graph, _one_kernel(graph), _inputs(graph), cache_dir)
    if kernels[0].fallback:
        raise FellBack(f"{graph.name}: {kernels[0].fallback_reason}")
    return typical(times[:, 0]), "PARALLEL = True" in (kernels[0].source or "")


# ----- the measurements ---------------------------------------------------------------------------

def _stream_graph(n: int):
    """The streaming kernel ``y = 2 x`` over ``n`` float32 elements and a one-element kernel
    after it, and their groups."""
    b = GraphBuilder(f"stream{n}")
    x, s = b.parameter("x", (n,)), b.parameter("s", (16,))
    y = b.op("multiply", [x, b.splat(2.0, (n,))], node_id="y")
    g = verify(b.build([y, b.op("negate", [s], node_id="tiny")]))
    return g, [[m for m in g.topo_order if g.node(m).op == "broadcast"] + ["y"], ["tiny"]]


def _stream_and_cold(cache_dir, progress):
    """(warm launch, [[bytes, seconds]] of the stream kernel, [[bytes between, seconds]] of a
    tiny kernel's launch after it)."""
    stream, cold = [], []
    b = GraphBuilder("launch")
    s = b.parameter("s", (16,))
    g = verify(b.build([b.op("negate", [s], node_id="tiny")]))
    warm = typical(time_plan(g, [["tiny"]], _inputs(g), cache_dir)[0][:, 0])
    for k, n in enumerate(STREAM_ELEMENTS):
        _tick(progress, f"streaming kernel, {8 * n >> 10} KiB moved", k, len(STREAM_ELEMENTS))
        g, groups = _stream_graph(n)
        times, _ = time_plan(g, groups, _inputs(g), cache_dir)
        stream.append([8 * n, max(typical(times[:, 0]) - warm, 1e-9)])
        if n in COLD_ELEMENTS:
            cold.append([8 * n, float(np.percentile(times[:, 1], 25))])
    return warm, stream, cold


#: plans of this many distinct kernels, and a footprint of this many bytes, for launch_ctx
CONTEXT_KERNELS = (1, 16, 64)
CONTEXT_BYTES = (0, 4 << 20, 32 << 20)
_CONTEXT_OPS = ("negate", "abs", "floor", "ceil", "sign", "sqrt", "exponential", "tanh")


def _launch_context(cache_dir, progress):
    """[[kernels, footprint bytes, median seconds]] of a one-element kernel run in a plan of
    ``kernels`` distinct kernels (one-op kernels on 256 to 320 elements, each its own code)
    and, when ``footprint`` > 0, a streaming kernel over that many bytes."""
    out = []
    jobs = [(k, fp) for k in CONTEXT_KERNELS for fp in CONTEXT_BYTES]
    for j, (k, fp) in enumerate(jobs):
        _tick(progress, f"launch among {k} kernels, footprint {fp >> 20} MiB", j, len(jobs))
        b = GraphBuilder(f"context{k}_{fp}")
        groups, outs = [], []
        for i in range(k - 1):
            x = b.parameter(f"p{i}", (256 + i,))
            outs.append(b.op(_CONTEXT_OPS[i % len(_CONTEXT_OPS)], [x], node_id=f"c{i}"))
            groups.append([outs[-1]])
        if fp:
            n = fp // 8
            two = b.splat(2.0, (n,))
            big = b.op("multiply", [b.parameter("big", (n,)), two], node_id="stream")
            outs.append(big)
            groups.append([two, big])
        tiny = b.op("negate", [b.parameter("s", (16,))], node_id="tiny")
        outs.append(tiny)
        groups.append([tiny])
        g = verify(b.build(outs))
        times, _ = time_plan(g, groups, _inputs(g), cache_dir)
        out.append([k, fp, float(np.median(times[:, -1]))])
    return out


#: seconds of reference-interpreter work between two calls of the tiny kernel, for
#: launch_interp, and the seconds each measurement may take (at least MIN_RUNS calls)
INTERP_GAPS = (1e-4, 1e-3, 3e-3, 1e-2)
INTERP_BUDGET_S = 0.15


def _interpreter_work():
    """A function that runs the numpy reference interpreter (what a fallback kernel runs) on a
    small graph of assorted ops (64 x 256 float32: scale, exp, row sum, divide, transpose)."""
    from workbench.ir.interpreter import evaluate

    b = GraphBuilder("interpreted")
    x = b.parameter("x", (64, 256))
    y = b.op("exponential", [b.op("multiply", [x, b.splat(0.5, (64, 256))])])
    r = b.reduce(y, (1,), "add", 0.0)
    z = b.op("divide", [y, b.op("broadcast", [r], shape=(64, 256), dimensions=(0,))])
    g = verify(b.build([b.op("transpose", [z], dimensions=(1, 0))]))
    inputs = _inputs(g)

    def work(seconds: float):
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            evaluate(g, inputs)
    return work


def _launch_after_interpreter(cache_dir, progress):
    """[[interpreter seconds, typical seconds]] of a one-element kernel called after that much
    work of the numpy reference interpreter (see ``Calibration.launch_interp``)."""
    from workbench.codegen import compile_plan
    from workbench.planner.plan import make_plan

    b = GraphBuilder("launch_interp")
    s = b.parameter("s", (16,))
    g = verify(b.build([b.op("negate", [s], node_id="tiny")]))
    compiled = compile_plan(g, make_plan(g, [["tiny"]], policy="calibrate"), "cpu",
                            cache_dir=cache_dir)
    env = compiled.prepare(_inputs(g))
    compiled.execute(env)
    work = _interpreter_work()
    out = []
    for j, gap in enumerate(INTERP_GAPS):
        _tick(progress, f"launch after {gap * 1e3:g} ms of the interpreter", j,
              len(INTERP_GAPS))
        runs = max(MIN_RUNS, int(INTERP_BUDGET_S / gap))
        secs = []
        for _ in range(runs):
            work(gap)
            times: list[float] = []
            compiled.execute(env, times)
            secs.append(times[0])
        # the typical run, as for the other kernels: under load the median of these short
        # calls moved (60 ns after 0.1 ms at load 7, 30 ns idle) while the 25th percentile held
        out.append([gap, typical(secs)])
    return out


#: multiply-add pairs of the cheap elementwise class's kernel: enough that its compute is
#: well above streaming its bytes, so that the per-op cost can be taken off the memory term.
#: With a chain of eight ops the 64 KiB kernel ran at memory speed and the probe stored
#: 1e-13 s (nothing) per op; on the 2-core VM (AMD EPYC, AVX2) a chain of 32 costs 0.013 ns
#: per op and element on one core (a fused layer norm + GELU kernel's ~25 arithmetic ops per
#: element: about 45 µs over 131,072 elements, which the model had as free)
ELEMENTWISE_PAIRS = 16


def _class_graph(klass: str, n: int):
    """A one-kernel graph of ``klass`` on about ``n`` float32 elements, and the elements the
    class is charged for."""
    rows = max(n // 256, 1)
    b = GraphBuilder(f"{klass}{n}")
    if klass == "elementwise":
        x = b.parameter("x", (n,))
        y = x
        for k in range(ELEMENTWISE_PAIRS):
            y = b.op("add", [b.op("multiply", [y, b.splat(1.0001, (n,))]), b.splat(0.5, (n,))])
        return verify(b.build([y])), 2 * ELEMENTWISE_PAIRS * n
    shape = (n,)
    if klass.endswith(SHORT_SUFFIX):        # the same op over rows of 16: scalar code
        klass, shape = klass[:-len(SHORT_SUFFIX)], (n // 16, 16)
    if klass in ("exponential", "log", "tanh", "logistic", "erf", "sine", "cosine", "sqrt",
                 "rsqrt"):
        x = b.parameter("x", shape)
        return verify(b.build([b.op(klass, [x])])), n
    if klass in ("power", "divide"):
        x, y = b.parameter("x", shape), b.parameter("y", shape)
        return verify(b.build([b.op(klass, [x, y])])), n
    if klass in ("reduce_row", "reduce_col", "reduce_window", "transpose", "reverse"):
        shape = (rows, 256) if klass != "reduce_col" else (256, rows) if n <= SMALL else \
            (n // 1024, 1024)
        if n < SMALL:                       # a small model's reduction: rows of 32
            shape = (n // 32, 32)
        x = b.parameter("x", shape)
        if klass == "reduce_row":
            out = b.reduce(x, (1,), "add", 0.0)
        elif klass == "reduce_col":
            out = b.reduce(x, (0,), "add", 0.0)
        elif klass == "reduce_window":
            out = b.op("reduce-window", [x, b.constant(0.0)], window_size=(1, 32),
                       window_stride=(1, 32), window_padding=((0, 0), (0, 0)), reducer="add")
        elif klass == "transpose":
            out = b.op("transpose", [x], dimensions=(1, 0))
        else:
            out = b.op("reverse", [x], dimensions=(1,))
        return verify(b.build([out])), n
    if klass in ("broadcast_inner", "broadcast_outer"):
        inner = klass == "broadcast_inner"
        x = b.parameter("x", (rows,) if inner else (256,))
        out = b.op("broadcast", [x], shape=(rows, 256), dimensions=(0,) if inner else (1,))
        return verify(b.build([out])), rows * 256
    if klass == "concatenate":
        x, y = b.parameter("x", (rows, 128)), b.parameter("y", (rows, 128))
        return verify(b.build([b.op("concatenate", [x, y], dimension=1)])), rows * 256
    if klass == "slice":
        x = b.parameter("x", (rows, 512))
        out = b.op("slice", [x], start_indices=(0, 128), limit_indices=(rows, 384),
                   strides=(1, 1))
        return verify(b.build([out])), rows * 256
    if klass == "pad":
        x = b.parameter("x", (rows, 240))
        out = b.op("pad", [x, b.constant(0.0)], padding=((0, 0, 0), (8, 8, 0)))
        return verify(b.build([out])), rows * 256
    raise ValueError(f"no probe kernel for class {klass!r}")


CLASSES = ("elementwise", "exponential", "log", "tanh", "logistic", "erf", "sine", "cosine",
           "power", "divide", "sqrt", "rsqrt", "reduce_row", "reduce_col", "reduce_window",
           "transpose", "broadcast_inner", "broadcast_outer", "concatenate", "slice", "pad",
           "reverse")


def _moved_bytes(graph) -> int:
    outs = sum(graph.node(o).type.nbytes for o in graph.outputs)
    return outs + sum(p.type.nbytes for p in graph.parameters)


def _per_element(warm, stream, cache_dir, progress, speedup_of):
    out: dict[str, list] = {}
    jobs = [(c, SMALL) for c in CLASSES] + [(c, LARGE) for c in STRIDED] + \
        [(c, TINY) for c in TINY_CLASSES if c in CLASSES] + \
        [(c + SHORT_SUFFIX, SMALL) for c in CLASSES if c in TRANSCENDENTAL_CLASSES]
    for k, (klass, n) in enumerate(jobs):
        _tick(progress, f"{klass} on {n} elements", k, len(jobs))
        g, charged = _class_graph(klass, n)
        try:
            t, parallel = _best(g, cache_dir)
        except FellBack:
            continue        # the class keeps the elementwise cost (Calibration.per_element_s)
        moved = _moved_bytes(g)
        compute = compute_beyond_memory(t - warm, interp_loglog(stream, moved))
        if parallel:
            compute *= speedup_of
        out.setdefault(klass, []).append([moved, max(compute / charged, 1e-13)])
    return out


#: inner extents of the loop kernels (``Calibration.loop``): where LLVM's vectoriser turns on
#: and off for the backend's row loops, the cliffs measured on the 2-core VM included
LOOP_EXTENTS = (2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256)
LOOP_KINDS = ("store", "store_const", "unary", "binary", "ternary")


def _loop_graph(kind: str, inner: int, n: int = SMALL):
    """A one-kernel loop over ``(n // inner, inner)`` float32 elements: a broadcast scalar
    (``store``: a parameter's; ``store_const``: a constant's, which the backend stores as an
    immediate and ran 2.3x slower per element on the 2-core VM), a negate (``unary``), a
    multiply (``binary``) or ``x * y + z`` (``ternary``)."""
    shape = (max(n // inner, 1), inner)
    b = GraphBuilder(f"loop_{kind}{inner}")
    if kind == "store":
        out = b.op("broadcast", [b.parameter("s", ())], shape=shape, dimensions=())
    elif kind == "store_const":
        out = b.op("broadcast", [b.constant(1.5)], shape=shape, dimensions=())
    elif kind == "unary":
        out = b.op("negate", [b.parameter("x", shape)])
    elif kind == "binary":
        out = b.op("multiply", [b.parameter("x", shape), b.parameter("y", shape)])
    else:
        xy = b.op("multiply", [b.parameter("x", shape), b.parameter("y", shape)])
        out = b.op("add", [xy, b.parameter("z", shape)])
    return verify(b.build([out])), shape[0] * shape[1]


def _loops(warm, stream, cache_dir, progress):
    """``kind -> [[inner extent, seconds per element beyond memory]]`` of the loop kernels."""
    out: dict[str, list] = {}
    jobs = [(k, e) for k in LOOP_KINDS for e in LOOP_EXTENTS]
    for j, (kind, inner) in enumerate(jobs):
        _tick(progress, f"{kind} loop, rows of {inner}", j, len(jobs))
        g, n = _loop_graph(kind, inner)
        try:
            t, _ = _best(g, cache_dir)
        except FellBack:
            continue
        compute = compute_beyond_memory(t - warm, interp_loglog(stream, _moved_bytes(g)))
        out.setdefault(kind, []).append([inner, max(compute / n, 1e-13)])
    return out


#: the half-precision dtypes the backend stores as bits, rounding and converting in software
HALF_DTYPES = ("bf16", "f16")
HALF_ELEMENTS = 1 << 12


def _half_graph(dtype: str, direction: str):
    """A convert of ``(16, 256)``-shaped data into (``write``) or out of (``read``) ``dtype``,
    or (``copy``) a broadcast of a ``dtype[256]`` row into ``(16, 256)`` (a copy of values
    already in ``dtype``)."""
    shape = (HALF_ELEMENTS // 256, 256)
    b = GraphBuilder(f"half_{dtype}_{direction}")
    if direction == "write":
        out = b.op("convert", [b.parameter("x", shape)], dtype=dtype)
    elif direction == "copy":
        out = b.op("broadcast", [b.parameter("x", (256,), dtype=dtype)], shape=shape,
                   dimensions=(1,))
    else:
        out = b.op("convert", [b.parameter("x", shape, dtype=dtype)], dtype="f32")
    return verify(b.build([out]))


def _halves(warm, stream, cache_dir, progress):
    """``dtype -> {"write": s, "read": s, "copy": s}``: seconds per element beyond memory of
    rounding and storing a float32 as ``dtype``, of loading and widening one, and of copying a
    ``dtype`` value (widened and stored again)."""
    from workbench.ir import make_inputs

    out: dict[str, dict] = {}
    jobs = [(d, w) for d in HALF_DTYPES for w in ("write", "read", "copy")]
    for j, (dtype, direction) in enumerate(jobs):
        _tick(progress, f"{dtype} {direction}", j, len(jobs))
        g = _half_graph(dtype, direction)
        times, kernels = time_plan(g, _one_kernel(g), make_inputs(g, 0), cache_dir)
        if kernels[0].fallback:
            continue
        compute = compute_beyond_memory(typical(times[:, 0]) - warm,
                                        interp_loglog(stream, _moved_bytes(g)))
        out.setdefault(dtype, {})[direction] = max(compute / HALF_ELEMENTS, 1e-13)
    return out


def _parallel_speedup(warm, stream, cache_dir, serial_per_element):
    """A sine kernel over LARGE elements (parallel in the backend) against the serial cost
    per element measured on SMALL ones."""
    g, n = _class_graph("sine", LARGE)
    t, parallel = _best(g, cache_dir)
    if not parallel:
        return 1.0
    per = compute_beyond_memory(t - warm, interp_loglog(stream, _moved_bytes(g))) / n
    return max(1.0, serial_per_element / per) if per > 0 else 1.0


def _with_epilogue(b, c, width: int):
    """``relu(c + bias)``, the bias a vector along ``c``'s last dimension."""
    shape = b.type(c).shape
    bias = b.op("broadcast", [b.parameter("bias", (width,))], shape=shape,
                dimensions=(len(shape) - 1,))
    return b.op("maximum", [b.op("add", [c, bias]), b.splat(0.0, shape)])


def _contraction_graph(kind: str, shape, epilogue: bool):
    """A dot ``(M, K, N)``, a batched dot ``(batch, M, K, N)`` (``dot_batched``) or a
    convolution ``(input, kernel, groups)``, alone or with a bias + ReLU epilogue in its
    kernel; and its FLOPs."""
    from workbench.ir.ops import get_op

    b = GraphBuilder(f"{kind}{'_fused' if epilogue else ''}")
    if kind == "dot":
        m, kk, n = shape
        x, w = b.parameter("x", (m, kk)), b.parameter("w", (kk, n))
        c = b.op("dot", [x, w], lhs_contracting_dims=(1,), rhs_contracting_dims=(0,),
                 lhs_batch_dims=(), rhs_batch_dims=())
    elif kind == "dot_batched":
        bt, m, kk, n = shape
        x, w = b.parameter("x", (bt, m, kk)), b.parameter("w", (bt, kk, n))
        c = b.op("dot", [x, w], lhs_contracting_dims=(2,), rhs_contracting_dims=(1,),
                 lhs_batch_dims=(0,), rhs_batch_dims=(0,))
    else:
        xs, ws, groups = shape
        x, w = b.parameter("x", xs), b.parameter("w", ws)
        c = b.op("conv2d", [x, w], strides=(1, 1), padding="SAME", feature_group_count=groups)
    out = _with_epilogue(b, c, b.type(c).shape[-1]) if epilogue else c
    g = verify(b.build([out]))
    node = g.node(c)
    flops = get_op(node.op).flops(tuple(g.node(o).type for o in node.operands), node.type,
                                  node.attrs)
    return g, flops, node.type.nbytes


def _contractions(warm, cache_dir, progress):
    """``kind -> [[FLOPs, result bytes, seconds]]`` for dots and convolutions alone (``dot``,
    ``conv``, ``conv_grouped``) and with a bias + ReLU epilogue in the same kernel (the same
    kinds with ``_fused``: an output fusion; the backend's row-block epilogue has costs of its
    own, such as the block's scratch result). ``dot_batched``: the batched dots of
    :data:`DOT_BATCHES`, alone, as ``[FLOPs, result bytes, seconds]`` *per batch* (one BLAS
    call each)."""
    out: dict[str, list] = {}
    jobs = [("dot", d, e) for d in DOTS for e in (False, True)] + \
        [("conv", c, e) for c in CONVS for e in (False, True)] + \
        [("dot_batched", d, False) for d in DOT_BATCHES]
    for k, (kind, shape, epilogue) in enumerate(jobs):
        _tick(progress, f"{kind} {shape}{' + bias + relu' if epilogue else ''}", k, len(jobs))
        g, flops, out_bytes = _contraction_graph(kind, shape, epilogue)
        try:
            t, _ = _best(g, cache_dir)
        except FellBack:
            continue
        name = "conv_grouped" if kind == "conv" and shape[2] > 1 else kind
        calls = shape[0] if kind == "dot_batched" else 1
        out.setdefault(name + ("_fused" if epilogue else ""), []).append(
            [flops / calls, out_bytes // calls, max(t - warm, 1e-9) / calls])
    return out


def _tick(progress, message, k, n):
    if progress is not None:
        progress("calibrate", k + 1, n, message)


#: the whole probe runs this many times, each number the best of the rounds: a burst of load
#: from another process spoils a round's measurement of some kernels, not all rounds'
ROUNDS = 3


def _measure_round(cache_dir, progress, r):
    """One round of every measurement (the first compiles the kernels)."""
    def tick(stage, k, n, message):
        if progress is not None:
            progress(stage, k, n, f"round {r + 1} of {ROUNDS}: {message}")

    warm, stream, cold = _stream_and_cold(cache_dir, tick)
    context = _launch_context(cache_dir, tick)
    g, n = _class_graph("sine", SMALL)
    t, _ = _best(g, cache_dir)
    sine1 = compute_beyond_memory(t - warm, interp_loglog(stream, _moved_bytes(g))) / n
    speed = _parallel_speedup(warm, stream, cache_dir, sine1)
    per_element = _per_element(warm, stream, cache_dir, tick, speed)
    contraction = _contractions(warm, cache_dir, tick)
    loops = _loops(warm, stream, cache_dir, tick)
    halves = _halves(warm, stream, cache_dir, tick)
    interp = _launch_after_interpreter(cache_dir, tick)
    native = measure_native(warm, cache_dir, tick, time_plan, typical)
    return (warm, stream, cold, speed, per_element, contraction, context, loops, halves, interp,
            native)


def _merge(rounds):
    """Each number the best of the rounds (interference only slows a kernel): the least
    seconds, the largest speedup."""
    def least(lists, key_len):
        out: dict = {}
        for pts in lists:
            for p in pts:
                key = tuple(p[:key_len])
                out[key] = min(out.get(key, p[key_len]), p[key_len])
        return [list(k) + [v] for k, v in sorted(out.items())]

    warm = min(r[0] for r in rounds)
    stream = least([r[1] for r in rounds], 1)
    cold = least([r[2] for r in rounds], 1)
    speed = max(r[3] for r in rounds)
    classes = sorted({k for r in rounds for k in r[4]})
    per_element = {k: least([r[4].get(k, []) for r in rounds], 1) for k in classes}
    kinds = sorted({k for r in rounds for k in r[5]})
    contraction = {k: least([r[5].get(k, []) for r in rounds], 2) for k in kinds}
    context = least([r[6] for r in rounds], 2)
    kinds = sorted({k for r in rounds for k in r[7]})
    loops = {k: least([r[7].get(k, []) for r in rounds], 1) for k in kinds}
    halves: dict = {}
    for r in rounds:
        for dtype, dirs in r[8].items():
            for d, sec in dirs.items():
                have = halves.setdefault(dtype, {})
                have[d] = min(have.get(d, sec), sec)
    interp = least([r[9] for r in rounds], 1)
    native: dict = {}
    for r in rounds:
        for k, sec in r[10].items():
            native[k] = min(native.get(k, sec), sec)
    return (warm, stream, cold, speed, per_element, contraction, context, loops, halves, interp,
            native)


def calibrate_cpu(progress=None, cache_dir=None) -> dict:
    """Measure this machine with the CPU backend's own kernels (see the module notes).

    Parameters
    ----------
    progress : callable(stage, k, n, message), optional
    cache_dir : path, optional
        The kernel cache (default: the workbench's).

    Returns
    -------
    dict
        The calibration object :class:`~workbench.costmodel.calibration.Calibration` reads,
        with ``source`` (what was measured, where, when) and ``levels``.
    """
    from workbench.codegen.cpu import PARALLEL_MIN_WORK

    start = time.time()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    rounds = [_measure_round(cache_dir, progress, r) for r in range(ROUNDS)]
    warm, stream, cold, speed, per_element, contraction, context, loops, halves, interp, \
        native = _merge(rounds)
    # a working set streamed in less time than a launch measures the launch, not a bandwidth
    levels = find_levels([(b, b / s) for b, s in stream if s >= warm] or
                         [(b, b / s) for b, s in stream])
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(start))
    busy = f", load average {load:.1f}" if load is not None else ""
    source = (f"calibrated on {platform.node()} ({os.cpu_count()} CPUs{busy}) at {when} with "
              f"the workbench's CPU backend: {len(stream)} streaming kernels (8 KiB-"
              f"{stream[-1][0] >> 20} MiB; memory levels where their bandwidth drops), "
              f"{sum(len(v) for v in per_element.values())} op-class kernels, "
              f"{sum(len(v) for v in loops.values())} loop kernels by row length, "
              f"{sum(len(v) for v in contraction.values())} dots and convolutions, warm and "
              f"cold launches, launches after the interpreter, {len(native)} native-kernel "
              f"constants (sort, topk, scatter, gather, select-and-scatter, while); best of many runs each, the best of {ROUNDS} rounds, in "
              f"{time.time() - start:.0f} s")
    return {"version": 1, "launch_s": warm, "launch_cold": cold, "launch_ctx": context,
            "stream": stream,
            "levels": levels, "per_element": per_element, "parallel_speedup": speed,
            "parallel_min_work": int(PARALLEL_MIN_WORK), "contraction": contraction,
            "loop": loops, "half": halves, "launch_interp": interp, "native": native,
            "source": source, "measured_at": start, "load_avg": load}


#: what :func:`drift` times again: the streaming kernel at 1 MiB moved and the 256^3 dot
DRIFT_STREAM_ELEMENTS = 1 << 17
DRIFT_DOT = (256, 256, 256)


def drift(calibration: dict, cache_dir=None) -> dict:
    """Two of the probe's kernels timed again, against what the calibration measured.

    The machine a calibration measured may not be the machine that runs the plan hours later:
    on the 2-core development VM the probe's 256^3 dot took 0.72 ms at 14:04 and 1.4-2.3 ms in
    every process two hours later, and the cost model's dots were 2-3x too fast from then on.
    ``profile`` runs this after its timings and says so when a kernel runs
    :data:`~workbench.profiler.report.DRIFT_FACTOR` times slower or faster
    (:func:`~workbench.profiler.report.drift_note`).

    Parameters
    ----------
    calibration : dict
        A CPU profile's ``calibration`` (:func:`calibrate_cpu`).
    cache_dir : path, optional
        The kernel cache (the probe's kernels are in it after a calibration).

    Returns
    -------
    dict
        ``{"stream": now / then, "dot": now / then}`` for the kernels the calibration holds
        (the typical run, launch taken off, as the probe measures them), and ``measured_at``.
    """
    warm = float(calibration.get("launch_s") or 0.0)
    out: dict = {"measured_at": calibration.get("measured_at")}
    n = DRIFT_STREAM_ELEMENTS
    then = [t for b, t in calibration.get("stream") or () if b == 8 * n]
    if then:
        g, groups = _stream_graph(n)
        times, kernels = time_plan(g, groups, _inputs(g), cache_dir)
        if not kernels[0].fallback:
            out["stream"] = max(typical(times[:, 0]) - warm, 1e-9) / then[0]
    g, flops, out_bytes = _contraction_graph("dot", DRIFT_DOT, False)
    then = [t for f, b, t in (calibration.get("contraction") or {}).get("dot", ())
            if f == flops and b == out_bytes]
    if then:
        try:
            now = _best(g, cache_dir)[0]
        except FellBack:
            return out
        out["dot"] = max(now - warm, 1e-9) / then[0]
    return out


def refresh_cpu_profile(progress=None, cache_dir=None):
    """Measure the ``cpu`` profile again, quick probe and calibration, and store it as this
    machine's profile (what ``workbench devices --refresh`` does); returns the profile. It
    holds the profile's lock (:func:`~workbench.costmodel.devices.profile_lock`) while it
    measures: a second refresh, or a first use calibrating (:mod:`workbench.profiler.
    first_use`), waits for this one.

    Raises
    ------
    OSError
        If the profile cannot be written to the workbench's cache directory.
    """
    from workbench.costmodel.devices import profile_lock

    with profile_lock(blocking=True):
        return calibrate_profile(progress, cache_dir)


def calibrate_profile(progress=None, cache_dir=None):
    """The quick probe and the calibration, stored (atomically) as this machine's ``cpu``
    profile; the caller holds the profile's lock (:func:`refresh_cpu_profile`,
    :func:`~workbench.profiler.first_use.ensure_calibrated`). Returns the profile."""
    from workbench.costmodel.devices import (cpu_profile_path, measure_cpu, with_calibration,
                                             write_cpu_profile)

    quick, busy = measure_cpu()
    profile = with_calibration(quick, calibrate_cpu(progress, cache_dir))
    write_cpu_profile(profile, cpu_profile_path().parent, busy=busy)
    return profile

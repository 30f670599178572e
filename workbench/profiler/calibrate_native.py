"""The calibration probe's native kernels: sort, topk, scatter, gather, select-and-scatter and a
while loop, compiled by the CPU backend from small HLO modules and timed as the other probe
kernels (:func:`workbench.profiler.calibrate.time_plan`), turned into the seconds per
comparison, element, update, tap and iteration that :mod:`workbench.costmodel.native` prices
these kernels with (the keys of :data:`workbench.costmodel.native.DEFAULTS`).

The shapes are those of small models (a few thousand elements: the per-element cost of a
large kernel running alone, hot, is up to half of what the same kernel costs at a model's
size). Two shapes of one kernel separate a per-row (per-window) cost from a per-comparison
(per-element) one: a sort of [256, 8] and of [8, 256] (6,144 and 16,384 comparisons over 256
and 8 rows); a scatter of 128 windows of 32 elements and of 128 windows of one. A key the probe
could not measure (a kernel that ran through numpy, or a solution that is not positive) is left
out, and the model keeps its default.
"""

from __future__ import annotations

import numpy as np

#: JAX's float comparator (NaN and -0 canonicalised, then a TOTALORDER less-than): what a
#: jnp.sort compiles to
_F32_LT = """
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  nan = f32[] constant(nan)
  zero = f32[] constant(0)
  a_nan = pred[] compare(a, a), direction=NE
  a_zero = pred[] compare(a, zero), direction=EQ
  a0 = f32[] select(a_zero, zero, a)
  a1 = f32[] select(a_nan, nan, a0)
  b_nan = pred[] compare(b, b), direction=NE
  b_zero = pred[] compare(b, zero), direction=EQ
  b0 = f32[] select(b_zero, zero, b)
  b1 = f32[] select(b_nan, nan, b0)
  ROOT lt = pred[] compare(a1, b1), direction=LT, type=TOTALORDER
}
"""

_ADD = """
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
"""

_GE = """
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT g = pred[] compare(a, b), direction=GE
}
"""


def _sort(rows: int, n: int) -> str:
    return "HloModule s\n" + _F32_LT + f"""
ENTRY e {{
  x = f32[{rows},{n}] parameter(0)
  ROOT s = f32[{rows},{n}] sort(x), dimensions={{1}}, is_stable=true, to_apply=cmp
}}
"""


_TOPK = """HloModule t
ENTRY e {
  x = f32[16,256] parameter(0)
  ROOT t = (f32[16,4], s32[16,4]) topk(x), k=4, largest=true
}
"""

_SCATTER_ROWS = "HloModule s\n" + _ADD + """
ENTRY e {
  o = f32[64,32] parameter(0)
  i = s32[128,1] parameter(1)
  u = f32[128,32] parameter(2)
  ROOT s = f32[64,32] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
"""

_SCATTER_POINTS = "HloModule s\n" + _ADD + """
ENTRY e {
  o = f32[64,32] parameter(0)
  i = s32[128,2] parameter(1)
  u = f32[128] parameter(2)
  ROOT s = f32[64,32] scatter(o, i, u), update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=add
}
"""

_GATHER = """HloModule g
ENTRY e {
  t = f32[64,32] parameter(0)
  i = s32[64,1] parameter(1)
  ROOT g = f32[64,32] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,32}
}
"""

_SELECT = "HloModule s\n" + _GE + _ADD + """
ENTRY e {
  x = f32[1,16,16,8] parameter(0)
  s = f32[1,8,8,8] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[1,16,16,8] select-and-scatter(x, s, z), window={size=1x2x2x1 stride=1x2x2x1}, select=ge, scatter=add
}
"""

#: trips of the probe's counting loop
WHILE_TRIPS = 1000

_WHILE = f"""HloModule w
body {{
  p = (s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[]) tuple(i2)
}}
cond {{
  p = (s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant({WHILE_TRIPS})
  ROOT lt = pred[] compare(i, n), direction=LT
}}
ENTRY e {{
  z = s32[] constant(0)
  t = (s32[]) tuple(z)
  ROOT w = (s32[]) while(t), condition=cond, body=body
}}
"""


def _inputs(graph, rng):
    """Uniform floats for float parameters; in-range row (and column) indices for integer
    ones (the probe's tables have 64 rows and 32 columns)."""
    out = []
    for p in graph.parameters:
        t = p.type
        if t.dtype.startswith("s"):
            hi = np.array([64, 32][:t.shape[-1]] if t.shape[-1] <= 2 else [64])
            out.append((rng.integers(0, 1 << 20, t.shape) % hi).astype(np.int32))
        else:
            out.append(rng.uniform(-1, 1, t.shape).astype(np.float32))
    return out


def _time(text: str, cache_dir, op: str, time_plan, typical) -> float | None:
    """The typical seconds of the native kernel of ``op`` in the module ``text`` (None when
    it ran through numpy), timed by the probe's ``time_plan`` and ``typical``."""
    from workbench.importers.hlo import parse_hlo

    graph = parse_hlo(text, f"probe_{op}.hlo")
    groups = [[n] for n in graph.topo_order
              if graph.node(n).op not in ("parameter", "constant")]
    times, kernels = time_plan(graph, groups, _inputs(graph, np.random.default_rng(0)),
                               cache_dir)
    for k, kern in enumerate(kernels):
        if op in (kern.ops or ()):
            return None if kern.fallback else typical(times[:, k])
    return None


def measure_native(warm: float, cache_dir, tick, time_plan, typical) -> dict:
    """Seconds per unit of the native kernels (see the module notes), keys of
    :data:`workbench.costmodel.native.DEFAULTS`; ``warm`` is the warm launch taken off each
    kernel; ``tick(stage, k, n, message)`` reports progress; ``time_plan`` and ``typical`` are
    the probe's (:mod:`workbench.profiler.calibrate`, which calls this). A key that could not
    be measured is left out."""
    from workbench.costmodel.native import DEFAULTS

    out: dict = {}
    steps = 8

    def t(k, text, op):
        tick("native", k, steps, f"native kernel: {op}")
        s = _time(text, cache_dir, op, time_plan, typical)
        return None if s is None else max(s - warm, 0.0)

    a, b = t(0, _sort(256, 8), "sort"), t(1, _sort(8, 256), "sort")
    if a is not None and b is not None:
        # a = 256 r + 6144 c; b = 8 r + 16384 c
        c = (b - a * 8 / 256) / (16384 - 6144 * 8 / 256)
        r = (a - 6144 * c) / 256
        if c > 0:
            out["sort_compare_s"] = c
        if r > 0:
            out["sort_row_s"] = r
    k = t(2, _TOPK, "topk")
    if k is not None and k > DEFAULTS["topk_call_s"]:
        out["topk_element_s"] = (k - DEFAULTS["topk_call_s"]) / (16 * 256)
    rows, points = t(3, _SCATTER_ROWS, "scatter"), t(4, _SCATTER_POINTS, "scatter")
    if rows is not None and points is not None:
        # rows = 128 w + 4096 e; points = 128 w + 128 e
        e = (rows - points) / (4096 - 128)
        w = (points - 128 * e) / 128
        if e > 0:
            out["scatter_update_s"] = e
        if w > 0:
            out["scatter_window_s"] = w
    g = t(5, _GATHER, "gather")
    if g is not None and g > 0:
        out["indexed_element_s"] = g / (64 * 32)
    s = t(6, _SELECT, "select-and-scatter")
    if s is not None and s > 0:
        out["select_tap_s"] = s / (8 * 8 * 8 * 4)
    w = t(7, _WHILE, "while")
    if w is not None:
        # each trip runs the condition's and the body's kernel: two warm launches
        out["while_iter_s"] = max(w / WHILE_TRIPS - 2 * warm, 0.0)
    return out

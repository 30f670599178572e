"""Facts: the numbers a lesson shows, each with where it came from.

A lesson's text is a template (:mod:`.template`); every figure in it is a :class:`Fact` computed
here from the graph, the planner, the cost model, a graph transform or a profile, never typed
by hand. A fact knows its unit (how it is written, with :mod:`workbench.fmt`) and its source (the
app shows it on hover). A fact of a profile not measured yet is *pending*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from workbench.fmt import fmt_bytes, fmt_count, fmt_rate, fmt_time
from workbench.teaching.measure import call_time

#: where a fact comes from
SOURCES = ("graph", "planner", "cost model", "transform", "profile", "rule")
#: a measured time more than this factor away from its prediction (either way) is a miss
MISS_FACTOR = 2.0
#: a measured speedup must be at least this for a "faster" claim to hold (5 %: below it, or
#: below the spread of the runs, two plans' times are the same within measurement noise)
FASTER_MARGIN = 1.05
#: what a pending (not yet measured) fact shows
PENDING = "measuring…"


@dataclass(frozen=True)
class Fact:
    """One figure or phrase a lesson shows.

    Parameters
    ----------
    value : float, int, str or None
        None while a profile has not measured it yet.
    unit : str
        ``bytes``, ``seconds``, ``count``, ``ratio`` (``2.31x``), ``share`` (a fraction, written
        ``42 %``), ``flop-rate``, ``bytes-rate``, ``text``.
    source : str
        One of :data:`SOURCES`.
    what : str
        How it was obtained, in words (shown on hover).
    """

    value: object
    unit: str
    source: str
    what: str = ""

    def __post_init__(self):
        if self.source not in SOURCES:
            raise ValueError(f"unknown fact source {self.source!r}")

    @property
    def pending(self) -> bool:
        """True while the value is not known yet (a profile still to run)."""
        return self.value is None

    def text(self) -> str:
        """The value as the lesson writes it (:data:`PENDING` while pending)."""
        v = self.value
        if v is None:
            return PENDING
        if self.unit == "text":
            return str(v)
        if isinstance(v, float) and not math.isfinite(v):
            return "-"
        return _FORMATS[self.unit](v)


def _ratio(x: float) -> str:
    return f"{x:.2f}x" if x < 100 else f"{x:.0f}x"


_FORMATS = {
    "bytes": fmt_bytes,
    "seconds": fmt_time,
    "count": lambda n: fmt_count(int(n)),
    "ratio": _ratio,
    "flop-rate": lambda x: fmt_rate(x, "FLOP/s"),
    "bytes-rate": lambda x: fmt_rate(x, "B/s"),
    "intensity": lambda x: f"{x:.3g} FLOP/B",
    "flop-eq": lambda x: (fmt_count(round(x)) if x >= 1000 else f"{x:.3g}")
    + " FLOP-equivalents",
    "share": lambda x: f"{100 * x:.0f} %",
}


def graph_facts(graph) -> dict[str, Fact]:
    """``graph.ops`` (ops that run, sources left out), ``graph.inputs``, ``graph.input_bytes``
    (the largest input's size) and ``graph.elements`` (its element count); for every node,
    ``value.<id>`` (its value's size) and ``flops.<id>`` (the op's FLOPs), ``users.<id>`` (how
    many ops read it)."""
    from workbench.ir.index import graph_index
    from workbench.planner.plan import is_source

    ops = [n for n in graph.nodes if not is_source(graph, n.id)]
    params = list(graph.parameters)
    big = max(params, key=lambda n: n.type.nbytes, default=None)
    index = graph_index(graph)
    per_node = {}
    for i, nid in enumerate(index.ids):
        node = graph.node(nid)
        per_node[f"value.{nid}"] = Fact(node.type.nbytes, "bytes", "graph",
                                        f"size of {nid}'s value ({node.type})")
        per_node[f"flops.{nid}"] = Fact(index.flops[i], "count", "graph",
                                        f"FLOPs of {nid} ({node.op})")
        per_node[f"users.{nid}"] = Fact(len(graph.users(nid)), "count", "graph",
                                        f"ops that read {nid}")
    return per_node | {
        "graph.ops": Fact(len(ops), "count", "graph", "ops in the graph (inputs left out)"),
        "graph.inputs": Fact(len(params), "count", "graph", "graph inputs"),
        "graph.input_bytes": Fact(big.type.nbytes if big else 0, "bytes", "graph",
                                  f"size of the largest input ({big.id})" if big else ""),
        "graph.elements": Fact(big.type.size if big else 0, "count", "graph",
                               "elements of the largest input"),
    }


def _heaviest(cost) -> object:
    """The per-call kernel of a PlanCost with the largest predicted time."""
    groups = [c for gid, c in cost.groups.items() if cost.roles.get(gid, "call") == "call"]
    return max(groups, key=lambda c: c.predicted_s, default=cost.total)


def ridge(device, level: str | None) -> float:
    """The roofline's ridge point, FLOP-equivalents per byte: the device's peak FLOP rate over
    the bandwidth of memory ``level`` (``l2``, ``llc``, ``dram``; DRAM for an unknown or mixed
    level). A kernel whose intensity is above it is compute-bound in the cost model."""
    bandwidth = dict((name, bw) for name, _, bw in device.memory_levels()).get(
        level or "dram", device.bandwidth_Bps)
    return device.peak_flops / bandwidth


def stage_facts(key: str, cost, device) -> dict[str, Fact]:
    """The cost model's figures of one stage's plan (a ``PlanCost``), under ``key.*``.

    ``kernels``, ``bytes_read``, ``bytes_written``, ``bytes_moved``, ``flops``,
    ``transcendentals``, ``flop_equivalents`` (FLOPs plus transcendentals at the device's
    FLOP cost each), ``predicted`` (per call), ``launch`` (the kernels' launch overhead),
    ``intensity`` (FLOP-equivalents per byte moved), and of the slowest kernel ``bound``,
    ``level`` (its memory level), ``kernel_compute`` and ``kernel_memory`` (its compute and
    memory times, seconds), ``kernel_flop_equivalents``, ``kernel_intensity`` and ``ridge``
    (peak FLOP rate over its level's bandwidth, FLOP/B).
    """
    from workbench.costmodel.text import bound_label

    t = cost.total
    where = f"cost model ({device.name})"
    moved = t.bytes_read + t.bytes_written
    slow = _heaviest(cost)
    level = {"l2": "L2", "llc": "LLC", "dram": "DRAM", "mixed": "several levels"}.get(
        slow.memory_level or "", slow.memory_level or "-")
    f = {
        "kernels": Fact(t.kernels, "count", "cost model", f"{where}: kernels per call"),
        "bytes_read": Fact(t.bytes_read, "bytes", "cost model", f"{where}: bytes read"),
        "bytes_written": Fact(t.bytes_written, "bytes", "cost model",
                              f"{where}: bytes written"),
        "bytes_moved": Fact(moved, "bytes", "cost model", f"{where}: bytes read + written"),
        "flops": Fact(t.flops, "count", "cost model", f"{where}: FLOPs"),
        "transcendentals": Fact(t.transcendentals, "count", "cost model",
                                f"{where}: transcendentals"),
        "predicted": Fact(t.predicted_s, "seconds", "cost model",
                          f"{where}: predicted time per call"),
        "predicted_unfused": Fact(cost.unfused_total.predicted_s, "seconds", "cost model",
                                  f"{where}: predicted time of the same graph unfused"),
        "launch": Fact(t.kernels * device.launch_overhead_s, "seconds", "cost model",
                       f"{where}: kernels x launch overhead"),
        "flop_equivalents": Fact(t.flop_equivalents, "flop-eq", "cost model",
                                 f"{where}: FLOP-equivalents, the FLOPs plus each "
                                 f"transcendental counted as {device.transcendental_flops:g} "
                                 f"FLOPs (what compute time counts)"),
        "intensity": Fact(t.flop_equivalents / moved if moved else 0.0, "intensity",
                          "cost model", f"{where}: FLOP-equivalents per byte moved"),
        "kernel_flop_equivalents": Fact(slow.flop_equivalents, "flop-eq", "cost model",
                                        f"{where}: the slowest kernel's FLOP-equivalents"),
        "kernel_intensity": Fact(slow.arithmetic_intensity, "intensity", "cost model",
                                 f"{where}: the slowest kernel's FLOP-equivalents per byte"),
        "ridge": Fact(ridge(device, slow.memory_level), "intensity", "cost model",
                      f"{where}: peak FLOP rate over the bandwidth of the slowest kernel's "
                      f"memory level; above it a kernel is compute-bound"),
        "bound": Fact(bound_label(slow.bound, slow.memory_level, device), "text", "cost model",
                      f"{where}: what bounds the slowest kernel"),
        "level": Fact(level, "text", "cost model",
                      f"{where}: where the slowest kernel's data stream from"),
        "kernel_compute": Fact(slow.compute_s, "seconds", "cost model",
                               f"{where}: the slowest kernel's compute time"),
        "kernel_memory": Fact(slow.memory_s, "seconds", "cost model",
                              f"{where}: the slowest kernel's memory time"),
    }
    if device.kind == "gpu":
        f["registers"] = Fact(t.registers_per_thread, "count", "cost model",
                              f"{where}: the most registers per thread of any kernel")
        f["occupancy"] = Fact(f"{100 * (t.occupancy or 0):.0f} %", "text", "cost model",
                              f"{where}: the lowest occupancy of any kernel")
    return {f"{key}.{k}": v for k, v in f.items()}


def comparison_facts(key: str, cost, base, device) -> dict[str, Fact]:
    """What stage ``key`` saves against the unfused ``base`` (both ``PlanCost``): ``saved_bytes``,
    ``saved_kernels``, ``saving`` (seconds), ``speedup`` (predicted), ``bytes_ratio`` (bytes
    moved unfused over fused: the speedup a purely memory-bound sequence would get)."""
    where = f"cost model ({device.name})"
    t, u = cost.total, base.total
    moved, moved_u = t.bytes_read + t.bytes_written, u.bytes_read + u.bytes_written
    f = {
        "saved_bytes": Fact(moved_u - moved, "bytes", "cost model",
                            f"{where}: bytes moved unfused minus this plan's"),
        "saved_kernels": Fact(u.kernels - t.kernels, "count", "cost model",
                              f"{where}: kernels unfused minus this plan's"),
        "saving": Fact(u.predicted_s - t.predicted_s, "seconds", "cost model",
                       f"{where}: predicted time unfused minus this plan's"),
        "speedup": Fact(u.predicted_s / t.predicted_s if t.predicted_s else math.inf, "ratio",
                        "cost model", f"{where}: predicted unfused time over this plan's"),
        "bytes_ratio": Fact(moved_u / moved if moved else math.inf, "ratio", "cost model",
                            f"{where}: bytes moved unfused over this plan's"),
        "bytes_saved_share": Fact(1 - moved / moved_u if moved_u else 0.0, "share",
                                  "cost model", f"{where}: share of the bytes moved unfused "
                                  "that this plan no longer moves"),
    }
    return {f"{key}.{k}": v for k, v in f.items()}


MEASURED_FIELDS = ("measured", "measured_unfused", "measured_speedup", "time_saved_share",
                   "measured_bytes",
                   "measured_unfused_bytes", "measured_vs_predicted",
                   "measured_unfused_vs_predicted", "backend", "spread", "noisy")


def measured_facts(key: str, record: dict | None, predicted: float | None = None,
                   predicted_unfused: float | None = None) -> dict[str, Fact]:
    """The profile's figures of stage ``key`` (a :mod:`.measure` record, or None: pending).

    ``measured`` and ``measured_unfused`` (the whole call, fused and its unfused baseline: the
    median of the profiler's runs, or the fastest run when the profiler found them noisy),
    ``measured_speedup``, ``time_saved_share`` (the share of the unfused time the plan no
    longer takes), ``measured_bytes`` and
    ``measured_unfused_bytes`` (the bytes of the compiled kernels' arguments, read and
    written), ``measured_vs_predicted`` (measured over predicted, for fused and unfused),
    ``backend``, ``spread`` (the fused runs' interquartile range).
    """
    r = record or {}
    what = "profile on this machine" + (f" ({r['backend']} backend)" if r.get("backend") else "")

    def fact(name, value, unit, text):
        return f"{key}.{name}", Fact(value, unit, "profile", f"{what}: {text}")

    # on a busy machine the median is disturbed; the fastest run is the one to compare
    # (workbench.profiler.report.Timing)
    which = "fastest run (the timings were noisy)" if r.get("noisy") else "median"
    fused, unfused = call_time(r, "fused"), call_time(r, "unfused")
    out = dict([
        fact("measured", fused, "seconds", f"time per call, fused: {which}"),
        fact("measured_unfused", unfused, "seconds", f"time per call, unfused: {which}"),
        fact("measured_speedup", unfused / fused if fused and unfused else None, "ratio",
             "measured unfused time over fused"),
        fact("time_saved_share", 1 - fused / unfused if fused and unfused else None, "share",
             "share of the unfused time per call that this plan no longer takes"),
        fact("measured_bytes", r.get("bytes_fused"), "bytes",
             "bytes of the fused kernels' arguments"),
        fact("measured_unfused_bytes", r.get("bytes_unfused"), "bytes",
             "bytes of the unfused kernels' arguments"),
        fact("measured_vs_predicted", fused / predicted if fused and predicted else None,
             "ratio", "measured fused time over the cost model's prediction"),
        fact("measured_unfused_vs_predicted",
             unfused / predicted_unfused if unfused and predicted_unfused else None, "ratio",
             "measured unfused time over the cost model's prediction"),
        fact("backend", r.get("backend"), "text", "the backend that ran the kernels"),
        fact("spread", r.get("fused_spread_s"), "seconds",
             "interquartile range of the fused runs"),
        fact("noisy", ("yes" if r.get("noisy") else "no") if r else None, "text",
             "whether the profiler found the timings noisy (a busy machine)"),
    ])
    return out


def rule_facts() -> dict[str, Fact]:
    """The thresholds the claim checks apply (:mod:`.claims`), so that a verdict can state its
    rule: ``rule.faster_margin`` (the least time saving a "faster" claim needs, a share) and
    ``rule.miss_factor`` (how far off a prediction may be)."""
    return {
        "rule.faster_margin": Fact(FASTER_MARGIN - 1, "share", "rule",
                                   "least share of the time a faster plan must save "
                                   "(workbench.teaching.facts.FASTER_MARGIN)"),
        "rule.miss_factor": Fact(MISS_FACTOR, "ratio", "rule",
                                 "a prediction off by more than this factor is a miss "
                                 "(workbench.teaching.facts.MISS_FACTOR)"),
    }


def missed(ratio: float | None) -> bool | None:
    """True when a measured/predicted ratio is off by more than :data:`MISS_FACTOR` either way;
    None when unknown."""
    if ratio is None or not math.isfinite(ratio) or ratio <= 0:
        return None
    return ratio > MISS_FACTOR or ratio < 1 / MISS_FACTOR


def text_fact(value: str, source: str, what: str) -> Fact:
    """A phrase that comes from the workbench itself (a decision's sentence, a transform's
    reason)."""
    return Fact(value, "text", source, what)


def against_lesson_unfused(key: str, stage, record: dict | None, base, base_record: dict | None
                           ) -> dict[str, Fact]:
    """A variant stage on a graph of its own (the folded graph) against the lesson graph with
    every op its own kernel, whose time the planner's plan's profile measured.

    ``stage`` and ``base`` are lesson stages (``base``: ``unfused``); ``record`` and
    ``base_record`` the :mod:`.measure` records of ``stage`` and of the planner's plan (whose
    ``unfused_kernels`` are ``base``'s kernels), None while pending. Facts, under ``key.*``:
    ``measured_speedup_lesson`` (the lesson graph's unfused time over this plan's),
    ``compared_unfused`` (``faster than``, ``slower than``), and of this plan's heaviest
    per-call kernel (the cost model's): ``heavy_ops`` (its ops), ``heavy_measured`` (seconds),
    ``heavy_predicted``, ``heavy_flops``; of the same ops in the unfused plan's measurement:
    ``same_ops_unfused`` (their kernels' seconds, summed), ``same_ops_flops``, and the costliest
    of them alone, ``heavy_op`` (its id) and ``heavy_op_unfused`` (seconds).
    """
    from workbench.teaching.measure import kernel_times

    what = "profile on this machine"
    mine = call_time(record, "fused") if record else None
    lesson = call_time(base_record, "unfused") if base_record else None
    per_call = {gid: c for gid, c in stage.cost.groups.items()
                if stage.cost.roles.get(gid, "call") == "call"}
    gid = max(per_call, key=lambda g: per_call[g].predicted_s)
    nodes = set(next(g.nodes for g in stage.plan.groups if g.id == gid))
    ops = sorted(n for n in nodes if not _is_source(stage.graph, n))
    same = {g.id: g.nodes[0] for g in base.plan.groups if g.nodes[0] in nodes}
    times = kernel_times(base_record, "unfused_kernels")
    same_t = [times.get(g) for g in same]
    heavy = max(same, key=lambda g: base.cost.groups[g].predicted_s, default=None)

    def fact(name, value, unit, source, text):
        return f"{key}.{name}", Fact(value, unit, source, text)

    verdict = None
    if mine and lesson:
        verdict = "faster than" if mine < lesson else "slower than"
    return dict([
        fact("measured_speedup_lesson", lesson / mine if mine and lesson else None, "ratio",
             "profile", f"{what}: the lesson graph's time per call with every op its own kernel "
             "(measured beside the planner's plan) over this plan's"),
        fact("compared_unfused", verdict, "text", "profile",
             f"{what}: this plan's time per call against every op its own kernel"),
        fact("heavy_ops", ", ".join(ops), "text", "cost model",
             "the ops of this plan's kernel with the largest predicted time"),
        fact("heavy_measured", kernel_times(record).get(gid) if record else None, "seconds",
             "profile", f"{what}: time of that kernel"),
        fact("heavy_predicted", per_call[gid].predicted_s, "seconds", "cost model",
             "predicted time of that kernel"),
        fact("heavy_flops", per_call[gid].flops, "count", "cost model", "FLOPs of that kernel"),
        fact("same_ops_unfused", sum(same_t) if same_t and None not in same_t else None,
             "seconds", "profile", f"{what}: the same ops, each its own kernel, in the unfused "
             "plan's measurement (their kernels' times summed)"),
        fact("same_ops_flops", sum(base.cost.groups[g].flops for g in same), "count",
             "cost model", "FLOPs of the same ops in the lesson graph"),
        fact("heavy_op", same[heavy] if heavy else "-", "text", "cost model",
             "the costliest of those ops in the lesson graph"),
        fact("heavy_op_unfused", times.get(heavy) if heavy else None, "seconds", "profile",
             f"{what}: that op alone, in the unfused plan's measurement"),
    ])


def _is_source(graph, node_id) -> bool:
    from workbench.planner.plan import is_source

    return is_source(graph, node_id)


def lesson_unfused_fact(base_record: dict | None) -> Fact:
    """``unfused.measured``: the lesson graph's time per call with every op its own kernel, from
    the planner's plan's profile (its baseline; None while pending)."""
    return Fact(call_time(base_record, "unfused") if base_record else None, "seconds", "profile",
                "profile on this machine: time per call, every op its own kernel (the planner's "
                "plan's baseline, timed beside it)")

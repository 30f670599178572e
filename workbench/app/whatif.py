"""The what-if, diff and tune panels' work (no Dash): knob sliders to settings, a what-if
re-plan, a diff of two named plans, plans on time vs peak memory, a tune of the current plan.

Callbacks (:mod:`.callbacks_whatif`, :mod:`.callbacks_diff`) only read their inputs, call these
and render. Everything here is the core's: :func:`workbench.planner.whatif.what_if` and
``knob_sweep``, :func:`workbench.planner.diff.diff_plans`,
:func:`workbench.tuning.memory.plan_memory`, :func:`workbench.tuning.tune.tune`.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.app.fmt import fmt_bytes, fmt_seconds

@dataclass(frozen=True)
class SliderSpec:
    """A knob's slider: a ``log`` slider moves the profile's value by a factor 10^x (x from
    ``low`` to ``high``), a ``linear`` one sets the value itself."""

    knob: str
    label: str
    scale: str
    low: float
    high: float
    step: float


#: the knobs the panel offers (the cost model's terms; workbench.costmodel.knobs)
SLIDERS = (
    SliderSpec("launch_overhead_s", "launch overhead", "log", -3, 3, 0.25),
    SliderSpec("bandwidth_Bps", "DRAM / HBM bandwidth", "log", -3, 3, 0.25),
    SliderSpec("llc_bandwidth_Bps", "LLC bandwidth (CPU)", "log", -3, 3, 0.25),
    SliderSpec("l2_bandwidth_Bps", "L2 bandwidth (CPU)", "log", -3, 3, 0.25),
    SliderSpec("peak_flops", "compute peak", "log", -3, 3, 0.25),
    SliderSpec("transcendental_flops", "cost of a transcendental", "log", -3, 3, 0.25),
    SliderSpec("overlap", "compute/memory overlap", "linear", 0, 1, 0.05),
    SliderSpec("max_registers_per_thread", "register budget (GPU)", "linear", 16, 255, 1),
)
SLIDER_KNOBS = tuple(s.knob for s in SLIDERS)


def slider_marks(spec: SliderSpec) -> dict:
    """Marks of a slider: ``÷1000 … ×1 … ×1000`` for a log slider, the ends for a linear one."""
    if spec.scale == "log":
        names = {-3: "÷1000", -2: "÷100", -1: "÷10", 0: "×1", 1: "×10", 2: "×100", 3: "×1000"}
        return {k: names[k] for k in range(int(spec.low), int(spec.high) + 1)}
    return {spec.low: f"{spec.low:g}", spec.high: f"{spec.high:g}"}


def slider_state(device) -> list[dict]:
    """For each slider: its neutral value on ``device`` (0 for a log slider, the profile's own
    value for a linear one) and whether the profile has the knob at all (disabled if not)."""
    out = []
    for s in SLIDERS:
        base = getattr(device, s.knob)
        neutral = 0 if s.scale == "log" else (base if base is not None else s.low)
        out.append({"knob": s.knob, "value": neutral, "disabled": base is None})
    return out


def settings_from_sliders(device, values) -> dict:
    """Knob settings from slider positions (only the knobs moved off their neutral value)."""
    settings = {}
    for s, v in zip(SLIDERS, values):
        base = getattr(device, s.knob)
        if v is None or base is None:
            continue
        if s.scale == "log":
            if abs(float(v)) > 1e-12:
                value = base * 10 ** float(v)
                settings[s.knob] = int(round(value)) if s.knob.endswith("bytes") else value
        elif float(v) != float(base):
            settings[s.knob] = int(v) if s.knob == "max_registers_per_thread" else float(v)
    return settings


def flip_rows(flips) -> list[dict]:
    """The flipped decisions as table rows."""
    return [{"action": f.action, "nodes": ", ".join(f.nodes[:4]),
             "before": "taken" if f.fused_a else "refused",
             "after": "taken" if f.fused_b else "refused",
             "why_after": f.message_b} for f in flips]


def whatif_summary(w) -> str:
    """One paragraph: the knobs, the totals before and after, what changed."""
    knobs = ", ".join(f"{k} = {v:.3g}" for k, v in w.settings.items()) or "no knob moved"
    text = (f"{knobs}: predicted {fmt_seconds(w.before_s)} → {fmt_seconds(w.after_s)} per call "
            f"({w.diff.kernels_a} → {w.diff.kernels_b} kernels; the old plan on the new "
            f"profile: {fmt_seconds(w.old_plan_after_s)}). ")
    if w.diff.same:
        return text + "The plan is unchanged."
    from workbench.planner.whatif import describe_groups

    text += (f"{len(w.flips)} decision(s) flipped; the new plan's "
             f"{describe_groups(w.plan, w.changed_groups)} replace the old plan's "
             f"{describe_groups(w.base_plan, w.diff.only_a)}.")
    if w.old_plan_after_s < w.after_s:
        text += (" Note: the new plan is predicted slower than keeping the old one on this "
                 "profile — the planner decides one producer at a time, greedily.")
    return text


def changed_group_rows(w) -> list[dict]:
    """The new plan's groups that the old plan did not have."""
    rows = []
    for gid in w.changed_groups:
        g = w.plan.group(gid)
        rows.append({"group": gid, "kind": g.kind, "n_ops": g.size,
                     "ops": ", ".join(g.nodes[:8]) + (" …" if g.size > 8 else "")})
    return rows


def whatif_marks(w, graph) -> dict | None:
    """What the canvas marks for a what-if before *Use this plan* (the ``ids.MARKS`` store,
    drawn by :func:`~workbench.app.graph_figure.highlight_targets`): ``after`` the ops of the
    groups the knobs changed (a thick green border), ``step`` the op each flipped decision is
    about — its producer, listed first (filled light red; the decision's consumers are in the
    changed groups) —, ``whatif`` the changed groups' ids in the new plan (the tag that says
    these marks are the what-if's). None when the plan is unchanged."""
    from workbench.app.drawing import vertex_ids

    if w.diff.same and not w.flips:
        return None
    vid = vertex_ids(graph)
    changed = [n for gid in w.changed_groups for n in w.plan.group(gid).nodes]
    flipped = [f.nodes[0] for f in w.flips if f.nodes]
    return {"after": sorted({vid[n] for n in changed if n in vid}),
            "step": sorted({vid[n] for n in flipped if n in vid}), "before": [],
            "whatif": list(w.changed_groups) or ["-"]}


#: the plans the diff view can compare, besides the current one
DIFF_CHOICES = ("current", "proposal", "priority", "xla-cpu", "greedy", "xla", "unfused")


def named_plan_for(ws, graph, name: str):
    """The plan a diff choice names: the session's ``current`` plan (edits included), its
    planner ``proposal``, a policy's plan on the session's device, ``xla`` or ``unfused``.

    Raises
    ------
    WorkbenchError
        For ``xla`` on a graph without XLA fusions, or an unknown name.
    """
    from workbench.planner import named_plan

    if name == "current":
        return ws.plan
    if name == "proposal":
        return ws.proposal
    return named_plan(graph, name, ws.device)


def diff_rows(d) -> list[dict]:
    """One row per difference of a :class:`~workbench.planner.diff.PlanDiff`."""
    rows = []
    for k, x in enumerate(d.differences, 1):
        rows.append({"n": k, "a_groups": ",".join(x.a_groups), "b_groups": ",".join(x.b_groups),
                     "n_nodes": len(x.nodes),
                     "nodes": ", ".join(x.nodes[:6]) + (" …" if len(x.nodes) > 6 else ""),
                     "pred_a": fmt_seconds(x.predicted_a_s),
                     "pred_b": fmt_seconds(x.predicted_b_s),
                     "delta": fmt_seconds(x.predicted_delta_s),
                     "measured": "-" if x.measured_delta_s is None
                     else fmt_seconds(x.measured_delta_s)})
    return rows


def diff_summary(d) -> str:
    """The diff's totals in a sentence."""
    if d.same:
        return f"A ({d.a_label}) and B ({d.b_label}) group every node alike."
    return (f"A = {d.a_label}: {d.kernels_a} kernels, {fmt_seconds(d.predicted_a_s)}; B = "
            f"{d.b_label}: {d.kernels_b} kernels, {fmt_seconds(d.predicted_b_s)} (on "
            f"{d.device}). In both: {len(d.both)} groups; only in A: {len(d.only_a)}; only in "
            f"B: {len(d.only_b)}; {len(d.differences)} differences, {len(d.moved)} moved nodes.")


def plan_points(ws, graph, measured: dict | None = None) -> list[dict]:
    """The plans of the time-vs-memory chart: the proposal, the current plan (hand-edited or
    tuned), the unfused plan, XLA's (optimised modules), each policy's; each with its
    predicted time, its measured time when the results store has one (``measured``:
    plan fingerprint -> seconds), its peak live bytes and recomputed FLOPs."""
    from workbench.costmodel import plan_cost
    from workbench.planner import POLICIES, named_plan
    from workbench.tuning.memory import plan_memory

    plans = [("proposal", ws.proposal), ("current", ws.plan), ("unfused", None)]
    plans += [(p, None) for p in POLICIES if p != ws.policy]
    if graph.meta.get("has_xla_fusions"):
        plans.append(("xla", None))
    out, seen = [], set()
    for label, plan in plans:
        plan = plan if plan is not None else named_plan(graph, label, ws.device)
        if label == "current" and plan.fingerprint == ws.proposal.fingerprint:
            continue
        mem = plan_memory(graph, plan)
        out.append({"label": label, "fingerprint": plan.fingerprint,
                    "predicted_s": plan_cost(graph, plan, ws.device).total.predicted_s,
                    "measured_s": (measured or {}).get(plan.fingerprint),
                    "peak_bytes": mem.peak_bytes, "peak": fmt_bytes(mem.peak_bytes),
                    "recomputed_flops": mem.recomputed_flops, "same_as": None})
        if plan.fingerprint in seen:
            out[-1]["same_as"] = next(p["label"] for p in out[:-1]
                                      if p["fingerprint"] == plan.fingerprint)
        seen.add(plan.fingerprint)
    return out


def trial_rows(result) -> list[dict]:
    """A tune's trials as table rows."""
    rows = []
    for t in result.trials:
        rows.append({"step": t.step, "change": t.description,
                     "predicted_gain": fmt_seconds(t.predicted_gain_s),
                     "measured_gain": "-" if t.measured_gain_s is None
                     else fmt_seconds(t.measured_gain_s),
                     "status": ("kept" if t.kept else t.status if t.status != "ok" else "")
                     + (" (cost model wrong)" if t.misranked(result.min_gain) else ""),
                     "stored": "" if t.fresh else "stored"})
    return rows


def tune_summary(r) -> str:
    """A tune's outcome in a sentence."""
    if r.start_status != "ok":
        return f"The plan could not be measured ({r.start_status}): {r.start_message}"
    ok = sum(1 for t in r.trials if t.status == "ok")
    head = (f"Measured the start plan and {ok} variant(s) in {r.seconds:.1f} s "
            f"({r.fresh + r.reused} measurements: {r.fresh} made now, {r.reused} from the "
            "results store). ")
    if r.improved:
        return head + (f"Kept a plan {r.gain:.2f}x faster than the start "
                       f"({fmt_seconds(r.start_s)} → {fmt_seconds(r.best_s)}); it is now the "
                       "current plan (undo returns to the start).")
    return head + f"None was faster than the start ({fmt_seconds(r.start_s)}) by more than " \
                  f"{r.min_gain:.0%}."

"""What the Learn page's callbacks do, without Dash: which item an address names, a lesson
stage's tables, the measured figures, and an exercise answer's edits and progress (tested
directly).

An exercise answer is kept in the session as plain groups of node ids; each edit rebuilds the
answer's plan and applies a :mod:`workbench.editing` record to it, so an illegal group is
refused by the same legality checker as any edit, and the other groups stay.
"""

from __future__ import annotations

import math
from urllib.parse import parse_qs

from workbench.app.fmt import fmt_bytes, fmt_seconds
from workbench.errors import PlanError
from workbench.fmt import fmt_count
from workbench.teaching.facts import MISS_FACTOR, missed
from workbench.teaching.measure import call_time

KINDS = ("lesson", "exercise", "question", "term")


def parse_item(search: str | None) -> dict:
    """The item a Learn address names: ``?lesson=vertical`` -> ``{"kind": "lesson", "id":
    "vertical"}``; no query (or an unknown one) -> the home section; ``?term=`` -> the whole
    glossary. Unknown ids are returned as given (the section then says so)."""
    q = parse_qs((search or "").lstrip("?"), keep_blank_values=True)
    for kind in KINDS:
        if kind in q:
            return {"kind": kind, "id": q[kind][0]}
    return {"kind": "home", "id": ""}


# ----- lessons ---------------------------------------------------------------------------------

def stage_marks(run) -> dict:
    """Slider marks: the unfused start, the planner's plan and each variant named; the
    planner's intermediate steps unlabelled."""
    marks = {}
    for k, s in enumerate(run.stages):
        if not s.id.startswith("step"):
            marks[k] = {"unfused": "unfused", "fused": "planner's plan"}.get(s.id, s.id)
    return marks


def stepper_disabled(k, top) -> tuple[bool, bool]:
    """Whether *Back* and *Next* are disabled at stage ``k`` of ``0..top`` (the slider's value
    and max; None before a lesson is shown): *Back* at the first stage, *Next* at the last."""
    k, top = int(k or 0), int(top or 0)
    return k <= 0, k >= top


def stage_heading(run, k: int) -> tuple[str, str, str]:
    """(status, headline, detail) of stage ``k``: the decision that made it, taken or refused."""
    s = run.stages[k]
    n = len(run.stages)
    if s.id == "unfused":
        return "", f"Stage 1 of {n}: every op is its own kernel.", ""
    if s.id == "fused" and s.decision is None:
        return "fused", f"Stage {k + 1} of {n}: the planner's plan", ""
    if s.id == "fused" or s.id.startswith("step"):
        d = s.decision
        head = f"Stage {k + 1} of {n}: planner decision {d.step + 1}" + (
            " — the planner's plan" if s.id == "fused" else "")
        return ("fused" if d.fused else "refused"), head, f"{d.reason}: {d.message}"
    return "variant", f"Stage {k + 1} of {n}: {s.title}", ""


def stage_rows(run, k: int) -> list[tuple[str, str, str, str]]:
    """(label, unfused, this stage, change) rows: kernels, bytes read, written and moved,
    FLOPs, transcendentals, launch overhead and predicted time."""
    base, here = run.stages[0].cost.total, run.stages[k].cost.total
    launch = run.device.launch_overhead_s
    fields = (("kernels", lambda c: c.kernels, lambda v: f"{v:g}"),
              ("bytes read", lambda c: c.bytes_read, fmt_bytes),
              ("bytes written", lambda c: c.bytes_written, fmt_bytes),
              ("bytes moved", lambda c: c.bytes_read + c.bytes_written, fmt_bytes),
              ("FLOPs", lambda c: c.flops, fmt_count),
              ("transcendentals", lambda c: c.transcendentals, fmt_count),
              ("launch overhead", lambda c: c.kernels * launch, fmt_seconds),
              ("predicted time", lambda c: c.predicted_s, fmt_seconds))
    rows = []
    for label, get, fmt in fields:
        u, h = get(base), get(here)
        change = "" if u == h else ("−" if h < u else "+") + fmt(abs(h - u))
        rows.append((label, fmt(u), fmt(h), change))
    return rows


def bytes_saved_line(run, k: int) -> str:
    """The bytes that stop moving at stage ``k``, against every op alone (the cost model's)."""
    base, here = run.stages[0].cost.total, run.stages[k].cost.total
    saved = (base.bytes_read + base.bytes_written) - (here.bytes_read + here.bytes_written)
    if saved > 0:
        return f"{fmt_bytes(saved)} stop moving: values that stay inside a kernel"
    if saved < 0:
        return f"{fmt_bytes(-saved)} more move than unfused (recomputed producers read again)"
    return "as many bytes move as unfused"


def stage_record(run, k: int) -> tuple[dict | None, str]:
    """The measurement whose kernels stage ``k`` shows, and which of its kernel lists: a
    measured stage's own record (``kernels``); for every op alone, the planner's plan's
    record, whose baseline is that plan (``unfused_kernels``); None for the planner's
    intermediate steps, which are not measured."""
    s = run.stages[k]
    if s.id == "unfused":
        return run.records.get("fused"), "unfused_kernels"
    return (run.records.get(s.id), "kernels") if s.measure else (None, "kernels")


def kernel_columns(record: dict | None) -> list[dict]:
    """The kernel table's columns; the measured one says which of the runs it shows (the
    statistic of the whole call's time: :func:`workbench.teaching.measure.statistic`)."""
    from workbench.teaching.measure import statistic

    names = KERNEL_COLUMNS + (("measured", f"measured ({statistic(record)})"
                               if record else "measured"),)
    return [{"name": n, "id": i} for i, n in names]


#: the kernel table's columns but the measured one: (id, header)
#: the work columns count FLOP-equivalents, as compute time does: the FLOPs plus each
#: transcendental at the device's FLOP cost (the cell shows the sum), per byte against the ridge
#: of the kernel's memory level; compute and memory are the two times the bound compares
KERNEL_COLUMNS = (("group", "kernel"), ("kind", "kind"), ("ops", "ops"),
                  ("moved", "bytes moved"), ("flops", "FLOP-equivalents (FLOPs + transc. × cost)"),
                  ("intensity", "FLOP-eq/B"), ("ridge", "ridge FLOP/B"),
                  ("compute", "compute"), ("memory", "memory"),
                  ("bound", "bound"), ("predicted", "predicted"))


def work_cell(c, device) -> str:
    """A kernel's counted work: ``9.57M (2.36M + 262k transc. × 27.5)``, the FLOP-equivalents
    compute time counts, with the FLOPs and the transcendentals at the device's cost
    (``transcendental_flops``) they come from; just the FLOPs when there is no transcendental."""
    if not c.transcendentals:
        return fmt_count(c.flops)
    return (f"{fmt_count(round(c.flop_equivalents))} ({fmt_count(c.flops)} + "
            f"{fmt_count(c.transcendentals)} transc. × {device.transcendental_flops:g})")


def kernel_rows(stage, record: dict | None = None, which: str = "kernels",
                device=None) -> list[dict]:
    """One row per kernel of a stage: its cost (the counted work in FLOP-equivalents, its
    intensity against the ridge of its memory level, its compute and memory times, whose
    larger is the bound) and, when ``record`` is a measurement of the stage's plan (``which``:
    its ``kernels``, or its baseline's ``unfused_kernels``), its measured time by the record's
    statistic, the one the whole call's time uses (a miss by more than the tolerance is
    flagged). ``device``: the profile the stage is costed on (default: the cost's own)."""
    from workbench.costmodel.model import get_device
    from workbench.costmodel.text import bound_label
    from workbench.teaching.facts import ridge
    from workbench.teaching.measure import kernel_times

    device = device or get_device(stage.cost.device)
    measured = kernel_times(record, which)
    rows = []
    for g in stage.plan.groups:
        c = stage.cost.groups[g.id]
        moved = c.bytes_read + c.bytes_written
        m = measured.get(g.id)
        flag = ""
        if g.role == "offline":  # timed by its one run when the weights are loaded: the
            flag = " (one run)"  # profiler judges no prediction of it, nor does the lesson
        elif m and c.predicted_s and missed(m / c.predicted_s):
            flag = f" (miss: {m / c.predicted_s:.2f}x)"
        role = "" if g.role == "call" else f" [{g.role}]"
        rows.append({"group": g.id + role, "kind": g.kind,
                     "ops": ", ".join(g.nodes[:5]) + (" …" if g.size > 5 else ""),
                     "moved": fmt_bytes(moved), "flops": work_cell(c, device),
                     "intensity": f"{c.flop_equivalents / moved:.3g}" if moved else "-",
                     "ridge": f"{ridge(device, c.memory_level):.3g}",
                     "compute": fmt_seconds(c.compute_s), "memory": fmt_seconds(c.memory_s),
                     "bound": bound_label(c.bound, c.memory_level),
                     "predicted": fmt_seconds(c.predicted_s),
                     "measured": (fmt_seconds(m) + flag) if m else "-"})
    return rows


#: the columns of :func:`measured_rows`
MEASURED_COLUMNS = ("stage", "plan", "predicted", "measured", "measured / predicted",
                    "hit or miss", "bytes: cost model", "bytes: kernels' arguments")


def measured_rows(run, records: dict) -> list[tuple]:
    """Rows of :data:`MEASURED_COLUMNS` for each measured stage and its unfused baseline: the
    predicted and measured times (a miss flagged), and the bytes the cost model counts beside
    the bytes of the compiled kernels' arguments."""
    rows = []
    for s in run.measured_stages:
        r = records.get(s.id)
        for which, cost, key in (("as planned", s.cost.total, "fused"),
                                 ("unfused", s.cost.unfused_total, "unfused")):
            pred, model = cost.predicted_s, fmt_bytes(cost.bytes_read + cost.bytes_written)
            if r is None:
                rows.append((s.title, which, fmt_seconds(pred), "measuring…", "", "", model,
                             "measuring…"))
                continue
            m = call_time(r, key)
            ratio = m / pred if m and pred else math.nan
            note = ("miss" if missed(ratio) else "hit") if math.isfinite(ratio) else ""
            mark = " (fastest run)" if r.get("noisy") else ""
            rows.append((s.title, which, fmt_seconds(pred), fmt_seconds(m) + mark,
                         f"{ratio:.2f}x" if math.isfinite(ratio) else "-", note, model,
                         fmt_bytes(r.get(f"bytes_{key}"))))
    return rows


def provenance(records: dict) -> str:
    """Where and when the figures were measured, and whether the machine was busy."""
    if not records:
        return ""
    r = next(iter(records.values()))
    m = r.get("machine", {})
    text = (f"measured with the {r.get('backend')} backend on {m.get('host')} "
            f"({m.get('cpu')}, {m.get('cpus')} CPUs) at {r.get('measured_at')}")
    text += "; every time is the median of the profiler's runs"
    if any(x.get("noisy") for x in records.values()):
        text += (", except where the timings were noisy (another process held the CPU): there "
                 "the fastest run is compared (marked), for the whole call and each kernel "
                 "alike")
    return text + f"; a measurement off its prediction by more than {MISS_FACTOR:g}x is a miss"


# ----- exercises -------------------------------------------------------------------------------

def answer_plan(exercise, groups):
    """The plan of an answer's groups (ops in none run alone), on the key's device."""
    from workbench.teaching.scoring import check_answer

    plan, _, _ = check_answer(exercise.graph(), [tuple(g) for g in groups])
    return plan


def edit_answer(exercise, groups, action: str, nodes) -> list[list[str]]:
    """The answer's groups after ``action`` (``group`` the selected ops, ``ungroup`` the group
    of the selected op, ``reset``).

    Raises
    ------
    LegalityError
        The group is illegal: the checker's reason (the answer is unchanged).
    PlanError
        The selection does not fit the action (the message says what to select).
    """
    from workbench import editing
    from workbench.planner.plan import is_source

    graph = exercise.graph()
    if action == "reset":
        return []
    ops = [n for n in nodes if n in graph and not is_source(graph, n)]
    plan = answer_plan(exercise, groups)
    if action == "group":
        if len({plan.group_of(n).id for n in ops}) < 2:
            raise PlanError("select ops of two or more kernels to group them (a click adds an "
                            "op to the selection)")
        plan = editing.apply_edit(graph, plan, editing.Merge(tuple(ops)))
    elif action == "ungroup":
        if len(ops) != 1 or plan.group_of(ops[0]).size < 2:
            raise PlanError("select one op of a group to ungroup it")
        plan = editing.apply_edit(graph, plan, editing.Split(ops[0]))
    else:
        raise PlanError(f"unknown exercise action {action!r}")
    return [list(g.nodes) for g in plan.groups if g.size > 1]


def record_score(learning: dict, exercise_id: str, score) -> dict:
    """The session's learning state with a new score: the last one, the best F1 and the number
    of attempts (a new dict; ``learning`` is not changed)."""
    doc = {k: dict(v) for k, v in learning.items()}
    f1 = score.main.f1
    doc.setdefault("scores", {})[exercise_id] = score.to_json()
    doc.setdefault("attempts", {})[exercise_id] = learning.get("attempts", {}).get(
        exercise_id, 0) + 1
    best = learning.get("best", {}).get(exercise_id)
    doc.setdefault("best", {})[exercise_id] = max(f1, best) if best is not None else f1
    return doc


def with_answer(learning: dict, exercise_id: str, groups) -> dict:
    """The learning state with an exercise's answer replaced (its last score dropped)."""
    doc = {k: dict(v) for k, v in learning.items()}
    doc.setdefault("answers", {})[exercise_id] = [list(g) for g in groups]
    doc.setdefault("scores", {}).pop(exercise_id, None)
    return doc


def progress_line(learning: dict, exercises) -> str:
    """How far the session has come: exercises tried, and those answered exactly (F1 of 1)."""
    best = learning.get("best", {})
    tried = [e for e in exercises if e.id in best]
    solved = [e for e in tried if best[e.id] >= 1.0]
    return (f"Your progress in this session: {len(tried)} of {len(exercises)} exercises "
            f"checked, {len(solved)} matching the key exactly.")


def difference_rows(score) -> list[dict]:
    """The differences of a score's comparisons as table rows."""
    rows = []
    for c in score.comparisons:
        who = "the planner" if c.against == "planner" else "XLA"
        for d in c.differences:
            side = (f"{who} fuses, you did not" if d.side == "key"
                    else f"you fused, {who} did not")
            pairs = ", ".join(f"{a} + {b}" for a, b in d.pairs[:6])
            if len(d.pairs) > 6:
                pairs += f" and {len(d.pairs) - 6} more"
            rows.append({"side": side, "pairs": pairs,
                         "step": str(d.step + 1) if d.step is not None else d.source,
                         "reason": d.reason, "explanation": d.explanation})
    return rows


def score_line(score) -> str:
    """The score in one line per key: F1, the pairs that agree, and whether it is exact."""
    parts = []
    for c in score.comparisons:
        parts.append(f"Against {c.label}: {c.agreed} of {c.key_pairs} fused pairs agree, "
                     f"{c.answer_pairs - c.agreed} of yours do not — F1 {c.f1:.2f}"
                     + (" (exactly the same groups)" if c.exact else ""))
    return " · ".join(parts)


# ----- drawing a lesson's or an exercise's graph -----------------------------------------------

def drawn_elements(layouts, graph, groups: list, basis: list | None = None,
                   salt: str = "") -> list:
    """Cytoscape elements of ``graph`` under ``groups`` (dicts, as
    :func:`~workbench.app.graph_figure.grouping_from_plan` makes them), every layer and every
    group open, so that every op is drawn and can be clicked.

    The layout starts from the one of ``basis`` (member sets: the lesson's final plan), kept in
    place where the groups allow (the graph view's own incremental layout,
    :func:`~workbench.app.scene_layout.layout_scene`), so that stepping through the stages
    moves as few nodes as the boxes allow; ``layouts`` is the app's layout cache.
    """
    from workbench.app.cache import grouping_key
    from workbench.app.drawing import build_drawing
    from workbench.app.graph_figure import generation, layout_tag, with_prefix
    from workbench.app.hierarchy import layers_of, place
    from workbench.app.scene import build_scene
    from workbench.app.scene_layout import layout_scene
    from workbench.app.view import draw_canvas, everything, view_state

    layers = layers_of(graph)
    # every layer and inputs box open (the main view's *Expand all*): a student must be able
    # to see, and click, every op of a real module, whose name scopes make layers
    record = everything({}, layers, [], True)

    def scene_of(sets, dicts):
        drawing = build_drawing(graph, sets)
        placement = place(layers, graph, drawing.groups)
        return drawing, placement, view_state(record, layers, dicts)

    prev = None
    if basis is not None:
        def basis_layout():
            dicts = [{"nodes": list(s)} for s in basis]
            drawing, placement, state = scene_of(basis, dicts)
            return layout_scene(build_scene(graph, drawing, layers, placement, state), None,
                                False)
        prev = layouts.get(("learn", graph.fingerprint, grouping_key(basis)), basis_layout)
    sets = [g["nodes"] for g in groups]
    drawing, placement, state = scene_of(sets, groups)
    canvas = draw_canvas(graph, groups, drawing, layers, placement, state, prev,
                         prev is not None)
    tag = generation(groups, (), f"{salt}|{graph.fingerprint}|{layout_tag(canvas.layout)}")
    return with_prefix(canvas.elements, tag)

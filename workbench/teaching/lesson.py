"""A lesson, opened: its graphs, the stages from unfused to fused, their costs and its facts.

A :class:`Lesson` is a definition (:mod:`.lessons` holds them): a small graph of its own, text
templates, claims to check. :func:`open_lesson` plans it on a device and builds the *stages* the
student steps through: every op alone (``unfused``), then the groups after each of the planner's
decisions (the same replay as the Explain tab), ending at the planner's plan (``fused``), then
the lesson's own variants (the graph after batch-norm folding; a fusion the planner refused,
forced). Each stage is a real plan, costed by the cost model; the stages marked ``measure`` are
profiled (:mod:`.measure`), and their measured figures join the facts when they arrive.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from workbench.ir.graph import Graph
from workbench.teaching import facts as F


@dataclass(frozen=True)
class Claim:
    """A statement the lesson makes, checked against the cost model and the profile.

    Parameters
    ----------
    kind : str
        What is checked (:data:`workbench.teaching.claims.CHECKS`): ``fewer-bytes``,
        ``faster``, ``memory-bound-ideal``, ``prediction``, ``slower-than``,
        ``beats-unfused`` (a variant on a graph of its own against the lesson graph unfused).
    stage : str
        The stage the claim is about (compared with ``unfused``, or with ``other``).
    statement : str
        The claim as the lesson states it (a template, no figures of its own).
    other : str
        For ``slower-than``: the stage ``stage`` should be slower than.
    """

    kind: str
    stage: str
    statement: str
    other: str = ""


@dataclass(frozen=True)
class Variant:
    """A stage beyond the planner's plan: another graph (``graph``, e.g. after folding) planned
    by the planner, or the lesson graph with the member sets ``groups(graph)`` (a fusion the
    planner refused, forced)."""

    id: str
    title: str
    graph: Callable[[Graph], Graph] | None = None
    groups: Callable[[Graph], list] | None = None
    measure: bool = True


@dataclass(frozen=True)
class Lesson:
    """One lesson: a concept, its graph, its text and its claims.

    Parameters
    ----------
    id, title : str
    concepts : tuple of str
        Glossary term ids the lesson teaches (linked from its page).
    build : callable
        ``build() -> Graph``: the lesson's small graph.
    text : tuple of str
        Paragraph templates (:mod:`.template`): figures only as ``{fact.key}``.
    claims : tuple of Claim
    variants : tuple of Variant
    facts : callable, optional
        ``facts(run) -> dict`` of lesson-specific facts (a transform's report, a decision).
    questions : tuple of str
        Ids of what-if questions (:mod:`.whatif`) that go with the lesson.
    policy : str
        The planner policy whose decisions the stages replay.
    device : str, optional
        A device profile the lesson is always costed on (the register lesson's capped GPU);
        by default the device the lesson is measured on.
    measure : bool
        Whether the planner's plan is profiled (False for a lesson about a device this machine
        is not).
    """

    id: str
    title: str
    concepts: tuple
    build: Callable[[], Graph]
    text: tuple
    claims: tuple = ()
    variants: tuple = ()
    facts: Callable | None = None
    questions: tuple = ()
    policy: str = "priority"
    device: str | None = None
    measure: bool = True

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "concepts": list(self.concepts),
                "questions": list(self.questions), "measured": self.measure,
                "device": self.device}


@dataclass(frozen=True)
class Stage:
    """One step from unfused to fused: a plan of ``graph``, costed."""

    id: str
    title: str
    graph: Graph
    plan: object
    cost: object
    decision: object = None
    measure: bool = False

    @property
    def groups(self) -> list:
        """Member sets of the stage's kernels (for drawing)."""
        return [g.nodes for g in self.plan.groups]


@dataclass
class LessonRun:
    """A lesson planned on a device: stages and facts (measured ones pending until given)."""

    lesson: Lesson
    device: object
    graph: Graph
    plan: object
    stages: list
    base_facts: dict = field(default_factory=dict)
    records: dict = field(default_factory=dict)

    def stage(self, stage_id: str) -> Stage:
        """The stage ``stage_id`` (``unfused``, ``fused``, ``step3``, a variant's id)."""
        for s in self.stages:
            if s.id == stage_id:
                return s
        raise KeyError(stage_id)

    @property
    def measured_stages(self) -> list:
        return [s for s in self.stages if s.measure]

    def facts(self) -> dict:
        """Every fact: the cost model's, the graph's, the lesson's own, and the profile's (from
        ``records``: stage id -> :mod:`.measure` record; pending where absent)."""
        out = dict(self.base_facts) | F.rule_facts()
        base = self.records.get("fused")  # its baseline is the lesson graph, every op alone
        for s in self.measured_stages:
            out.update(F.measured_facts(s.id, self.records.get(s.id), s.cost.total.predicted_s,
                                        s.cost.unfused_total.predicted_s))
            if s.graph is not self.graph:  # a variant on a graph of its own (folded)
                out.update(F.against_lesson_unfused(s.id, s, self.records.get(s.id),
                                                    self.stage("unfused"), base))
        if any(s.id == "fused" for s in self.measured_stages):
            out["unfused.measured"] = F.lesson_unfused_fact(base)
        return out

    def with_records(self, records: dict) -> "LessonRun":
        """The same run with these measurements (stage id -> record)."""
        return LessonRun(self.lesson, self.device, self.graph, self.plan, self.stages,
                         self.base_facts, dict(records))


def _plan_of(graph, sets, device, policy="lesson"):
    from workbench.planner.plan import make_plan

    return make_plan(graph, sets, policy=policy, device=device.name)


def replay_stages(graph: Graph, plan, device, measure: bool = True) -> list[Stage]:
    """``unfused``, one stage per planner decision (``step1``...), the last being ``fused``:
    the groups after that decision, the decision itself (taken or refused) with it."""
    from workbench.costmodel.model import plan_cost
    from workbench.planner.plan import replay, unfused_plan

    base = unfused_plan(graph, device.name)
    stages = [Stage("unfused", "every op its own kernel", graph, base,
                    plan_cost(graph, base, device))]
    n = len(plan.decisions)
    for k, d in enumerate(plan.decisions[:-1], start=1):
        p = _plan_of(graph, replay(plan, graph, k), device)
        stages.append(Stage(f"step{k}", d.message, graph, p, plan_cost(graph, p, device), d))
    last = plan.decisions[-1] if n else None
    stages.append(Stage("fused", "the planner's plan", graph, plan, plan_cost(graph, plan, device),
                        last, measure=measure))
    return stages


def variant_stage(v: Variant, graph: Graph, policy: str, device) -> Stage:
    """The stage of a :class:`Variant`."""
    from workbench.costmodel.model import plan_cost
    from workbench.planner import plan_graph

    if v.graph is not None:
        g = v.graph(graph)
        p = plan_graph(g, policy, device)
    else:
        g = graph
        p = _plan_of(graph, v.groups(graph), device, "forced")
    return Stage(v.id, v.title, g, p, plan_cost(g, p, device), measure=v.measure)


@lru_cache(maxsize=64)
def _open(lesson: Lesson, device_key) -> LessonRun:
    from workbench.costmodel.model import get_device
    from workbench.planner import plan_graph

    device = get_device(device_key)
    graph = lesson.build()
    plan = plan_graph(graph, lesson.policy, device)
    stages = replay_stages(graph, plan, device, lesson.measure)
    stages += [variant_stage(v, graph, lesson.policy, device) for v in lesson.variants]
    facts = F.graph_facts(graph)
    base = stages[0].cost
    for s in stages:
        if s.id.startswith("step"):
            continue
        facts.update(F.stage_facts(s.id, s.cost, device))
        if s.id != "unfused":  # against the lesson graph unfused, the student's baseline
            facts.update(F.comparison_facts(s.id, s.cost, base, device))
    facts["device.name"] = F.Fact(device.name, "text", "cost model", "the device profile")
    facts["device.launch"] = F.Fact(device.launch_overhead_s, "seconds", "cost model",
                                    f"{device.name} profile: launch overhead per kernel")
    facts["device.bandwidth"] = F.Fact(device.bandwidth_Bps, "bytes-rate", "cost model",
                                       f"{device.name} profile: DRAM bandwidth")
    facts["device.peak"] = F.Fact(device.peak_flops, "flop-rate", "cost model",
                                  f"{device.name} profile: peak FLOP rate")
    facts["device.transcendental_flops"] = F.Fact(
        device.transcendental_flops, "flop-eq", "cost model",
        f"{device.name} profile: FLOP-equivalents one transcendental counts as")
    run = LessonRun(lesson, device, graph, plan, stages, facts)
    if lesson.facts is not None:
        run.base_facts.update(lesson.facts(run))
    return run


def open_lesson(lesson: Lesson, device="cpu") -> LessonRun:
    """Plan ``lesson`` on ``device`` (a name or a DeviceProfile) and build its stages and facts.

    Cached per (lesson, device profile): the cpu profile is the one measured on this machine.
    A lesson with a ``device`` of its own is costed on that one whatever ``device`` says.

    Raises
    ------
    WorkbenchError
        If the lesson's graph does not plan (a bug in a lesson).
    """
    from workbench.costmodel.model import get_device

    return _open(lesson, get_device(lesson.device or device))

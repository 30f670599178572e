"""Scoring a "predict the fusion" answer, and explaining each difference with the planner's own
decision records.

An answer is a list of groups (node ids). Each group goes through the one legality checker; an
illegal group is refused with its reason and the student's other groups are kept (its ops run
alone). The answer is then compared pair by pair with the key: the planner's plan and, for a
real module, XLA's fusions (:func:`workbench.planner.compare.fused_pairs`). A pair the key fuses
and the answer does not is explained by the key's decision that fused it; a pair the answer
fuses and the key does not, by the key's refusal that kept the two apart, or, when no record
names them, by the legality checker and the cost model on the merged kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.errors import CycleError, InputError
from workbench.fmt import fmt_time
from workbench.teaching.exercises import KEY_DEVICE, KEY_DEVICE_REASON

#: at most this many differences are explained per side (the counts are always complete)
MAX_DIFFERENCES = 12


@dataclass(frozen=True)
class Refused:
    """A group of the answer the legality checker refused: its members, reason code and why."""

    group: tuple
    code: str
    message: str

    def to_json(self) -> dict:
        return {"group": list(self.group), "reason": self.code, "message": self.message}


@dataclass(frozen=True)
class Difference:
    """Pairs on which the answer and a key disagree, with one explanation.

    ``side``: ``key`` (the key fuses them, the answer does not) or ``answer``; ``source``:
    ``decision`` (the key's own record, ``step`` its position in the log), ``legality`` or
    ``cost model``.
    """

    side: str
    pairs: tuple
    explanation: str
    reason: str
    source: str
    step: int | None = None

    def to_json(self) -> dict:
        return {"side": self.side, "pairs": [list(p) for p in self.pairs],
                "explanation": self.explanation, "reason": self.reason, "source": self.source,
                "step": self.step}


@dataclass(frozen=True)
class Comparison:
    """The answer against one key (``planner`` or ``xla``)."""

    against: str
    label: str
    precision: float
    recall: float
    f1: float
    agreed: int
    answer_pairs: int
    key_pairs: int
    exact: bool
    differences: tuple = ()
    key_groups: tuple = ()

    def to_json(self) -> dict:
        return {"against": self.against, "label": self.label, "precision": self.precision,
                "recall": self.recall, "f1": self.f1, "agreed_pairs": self.agreed,
                "answer_pairs": self.answer_pairs, "key_pairs": self.key_pairs,
                "exact": self.exact, "differences": [d.to_json() for d in self.differences],
                "key_groups": [list(g) for g in self.key_groups]}


@dataclass(frozen=True)
class Score:
    """An answer, checked and scored."""

    exercise: str
    groups: tuple
    refused: tuple
    comparisons: tuple
    notes: tuple = field(default_factory=tuple)

    @property
    def main(self) -> Comparison:
        """The comparison the score is reported by: XLA's for a real module, else the
        planner's."""
        return next((c for c in self.comparisons if c.against == "xla"), self.comparisons[0])

    def to_json(self) -> dict:
        return {"exercise": self.exercise, "groups": [list(g) for g in self.groups],
                "refused": [r.to_json() for r in self.refused],
                "comparisons": [c.to_json() for c in self.comparisons],
                "score": self.main.f1, "notes": list(self.notes)}


# ----- reading and checking an answer ---------------------------------------------------------

def read_answer(doc, graph) -> list[tuple]:
    """The groups of an answer document: ``{"groups": [[...], ...]}``, a bare list of groups,
    or a saved plan (the app's *Plan JSON*).

    Raises
    ------
    InputError
        If the document has no groups, or a group is not a list of node ids of ``graph`` (the
        message names the group and the node).
    """
    if isinstance(doc, dict):
        groups = doc.get("groups")
        if isinstance(groups, list) and groups and isinstance(groups[0], dict):
            groups = [g.get("nodes") for g in groups]  # a saved plan
    else:
        groups = doc
    if not isinstance(groups, list):
        raise InputError("an answer is a list of groups, or {\"groups\": [[node, ...], ...]}")
    out = []
    for k, g in enumerate(groups, start=1):
        if not isinstance(g, list) or not all(isinstance(n, str) for n in g):
            raise InputError(f"group {k} of the answer is not a list of node ids")
        for n in g:
            if n not in graph:
                raise InputError(f"group {k} of the answer names {n!r}, which is not a node of "
                                 f"graph {graph.name!r}", node=n)
        out.append(tuple(dict.fromkeys(g)))
    return out


def check_answer(graph, groups, device=KEY_DEVICE):
    """The answer's plan: legal groups kept, illegal ones refused with their reason.

    Sources (parameters, constants) are left out of groups; a group that would close a cycle
    with the groups before it is refused too. Ops in no accepted group run alone.

    Returns
    -------
    (Plan, list of Refused, list of str)
        The plan, the refusals, and notes (inputs left out of groups).
    """
    from workbench.planner.legality import check_group
    from workbench.planner.plan import is_source

    accepted, refused, notes = [], [], []
    for g in groups:
        ops = tuple(n for n in g if not is_source(graph, n))
        if len(ops) < len(g):
            notes.append(f"{', '.join(n for n in g if is_source(graph, n))}: inputs and "
                         "constants belong to no kernel (they are read from memory); left out")
        if len(ops) < 2:
            continue
        r = check_group(graph, ops, device)
        why = (r.code, r.message) if r is not None else None
        if why is None:
            try:
                _plan(graph, accepted + [ops], device)
            except CycleError as exc:
                why = ("cycle", f"with your other groups, {exc.message}")
        if why is not None:
            refused.append(Refused(ops, *why))
        else:
            accepted.append(ops)
    return _plan(graph, accepted, device), refused, notes


def _plan(graph, groups, device):
    from workbench.planner.plan import is_source, make_plan

    covered = {n for g in groups for n in g}
    singles = [(n,) for n in graph.topo_order if not is_source(graph, n) and n not in covered]
    return make_plan(graph, list(groups) + singles, policy="answer", device=device)


# ----- keys and differences -------------------------------------------------------------------

def planner_key(exercise):
    """The planner's plan for the exercise's graph (its policy, on :data:`KEY_DEVICE`)."""
    from workbench.planner import plan_graph

    return plan_graph(exercise.graph(), exercise.policy, KEY_DEVICE)


def _first_fusing(plan, a, b):
    for d in plan.decisions:
        if d.fused and any(a in m and b in m for m in d.members):
            return d
    return None


def _refusal(plan, ga, gb):
    for d in plan.decisions:
        if not d.fused and set(d.nodes) & ga and set(d.nodes) & gb:
            return d
    return None


def _merged_numbers(graph, ga, gb, device) -> tuple[str, str]:
    from workbench.costmodel.model import group_cost
    from workbench.planner.legality import check_group

    r = check_group(graph, ga | gb, device)
    if r is not None:
        return f"one kernel of both is illegal: {r.message}", r.code
    apart = group_cost(graph, ga, device).predicted_s + group_cost(graph, gb, device).predicted_s
    merged = group_cost(graph, ga | gb, device).predicted_s
    verdict = "slower" if merged > apart else "faster, but the planner's order of decisions " \
                                              "did not reach it"
    return (f"the cost model predicts the merged kernel {fmt_time(merged)} against "
            f"{fmt_time(apart)} for the two apart: {verdict}"), "cost"


def explain(graph, answer, key, decisions_plan, device=KEY_DEVICE, who="the planner"):
    """Differences between ``answer`` and ``key`` (plans), explained from the decision log of
    ``decisions_plan`` (the planner's plan; for XLA's key, the xla-cpu policy's, which follows
    XLA:CPU's rules)."""
    from workbench.planner.compare import fused_pairs

    ours, theirs = fused_pairs(graph, answer.member_sets()), fused_pairs(graph, key.member_sets())
    out: list[Difference] = []
    by_decision: dict = {}
    for a, b in sorted(theirs - ours):
        d = _first_fusing(decisions_plan, a, b)
        k = d.step if d is not None else None
        by_decision.setdefault(k, []).append((a, b))
    for step, pairs in by_decision.items():
        if step is None:
            tags = {graph.node(a).meta.get("xla_fusion") for a, _ in pairs}
            out.append(Difference("key", tuple(pairs), f"{who} fused these in "
                                  f"{', '.join(sorted(t for t in tags if t)) or 'one kernel'}",
                                  "xla", "key"))
        else:
            d = decisions_plan.decisions[step]
            out.append(Difference("key", tuple(pairs), d.message, d.reason, "decision", step))
    by_groups: dict = {}
    home = {n: frozenset(g.nodes) for g in key.groups for n in g.nodes}
    for a, b in sorted(ours - theirs):
        by_groups.setdefault((home[a], home[b]), []).append((a, b))
    for (ga, gb), pairs in by_groups.items():
        d = _refusal(decisions_plan, ga, gb)
        if d is not None:
            out.append(Difference("answer", tuple(pairs), d.message, d.reason, "decision",
                                  d.step))
        else:
            text, code = _merged_numbers(graph, ga, gb, device)
            out.append(Difference("answer", tuple(pairs), f"{who} kept these apart; {text}",
                                  code, "legality" if code != "cost" else "cost model"))
    return ours, theirs, out


def compare(graph, answer, key, decisions_plan, against, label, who) -> Comparison:
    """One :class:`Comparison` of the answer's plan with a key plan."""
    ours, theirs, diffs = explain(graph, answer, key, decisions_plan, who=who)
    both = len(ours & theirs)
    p = both / len(ours) if ours else 1.0
    r = both / len(theirs) if theirs else 1.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    exact = sorted(map(sorted, answer.member_sets())) == sorted(map(sorted, key.member_sets()))
    keep = [d for d in diffs if d.side == "key"][:MAX_DIFFERENCES] + \
        [d for d in diffs if d.side == "answer"][:MAX_DIFFERENCES]
    return Comparison(against, label, p, r, f1, both, len(ours), len(theirs), exact,
                      tuple(keep), tuple(g.nodes for g in key.groups if g.size > 1))


def score_answer(exercise, groups) -> Score:
    """Check an answer (groups of node ids) and score it against the exercise's keys.

    Raises
    ------
    InputError
        If a group names a node the graph does not have.
    """
    from workbench.planner import plan_graph, xla_plan

    graph = exercise.graph()
    groups = read_answer([list(g) for g in groups], graph)
    answer, refused, notes = check_answer(graph, groups)
    key = planner_key(exercise)
    label = (f"the planner ({exercise.policy} policy, {KEY_DEVICE} profile: "
             f"{KEY_DEVICE_REASON})")
    comps = [compare(graph, answer, key, key, "planner", label, "the planner")]
    if exercise.real_module:
        rules = plan_graph(graph, "xla-cpu", KEY_DEVICE)
        comps.append(compare(graph, answer, xla_plan(graph), rules, "xla",
                             "XLA's own fusions (explained by the xla-cpu policy's records)",
                             "XLA"))
    return Score(exercise.id, tuple(g.nodes for g in answer.groups if g.size > 1),
                 tuple(refused), tuple(comps), tuple(notes))

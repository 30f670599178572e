"""What-if questions: move one cost-model knob and see where a fusion stops (or starts) paying.

A :class:`Question` compares two plans of one graph while one knob of the device profile
(launch overhead, the cost of a transcendental) moves, and finds the knob value where their
predicted times cross. The knob is set with the cost model's own what-if overlay
(:func:`workbench.costmodel.knobs.apply_knobs`, which checks every value), and beside the two
fixed plans the sweep records what the planner itself makes at each value
(:func:`workbench.planner.whatif.knob_sweep`, the function ``workbench plan --sweep`` and the
app's What-if tab use).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from workbench.teaching import graphs

#: the knob sweeps from the device's own value divided by this to multiplied by it
SPAN = 1000.0
#: points of the sweep (log-spaced) before the crossing is refined by bisection
POINTS = 61

#: the knobs a question may move: field of DeviceProfile -> (label, unit of facts.Fact)
KNOBS = {
    "launch_overhead_s": ("launch overhead per kernel", "seconds"),
    "transcendental_flops": ("cost of a transcendental", "flop-eq"),
    "bandwidth_Bps": ("DRAM bandwidth", "bytes-rate"),
}


@dataclass(frozen=True)
class Question:
    """A what-if question.

    Parameters
    ----------
    id, title : str
    text : str
        The question, in words (no figures).
    lesson : str
        The lesson it belongs to.
    build : callable
        ``build() -> Graph``.
    plans : tuple of (str, callable)
        Two ``(name, groups(graph) -> member sets)``: plan A and plan B.
    knob : str
        A field of :data:`KNOBS`.
    solve : callable, optional
        ``solve(question, device) -> float or None``: the knob value that answers the question
        when it is not where the two plans cross (``Sweep.answer``).
    explain : callable, optional
        ``explain(sweep, value) -> str``: the computed answer in words, added after the plans'
        comparison by :func:`answer_text`.
    """

    id: str
    title: str
    text: str
    lesson: str
    build: Callable
    plans: tuple
    knob: str
    solve: Callable | None = None
    explain: Callable | None = None

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "text": self.text, "lesson": self.lesson,
                "knob": self.knob, "plans": [name for name, _ in self.plans]}


def with_knob(device, knob: str, value: float):
    """The device profile with one knob set to ``value`` (a new profile, named after the
    setting: :func:`~workbench.costmodel.knobs.apply_knobs`).

    Raises
    ------
    InputError
        For a knob a question may not move, or a value outside the knob's range.
    """
    from workbench.costmodel.knobs import apply_knobs
    from workbench.errors import InputError

    if knob not in KNOBS:
        raise InputError(f"a what-if question moves one of {', '.join(KNOBS)}, not {knob!r}")
    return apply_knobs(device, {knob: float(value)})


def _unfused(graph):
    from workbench.planner.plan import is_source

    return [(n,) for n in graph.topo_order if not is_source(graph, n)]


def _planner(graph):
    from workbench.planner import plan_graph

    return [g.nodes for g in plan_graph(graph, "priority", "cpu").groups]


def _write_once(graph):
    return [("t",)] + [(c,) for c in graph.users("t")]


def saving_split(question: Question, device: str, value: float) -> tuple[float, float]:
    """What plan A (fused) saves against plan B (unfused) with the launch overhead at
    ``value`` (seconds), split in two: (launch overhead saved, the rest: memory traffic and
    arithmetic), both in seconds, from the cost model's own launch term."""
    from workbench.costmodel.model import get_device, plan_cost

    graph, plans = _cached_plans(question, device)
    dev = with_knob(get_device(device), question.knob, value)
    a, b = (plan_cost(graph, p, dev).total for p in plans)
    launch = b.launch_overhead_s - a.launch_overhead_s
    return launch, (b.predicted_s - a.predicted_s) - launch


def equal_share_launch(question: Question, device: str) -> float | None:
    """The launch overhead (seconds) at which the launches fusing saves are worth as much as
    the memory traffic and arithmetic it saves (bisection over the sweep's range); None when
    one part is larger over the whole range."""
    from workbench.costmodel.knobs import get_knob
    from workbench.costmodel.model import get_device

    own = float(getattr(get_device(device), question.knob))
    knob = get_knob(question.knob)
    lo, hi = max(own / SPAN, knob.low if knob.low > 0 else own / SPAN), min(own * SPAN, knob.high)

    def diff(v):
        launch, rest = saving_split(question, device, v)
        return launch - rest

    if (diff(lo) < 0) == (diff(hi) < 0):
        return None
    return geometric_bisect(lambda v: diff(v) < 0, lo, hi, 80, 1e-9)


def saving_split_text(s: "Sweep", value: float) -> str:
    """The chain question's answer in words: the saving at ``value`` split into launches and the
    rest, and the launch overhead at which the two parts are equal (``s.answer``)."""
    from workbench.teaching.facts import Fact

    launch, rest = saving_split(s.question, s.device, value)
    t = lambda x: _fmt("launch_overhead_s", x)  # noqa: E731
    text = (f" Raising the launch overhead only adds to what fusing saves. At {t(value)}, "
            f"fusing saves {t(launch + rest)}: {t(launch)} of launch overhead "
            f"({Fact(launch / (launch + rest), 'share', 'cost model').text()}) and {t(rest)} "
            f"of memory traffic and arithmetic.")
    if s.answer is None:
        return text + (f" Between {t(s.values[0])} and {t(s.values[-1])} the two parts are "
                       f"never equal.")
    times = Fact(s.answer / s.own_value, "ratio", "cost model").text()
    return text + (f" The launches it saves are worth as much as the rest at a launch "
                   f"overhead of {t(s.answer)}, {times} the {s.device} profile's: below it "
                   f"fusing pays mostly by the traffic it removes, above it mostly by the "
                   f"launches.")


QUESTIONS = (
    Question("duplication-launch", "Duplication against launch overhead",
             "Recomputing t in each consumer's kernel saves a launch and the round trip of t, "
             "and costs more tanh. At what launch overhead does duplicating start to pay, "
             "against writing t once and running each consumer as a kernel of its own?",
             "cost-model", graphs.expensive_shared,
             (("t duplicated into each consumer", graphs.duplicated_groups),
              ("t written once", _write_once)), "launch_overhead_s"),
    Question("duplication-transcendental", "Duplication against the cost of a transcendental",
             "The same choice, moving the other term: at what cost of a transcendental does "
             "recomputing t in each consumer stop paying?",
             "cost-model", graphs.expensive_shared,
             (("t duplicated into each consumer", graphs.duplicated_groups),
              ("t written once", _write_once)), "transcendental_flops"),
    Question("chain-launch", "Loop fusion: launches or traffic?",
             "Fusing the chain of pointwise ops removes launches and memory traffic. Raising "
             "the launch overhead can only make fusing pay more, so ask it the other way: at "
             "what launch overhead are the launches fusing saves worth as much as the traffic "
             "it saves?", "loop", graphs.chain,
             (("the chain fused", _planner), ("every op its own kernel", _unfused)),
             "launch_overhead_s", solve=equal_share_launch, explain=saving_split_text),
)

#: questions by id
BY_ID = {q.id: q for q in QUESTIONS}


@dataclass(frozen=True)
class Sweep:
    """A question's answer on a device: the knob's values, both plans' predicted times, the
    crossing (None when the plans do not cross in the range) and the device's own value;
    ``answer``, the knob value a question with a ``solve`` of its own asks for."""

    question: Question
    device: str
    values: tuple
    times_a: tuple
    times_b: tuple
    crossing: float | None
    own_value: float
    kernels: tuple
    planner_times: tuple = ()
    planner_kernels: tuple = ()
    answer: float | None = None

    def winner_at(self, value: float) -> int:
        """0 when plan A is predicted faster at ``value``, else 1."""
        a, b = _times(self.question, self.device, value)
        return 0 if a < b else 1

    @property
    def planner_changes(self) -> list:
        """The knob values at which the planner's own plan has another number of kernels than
        at the value before."""
        k = self.planner_kernels
        return [self.values[i] for i in range(1, len(k)) if k[i] != k[i - 1]]

    def to_json(self) -> dict:
        return {"question": self.question.id, "device": self.device, "knob": self.question.knob,
                "values": list(self.values), "times_a": list(self.times_a),
                "times_b": list(self.times_b), "crossing": self.crossing,
                "own_value": self.own_value, "kernels": list(self.kernels),
                "planner_times": list(self.planner_times),
                "planner_kernels": list(self.planner_kernels), "answer": self.answer}


def _plans(question: Question, device: str):
    from workbench.planner.plan import make_plan

    graph = question.build()
    return graph, [make_plan(graph, fn(graph), policy="what-if", device=device)
                   for _, fn in question.plans]


def _times(question: Question, device: str, value: float) -> tuple[float, float]:
    from workbench.costmodel.model import get_device, plan_cost

    graph, plans = _cached_plans(question, device)
    dev = with_knob(get_device(device), question.knob, value)
    a, b = (plan_cost(graph, p, dev).total.predicted_s for p in plans)
    return a, b


_PLAN_CACHE: dict = {}


def _cached_plans(question, device):
    key = (question.id, device)
    if key not in _PLAN_CACHE:
        _PLAN_CACHE[key] = _plans(question, device)
    return _PLAN_CACHE[key]


def sweep(question: Question, device: str = "cpu") -> Sweep:
    """Both plans' predicted times over the knob's range on ``device``, and where they cross.

    The range is the device's own value divided and multiplied by :data:`SPAN`, log-spaced;
    a sign change of the difference is refined by bisection to a relative tolerance of 1e-6.
    """
    from workbench.costmodel.knobs import get_knob
    from workbench.costmodel.model import get_device
    from workbench.planner.whatif import knob_sweep

    own = float(getattr(get_device(device), question.knob))
    knob = get_knob(question.knob)
    lo = max(own / SPAN, knob.low if knob.low > 0 else own / SPAN)
    hi = min(own * SPAN, knob.high)
    # log-spaced, the ends exactly lo and hi (lo * (hi / lo) ** 1 can round past hi, and a
    # knob refuses a value beyond its range: 10000.000000000002 FLOP on a machine whose
    # transcendental cost, times SPAN, passed the knob's 10,000)
    values = tuple(min(hi, max(lo, lo * (hi / lo) ** (k / (POINTS - 1))))
                   for k in range(POINTS))
    pairs = [_times(question, device, v) for v in values]
    diff = [a - b for a, b in pairs]
    crossing = None
    for k in range(1, POINTS):
        if (diff[k - 1] < 0) != (diff[k] < 0):
            crossing = _bisect(question, device, values[k - 1], values[k], diff[k - 1] < 0)
            break
    graph, plans = _cached_plans(question, device)
    planned = knob_sweep(graph, question.knob, values, device=device)
    return Sweep(question, device, values, tuple(a for a, _ in pairs),
                 tuple(b for _, b in pairs), crossing, own, tuple(p.num_kernels for p in plans),
                 tuple(p.predicted_s for p in planned), tuple(p.kernels for p in planned),
                 question.solve(question, device) if question.solve else None)


def geometric_bisect(below, lo: float, hi: float, steps: int, rel: float) -> float:
    """The point of ``[lo, hi]`` (both > 0) where ``below(v)`` turns from true to false,
    halving the interval on a log scale (knobs span decades) until ``hi / lo - 1 < rel`` or
    after ``steps`` halvings."""
    for _ in range(steps):
        mid = math.sqrt(lo * hi)
        if below(mid):
            lo = mid
        else:
            hi = mid
        if hi / lo - 1 < rel:
            break
    return math.sqrt(lo * hi)


def _bisect(question, device, lo, hi, a_wins_low: bool) -> float:
    def below(v):
        a, b = _times(question, device, v)
        return (a < b) == a_wins_low

    return geometric_bisect(below, lo, hi, 60, 1e-6)


def planner_choice(question: Question, device: str, value: float) -> int:
    """Kernels of the planner's own plan (priority policy) with the knob at ``value``
    (:func:`workbench.planner.whatif.knob_sweep` at that one value)."""
    from workbench.planner.whatif import knob_sweep

    graph, _ = _cached_plans(question, device)
    return knob_sweep(graph, question.knob, [value], device=device)[0].kernels


def _fmt(knob: str, value: float) -> str:
    from workbench.teaching.facts import Fact

    return Fact(value, KNOBS[knob][1], "cost model").text()


def answer_text(s: Sweep, value: float | None = None) -> str:
    """The answer in words, every figure from the sweep (the cost model): where the plans
    cross, which is faster on either side, and at ``value`` (default: the device's own) which
    plan is predicted faster and by how much."""
    q = s.question
    (name_a, _), (name_b, _) = q.plans
    label = KNOBS[q.knob][0]
    value = s.own_value if value is None else value
    a, b = _times(q, s.device, value)
    faster, slower = (name_a, name_b) if a < b else (name_b, name_a)
    at = (f"At a {label} of {_fmt(q.knob, value)} on the {s.device} profile, "
          f"{faster} is predicted faster: {_fmt('launch_overhead_s', min(a, b))} against "
          f"{_fmt('launch_overhead_s', max(a, b))} for {slower}.")
    if s.crossing is None:
        first = name_a if s.times_a[0] < s.times_b[0] else name_b
        return (at + f" The plans do not cross between {_fmt(q.knob, s.values[0])} and "
                f"{_fmt(q.knob, s.values[-1])}: {first} is faster all the way."
                ) + planner_text(s) + _explained(s, value)
    low = name_a if s.times_a[0] < s.times_b[0] else name_b
    high = name_b if low == name_a else name_a
    return (at + f" The plans cross at {_fmt(q.knob, s.crossing)}: below it {low} is faster, "
            f"above it {high}.") + planner_text(s) + _explained(s, value)


def _explained(s: Sweep, value: float) -> str:
    return s.question.explain(s, value) if s.question.explain else ""


def planner_text(s: Sweep) -> str:
    """Where the planner's own plan (re-planned at each value) changes, in words."""
    changes = s.planner_changes
    if not s.planner_kernels:
        return ""
    if not changes:
        return (f" Re-planned at each value, the planner keeps the same number of kernels "
                f"({s.planner_kernels[0]}) over the whole range.")
    where = ", ".join(_fmt(s.question.knob, v) for v in changes[:4])
    return f" Re-planned at each value, the planner's own plan changes near {where}."

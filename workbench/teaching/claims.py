"""Checking a lesson's claims against the cost model and the profile, and saying why one fails.

Each :class:`~.lesson.Claim` is checked by one function of :data:`CHECKS`, which returns a
verdict (``holds``, ``fails`` or ``pending`` while the profile runs) and a template of what was
found; when a claim fails on this machine, :func:`why` adds the reason the workbench's own
numbers give (a compute-bound kernel, launch overhead, a busy machine, a missed prediction).
No figure is typed here either: the verdicts are templates over the facts.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.teaching.facts import FASTER_MARGIN, MISS_FACTOR, missed
from workbench.teaching.template import Segment, render

HOLDS, FAILS, PENDING = "holds", "fails", "pending"


@dataclass(frozen=True)
class ClaimResult:
    """A claim, checked: ``status`` and the statement and verdict as rendered segments."""

    kind: str
    status: str
    statement: list
    verdict: list

    def to_json(self) -> dict:
        return {"kind": self.kind, "status": self.status,
                "statement": "".join(s.text for s in self.statement),
                "verdict": "".join(s.text for s in self.verdict)}


def _value(facts, key):
    f = facts.get(key)
    return None if f is None else f.value


def _pending(facts, *keys) -> bool:
    return any(_value(facts, k) is None for k in keys)


def check_fewer_bytes(c, facts, run):
    s = c.stage
    model = _value(facts, f"{s}.bytes_moved") < _value(facts, "unfused.bytes_moved")
    text = (f"The cost model counts {{unfused.bytes_moved}} moved unfused and {{{s}.bytes_moved}} "
            f"here, {{{s}.saved_bytes}} fewer. ")
    if _pending(facts, f"{s}.measured_bytes"):
        pending = f"The profile's count is {{{s}.measured_bytes}}."
        return (PENDING if model else FAILS), text + pending
    measured = _value(facts, f"{s}.measured_bytes") < _value(facts, f"{s}.measured_unfused_bytes")
    text += (f"The compiled kernels' arguments come to {{{s}.measured_unfused_bytes}} unfused and "
             f"{{{s}.measured_bytes}} here.")
    return (HOLDS if model and measured else FAILS), text


def faster_beyond_noise(fast: float, slow: float, spread: float | None) -> bool:
    """True when ``fast`` (seconds per call) beats ``slow`` by a margin, not by noise: the
    speedup ``slow / fast`` is at least :data:`FASTER_MARGIN` and the time saved is larger
    than ``spread``, the interquartile range of the runs (seconds; None or 0: not known)."""
    if not fast or not slow or fast <= 0:
        return False
    return slow / fast >= FASTER_MARGIN and slow - fast > (spread or 0.0)


def _margin_text(s: str) -> str:
    return (f" The rule: a plan is faster when it saves at least {{rule.faster_margin}} of the "
            f"time and more than the spread of its runs ({{{s}.spread}} between the quartiles).")


def check_faster(c, facts, run):
    s = c.stage
    text = (f"Measured on this machine: {{{s}.measured}} per call here against "
            f"{{{s}.measured_unfused}} unfused, a speedup of {{{s}.measured_speedup}} (the cost "
            f"model predicted {{{s}.speedup}}).")
    if _pending(facts, f"{s}.measured", f"{s}.measured_unfused"):
        return PENDING, text
    ok = faster_beyond_noise(_value(facts, f"{s}.measured"),
                             _value(facts, f"{s}.measured_unfused"), _value(facts, f"{s}.spread"))
    return (HOLDS if ok else FAILS), text + _margin_text(s)


def follows_bytes(stage: str, facts) -> str | None:
    """Whether a stage's measured time follows its bytes: ``"same"`` when the fused plan's
    measured time and the time it would take if it shrank with the bytes (the unfused plan's
    measured time over the bytes' ratio) are the same by the lessons' one rule for comparing
    two times (:func:`faster_beyond_noise`: neither is faster by at least
    :data:`~.facts.FASTER_MARGIN` and by more than the spread of the runs); else ``"above"``
    (the measured speedup beats the bytes' ratio) or ``"below"``; None while pending."""
    fused, unfused = _value(facts, f"{stage}.measured"), _value(facts, f"{stage}.measured_unfused")
    ratio = _value(facts, f"{stage}.bytes_ratio")
    if not fused or not unfused or not ratio or ratio <= 0:
        return None
    ideal, spread = unfused / ratio, _value(facts, f"{stage}.spread")
    if faster_beyond_noise(fused, ideal, spread):
        return "above"
    if faster_beyond_noise(ideal, fused, spread):
        return "below"
    return "same"


def check_memory_bound_ideal(c, facts, run):
    s = c.stage
    text = (f"If the time were all memory traffic, it would shrink as the bytes do: fusion "
            f"removes {{{s}.bytes_saved_share}} of the bytes moved, so it would remove as much "
            f"of the time, a speedup of {{{s}.bytes_ratio}}. Measured, it removes "
            f"{{{s}.time_saved_share}} of the time, a speedup of {{{s}.measured_speedup}}.")
    if _pending(facts, f"{s}.measured_speedup"):
        return PENDING, text
    follows = follows_bytes(s, facts)
    rule = (f" The rule: two times are the same unless one is shorter by at least "
            f"{{rule.faster_margin}} and by more than the spread of the runs "
            f"({{{s}.spread}} between the quartiles).")
    if follows != "same":
        word = "beats" if follows == "above" else "falls short of"
        return FAILS, text + (f" The measured speedup {word} the ratio of the bytes by more "
                              f"than that rule allows." + rule)
    if not str(_value(facts, f"{s}.bound") or "").startswith("memory"):
        # the speedup is the bytes' ratio, but the cost model says the premise is false: the
        # claim, premise and all, does not hold (one verdict for the mark and the text)
        return FAILS, text + (
            f" The speedup is the ratio of the bytes within the rule's margin, but the premise "
            f"does not hold: the cost model finds the slowest "
            f"kernel {{{s}.bound}} ({{{s}.kernel_compute}} of arithmetic against "
            f"{{{s}.kernel_memory}} of memory traffic), so its time is not the bytes' alone; "
            f"the measured times were {{{s}.measured_vs_predicted}} (fused) and "
            f"{{{s}.measured_unfused_vs_predicted}} (unfused) of its predictions.")
    return HOLDS, text + " The speedup is the ratio of the bytes within the rule's margin." + rule


def check_prediction(c, facts, run):
    s = c.stage
    text = (f"The cost model predicted {{{s}.predicted}} here and {{{s}.predicted_unfused}} "
            f"unfused; the profile measured {{{s}.measured}} and {{{s}.measured_unfused}}: "
            f"{{{s}.measured_vs_predicted}} and {{{s}.measured_unfused_vs_predicted}} of the "
            f"prediction.")
    keys = (f"{s}.measured_vs_predicted", f"{s}.measured_unfused_vs_predicted")
    if _pending(facts, *keys):
        return PENDING, text
    miss = [missed(_value(facts, k)) for k in keys]
    if any(miss):
        return FAILS, text + " A miss: the prediction is off by more than the tolerance."
    return HOLDS, text + " Within the tolerance of a roofline estimate."


def check_slower_than(c, facts, run):
    s, o = c.stage, c.other
    text = (f"Measured: {{{s}.measured}} per call for {run.stage(s).title} against "
            f"{{{o}.measured}} for {run.stage(o).title} (the cost model: {{{s}.predicted}} "
            f"against {{{o}.predicted}}).")
    if _pending(facts, f"{s}.measured", f"{o}.measured"):
        return PENDING, text
    spreads = [v for v in (_value(facts, f"{s}.spread"), _value(facts, f"{o}.spread")) if v]
    ok = faster_beyond_noise(_value(facts, f"{o}.measured"), _value(facts, f"{s}.measured"),
                             max(spreads, default=None))
    return (HOLDS if ok else FAILS), text + (
        f" The rule: one plan is slower than another when the other saves at least "
        f"{{rule.faster_margin}} of its time and more than the spread of the runs.")


def check_beats_unfused(c, facts, run):
    """A variant on a graph of its own (the folded graph) against the lesson graph with every
    op its own kernel, timed beside the planner's plan."""
    s = c.stage
    text = (f"Measured: {{{s}.measured}} per call {run.stage(s).title} against "
            f"{{unfused.measured}} with every op its own kernel, a speedup of "
            f"{{{s}.measured_speedup_lesson}} (the cost model predicted {{{s}.predicted}} "
            f"against {{unfused.predicted}}).")
    if _pending(facts, f"{s}.measured", "unfused.measured"):
        return PENDING, text
    ok = faster_beyond_noise(_value(facts, f"{s}.measured"), _value(facts, "unfused.measured"),
                             _value(facts, f"{s}.spread"))
    return (HOLDS if ok else FAILS), text + _margin_text(s)


def check_registers(c, facts, run):
    s, o = c.stage, c.other
    text = (f"The planner's kernels need at most {{{s}.registers}} registers per thread, the "
            f"cap is {{device.cap}}, and the kernel fused whole would need {{{o}.registers}}.")
    cap = _value(facts, "device.cap")
    ok = _value(facts, f"{s}.registers") <= cap < _value(facts, f"{o}.registers")
    return (HOLDS if ok else FAILS), text


CHECKS = {"registers": check_registers, "fewer-bytes": check_fewer_bytes, "faster": check_faster,
          "memory-bound-ideal": check_memory_bound_ideal, "prediction": check_prediction,
          "slower-than": check_slower_than, "beats-unfused": check_beats_unfused}


def why(stage: str, facts, run, direction: str = "below") -> str:
    """The reason, in the workbench's own numbers, that a claim about ``stage`` fails here (a
    template). ``direction`` is ``below`` when the measurement fell short of the claim, ``above``
    when it beat it, ``miss`` when a prediction missed, ``close`` when two plans the claim
    orders are predicted within :data:`CLOSE` of each other, ``margin`` when a plan was faster
    but not by the rule's margin (:data:`~.facts.FASTER_MARGIN`, and the runs' spread),
    ``premise`` when the verdict itself already says why (nothing is added), ``bytes`` for a
    plan that removes no bytes. Noisy timings are said first; then a compute-bound kernel,
    launch overhead, or the cost model's terms for the slowest kernel."""
    noisy = ("The timings were noisy (another process held the CPU), so the fastest runs are "
             "compared, and the figures may change when measured again on a quieter machine. "
             if _value(facts, f"{stage}.noisy") == "yes" else "")
    return noisy + _reason(stage, facts, direction)


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def _reason(stage: str, facts, direction: str) -> str:
    if direction == "separate":
        return _separate_reason(stage, facts)
    if direction == "premise":  # the verdict has said why, in the cost model's numbers
        return ""
    if direction == "margin":
        return (f"Why: the fused plan is not faster by the rule's margin: the times differ by "
                f"less than {{rule.faster_margin}} or by less than the spread of the runs, "
                f"which is measurement noise. And " + _lower(_reason(stage, facts, "below"))
                .removeprefix("why: "))
    if direction == "bytes" and _value(facts, f"{stage}.kernels") == _value(
            facts, "unfused.kernels"):
        return (f"Why: this plan has as many kernels as the unfused one ({{{stage}.kernels}}): "
                f"the planner fused nothing here, so no value stops moving.")
    if direction == "close":
        return (f"Why: the cost model expects the two plans to take nearly the same time, so "
                f"which is faster here is decided by what the model leaves out and by the "
                f"run-to-run variation (the middle half of this plan's runs spread over "
                f"{{{stage}.spread}}).")
    if direction == "above":
        return (f"Why: the unfused plan also pays for {{unfused.kernels}} launches "
                f"({{unfused.launch}} of launch overhead in the cost model) against "
                f"{{{stage}.kernels}} here, and each of its kernels makes a pass of its own over "
                f"memory: fusion saves more than bytes.")
    bound = str(_value(facts, f"{stage}.bound") or "")
    if direction == "below" and bound.startswith("compute"):
        return (f"Why: the cost model finds the slowest kernel compute-bound, "
                f"{{{stage}.kernel_compute}} of arithmetic against {{{stage}.kernel_memory}} of "
                f"memory traffic, so the bytes fusion removes are a small part of its time.")
    launch, total = _value(facts, f"{stage}.launch"), _value(facts, f"{stage}.predicted")
    if direction == "below" and launch and total and launch > total / MISS_FACTOR:
        return (f"Why: the kernels are small; launch overhead is {{{stage}.launch}} of the "
                f"predicted {{{stage}.predicted}}, and it does not shrink with the bytes.")
    return (f"The cost model's terms for the slowest kernel here: {{{stage}.bound}}, "
            f"{{{stage}.kernel_memory}} of memory traffic and {{{stage}.kernel_compute}} of "
            f"arithmetic; the generated code runs off that roofline by the ratio above.")


def _separate_reason(stage: str, facts) -> str:
    """Why a variant on a graph of its own measured slower than the lesson graph unfused: where
    its heaviest kernel took longer than the same ops did as separate kernels although the
    cost model counts the same work, the two measurements are said to differ, not the plans."""
    heavy, same = _value(facts, f"{stage}.heavy_measured"), _value(facts,
                                                                   f"{stage}.same_ops_unfused")
    mine, base = _value(facts, f"{stage}.predicted"), _value(facts, "unfused.predicted")
    if heavy is None or same is None or heavy <= same or not mine or not base or mine >= base:
        return _reason(stage, facts, "below")
    return (f"Why: the time is in this plan's heaviest kernel ({{{stage}.heavy_ops}}): it took "
            f"{{{stage}.heavy_measured}}, where the same ops as separate kernels took "
            f"{{{stage}.same_ops_unfused}} in the unfused plan's measurement, "
            f"{{{stage}.heavy_op}} alone {{{stage}.heavy_op_unfused}}. The cost model counts "
            f"nearly the same work for both ({{{stage}.heavy_flops}} FLOPs against "
            f"{{{stage}.same_ops_flops}}), predicts that kernel at {{{stage}.heavy_predicted}} "
            f"and this plan faster than every op alone. This plan and the unfused one are "
            f"timed in separate profiles (each against its own graph unfused), and the same "
            f"ops ran slower in this plan's profile than in the other: the difference is "
            f"between the two measurements, not in what the plan computes (the middle half of "
            f"this plan's runs spread over {{{stage}.spread}}). Measure again to see how far "
            f"it moves.")


#: which way a failed check missed, for :func:`why`
DIRECTION = {"prediction": "miss", "beats-unfused": "separate", "fewer-bytes": "bytes"}


#: two predictions closer than this fraction of the larger are "nearly the same time"
CLOSE = 0.1


def _direction(claim, facts) -> str:
    if claim.kind == "slower-than":
        a = _value(facts, f"{claim.stage}.predicted")
        b = _value(facts, f"{claim.other}.predicted")
        if a and b and abs(a - b) < CLOSE * max(a, b):
            return "close"
    if claim.kind == "memory-bound-ideal":
        follows = follows_bytes(claim.stage, facts)
        return "premise" if follows == "same" else "above" if follows == "above" else "below"
    if claim.kind == "faster":
        fast = _value(facts, f"{claim.stage}.measured")
        slow = _value(facts, f"{claim.stage}.measured_unfused")
        if fast and slow and fast < slow:
            return "margin"
    return DIRECTION.get(claim.kind, "below")


def check(claim, facts: dict, run) -> ClaimResult:
    """Check one claim; the verdict ends with :func:`why` when it fails."""
    status, text = CHECKS[claim.kind](claim, facts, run)
    if status == FAILS:
        text = (text + " " + why(claim.stage, facts, run, _direction(claim, facts))).rstrip()
    prefix = {HOLDS: "Holds here. ", FAILS: "Does not hold here. ", PENDING: ""}[status]
    return ClaimResult(claim.kind, status, render(claim.statement, facts),
                       [Segment(prefix)] + render(text, facts))


def check_all(run) -> list[ClaimResult]:
    """Every claim of the lesson of ``run`` (a :class:`~.lesson.LessonRun`)."""
    facts = run.facts()
    return [check(c, facts, run) for c in run.lesson.claims]


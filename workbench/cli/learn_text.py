"""The terminal layout of ``workbench learn``: the catalogue, a lesson, an exercise, a score and
a what-if answer."""

from __future__ import annotations

import textwrap

from workbench.fmt import fmt_bytes, fmt_time, plural

WIDTH = 96
MARK = {"holds": "+", "fails": "!", "pending": "?"}


def _wrap(text: str, indent: str = "  ") -> str:
    return textwrap.fill(text, WIDTH, initial_indent=indent, subsequent_indent=indent,
                         break_on_hyphens=False)


def catalogue_text(doc: dict) -> str:
    lines = ["Lessons (workbench learn LESSON [--measure]):"]
    for lesson in doc["lessons"]:
        extra = "" if lesson["measured"] else "  (costed, not measured)"
        lines.append(f"  {lesson['id']:<12} {lesson['title']}{extra}")
        for q in lesson["questions"]:
            lines.append(f"  {'':<12}   what-if: {q['id']} — {q['title']}")
    lines.append("Exercises (workbench learn EXERCISE --answer FILE):")
    for e in doc["exercises"]:
        against = " and ".join(e["scored_against"])
        missing = "" if e["available"] else "  [needs ../shared/hlo]"
        lines.append(f"  {e['id']:<20} level {e['level']} ({e['level_name']}): {e['title']}"
                     f" — scored against {against}{missing}")
    return "\n".join(lines)


def _measured_lines(doc: dict) -> list[str]:
    """When each stage's figures were measured on this machine: now, or earlier and read back
    from the store (``doc["measured_now"]``: the stages this command measured)."""
    now = set(doc.get("measured_now") or ())
    out = []
    for stage, r in sorted((doc.get("records") or {}).items()):
        when = r.get("measured_at") or "an unknown time"
        how = "just now" if stage in now else \
            "stored; `--measure --again` measures again"
        out.append(f"measured {stage}: here at {when} ({how})")
    return out + ([""] if out else [])


def lesson_text(doc: dict) -> str:
    lines = [doc["title"], "=" * len(doc["title"]),
             f"costed on the {doc['device']} profile" + (
                 "" if doc["measured"] else "; not measured on this machine"), ""]
    lines += _measured_lines(doc)
    lines += [_wrap(p) + "\n" for p in doc["text"]]
    lines.append("Stages (the cost model's figures):")
    for s in doc["stages"]:
        head = (f"  {s['id']:<10} {plural(s['kernels'], 'kernel'):>11}  "
                f"{fmt_bytes(s['bytes_read'] + s['bytes_written']):>10} moved  "
                f"{fmt_time(s['predicted_s']):>9}  ")
        # the stage's title is the planner's sentence: wrapped under itself, never cut
        lines.append(textwrap.fill(s["title"], WIDTH, initial_indent=head,
                                   subsequent_indent=" " * len(head), break_on_hyphens=False))
    lines.append("")
    lines.append("Claims, checked here (+ holds, ! does not hold, ? waiting for a measurement):")
    for c in doc["claims"]:
        lines.append(_wrap(f"{MARK[c['status']]} {c['statement']}"))
        lines.append(_wrap(c["verdict"], "      "))
    if any(c["status"] == "pending" for c in doc["claims"]):
        lines.append("\n  (not measured on this machine yet: run with --measure)")
    return "\n".join(lines)


def exercise_text(doc: dict) -> str:
    lines = [f"{doc['title']}  (level {doc['level']}, {doc['level_name']})", _wrap(doc["prompt"]),
             "", f"What the ops read ({plural(len(doc['inputs']), 'input')}, "
             f"{plural(len(doc['constants']), 'constant')}; in no kernel):"]
    lines += [f"  {p['id']:<24} {'parameter':<22} {p['type']}" for p in doc["inputs"]]
    lines += [f"  {c['id']:<24} {'constant':<22} {c['type']}" for c in doc["constants"]]
    lines += ["", f"The ops ({len(doc['ops'])}), each its own kernel to start with:"]
    for op in doc["ops"]:
        reads = f" <- {', '.join(op['operands'])}" if op["operands"] else ""
        lines.append(f"  {op['id']:<24} {op['op']:<22} {op['type']}{reads}")
    lines += ["", "Answer with a JSON file of groups, e.g. "
              "{\"groups\": [[\"a\", \"b\"], [\"c\"]]}, "
              f"and run: workbench learn {doc['id']} --answer FILE"]
    return "\n".join(lines)


def score_text(exercise, score) -> str:
    lines = [f"{exercise.title}: your {plural(len(score.groups), 'group')} of two or more ops"
             if score.groups else f"{exercise.title}: no group of two or more ops"]
    for g in score.groups:
        lines.append(f"  [{', '.join(g)}]")
    for r in score.refused:
        lines.append(_wrap(f"refused [{', '.join(r.group)}] ({r.code}): {r.message}; its ops "
                           "run alone, your other groups are kept"))
    for n in score.notes:
        lines.append(_wrap(f"note: {n}"))
    for c in score.comparisons:
        lines.append("")
        lines.append(f"Against {c.label}: F1 {c.f1:.3f} (precision {c.precision:.3f}, recall "
                     f"{c.recall:.3f}); {c.agreed} of {c.key_pairs} fused pairs agree, "
                     f"{c.answer_pairs - c.agreed} of yours are not in it"
                     + (" — exactly the same groups" if c.exact else ""))
        for d in c.differences:
            who = "it fuses, you did not" if d.side == "key" else "you fused, it did not"
            pairs = ", ".join(f"{a}+{b}" for a, b in d.pairs[:4])
            more = f" and {len(d.pairs) - 4} more" if len(d.pairs) > 4 else ""
            step = f"decision {d.step + 1}" if d.step is not None else d.source
            lines.append(_wrap(f"- {who}: {pairs}{more}", "  "))
            lines.append(_wrap(f"{step} [{d.reason}]: {d.explanation}", "      "))
    return "\n".join(lines)


def sweep_text(s) -> str:
    from workbench.teaching.whatif import KNOBS, answer_text

    q = s.question
    lines = [q.title, _wrap(q.text), "", _wrap(answer_text(s)), "",
             f"  {KNOBS[q.knob][0]:<36} " + "  ".join(f"{n[:28]:>28}" for n, _ in q.plans)]
    from workbench.teaching.facts import Fact

    for k in range(0, len(s.values), 10):
        v = Fact(s.values[k], KNOBS[q.knob][1], "cost model").text()
        lines.append(f"  {v:<36} {fmt_time(s.times_a[k]):>28}  {fmt_time(s.times_b[k]):>28}")
    return "\n".join(lines)

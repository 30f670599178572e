"""``workbench learn``: the lessons, exercises and what-if questions, in the terminal.

``workbench learn`` lists them (``--json``: ``{"lessons": [...], "exercises": [...]}``);
``workbench learn LESSON`` prints a lesson with its figures and the check of each claim
(``--measure`` profiles what is not measured yet on this machine); ``workbench learn EXERCISE
--answer FILE`` scores an answer; ``workbench learn QUESTION`` answers a what-if question.
"""

from __future__ import annotations

import json
from pathlib import Path

from workbench.cli import learn_text
from workbench.errors import InputError

#: the largest answer file read (bytes)
ANSWER_MAX_BYTES = 1 << 20


def register(sub) -> None:
    """Add ``learn`` to the subcommands."""
    p = sub.add_parser("learn", help="lessons, 'predict the fusion' exercises and what-if "
                       "questions", description=__doc__.split("\n\n")[1])
    p.add_argument("name", nargs="?", help="a lesson, exercise or what-if question (omit to "
                   "list them)")
    p.add_argument("--answer", metavar="FILE", help="score this answer to the exercise: JSON "
                   "{\"groups\": [[node, ...], ...]} (or a plan saved by the app); - reads "
                   "standard input")
    p.add_argument("--measure", action="store_true", help="profile the lesson's plans on this "
                   "machine where no measurement is stored yet")
    p.add_argument("--again", action="store_true", help="with --measure: measure everything "
                   "again, replacing stored figures")
    p.add_argument("--device", default=None, help="device profile of a what-if question "
                   "(default: the one lessons are measured on)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_learn)


def find(name: str):
    """``(kind, item)`` for a lesson, exercise or question id.

    Raises
    ------
    InputError
        For an unknown name (the message lists the known ones).
    """
    from workbench import teaching

    for kind, table in (("lesson", teaching.LESSONS_BY_ID),
                        ("exercise", teaching.EXERCISES_BY_ID),
                        ("question", teaching.QUESTIONS_BY_ID)):
        if name in table:
            return kind, table[name]
    known = ", ".join([*teaching.LESSONS_BY_ID, *teaching.EXERCISES_BY_ID,
                       *teaching.QUESTIONS_BY_ID])
    raise InputError(f"no lesson, exercise or what-if question named {name!r} (known: {known})")


def read_answer_file(path: str):
    """The JSON document in an answer file: a file, a pipe (``/dev/stdin``, a shell's
    ``<(...)``), or ``-`` for standard input.

    Raises
    ------
    InputError
        A missing, unreadable or oversized file (at most :data:`ANSWER_MAX_BYTES`), a folder,
        or JSON that does not parse (with its line and column).
    """
    import sys

    where = "standard input" if path == "-" else path
    if path == "-":
        data = sys.stdin.buffer.read(ANSWER_MAX_BYTES + 1)
    else:
        p = Path(path)
        if p.is_dir():
            raise InputError("this is a folder, not an answer file", file=path)
        if not p.exists():
            raise InputError("no such answer file", file=path)
        if p.is_file() and p.stat().st_size > ANSWER_MAX_BYTES:
            data = b"x" * (ANSWER_MAX_BYTES + 1)
        else:  # a regular file, or a pipe whose size is known only once it is read
            try:
                with open(p, "rb") as f:
                    data = f.read(ANSWER_MAX_BYTES + 1)
            except OSError as exc:
                raise InputError(f"cannot read the answer file: {exc.strerror}",
                                 file=path) from None
    if len(data) > ANSWER_MAX_BYTES:
        raise InputError(f"the answer file is larger than {ANSWER_MAX_BYTES >> 20} MiB",
                         file=where)
    if not data.strip():
        raise InputError("the answer is empty: expected JSON {\"groups\": [[node, ...], ...]}",
                         file=where)
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("the answer file is not UTF-8 text", file=where) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON: {exc.msg}", file=where, line=exc.lineno,
                         column=exc.colno) from None


def cmd_learn(args) -> int:
    from workbench import teaching

    if not args.name:
        if args.answer or args.measure:
            raise InputError("--answer and --measure need a lesson or exercise name")
        doc = teaching.catalogue()
        print(json.dumps(doc, indent=1) if args.json else learn_text.catalogue_text(doc))
        return 0
    kind, item = find(args.name)
    if args.answer and kind != "exercise":
        raise InputError(f"{args.name} is a {kind}: --answer scores an exercise")
    if args.measure and kind != "lesson":
        raise InputError(f"{args.name} is a {kind}: --measure profiles a lesson")
    return {"lesson": _lesson, "exercise": _exercise, "question": _question}[kind](item, args)


def _lesson(lesson, args) -> int:
    from workbench.teaching import measure
    from workbench.teaching.documents import lesson_document
    from workbench.teaching.lesson import open_lesson

    backend, device = measure.measuring()
    run = open_lesson(lesson, device)
    stored = measure.records(run, backend)
    if args.measure and lesson.measure:
        records = measure.measure_lesson(run, backend, _progress, again=args.again)
    else:
        records = stored
    run = run.with_records(records)
    doc = lesson_document(run)
    # which figures this command measured, and which it read back from the store (and when
    # they were measured: lesson_text says so per stage)
    doc["measured_now"] = sorted(s for s, r in records.items() if r != stored.get(s))
    print(json.dumps(doc, indent=1) if args.json else learn_text.lesson_text(doc))
    return 0


def _progress(stage, k, n, message=""):
    import sys

    print(f"  {stage} {k}/{n} {message}", file=sys.stderr, flush=True)


def _exercise(exercise, args) -> int:
    from workbench.teaching.documents import exercise_document
    from workbench.teaching.scoring import read_answer, score_answer

    graph = exercise.graph()
    if not args.answer:
        doc = exercise_document(exercise, graph)
        print(json.dumps(doc, indent=1) if args.json else learn_text.exercise_text(doc))
        return 0
    doc = read_answer_file(args.answer)
    try:
        groups = read_answer(doc, graph)
    except InputError as exc:
        where = "standard input" if args.answer == "-" else args.answer
        raise InputError(exc.message, file=where, node=exc.node) from None
    score = score_answer(exercise, groups)
    print(json.dumps(score.to_json(), indent=1) if args.json
          else learn_text.score_text(exercise, score))
    return 0


def _question(question, args) -> int:
    from workbench.teaching import measure
    from workbench.teaching.whatif import sweep

    s = sweep(question, args.device or measure.measuring()[1])
    print(json.dumps(s.to_json(), indent=1) if args.json else learn_text.sweep_text(s))
    return 0

"""Teaching fusion: lessons that measure their own claims, "predict the fusion" exercises,
what-if questions, and the glossary the app and the lessons share.

Layer 9 of the pipeline (docs/architecture.md): it plans with the planner, edits and checks
with the legality checker, costs with the cost model and measures with the profiler; the app
and the command line call it.

>>> from workbench.teaching import catalogue          # doctest: +SKIP
>>> sorted(catalogue())                                # doctest: +SKIP
['exercises', 'lessons']
"""

from __future__ import annotations

from workbench.teaching.exercises import BY_ID as EXERCISES_BY_ID
from workbench.teaching.exercises import EXERCISES, Exercise
from workbench.teaching.lesson import Lesson, LessonRun, open_lesson
from workbench.teaching.lessons import BY_ID as LESSONS_BY_ID
from workbench.teaching.lessons import LESSONS
from workbench.teaching.whatif import BY_ID as QUESTIONS_BY_ID
from workbench.teaching.whatif import QUESTIONS


def catalogue() -> dict:
    """``{"lessons": [...], "exercises": [...]}`` (what ``workbench learn --json`` prints): each
    lesson with its what-if questions, each exercise with its level and what it is scored
    against."""
    questions = {q.id: q.to_json() for q in QUESTIONS}
    lessons = []
    for lesson in LESSONS:
        doc = lesson.to_json()
        doc["questions"] = [questions[q] for q in lesson.questions]
        lessons.append(doc)
    return {"lessons": lessons, "exercises": [e.to_json() for e in EXERCISES]}


__all__ = ["EXERCISES", "EXERCISES_BY_ID", "Exercise", "LESSONS", "LESSONS_BY_ID", "Lesson",
           "LessonRun", "QUESTIONS", "QUESTIONS_BY_ID", "catalogue", "open_lesson"]

"""Lesson text templates: prose with ``{fact.key}`` placeholders, rendered into segments.

A template holds no figure of its own: every number is a placeholder filled from a
:class:`~.facts.Fact`. :func:`literal_figures` finds the figures a template types by hand
(digits, and number words such as "twice" or "ten"); the tests run it over every lesson, and the
lesson checks run it when a lesson is defined.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workbench.errors import WorkbenchError
from workbench.teaching.facts import Fact

PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*)\}")
#: words that state a figure (``one`` and ``once`` are allowed: "one kernel" is a structural
#: claim the facts beside it check, as in "fused into one kernel of {fused.kernels}")
NUMBER_WORDS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve", "twenty", "thirty", "hundred", "thousand", "million",
                "billion", "dozen", "twice", "thrice", "half", "double", "triple", "quarter",
                "percent", "tenfold", "twofold")
#: a digit is a figure unless it is part of a name (L2, f32, h100)
_FIGURE = re.compile(r"(?<![A-Za-z_\d])\d|\b(" + "|".join(NUMBER_WORDS) + r")\b",
                     re.IGNORECASE)


class TemplateError(WorkbenchError):
    """A lesson template names a fact that is not there (a programming error in a lesson)."""

    code = "template"


@dataclass(frozen=True)
class Segment:
    """A piece of rendered text: plain ``text``, or a fact's value (``key`` and ``fact`` set)."""

    text: str
    key: str | None = None
    fact: Fact | None = None

    @property
    def pending(self) -> bool:
        return self.fact is not None and self.fact.pending

    def to_json(self) -> dict:
        d = {"text": self.text}
        if self.fact is not None:
            d.update(key=self.key, source=self.fact.source, what=self.fact.what,
                     pending=self.fact.pending)
        return d


def placeholders(template: str) -> list[str]:
    """The fact keys a template names, in order."""
    return PLACEHOLDER.findall(template)


def literal_figures(template: str) -> list[str]:
    """The figures typed by hand in ``template`` (outside its placeholders): numbers (digits
    that are not part of a name such as ``L2``) and number words; empty for a good template."""
    return [m.group(0) for m in _FIGURE.finditer(PLACEHOLDER.sub(" ", template))]


def render(template: str, facts: dict[str, Fact]) -> list[Segment]:
    """``template`` with each placeholder replaced by its fact's value.

    Raises
    ------
    TemplateError
        If a placeholder names a fact not in ``facts``.
    """
    out: list[Segment] = []
    pos = 0
    for m in PLACEHOLDER.finditer(template):
        if m.start() > pos:
            out.append(Segment(template[pos:m.start()]))
        key = m.group(1)
        if key not in facts:
            raise TemplateError(f"the lesson text names {{{key}}}, which no fact provides")
        out.append(Segment(facts[key].text(), key, facts[key]))
        pos = m.end()
    if pos < len(template):
        out.append(Segment(template[pos:]))
    return out


def plain(segments) -> str:
    """Rendered segments as one string."""
    return "".join(s.text for s in segments)

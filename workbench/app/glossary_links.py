"""Links to the glossary (:mod:`workbench.teaching.glossary`) wherever the app names a term:
the legend's group kinds, the cost cards' rows, the roofline, lesson and exercise text.

A link is a ``dcc.Link`` to ``/learn?term=<id>`` (the Learn page opens the entry; no page
reload) with the term's one-line definition as its tooltip.
"""

from __future__ import annotations

from dash import dcc, html

from workbench.teaching.glossary import BOUND_TERMS, KIND_TERMS, TERMS, find_terms

#: the cost cards' row labels (workbench.app.tables.COST_FIELDS) and their glossary entries
LABEL_TERMS = {
    "bytes read": "bytes", "bytes written": "bytes", "FLOPs": "flops",
    "transcendentals": "transcendental", "arithmetic intensity": "arithmetic-intensity",
    "FLOP-equivalents (FLOPs + transcendentals × their cost)": "transcendental",
    "registers / thread": "register-pressure", "occupancy": "occupancy",
    "launch overhead": "launch-overhead", "memory level": "memory-level",
    "memory time": "memory-bound", "compute time": "compute-bound",
    "predicted time": "cost-model", "bound": "roofline",
}


def term_href(term_id: str) -> str:
    """The Learn page's address of a glossary entry."""
    return f"/learn?term={term_id}"


def term_link(text: str, term_id: str, class_name: str = "term") -> dcc.Link:
    """``text`` linked to the glossary entry ``term_id``, its definition as the tooltip."""
    return dcc.Link(text, href=term_href(term_id), className=class_name,
                    title=TERMS[term_id].short)


def kind_link(kind: str, text: str | None = None):
    """A fusion kind's name linked to its entry (plain text for a kind without one)."""
    tid = KIND_TERMS.get(kind)
    return term_link(text or kind, tid) if tid else (text or kind)


def bound_link(bound: str, text: str | None = None):
    """A bound (``memory``, ``compute``, ``launch``) linked to its entry."""
    tid = BOUND_TERMS.get(bound)
    return term_link(text or bound, tid) if tid else (text or bound)


def label_link(label: str):
    """A cost card's row label, linked when the glossary has its term."""
    tid = LABEL_TERMS.get(label)
    return term_link(label, tid) if tid else label


def linkify(text: str, only: set | None = None) -> list:
    """``text`` as components with the first mention of each glossary term linked."""
    out, pos = [], 0
    for start, end, tid in find_terms(text, only):
        if start > pos:
            out.append(text[pos:start])
        out.append(term_link(text[start:end], tid))
        pos = end
    if pos < len(text):
        out.append(text[pos:])
    return out


def segments(parts, link_terms: bool = True) -> list:
    """Rendered lesson text (:class:`workbench.teaching.template.Segment`) as components: a
    figure is a span whose tooltip says where it comes from; prose has its terms linked."""
    out = []
    for s in parts:
        if s.fact is None:
            out.extend(linkify(s.text) if link_terms else [s.text])
        else:
            cls = "fact pending" if s.pending else f"fact src-{s.fact.source.replace(' ', '-')}"
            out.append(html.Span(s.text, className=cls,
                                 title=f"{s.fact.source}: {s.fact.what}" if s.fact.what
                                 else s.fact.source))
    return out

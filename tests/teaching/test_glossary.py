"""The glossary: one entry per term of DESIGN.md, found in running text, linked consistently."""

from __future__ import annotations

from workbench.teaching.glossary import BOUND_TERMS, KIND_TERMS, TERMS, catalogue, find_terms

DESIGN_TERMS = ("producer-consumer", "vertical-fusion", "horizontal-fusion", "multi-output",
                "loop-fusion", "input-fusion", "output-fusion", "duplication", "roofline",
                "arithmetic-intensity", "memory-bound", "compute-bound", "launch-overhead",
                "register-pressure", "occupancy", "bytes", "hlo")


def test_the_terms_of_design_md_are_defined_and_cross_referenced():
    assert set(DESIGN_TERMS) <= set(TERMS)
    for t in TERMS.values():
        assert t.short and t.text and set(t.related) <= set(TERMS), t.id
    assert set(KIND_TERMS.values()) | set(BOUND_TERMS.values()) <= set(TERMS)
    assert [d["id"] for d in catalogue()] == list(TERMS)


def test_terms_are_found_whole_word_once_each():
    text = "A memory-bound loop fusion; another loop fusion; the roofline's ridge point."
    found = [(text[s:e], t) for s, e, t in find_terms(text)]
    assert found == [("memory-bound", "memory-bound"), ("loop fusion", "loop-fusion"),
                     ("roofline", "roofline")]
    assert find_terms("a .hlo file, a compute-bounded guess") == []
    assert [t for _, _, t in find_terms("HLO and a multi-output kernel")] == [
        "hlo", "multi-output"]

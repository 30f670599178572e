"""Lessons and exercises as JSON-ready documents (what ``workbench learn NAME --json`` prints,
and what the terminal text is made from)."""

from __future__ import annotations

from workbench.teaching.claims import check_all
from workbench.teaching.template import plain, render


def stage_row(stage) -> dict:
    """One stage of a lesson: its kernels, bytes and predicted time (the cost model's)."""
    t = stage.cost.total
    d = stage.decision
    return {"id": stage.id, "title": stage.title, "graph": stage.graph.name,
            "kernels": t.kernels, "bytes_read": t.bytes_read, "bytes_written": t.bytes_written,
            "flops": t.flops, "predicted_s": t.predicted_s, "measured": stage.measure,
            "groups": [list(g.nodes) for g in stage.plan.groups if g.size > 1],
            "decision": None if d is None else {"step": d.step, "action": d.action,
                                                "fused": d.fused, "reason": d.reason,
                                                "message": d.message}}


def lesson_document(run) -> dict:
    """A lesson run as a document: its stages, its text with every figure filled in, its claims
    checked, and every fact with its value, unit and source."""
    facts = run.facts()
    lesson = run.lesson
    return {
        "id": lesson.id, "title": lesson.title, "concepts": list(lesson.concepts),
        "device": run.device.name, "measured": lesson.measure,
        "stages": [stage_row(s) for s in run.stages],
        "text": [plain(render(p, facts)) for p in lesson.text],
        "claims": [c.to_json() for c in check_all(run)],
        "facts": {k: {"value": f.value, "text": f.text(), "unit": f.unit, "source": f.source,
                      "what": f.what} for k, f in sorted(facts.items())
                  if not k.startswith(("value.", "flops.", "users."))},
        "records": run.records,
        "questions": list(lesson.questions),
    }


def exercise_document(exercise, graph) -> dict:
    """An exercise as a document: its prompt, the graph's inputs (``inputs``: parameters;
    ``constants``), and the ops to group, each with every operand it reads (``operands``: ops,
    inputs and constants alike, in operand order)."""
    from workbench.planner.plan import is_source

    doc = exercise.to_json()
    doc["inputs"] = [{"id": p.id, "type": str(p.type)} for p in graph.parameters]
    doc["constants"] = [{"id": n.id, "type": str(n.type)} for n in graph.topo_nodes()
                        if n.op == "constant"]
    doc["ops"] = [{"id": n.id, "op": n.op, "type": str(n.type), "operands": list(n.operands)}
                  for n in graph.topo_nodes() if not is_source(graph, n.id)]
    return doc

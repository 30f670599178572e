"""What ``workbench inspect`` tells about a graph, as data: sizes, ops, inputs and outputs,
opaque ops, dead code, and the XLA fusions an optimised module came with."""

from __future__ import annotations

from collections import Counter


def inspect_graph(graph) -> dict:
    """The facts ``workbench inspect`` prints, as a JSON-ready dict.

    Returns
    -------
    dict
        ``name``, ``nodes`` (count), ``ops`` (histogram by op), ``categories`` (histogram by
        category), ``inputs`` and ``outputs`` (id, type), ``parameter_bytes``, ``opaque`` (ops
        imported as opaque, with their HLO opcode), ``xla_fusions`` (for an optimised HLO: name,
        kind and ops of each fusion).
    """
    from workbench.ir.ops import get_op

    ops = Counter(n.op for n in graph.nodes)
    cats = Counter(get_op(n.op).category for n in graph.nodes)
    fusions: dict[str, dict] = {}
    for n in graph.topo_nodes():
        tag = n.meta.get("xla_fusion")
        if tag is not None:
            f = fusions.setdefault(tag, {"name": tag, "kind": n.meta.get("xla_fusion_kind"),
                                         "ops": []})
            if n.op not in ("parameter", "constant"):
                f["ops"].append(n.id)
    return {
        "name": graph.name,
        "source": graph.meta.get("source"),
        "description": graph.meta.get("description"),
        "nodes": len(graph.nodes),
        "ops": dict(sorted(ops.items())),
        "categories": dict(sorted(cats.items())),
        "inputs": [{"id": p.id, "index": p.attrs["index"], "type": str(p.type)}
                   for p in graph.parameters],
        "outputs": [{"id": o, "type": str(graph.node(o).type)} for o in graph.outputs],
        "parameter_bytes": sum(p.type.nbytes for p in graph.parameters),
        "opaque": [{"id": n.id, "hlo_opcode": n.attrs.get("hlo_opcode"),
                    "reason": n.meta.get("opaque_reason")}
                   for n in graph.nodes if n.op == "opaque"],
        "xla_fusions": list(fusions.values()),
        "dead": dead_nodes(graph),
    }


def dead_nodes(graph) -> list[str]:
    """Ids of non-parameter nodes on which no graph output depends (dead code), in order."""
    live, stack = set(graph.outputs), list(graph.outputs)
    while stack:                         # one walk up from every output at once
        for o in graph.node(stack.pop()).operands:
            if o not in live:
                live.add(o)
                stack.append(o)
    return [n for n in graph.topo_order if n not in live and graph.node(n).op != "parameter"]

"""The analysis in Google's Model Explorer (``ai-edge-model-explorer`` on PyPI).

Two ways in:

* **Files** — :func:`explorer_graphs` is the graph in Model Explorer's JSON graph format (what
  its built-in JSON adapter opens: ``{"graphs": [{"id", "nodes": [{"id", "label",
  "namespace", "attrs", "incomingEdges", "outputsMetadata"}], "groupNodeAttributes"}]}``,
  the fields of ``model_explorer.graph_builder``), with each fusion group a *layer*: a node's
  namespace is its kernel (``g3 loop fusion``), inside the node's own name scope when it has
  one, and the layer's attributes are the kernel's cost. :func:`node_data` gives the overlays
  in its node-data format (``model_explorer.node_data_builder.GraphNodeData``: ``{"results":
  {node id: {"value": number, "bgColor"?}}, "gradient"|"thresholds"}``): the predicted time
  of each node's kernel, the bytes it moves, the kernel's kind, and, once measured, the
  measured time. ``workbench export --format model-explorer --out g.json`` writes the graph
  and one ``g.<overlay>.json`` file per overlay; open them in the viewer (Model Explorer's
  "Add node data" button takes the overlay files).
* **An adapter extension** — :mod:`workbench.exporters.model_explorer.main`:
  ``model-explorer --extensions=workbench.exporters.model_explorer`` opens workbench graphs
  (``.hlo``, ``.json``) in the viewer directly, planned with the ``priority`` policy, grouped
  by kernel.

A duplicated producer appears once, in the kernel that writes it (else the first that computes
it); its ``also computed in`` attribute names the others. Nothing here imports the
``model_explorer`` package: the tests check these documents against its dataclasses.
"""

from __future__ import annotations

from workbench.fmt import fmt_bytes, fmt_time

#: the overlays :func:`node_data` makes, and what each shows
OVERLAYS = {"predicted_us": "predicted time of the node's kernel (µs)",
            "bytes": "bytes the node's kernel reads and writes",
            "kind": "the node's kernel kind (0 loop, 1 input, 2 output, 3 multi-output, "
                    "4 opaque, 5 not in a kernel)",
            "measured_us": "measured time of the node's kernel (µs, median)"}
KIND_VALUES = {"loop": 0, "input": 1, "output": 2, "multi-output": 3, "opaque": 4}
KIND_COLORS = {"loop": "#9ecae1", "input": "#a1d99b", "output": "#fdae6b",
               "multi-output": "#bcbddc", "opaque": "#d9d9d9"}


def layer(group) -> str:
    """A kernel's layer name: ``g3 loop fusion`` (``[pattern]`` added for a named pattern)."""
    pat = f" [{group.pattern}]" if group.pattern else ""
    return f"{group.id} {group.kind} fusion{pat}".replace("/", "_")


def _namespace(node, group) -> str:
    scope = str(node.meta.get("scope") or "").strip("/")
    return f"{scope}/{layer(group)}" if scope else layer(group)


def _node(graph, plan, node, cost) -> dict:
    attrs = [("op", node.op), ("type", str(node.type))]
    attrs += [(f"attr.{k}", str(v)[:200]) for k, v in node.attrs.items()]
    ns = ""
    if node.op not in ("parameter", "constant"):
        g = plan.group_of(node.id)
        c = cost.groups[g.id]
        ns = _namespace(node, g)
        attrs += [("kernel", g.id), ("kernel kind", g.kind),
                  ("kernel predicted", fmt_time(c.predicted_s)), ("kernel bound", c.bound)]
        also = [h.id for h in plan.groups_of(node.id) if h.id != g.id]
        if also:
            attrs.append(("also computed in", ", ".join(also)))
    return {"id": node.id, "label": node.op, "namespace": ns,
            "attrs": [{"key": k, "value": v} for k, v in attrs],
            "incomingEdges": [{"sourceNodeId": o, "sourceNodeOutputId": "0",
                               "targetNodeInputId": str(i)}
                              for i, o in enumerate(node.operands)],
            "outputsMetadata": [{"id": "0", "attrs": [
                {"key": "tensor_shape", "value": str(node.type)},
                {"key": "__tensor_tag", "value": node.id}]}]}


def explorer_graphs(graph, plan, cost) -> dict:
    """The graph in Model Explorer's JSON graph format, fusion groups as layers.

    Parameters
    ----------
    graph : Graph
    plan : Plan
    cost : PlanCost
        ``plan_cost(graph, plan, device)``: the layers' attributes.

    Returns
    -------
    dict
        ``{"graphs": [graph]}``, the document Model Explorer's JSON adapter reads.
    """
    nodes = [_node(graph, plan, n, cost) for n in graph.topo_nodes()]
    groups = {}
    for g in plan.groups:
        c = cost.groups[g.id]
        members = [graph.node(n) for n in g.nodes]
        for ns in {_namespace(n, g) for n in members}:
            groups[ns] = {"kernel": g.id, "kind": g.kind, "ops": str(g.size),
                          "writes": ", ".join(g.outputs)[:200],
                          "predicted": fmt_time(c.predicted_s), "bound": c.bound,
                          "bytes read": fmt_bytes(c.bytes_read),
                          "bytes written": fmt_bytes(c.bytes_written),
                          "FLOPs": str(c.flops), "role": g.role}
    return {"graphs": [{"id": graph.name, "nodes": nodes, "groupNodeAttributes": groups}]}


def node_data(graph, plan, cost, measured: dict | None = None) -> dict:
    """The overlays (see :data:`OVERLAYS`), each a Model Explorer ``GraphNodeData`` document.

    Parameters
    ----------
    graph, plan, cost
        As :func:`explorer_graphs`.
    measured : dict of str to float, optional
        Group id -> measured seconds (a measurement's kernel medians); adds ``measured_us``.

    Returns
    -------
    dict of str to dict
        Overlay name -> ``{graph id: GraphNodeData}`` (Model Explorer's ``ModelNodeData``
        file layout).
    """
    values = {"predicted_us": {}, "bytes": {}, "kind": {}}
    if measured is not None:
        values["measured_us"] = {}
    colors = {}
    for n in graph.nodes:
        if n.op in ("parameter", "constant"):
            continue
        g = plan.group_of(n.id)
        c = cost.groups[g.id]
        values["predicted_us"][n.id] = c.predicted_s * 1e6
        values["bytes"][n.id] = c.bytes_read + c.bytes_written
        values["kind"][n.id] = KIND_VALUES.get(g.kind, 5)
        colors[n.id] = KIND_COLORS.get(g.kind)
        if measured is not None and measured.get(g.id) is not None:
            values["measured_us"][n.id] = measured[g.id] * 1e6
    gradient = [{"stop": 0, "bgColor": "#ffffcc"}, {"stop": 1, "bgColor": "#e31a1c"}]
    out = {}
    for name, results in values.items():
        doc = {"name": name, "results": {
            k: ({"value": v, "bgColor": colors[k]} if name == "kind" and colors.get(k)
                else {"value": v}) for k, v in results.items()}}
        if name != "kind":
            doc["gradient"] = gradient
        out[name] = {graph.name: doc}
    return out

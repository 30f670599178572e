"""expand_composites(): rewrite the workbench's composite ops as primitive HLO ops.

The expansion of composite node ``n`` keeps ``n``'s id on the node that produces its result
(so users and outputs are unchanged); the other new nodes are named ``n/<op>.<k>`` and all carry
``meta['expanded_from'] = n``. Code generators lower the expanded form; the planner can work on
either.
"""

from __future__ import annotations

from workbench.ir.attrs import Attrs
from workbench.ir.builder import GraphBuilder
from workbench.ir.graph import Graph, Node
from workbench.ir.ops import get_op


def expand_node(node: Node, operand_types) -> list[Node]:
    """The primitive nodes that compute composite ``node`` (its id on the last one).

    Parameters
    ----------
    node : Node
        A node whose op is a composite.
    operand_types : sequence of Type
        The types of its operands, in order.
    """
    opdef = get_op(node.op)
    b = GraphBuilder("expand", prefix=f"{node.id}/")
    for o, t in zip(node.operands, operand_types):
        b.extern(o, t)
    result = opdef.expand(b, list(node.operands), node.attrs, node.type)
    if result in node.operands:
        result = b.op("copy", [result])
    b.rename(result, node.id)
    meta = dict(node.meta)
    meta["expanded_from"] = node.id
    return [n.replace(meta=Attrs(dict(n.meta) | meta)) for n in b.nodes]


def expand_composites(graph: Graph) -> Graph:
    """A new graph in which every composite op is replaced by its primitive expansion.

    Returns the same graph object when it has no composites.
    """
    if not any(get_op(n.op).composite for n in graph.nodes):
        return graph
    out: list[Node] = []
    for node in graph.topo_nodes():
        if get_op(node.op).composite:
            out.extend(expand_node(node, [graph.node(o).type for o in node.operands]))
        else:
            out.append(node)
    return graph.replace(nodes=tuple(out))

"""GraphBuilder: build graphs op by op with types inferred by the op registry.

Used by the composite ops' expansions, the sample-graph generator, synthetic benchmark graphs
and tests. Ids are made by the builder (``multiply.3``) unless given.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.errors import GraphError
from workbench.ir.attrs import Attrs
from workbench.ir.graph import Graph, Node
from workbench.ir.types import TensorType, Type


class GraphBuilder:
    """Accumulates nodes; :meth:`build` returns the immutable :class:`Graph`.

    Parameters
    ----------
    name : str
        Name of the graph to build.
    prefix : str
        Prepended to generated ids (the expansion of composite ``n`` uses ``"n/"``).

    Examples
    --------
    >>> b = GraphBuilder("axpy")
    >>> x = b.parameter("x", (4,))
    >>> y = b.parameter("y", (4,))
    >>> two = b.splat(2.0, (4,))
    >>> out = b.op("add", [b.op("multiply", [two, x]), y])
    >>> g = b.build([out])
    >>> len(g.nodes)
    6
    """

    def __init__(self, name: str = "graph", prefix: str = ""):
        self.name = name
        self.prefix = prefix
        self.nodes: list[Node] = []
        self._types: dict[str, Type] = {}
        self._counter = 0
        self._params = 0

    # ----- values ----------------------------------------------------------------------------

    def extern(self, node_id: str, t: Type) -> str:
        """Declare a value that exists outside the builder (an operand of an expansion)."""
        self._types[node_id] = t
        return node_id

    def type(self, node_id: str) -> TensorType:
        """The type of a value built or declared so far."""
        return self._types[node_id]

    def _fresh(self, base: str) -> str:
        while True:
            self._counter += 1
            cand = f"{self.prefix}{base}.{self._counter}"
            if cand not in self._types:
                return cand

    def _add(self, node: Node) -> str:
        if node.id in self._types:
            raise GraphError("id used twice while building", node=node.id)
        self.nodes.append(node)
        self._types[node.id] = node.type
        return node.id

    # ----- ops -------------------------------------------------------------------------------

    def parameter(self, node_id: str, shape: Sequence[int], dtype: str = "f32",
                  index: int | None = None) -> str:
        """Add graph input number ``index`` (by default the next one)."""
        if index is None:
            index = self._params
        self._params = max(self._params, index + 1)
        return self._add(Node(node_id, "parameter", (), TensorType(tuple(shape), dtype),
                              Attrs(index=index)))

    def constant(self, value, shape: Sequence[int] = (), dtype: str = "f32",
                 node_id: str | None = None) -> str:
        """Add a constant (``value`` a number for a splat, or a nested list)."""
        from workbench.ir.ops.base import get_op

        t = TensorType(tuple(shape), dtype)
        attrs = Attrs(value=value)
        get_op("constant").infer((), attrs, t)
        return self._add(Node(node_id or self._fresh("constant"), "constant", (), t, attrs))

    def splat(self, value: float, shape: Sequence[int], dtype: str = "f32") -> str:
        """A scalar constant broadcast to ``shape`` (the way XLA writes literals)."""
        c = self.constant(value, (), dtype)
        if tuple(shape) == ():
            return c
        return self.op("broadcast", [c], shape=tuple(shape), dimensions=())

    def op(self, op: str, operands: Sequence[str], node_id: str | None = None,
           meta: dict | None = None, **attrs) -> str:
        """Add an op node; its type is inferred by the registry.

        Raises
        ------
        GraphError
            If the op is unknown or the operands do not fit it (the message names the node).
        """
        from workbench.ir.ops.base import get_op

        opdef = get_op(op)
        a = Attrs(attrs)
        nid = node_id or self._fresh(op.replace("-", "_"))
        try:
            t = opdef.infer(tuple(self._types[o] for o in operands), a, None)
        except GraphError as exc:
            exc.node = exc.node or nid
            raise type(exc)(exc.message, node=nid) from None
        return self._add(Node(nid, op, tuple(operands), t, a, Attrs(meta or {})))

    def node(self, node: Node) -> str:
        """Add a ready-made node (its type is trusted)."""
        return self._add(node)

    def rename(self, old: str, new: str) -> None:
        """Give the node ``old`` (built here, used by no later node) the id ``new``."""
        for i, n in enumerate(self.nodes):
            if n.id == old:
                self.nodes[i] = n.replace(id=new)
                self._types[new] = self._types.pop(old)
                return
        raise GraphError("no such node to rename", node=old)

    # ----- shorthands used by expansions -----------------------------------------------------

    def broadcast_to(self, x: str, shape: Sequence[int], dims: Sequence[int]) -> str:
        """Broadcast ``x`` to ``shape``; ``x``'s dimension i goes to ``dims[i]``."""
        if tuple(self.type(x).shape) == tuple(shape):
            return x
        return self.op("broadcast", [x], shape=tuple(shape), dimensions=tuple(dims))

    def reduce(self, x: str, dims: Sequence[int], reducer: str, init: float) -> str:
        """Reduce ``x`` over ``dims`` with ``reducer`` from the scalar ``init``."""
        t = self.type(x)
        c = self.constant(init, (), t.dtype)
        return self.op("reduce", [x, c], dimensions=tuple(dims), reducer=reducer)

    def build(self, outputs: Sequence[str], meta: dict | None = None) -> Graph:
        """The graph of all nodes added so far, returning ``outputs``."""
        return Graph(self.name, tuple(self.nodes), tuple(outputs), Attrs(meta or {}))

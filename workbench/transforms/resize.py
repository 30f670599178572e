"""Scale a graph's dimensions: the same model at another size (for benchmarks and tests).

:func:`resize_graph` maps every dimension size ``n`` of every value, and the size-carrying
attributes (``shape`` of broadcast/reshape/iota, ``start_indices``/``limit_indices`` of slice),
through a size map, then re-verifies the graph. Choose maps that keep reshapes consistent
(128 = 4 heads x 32 can become 8 = 4 x 2). Literal values are left alone (a mean's 1/512 stays),
which changes what the graph computes but not whether a kernel matches the reference on it.
"""

from __future__ import annotations

from workbench.ir import TensorType, verify

_SIZE_ATTRS = ("shape", "start_indices", "limit_indices")


def resize_graph(graph, size_map: dict, name: str | None = None):
    """The graph with every dimension size ``n`` replaced by ``size_map.get(n, n)``.

    Parameters
    ----------
    graph : Graph
    size_map : dict of int -> int
    name : str, optional
        Name of the new graph (default: the old name).

    Raises
    ------
    GraphError
        If the result does not verify (the map is inconsistent for this graph).
    """
    def m(n):
        return size_map.get(n, n)

    nodes = []
    for n in graph.nodes:
        t = n.type
        if isinstance(t, TensorType):
            t = TensorType(tuple(m(d) for d in t.shape), t.dtype)
        attrs = n.attrs
        for key in _SIZE_ATTRS:
            if key in attrs:
                attrs = attrs.set(**{key: tuple(m(v) for v in attrs[key])})
        nodes.append(n.replace(type=t, attrs=attrs))
    return verify(graph.replace(nodes=tuple(nodes), name=name or graph.name))

"""The graph IR: types, nodes and graphs, the op registry, verify() and the reference interpreter.

>>> from workbench.ir import GraphBuilder, evaluate, verify
>>> b = GraphBuilder("double")
>>> x = b.parameter("x", (3,))
>>> g = verify(b.build([b.op("add", [x, x])]))
>>> evaluate(g, [[1.0, 2.0, 3.0]])[0].tolist()
[2.0, 4.0, 6.0]
"""

from workbench.ir.attrs import Attrs
from workbench.ir.builder import GraphBuilder
from workbench.ir.expand import expand_composites
from workbench.ir.graph import Graph, Node
from workbench.ir.interpreter import DEFAULT_MAX_BYTES, evaluate, make_inputs, peak_live_bytes
from workbench.ir.ops import REGISTRY, Category, OpDef, get_op
from workbench.ir.types import TensorType, TupleType
from workbench.ir.verify import verify

__all__ = [
    "Attrs", "Category", "DEFAULT_MAX_BYTES", "Graph", "GraphBuilder", "Node", "OpDef",
    "REGISTRY", "TensorType", "TupleType", "evaluate", "expand_composites", "get_op",
    "make_inputs", "peak_live_bytes", "verify",
]

"""The op registry: one :class:`OpDef` per op (see :mod:`workbench.ir.ops.base`).

Importing this package registers every op: elementwise, broadcast and data movement, reductions,
contractions and convolutions, the opaque op, and the workbench's composites.
"""

from workbench.ir.ops.base import REGISTRY, Category, OpDef, get_op, register
from workbench.ir.ops import elementwise, shape_ops, reduction, contraction, composite  # noqa: F401
from workbench.ir.ops.shape_ops import constant_array

__all__ = ["REGISTRY", "Category", "OpDef", "get_op", "register", "constant_array"]

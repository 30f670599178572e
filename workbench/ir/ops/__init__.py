"""The op registry: one :class:`OpDef` per op (see :mod:`workbench.ir.ops.base`).

Importing this package registers every op: elementwise and bit ops, broadcast and data
movement, indexing (gather, scatter, dynamic slices), reductions (reduce, reduce-window,
select-and-scatter), sorting (sort, topk), control flow (while, conditional, map),
contractions and convolutions, random bits, the opaque op, and the workbench's composites.
"""

from workbench.ir.ops.base import REGISTRY, Category, OpDef, get_op, register
from workbench.ir.ops import (elementwise, shape_ops, indexing, reduction, sorting,  # noqa: F401
                              control, contraction, random, composite)
from workbench.ir.ops.shape_ops import constant_array

__all__ = ["REGISTRY", "Category", "OpDef", "get_op", "register", "constant_array"]

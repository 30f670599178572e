"""What the lowering modules share: their error types and the small index helpers.

:mod:`~workbench.codegen.lower` (a group -> kernel IR), :mod:`~workbench.codegen.lower_rules`
(one rule per op) and :mod:`~workbench.codegen.lower_contraction` (dots and convolutions) all
import this module, and it imports none of them.
"""

from __future__ import annotations

from workbench.codegen.kernel_ir import Ix


class Unsupported(Exception):
    """The group cannot be lowered as one kernel by this backend (it falls back to numpy)."""

    def __init__(self, reason: str, node: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.node = node


class NeedsMaterialize(Exception):
    """Internal: restart lowering with ``node`` computed into a scratch array first."""

    def __init__(self, node: str):
        super().__init__(node)
        self.node = node


def linear(idx, shape) -> Ix:
    """The row-major linear index of ``idx`` in ``shape`` (affine)."""
    out = Ix()
    stride = 1
    for i, n in zip(reversed(idx), reversed(shape)):
        if n != 1:
            out = out + i * stride
        stride *= n
    return out


def alias_base(b, nid):
    """The buffer whose row-major contents are ``nid``'s (through reshape/copy/bitcast)."""
    buf = b.buffer_for(nid)
    if buf is not None:
        return buf
    node = b.g.node(nid)
    if nid in b.members and (node.op in ("reshape", "copy")
                             or (node.op == "bitcast" and default_layouts(b, node)
                                 and "dtype" not in node.attrs)):
        return alias_base(b, node.operands[0])
    return None


def default_layouts(b, node) -> bool:
    """True when a bitcast keeps the row-major layout on both sides (so it only relabels)."""
    xr = b.type(node.operands[0]).rank
    return (layout_order(node.attrs.get("operand_layout"), xr) == list(range(xr))
            and layout_order(node.attrs.get("layout"), node.type.rank)
            == list(range(node.type.rank)))


def layout_order(layout, rank):
    """Major-to-minor dimension order from an HLO minor_to_major layout (default row-major)."""
    if layout is None or len(layout) != rank:
        return list(range(rank))
    return list(reversed(layout))


def and_(b, a, c, node):
    """``a and c`` as a predicate of the kernel (``c`` alone when ``a`` is None)."""
    if a is None:
        return c
    return b.let("and", "pred", (a, c), {"in": "pred"}, node)


def in_range(b, q, lo, hi, node):
    """The predicate ``lo <= q < hi`` of the kernel."""
    return b.let("in_range", "pred", (q, Ix.of(lo), Ix.of(hi)), {}, node)

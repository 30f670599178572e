"""Per-node facts the cost model, planner and legality checker share, computed once per graph.

:class:`GraphIndex` numbers the nodes of a graph in topological order (index ``i`` is the node's
position in :attr:`Graph.topo_order`) and holds, in flat lists, what the planner asks about a
node millions of times on large graphs: its operands and users (as indices), its size in bytes,
its FLOP and transcendental counts (from the op registry, :mod:`workbench.ir.ops`), and its
classification (source, reduction, contraction, opaque). Flat integer-indexed lists rather than
string-keyed lookups on :class:`~workbench.ir.Graph` keep a 100,000-node plan within seconds.

The op classifications that come from XLA are cited where they are defined:

* :func:`reuses_operand` — ``HloInstruction::OperandElementUse`` (xla/hlo/ir/hlo_instruction.cc):
  elementwise ops use each operand element once, data movement permutes elements, anything else
  (broadcast, dot, reduce-window...) *reuses* operand elements.
* Operand utilisation of a ``slice`` — ``HloCostAnalysis::HandleSlice``
  (xla/service/hlo_cost_analysis.cc): the bytes a slice accesses of its operand
  (``operand_bytes_accessed``, part of ``kBytesAccessedKey``) are the slice's own size, and its
  ``operand_utilization`` is its share of the operand's elements. A kernel that reads several
  slices of one operand reads their union (:meth:`GraphIndex.union_bytes`).

Two per-node classes keep nodes out of per-call kernels:

* **dead** — no graph output depends on the node. XLA runs dead-code elimination (``HloDCE``,
  xla/hlo/transforms/simplifiers/hlo_dce.cc) before fusion, so the planner plans the graph as DCE
  would leave it: :attr:`GraphIndex.users` lists only live users, and dead nodes are left as
  single-op groups that are reported, not fused.
* **offline** — ``meta['offline']`` marks ops that only transform weights (batch-norm folding,
  :mod:`~workbench.transforms.folding`): at inference they run once, when the weights are loaded,
  and are never fused with the per-call ops.
"""

from __future__ import annotations

import weakref
from functools import lru_cache

from workbench.ir.attrs import Attrs
from workbench.ir.graph import Graph
from workbench.ir.ops import Category, get_op
from workbench.ir.types import TensorType

#: ops whose value is an input of a kernel rather than computed by one
SOURCE_OPS = frozenset({"parameter", "constant"})

#: contractions and convolutions: the heroes of output fusions (library-call shaped)
CONTRACTION_CATEGORIES = frozenset({Category.CONTRACTION, Category.CONVOLUTION})

#: ops that only move or relabel elements (XLA ``UseKind::kUsePermutingElements``)
PERMUTING_OPS = frozenset({"bitcast", "concatenate", "reshape", "reverse", "slice", "transpose",
                           "copy", "get-tuple-element"})

@lru_cache(maxsize=4096)
def _composite_has_reduction(op: str, operand_types: tuple, attrs) -> bool:
    from workbench.ir.builder import GraphBuilder

    b = GraphBuilder("probe", prefix="p/")
    ids = [b.extern(f"in{i}", t) for i, t in enumerate(operand_types)]
    d = get_op(op)
    d.expand(b, ids, attrs, d.infer(operand_types, attrs, None))
    return any(get_op(n.op).category == Category.REDUCTION for n in b.nodes)


def is_reduction(graph: Graph, node_id: str) -> bool:
    """True for reductions, and for composites whose expansion reduces (softmax, layer_norm)."""
    n = graph.node(node_id)
    d = get_op(n.op)
    if d.category == Category.REDUCTION:
        return True
    if d.composite and d.category == Category.NORMALIZATION:
        types = tuple(graph.node(o).type for o in n.operands)
        return _composite_has_reduction(n.op, types, n.attrs)
    return False


def reuses_operand(graph: Graph, node_id: str, i: int) -> bool:
    """Whether ``node_id`` reads the elements of its operand ``i`` more than once.

    XLA's ``OperandElementUse``: elementwise ops use each element once (but a lower-rank operand
    of select/clamp, or the bias of ``bias_add``, is broadcast and so reused); data movement
    permutes; ``pad`` reuses its padding value and ``reduce`` its init value; every other op
    (broadcast, dot, convolution, reduce-window, normalizations) reuses.
    """
    n = graph.node(node_id)
    cat = get_op(n.op).category
    if n.op in PERMUTING_OPS:
        return False
    if n.op == "pad" or n.op == "reduce":
        return i > 0
    if cat == Category.ELEMENTWISE:
        if n.op == "bias_add":
            return i == 1
        t = graph.node(n.operands[i]).type
        return isinstance(t, TensorType) and isinstance(n.type, TensorType) and t.rank < n.type.rank
    return True


def iteration_shape(graph: Graph, node_id: str) -> tuple:
    """The index space a kernel rooted at this node loops over: a reduction's input shape, else
    the node's own shape (XLA's "hero" shape for multi-output fusion compatibility)."""
    n = graph.node(node_id)
    if is_reduction(graph, node_id) and n.operands:
        t = graph.node(n.operands[0]).type
        return tuple(t.shape) if isinstance(t, TensorType) else ()
    return tuple(n.type.shape) if isinstance(n.type, TensorType) else ()


class GraphIndex:
    """Flat, topologically indexed facts about one graph (see the module notes).

    Parameters
    ----------
    graph : Graph
        A verified graph.

    Attributes
    ----------
    ids : list of str
        Node ids in topological order; ``pos[id]`` is the inverse.
    operands, users : list of tuple of int
        Distinct operands / users of each node, as indices.
    nbytes : list of int
        Bytes of each node's value (0 for tuples).
    read_bytes : list of int
        Bytes a kernel pays to read the value: ``nbytes``, except 0 for scalar constants, which
        kernels take as immediates.
    flops, trans : list of int
        FLOPs and transcendentals to compute the node once (op registry counts).
    source, reduction, contraction, opaque, output : list of bool
    elements : list of int
        Elements of each node's value.
    reg_width : list of int
        32-bit registers one element of the value occupies (2 for 64-bit dtypes).
    live : list of bool
        Some graph output depends on the node (sources included). ``users`` leaves dead users
        out; ``all_users`` keeps them.
    offline : list of bool
        The node transforms weights once, offline (``meta['offline']``).
    region : list of tuple or None
        For a ``slice``: the box of its operand it reads, ``(starts, limits, strides)``.
    slice_bytes : list of int
        For a ``slice``: bytes it reads of its operand (its own size; 0 for an immediate).
    """

    def __init__(self, graph: Graph):
        self.graph = graph
        self.ids = list(graph.topo_order)
        self.pos = {nid: i for i, nid in enumerate(self.ids)}
        n = len(self.ids)
        self.ops = [""] * n
        self.operands: list[tuple[int, ...]] = [()] * n
        self.users: list[tuple[int, ...]] = [()] * n
        self.nbytes = [0] * n
        self.read_bytes = [0] * n
        self.elements = [0] * n
        self.flops = [0] * n
        self.trans = [0] * n
        self.source = [False] * n
        self.reduction = [False] * n
        self.contraction = [False] * n
        self.opaque = [False] * n
        self.free = [False] * n
        self.reg_width = [1] * n
        self.offline = [False] * n
        self.region: list = [None] * n
        self.slice_bytes = [0] * n
        outputs = set(graph.outputs)
        self.output = [nid in outputs for nid in self.ids]
        self._build(graph)
        self.all_users = [tuple(u) for u in self._users_lists]
        del self._users_lists
        self.live = self._liveness()
        live = self.live
        self.users = [u if all(live[x] for x in u) else tuple(x for x in u if live[x])
                      for u in self.all_users]
        #: per node: not live (sources included); the dead ops, in topological order
        self.dead = [not x for x in live]
        self.dead_nodes = [i for i in range(n) if not live[i] and not self.source[i]]
        self._iteration_shapes: dict[int, tuple] = {}

    def iteration_shape(self, i: int) -> tuple:
        """:func:`iteration_shape` of node ``i`` (its topological index), computed once."""
        shape = self._iteration_shapes.get(i)
        if shape is None:
            shape = self._iteration_shapes[i] = iteration_shape(self.graph, self.ids[i])
        return shape

    def _liveness(self) -> list[bool]:
        """Reverse reachability from the graph outputs (one pass, latest node first)."""
        n = len(self.ids)
        live = list(self.output)
        for i in range(n - 1, -1, -1):
            if live[i]:
                for o in self.operands[i]:
                    live[o] = True
        return live

    def _build(self, graph: Graph) -> None:
        """Fill the per-node lists, latest operand first. The facts of each distinct type, and
        of each distinct op, operand types, type and attrs (the registry's counts are pure
        functions of these), are computed once per graph: a large model repeats a few dozen
        kinds of node thousands of times."""
        pos, n = self.pos, len(self.ids)
        ops_, operands, nbytes, read_bytes = self.ops, self.operands, self.nbytes, self.read_bytes
        elements, source_, reg_width = self.elements, self.source, self.reg_width
        flops, trans, contraction, opaque = self.flops, self.trans, self.contraction, self.opaque
        free, reduction, offline = self.free, self.reduction, self.offline
        users: list[list[int]] = [[] for _ in range(n)]
        self._users_lists = users
        types: list = [None] * n
        tkeys: list = [None] * n
        type_facts: dict = {}
        op_facts: dict = {}
        tensor_cls, sources = TensorType, SOURCE_OPS
        for i, node in enumerate(graph.topo_nodes()):
            op = node.op
            ops_[i] = op
            t = node.type
            types[i] = t
            # a tensor type's key is its fields (hashed in C); a tuple type is its own key
            tk = (t.shape, t.dtype) if t.__class__ is tensor_cls else t
            tkeys[i] = tk
            tf = type_facts.get(tk)
            if tf is None:
                if t is None:
                    tf = (0, 0, False, False)
                else:
                    tensor = isinstance(t, TensorType)
                    tf = (t.size, t.nbytes, tensor, tensor and t.itemsize > 4)
                type_facts[tk] = tf
            size, nb, tensor, wide = tf
            nbytes[i] = nb
            elements[i] = size
            src = source_[i] = op in sources
            read_bytes[i] = 0 if op == "constant" and tensor and size <= 1 else nb
            if wide:
                reg_width[i] = 2
            oi = [pos[o] for o in node.operands]
            opnds = tuple(dict.fromkeys(oi)) if len(oi) > 1 else tuple(oi)
            operands[i] = opnds
            for o in opnds:
                users[o].append(i)
            if src:
                continue
            get_op(op)                      # an unknown op is an error here, as it always was
            meta = node.meta
            offline[i] = bool((meta._d if meta.__class__ is Attrs else meta).get("offline",
                                                                                 False))
            if op == "slice" and tensor:
                self._slice(i, node, graph, nb)
            # the attrs by their entries (what Attrs hashes and compares), without the calls
            attrs = node.attrs
            akey = tuple(attrs._d.items()) if attrs.__class__ is Attrs else attrs
            key = (op, tuple([tkeys[o] for o in oi]), tk, akey)
            try:
                facts = op_facts.get(key)
            except TypeError:                # an attribute that cannot be hashed
                key, facts = None, None
            if facts is None:
                facts = self._facts(node, tuple([types[o] for o in oi]), graph)
                if key is not None:
                    op_facts[key] = facts
            flops[i], trans[i], contraction[i], opaque[i], free[i], reduction[i] = facts

    def _slice(self, i: int, node, graph: Graph, nb: int) -> None:
        x = graph.node(node.operands[0]).type
        a = node.attrs
        self.region[i] = (tuple(a["start_indices"]), tuple(a["limit_indices"]),
                          tuple(a.get("strides", (1,) * x.rank)))
        src = graph.node(node.operands[0])
        immediate = src.op == "constant" and x.size <= 1
        self.slice_bytes[i] = 0 if immediate else nb

    @staticmethod
    def _facts(node, in_t, graph: Graph) -> tuple:
        """(flops, transcendentals, contraction, opaque, free, reduction) of an op node: the
        registry's counts and classes, functions of its op, operand types, type and attrs."""
        d = get_op(node.op)
        t = node.type
        # never fused: opaque ops, and those XLA keeps out of fusions (sort, scatter, while,
        # conditional, random bits; the structural get-tuple-element and tuple)
        return (d.flops(in_t, t, node.attrs), d.transcendentals(in_t, t, node.attrs),
                d.category in CONTRACTION_CATEGORIES, not d.fusible,
                d.is_free(in_t, t, node.attrs), is_reduction(graph, node.id))

    def __len__(self) -> int:
        return len(self.ids)

    def reads_of(self, i: int, o: int) -> int:
        """Bytes node ``i``, alone in its kernel, reads of its operand ``o``: a slice reads its
        box, anything else the whole value."""
        return self.slice_bytes[i] if self.region[i] is not None else self.read_bytes[o]

    def union_bytes(self, o: int, regions) -> int:
        """Bytes of operand ``o`` covered by the union of slice ``regions`` (see
        :func:`box_union_elements`), at most the whole value."""
        if not self.read_bytes[o]:
            return 0
        itemsize = self.nbytes[o] // max(1, self.elements[o])
        return min(self.read_bytes[o], box_union_elements(regions) * itemsize)

    def names(self, idxs) -> tuple[str, ...]:
        """Node ids of ``idxs``, in topological order."""
        return tuple(self.ids[i] for i in sorted(idxs))


def box_union_elements(regions) -> int:
    """Elements in the union of slice boxes ``(starts, limits, strides)`` of one operand.

    Unit-stride boxes: exact, by coordinate compression (each dimension cut at every box edge;
    a cell of the grid is counted when a box covers it). Strided boxes, or more than 4,096 grid
    cells: the sum of the boxes' sizes (exact when they are disjoint, an upper bound otherwise).
    """
    regions = list(dict.fromkeys(regions))
    sizes = [_box_size(r) for r in regions]
    if len(regions) == 1:
        return sizes[0]
    if any(s != 1 for r in regions for s in r[2]):
        return sum(sizes)
    rank = len(regions[0][0])
    cuts = [sorted({r[0][d] for r in regions} | {r[1][d] for r in regions})
            for d in range(rank)]
    cells = 1
    for c in cuts:
        cells *= max(1, len(c) - 1)
    if cells > 4096:
        return sum(sizes)
    total = 0
    from itertools import product

    for cell in product(*[list(zip(c, c[1:])) for c in cuts]):
        if any(all(r[0][d] <= lo and hi <= r[1][d] for d, (lo, hi) in enumerate(cell))
               for r in regions):
            vol = 1
            for lo, hi in cell:
                vol *= hi - lo
            total += vol
    return total


def _box_size(region) -> int:
    n = 1
    for s, e, st in zip(*region):
        n *= (e - s + st - 1) // st
    return n


_CACHE: dict[int, GraphIndex] = {}


def graph_index(graph: Graph) -> GraphIndex:
    """The :class:`GraphIndex` of ``graph``, built once per graph object and cached."""
    key = id(graph)
    idx = _CACHE.get(key)
    if idx is None or idx.graph is not graph:
        idx = GraphIndex(graph)
        _CACHE[key] = idx
        weakref.finalize(graph, _CACHE.pop, key, None)
    return idx

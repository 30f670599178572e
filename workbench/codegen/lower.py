"""Lowering: one fusion group -> :class:`~workbench.codegen.kernel_ir.KernelIR`.

The builder evaluates the group's outputs at a symbolic index (the loop variables of a nest over
the root output's shape) by walking the expression DAG backwards, op by op, through the rules in
:mod:`workbench.codegen.lower_rules` (one per op: how the op's operands are indexed, what scalar
op combines them). Each statement is placed in the outermost loop level whose variables it uses,
and values are memoised per (node, index), so a value used twice at the same index is computed
once. See :mod:`workbench.codegen.kernel_ir` for the model.

Outputs of one shape (and outputs whose shape is a leading prefix of it, stored at that depth)
share a nest; outputs of other shapes get further nests in the same kernel. A backend that can
run several phases in one kernel (the CPU: ``Caps.phases``) *materialises* a member into a
kernel-local scratch array, computed by an earlier nest, when recomputing it inline would be
wasteful or impossible: a dot/convolution that is not the nest's block-wise root, an operand of
a block-wise dot, a reduction used at an index that is not a prefix of the nest's index (a
column reduction broadcast back). Without phases (CUDA) such members are computed inline.

Row cache (``Caps.row_cache``, the CPU): in a row-wise input fusion (a softmax: a reduction over
the row's last dimension, then the row's elementwise tail), a transcendental member needed both
inside the reduction (at the reduction's index ``r``) and in the tail (at the nest's innermost
index ``i``, the same element) would be computed twice per element: ``exp(x - max)`` once for
the sum and once more for the division. The builder then keeps the row's values in a row
scratch buffer (one row of the last dimension, at most :data:`ROW_CACHE_MAX_BYTES`, so it stays
in L1/L2): the reduction's body stores ``w[r] = value`` and the tail loads ``w[i]``. It is
found in a first lowering pass and applied in a second (like materialisation). The CPU renderer
allocates the buffer once per kernel when the nest runs serially and once per ``prange``
iteration (numba hoists it out of each thread's loop) when it runs in parallel. Cheap members
(a subtraction, a load) are recomputed: a store and load cost as much as they do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.codegen.kernel_ir import (Buffer, Contraction, IndexLet, Ix, KernelIR, Let, Lit,
                                         Load, Nest, Reduce, Ref, Store)
from workbench.ir.graph import Graph
from workbench.ir.ops import Category, constant_array, get_op
from workbench.ir.types import TensorType
from workbench.codegen.lower_base import NeedsMaterialize, Unsupported, linear
from workbench.codegen.lower_contraction import arm_contraction
from workbench.codegen.lower_rules import rule_for


#: largest row (bytes) kept in a row cache: well within a core's L2 (1 MiB on Zen 4, 256 KiB
#: to 2 MiB on recent Intel cores), so storing and reloading it costs no memory traffic
ROW_CACHE_MAX_BYTES = 256 << 10


class _RowCacheFound(Exception):
    """Internal: restart lowering with row caches for the nest ``nest_no`` (see module notes)."""

    def __init__(self, nest_no: int, tails: dict):
        super().__init__(nest_no)
        self.nest_no, self.tails = nest_no, tails


class _RowCacheFailed(Exception):
    """Internal: the second pass did not place a row cache's store; lower without it."""

    def __init__(self, nest_no: int):
        super().__init__(nest_no)
        self.nest_no = nest_no


@dataclass
class _RowCache:
    """A row cache being built: the tail's index (texts) of the member, its buffer, and
    whether the storing reduction and the tail's load have been emitted."""

    tail: tuple
    buffer: Buffer | None = None
    level: int = 0
    stored: bool = False
    loaded: bool = False


@dataclass(frozen=True)
class Caps:
    """What a backend can lower natively.

    Parameters
    ----------
    name : str
        Backend name, for messages.
    ops : frozenset of str
        Scalar ops its emitter table has.
    dtypes : frozenset of str
        Dtypes its kernels handle.
    phases : bool
        Several dependent nests in one kernel (scratch arrays between them).
    blas_dot, blas_conv : bool
        Block-wise dot / convolution through BLAS (``np.dot``) with the epilogue per block.
    tiled_dot : bool
        Dot as a tiled shared-memory kernel with the epilogue before the store.
    row_cache : bool
        Row scratch buffers between a row's reduction and its tail (see module notes).
    """

    name: str
    ops: frozenset
    dtypes: frozenset
    phases: bool = False
    blas_dot: bool = False
    blas_conv: bool = False
    tiled_dot: bool = False
    row_cache: bool = False


class _Scope:
    __slots__ = ("depth", "stmts")

    def __init__(self, depth: int):
        self.depth = depth
        self.stmts: list = []


@dataclass
class _NestCtx:
    shape: tuple
    vars: tuple
    idx: tuple
    levels: list
    target: str | None
    contraction: Contraction | None = None
    contraction_used: bool = False
    memo: dict = field(default_factory=dict)
    seen: list = field(default_factory=list)       # (node, idx) of transcendentals computed
    rows: dict = field(default_factory=dict)       # node -> _RowCache


def group_members(xgraph: Graph, nodes) -> tuple[str, ...]:
    """The expanded graph's nodes that belong to a group with these (original) members.

    A node belongs to the group if its id, or the composite it was expanded from
    (``meta['expanded_from']``), is a member; parameters and constants never do.
    """
    names = set(nodes)
    out = []
    for n in xgraph.topo_nodes():
        if n.op in ("parameter", "constant"):
            continue
        if n.id in names or n.meta.get("expanded_from") in names:
            out.append(n.id)
    return tuple(out)


def lower_group(xgraph: Graph, members, outputs, caps: Caps) -> KernelIR:
    """Lower one group of the (composite-expanded) graph to kernel IR.

    Parameters
    ----------
    xgraph : Graph
        The graph with composites expanded (:func:`workbench.ir.expand_composites`).
    members : sequence of str
        Member nodes of the group in ``xgraph`` (see :func:`group_members`).
    outputs : sequence of str
        Members whose values the kernel writes, in order.
    caps : Caps
        What the backend supports.

    Returns
    -------
    KernelIR

    Raises
    ------
    Unsupported
        If an op, dtype or combination cannot be lowered by this backend.
    """
    materialized: list[str] = []
    row_cached: dict[int, dict] = {}   # nest number -> {node: tail index texts}; {} = none
    for _ in range(2 * len(members) + 4):
        try:
            return _Builder(xgraph, members, outputs, caps, materialized, row_cached).build()
        except NeedsMaterialize as req:
            if req.node in materialized or not caps.phases:
                raise Unsupported("could not schedule the group (internal)", req.node) from None
            materialized.append(req.node)
            row_cached.clear()
        except _RowCacheFound as found:
            row_cached[found.nest_no] = found.tails
        except _RowCacheFailed as failed:
            row_cached[failed.nest_no] = {}
    raise Unsupported("could not schedule the group (too many scratch arrays)")


class _Builder:
    def __init__(self, xgraph, members, outputs, caps, materialized, row_cached=None):
        self.g = xgraph
        self.row_cached = row_cached if row_cached is not None else {}
        self.rinfo: dict[str, tuple] = {}   # reduction var -> (extent, loops, outer scope)
        self.nest_no = -1
        self._trans: dict[str, bool] = {}
        self.members = set(members)
        self.order = tuple(members)
        self.outputs = tuple(outputs)
        self.caps = caps
        pos = {n: i for i, n in enumerate(xgraph.topo_order)}
        self.materialized = sorted(materialized, key=pos.__getitem__)
        self.inputs: dict[str, Buffer] = {}
        self.out_bufs: dict[str, Buffer] = {}
        self.scratch: dict[str, Buffer] = {}
        self.consts: dict[tuple, Lit] = {}
        self.where: dict[str, _Scope] = {}
        self.counter = 0
        self.ctx: _NestCtx | None = None

    # ----- driver ------------------------------------------------------------------------

    def build(self) -> KernelIR:
        self._check_types()
        for k, o in enumerate(self.outputs):
            t = self.type(o)
            self.out_bufs[o] = Buffer(f"out{k}", t.shape, t.dtype, "out", o)
        for k, m in enumerate(self.materialized):
            t = self.type(m)
            self.scratch[m] = Buffer(f"s{k}", t.shape, t.dtype, "scratch", m)
        nests = [self._nest(self.type(m).shape, [m], target=m) for m in self.materialized]
        for shape, outs in self._partition_outputs():
            nests.append(self._nest(shape, outs, target=None))
        ops = tuple(get_op(self.g.node(m).op).name for m in self.order)
        return KernelIR(list(self.inputs.values()), list(self.out_bufs.values()),
                        list(self.scratch.values()), list(self.consts.values()), nests, ops)

    def _check_types(self):
        for m in self.order:
            node = self.g.node(m)
            if not isinstance(node.type, TensorType):
                if rule_for(node.op) is None:
                    raise Unsupported(unsupported_reason(node.op, self.caps.name), m)
                raise Unsupported(f"a variadic {node.op} ({len(node.type.elements)} results, "
                                  "e.g. an argmax) runs through the numpy reference", m)
            if node.dtype not in self.caps.dtypes:
                raise Unsupported(f"dtype {node.dtype} is not supported by the {self.caps.name} "
                                  "backend", m)
            for o in node.operands:
                t = self.g.node(o).type
                if not isinstance(t, TensorType) or t.dtype not in self.caps.dtypes:
                    raise Unsupported(f"an operand of type {t} is not supported by the "
                                      f"{self.caps.name} backend", m)

    def _partition_outputs(self):
        """Outputs grouped into nests: largest shape first; leading-prefix shapes join it."""
        rest = sorted(self.outputs, key=lambda o: -self.type(o).size)
        groups = []
        while rest:
            shape = self.type(rest[0]).shape
            same = [o for o in rest if self.type(o).shape == shape[:self.type(o).rank]]
            groups.append((shape, same))
            rest = [o for o in rest if o not in same]
        return groups

    def _nest(self, shape, outs, target) -> Nest:
        vars_ = tuple(self.fresh("i") if n != 1 else None for n in shape)
        levels = [_Scope(d) for d in range(len(shape) + 1)]
        idx = tuple(Ix.var(v) if v else Ix.of(0) for v in vars_)
        for d, v in enumerate(vars_):
            if v:
                self.where[v] = levels[d + 1]
        self.ctx = _NestCtx(tuple(shape), vars_, idx, levels, target)
        self.nest_no += 1
        self.ctx.rows = {n: _RowCache(t) for n, t in self.row_cached.get(self.nest_no, {}).items()}
        self.ctx.contraction = self._arm_contraction(shape, outs, target)
        for o in outs:
            t = self.type(o)
            oidx = idx[:t.rank]
            v = self.value(o, oidx)
            buf = self.scratch[o] if o == target else self.out_bufs[o]
            self.store(buf, linear(oidx, t.shape), v)
        contraction = self.ctx.contraction if self.ctx.contraction_used else None
        rows = self._finish_row_caches()
        return Nest(tuple(shape), vars_, [s.stmts for s in levels], contraction, target, rows)

    # ----- row caches (see the module notes) -------------------------------------------------

    def _transcendental(self, node) -> bool:
        if node.id not in self._trans:
            opdef = get_op(node.op)
            try:
                n = opdef.transcendentals([self.type(o) for o in node.operands], node.type,
                                          node.attrs)
            except Exception:  # a count the registry cannot make: treat as cheap
                n = 0
            self._trans[node.id] = n > 0
        return self._trans[node.id]

    def _row_var(self, idx):
        """The reduction variable in ``idx`` if it is exactly one, of a one-loop reduction
        over the nest's last extent, placed at a nest level before the innermost loop."""
        ctx = self.ctx
        rvars = {v for i in idx for v in i.vars if v in self.rinfo}
        if len(rvars) != 1 or ctx.vars[-1] in {v for i in idx for v in i.vars}:
            return None
        (r,) = rvars
        extent, loops, outer = self.rinfo[r]
        top = any(outer is lv for lv in ctx.levels[:-1])
        return r if top and loops == 1 and extent == ctx.shape[-1] else None

    def _row_tail(self, idx, r) -> tuple:
        """Texts of ``idx`` with reduction variable ``r`` replaced by the innermost index."""
        last = self.ctx.vars[-1]
        out = []
        for i in idx:
            terms = dict(i.terms)
            c = terms.pop(r, 0)
            out.append((Ix(i.const, tuple(sorted(terms.items()))) + Ix.var(last) * c).text())
        return tuple(out)

    def _row_cache_value(self, nid, idx, compute):
        """``compute()``, or the row cache's load in the tail; store it in the reduction."""
        rc = self.ctx.rows[nid]
        texts = tuple(i.text() for i in idx)
        last = self.ctx.vars[-1]
        if texts == rc.tail:
            self._row_buf(nid)
            rc.loaded = True
            return self.load(rc.buffer, Ix.var(last))
        v = compute()
        r = None if rc.stored else self._row_var(idx)
        if r is not None and self._row_tail(idx, r) == rc.tail:
            self._row_buf(nid)
            rc.level = self.rinfo[r][2].depth
            self.store(rc.buffer, Ix.var(r), v)
            rc.stored = True
        return v

    def _row_buf(self, nid) -> None:
        rc = self.ctx.rows[nid]
        if rc.buffer is None:
            rc.buffer = Buffer(self.fresh("w"), (self.ctx.shape[-1],), self.type(nid).dtype,
                               "row", nid)

    def _finish_row_caches(self):
        """Row caches of this nest as (buffer, level); in the first pass, find candidates."""
        ctx = self.ctx
        if ctx.rows:
            if any(rc.loaded != rc.stored for rc in ctx.rows.values()):
                raise _RowCacheFailed(self.nest_no)
            return [(rc.buffer, rc.level) for rc in ctx.rows.values() if rc.stored]
        if (self.nest_no in self.row_cached or not self.caps.row_cache or not ctx.seen
                or ctx.contraction_used or not ctx.shape or ctx.vars[-1] is None):
            return []
        tails: dict = {}
        last = ctx.vars[-1]
        for nid, idx in ctx.seen:
            r = self._row_var(idx)
            if r is None or nid in tails:
                continue
            if ctx.shape[-1] * self.type(nid).itemsize > ROW_CACHE_MAX_BYTES:
                continue
            tail = self._row_tail(idx, r)
            if any(n == nid and tuple(i.text() for i in ix) == tail for n, ix in ctx.seen
                   if any(last in i.vars for i in ix)):
                tails[nid] = tail
        if tails:
            raise _RowCacheFound(self.nest_no, tails)
        return []

    def _arm_contraction(self, shape, outs, target):

        cands = [m for m in self.order if self.g.node(m).op in ("dot", "convolution")
                 and self.type(m).shape == tuple(shape) and (m not in self.scratch or m == target)]
        if target in cands:
            cands = [target]
        elif target is not None:   # a scratch nest of an epilogue value: its own contraction
            cands = [m for m in cands if m in self.g.ancestors(target)]
        return arm_contraction(self, cands[-1]) if cands else None

    # ----- names, types, placement ---------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def type(self, nid: str) -> TensorType:
        return self.g.node(nid).type

    def _deps(self, operands) -> list[str]:
        names = []
        for a in operands:
            if isinstance(a, Ref):
                names.append(a.name)
            elif isinstance(a, Ix):
                names.extend(a.vars)
        return names

    def place(self, operands, at_least: _Scope | None = None) -> _Scope:
        """The innermost scope among those defining the operands' names."""
        best = at_least or self.ctx.levels[0]
        for n in self._deps(operands):
            s = self.where[n]
            if s.depth > best.depth:
                best = s
        return best

    def _define(self, scope: _Scope, stmt, name: str):
        scope.stmts.append(stmt)
        self.where[name] = scope

    # ----- statements ----------------------------------------------------------------------

    def lit(self, value, dtype: str) -> Lit:
        """A literal of ``dtype`` from a validated number (bool, int or float)."""
        value = _validated_number(value, dtype)
        key = (dtype, repr(value))
        if key not in self.consts:
            self.consts[key] = Lit(f"K{len(self.consts)}", dtype, value)
        return self.consts[key]

    def let(self, op: str, dtype: str, args: tuple, attrs=None, node=None,
            at_least: _Scope | None = None) -> Ref:
        if op not in self.caps.ops and op not in _STRUCTURAL_OPS:
            raise Unsupported(f"the {self.caps.name} backend has no emitter for op {op}", node)
        name = self.fresh("t")
        self._define(self.place(args, at_least), Let(name, dtype, op, tuple(args),
                                                    dict(attrs or {}), node), name)
        return Ref(name, dtype)

    def load(self, buf: Buffer, addr: Ix) -> Ref:
        key = ("load", buf.name, addr.text())
        if key in self.ctx.memo:
            return self.ctx.memo[key]
        name = self.fresh("t")
        self._define(self.place([addr]), Load(name, buf.dtype, buf.name, addr), name)
        ref = self.ctx.memo[key] = Ref(name, buf.dtype)
        return ref

    def store(self, buf: Buffer, addr: Ix, value):
        self.place([addr, value]).stmts.append(Store(buf.name, addr, value))

    def index_op(self, op: str, *args) -> Ix:
        """A non-affine index temporary (``floordiv``, ``mod``, ``clamp``), folded if constant."""
        a = args[0]
        if a.is_const:
            c = a.const
            if op == "floordiv":
                return Ix.of(c // args[1])
            if op == "mod":
                return Ix.of(c % args[1])
            return Ix.of(min(max(c, args[1]), args[2]))
        if op == "floordiv" and args[1] == 1:
            return a
        if op == "mod" and args[1] == 1:
            return Ix.of(0)
        key = (op, a.text()) + tuple(args[1:])
        if key in self.ctx.memo:
            return self.ctx.memo[key]
        name = self.fresh("x")
        self._define(self.place([a]), IndexLet(name, op, tuple(args)), name)
        ix = self.ctx.memo[key] = Ix.var(name)
        return ix

    def index_value(self, ref, lo: int, hi: int) -> Ix:
        """An index variable holding the integer value ``ref`` clamped to ``[lo, hi]`` (a
        data-dependent start: a gather's, a dynamic slice's)."""
        if isinstance(ref, Lit):
            return Ix.of(min(max(int(ref.value), lo), hi))
        key = ("from_value", ref.name, lo, hi)
        if key in self.ctx.memo:
            return self.ctx.memo[key]
        name = self.fresh("x")
        self._define(self.place([ref]), IndexLet(name, "from_value", (ref, lo, hi)), name)
        ix = self.ctx.memo[key] = Ix.var(name)
        return ix

    def reduction(self, dtype, reducer, init, extents, idx, body, contiguous=False, node=None):
        """An accumulator over ``extents``; ``body(rix)`` gives the value at reduction index
        ``rix`` (a tuple of Ix, one per extent)."""
        outer = self.place(list(idx) + [init])
        inner = _Scope(outer.depth + 1)
        rvars = [self.fresh("r") if n != 1 else None for n in extents]
        for v in rvars:
            if v:
                self.where[v] = inner
        rix = tuple(Ix.var(v) if v else Ix.of(0) for v in rvars)
        live = [v for v in rvars if v]
        for v, n in zip(rvars, extents):
            if v:
                self.rinfo[v] = (n, len(live), outer)
        name = self.fresh("a")
        # statements of the body that use a reduction variable land in `inner`
        value = body(rix)
        stmt = Reduce(name, dtype, reducer, init,
                      tuple((v, n) for v, n in zip(rvars, extents) if v), inner.stmts, value,
                      contiguous, node)
        self._define(outer, stmt, name)
        return Ref(name, dtype)

    def contraction_value(self, dtype, node) -> Ref:
        self.ctx.contraction_used = True
        return self.let("contraction", dtype, (), {}, node, at_least=self.ctx.levels[-1])

    # ----- values ------------------------------------------------------------------------

    def buffer_for(self, nid: str) -> Buffer | None:
        """The buffer holding ``nid``'s value in this nest, or None if the nest computes it."""
        if nid in self.scratch and nid != self.ctx.target:
            return self.scratch[nid]
        if nid in self.members:
            return None
        node = self.g.node(nid)
        if node.op == "constant" and node.type.rank == 0:
            return None
        if nid not in self.inputs:
            t = node.type
            self.inputs[nid] = Buffer(f"in{len(self.inputs)}", t.shape, t.dtype, "in", nid)
        return self.inputs[nid]

    def value(self, nid: str, idx: tuple):
        """The scalar value of node ``nid`` at index ``idx`` (tuple of Ix)."""

        key = (nid, tuple(i.text() for i in idx))
        memo = self.ctx.memo
        if key in memo:
            return memo[key]
        node = self.g.node(nid)
        buf = self.buffer_for(nid)
        if buf is not None:
            v = self.load(buf, linear(idx, node.type.shape))
        elif node.op == "constant":
            v = self.lit(constant_array(node.attrs, node.type).reshape(()).item(), node.dtype)
        else:
            rule = rule_for(node.op)
            if rule is None:
                raise Unsupported(unsupported_reason(node.op, self.caps.name), nid)
            if nid in self.ctx.rows:
                v = self._row_cache_value(nid, idx, lambda: rule(self, node, idx))
            else:
                v = rule(self, node, idx)
                if self.caps.row_cache and self._transcendental(node):
                    self.ctx.seen.append((nid, idx))
        memo[key] = v
        return v

    def is_nest_prefix(self, idx) -> bool:
        """True if ``idx`` is the nest's own index restricted to its leading dimensions."""
        return len(idx) <= len(self.ctx.idx) and all(a == b for a, b in zip(idx, self.ctx.idx))


def unsupported_reason(op: str, backend: str) -> str:
    """Why a group holding ``op`` runs through the numpy reference (said in the report)."""
    cat = get_op(op).category
    if cat == Category.CONTROL:
        return (f"{op} runs through the numpy reference: its nested computations are evaluated "
                "by the reference interpreter, not compiled")
    if cat in (Category.SORT, Category.SCATTER, Category.RANDOM):
        return f"{op} runs through the numpy reference: the {backend} backend has no kernel for it"
    if cat == Category.OPAQUE:
        return f"{op} is opaque: the workbench cannot look inside it"
    return f"op {op} cannot be fused by the {backend} backend"


#: ops every backend renders itself (not from the op table)
_STRUCTURAL_OPS = frozenset({"contraction", "iota", "in_range", "divisible"})


def _validated_number(value, dtype: str):
    """A plain Python bool/int/float for a literal; rejects anything else."""
    import math

    if dtype == "pred":
        if not isinstance(value, (bool, int)):
            raise Unsupported(f"bad pred literal {value!r}"[:80])
        return bool(value)
    if dtype.startswith(("s", "u")):
        if isinstance(value, bool) or not isinstance(value, int):
            raise Unsupported(f"bad integer literal {value!r}"[:80])
        return int(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Unsupported(f"bad float literal {value!r}"[:80])
    value = float(value)
    if not (math.isfinite(value) or math.isnan(value) or math.isinf(value)):
        raise Unsupported(f"bad float literal {value!r}")
    return value

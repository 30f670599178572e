"""Plan records: :class:`FusionGroup`, :class:`Decision`, :class:`Constraints`, :class:`Plan`.

A plan partitions a graph's ops into fusion groups; each group is exactly one kernel. Parameters
and constants are *sources*, not members of any group: kernels read parameters from memory and
take scalar constants as immediates. Every other node is a member of at least one group; a
node in several groups is a *duplicated* producer (recomputed in each). Each member value that is
read outside its group, or is a graph output, is an *output* of one group (the first, in plan
order, that computes it), which writes it to memory.

Dead groups (no graph output depends on any member; XLA's DCE would remove them) are listed for
the record but are not part of the per-call plan: a live value only they read is not written by
the live kernels, so they cannot run as planned, and back ends should skip them
(``FusionGroup.role == "dead"``).

Plans are immutable values with a deterministic text form and JSON. :func:`make_plan` builds a
plan from member sets and derives everything else (kinds, outputs, order); it is the one place
where a plan's invariants are checked.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import networkx as nx

from workbench.errors import CycleError, PlanError
from workbench.ir.attrs import EMPTY, Attrs
from workbench.ir.graph import Graph
from workbench.ir.ops import Category, get_op
from workbench.planner.decision import Decision

PLAN_FORMAT = "fusion-workbench-plan"
PLAN_VERSION = 1


class FusionKind:
    """Fusion kinds, as XLA names them (xla/hlo/ir/hlo_instruction.h, ``FusionKind``)."""

    LOOP = "loop"                  #: elementwise and data movement (XLA kLoop)
    INPUT = "input"                #: a reduction with what feeds it (XLA kInput)
    OUTPUT = "output"              #: a dot or convolution with its epilogue (XLA kOutput)
    MULTI_OUTPUT = "multi-output"  #: a loop or input fusion that writes several values
    OPAQUE = "opaque"              #: a kernel that is no fusion: a while loop, a conditional,
    #:                                a sort or top-k, a scatter (XLA runs these as instructions
    #:                                of their own), or an op the workbench cannot look inside

    ALL = (LOOP, INPUT, OUTPUT, MULTI_OUTPUT, OPAQUE)


SOURCE_OPS = frozenset({"parameter", "constant"})


class GroupRole:
    """When a group's kernel runs."""

    CALL = "call"          #: on every call (the plan proper)
    OFFLINE = "offline"    #: once, when the weights are loaded (batch-norm folding's weight ops)
    DEAD = "dead"          #: never needed: no graph output depends on it (XLA's DCE removes it)
    FREE = "free"          #: no kernel: one free op (a bitcast, a get-tuple-element) aliasing
    #:                        its operand's buffer

    ALL = (CALL, OFFLINE, DEAD, FREE)


def is_source(graph: Graph, node_id: str) -> bool:
    """True for parameters and constants, which belong to no group."""
    return graph.node(node_id).op in SOURCE_OPS


def group_kind(graph: Graph, members: Iterable[str], n_outputs: int = 1) -> str:
    """The fusion kind of a group with these members.

    Opaque if it holds an op that is no fusion's (:data:`NOT_FUSED_CATEGORIES`,
    :data:`NOT_FUSED_OPS`: a while loop, a conditional, a sort, top-k, a scatter, an opaque
    op); else output if it holds a dot or convolution (its epilogue fused after it); else
    multi-output if it writes several values; else input if it holds a reduction (or a
    composite that reduces: softmax, layer norm; an inference batch norm is a per-channel affine
    map and does not); else loop. The rules of :func:`_kind_ix` (what ``make_plan`` uses).
    """
    from workbench.ir.index import is_reduction

    members = list(members)
    return _kind_of([graph.node(m).op for m in members],
                    (is_reduction(graph, m) for m in members), n_outputs)


#: categories and ops of kernels that are no fusion (XLA runs them as instructions of their
#: own; the CPU backend has a native kernel or the numpy reference for each)
NOT_FUSED_CATEGORIES = frozenset({Category.OPAQUE, Category.SORT, Category.SCATTER})
NOT_FUSED_OPS = frozenset({"while", "conditional"})


def _kind_of(ops, reductions, n_outputs: int) -> str:
    """The fusion kind of a group whose members have these ``ops`` and reduction flags."""
    cats = {_category(op) for op in ops}
    if cats & NOT_FUSED_CATEGORIES or NOT_FUSED_OPS.intersection(ops):
        return FusionKind.OPAQUE
    if Category.CONTRACTION in cats or Category.CONVOLUTION in cats:
        return FusionKind.OUTPUT
    if n_outputs > 1:
        return FusionKind.MULTI_OUTPUT
    if any(reductions):
        return FusionKind.INPUT
    return FusionKind.LOOP


@dataclass(frozen=True)
class FusionGroup:
    """One fusion group, i.e. one kernel.

    Parameters
    ----------
    id : str
        ``g0``, ``g1``, ... in plan (launch) order.
    nodes : tuple of str
        Member node ids in topological order, duplicated producers included.
    kind : str
        One of :class:`FusionKind`.
    outputs : tuple of str
        Members whose values this kernel writes to memory.
    duplicated : tuple of str
        Members that are also computed by another group.
    pattern : str or None
        The named pattern that formed the group (``"matmul+bias+relu"``), if any.
    pinned : bool
        Kept as is when re-planning.
    role : str
        A :class:`GroupRole`: ``"call"``; ``"offline"`` when every member only transforms
        weights (run once, when they are loaded); ``"dead"`` when no graph output depends on
        any member; ``"free"`` for a group of one free op (no kernel: an alias).
    """

    id: str
    nodes: tuple[str, ...]
    kind: str
    outputs: tuple[str, ...]
    duplicated: tuple[str, ...] = ()
    pattern: str | None = None
    pinned: bool = False
    role: str = GroupRole.CALL

    @property
    def size(self) -> int:
        """Number of member ops."""
        return len(self.nodes)

    def to_json(self) -> dict:
        d = {"id": self.id, "kind": self.kind, "nodes": list(self.nodes),
             "outputs": list(self.outputs)}
        if self.duplicated:
            d["duplicated"] = list(self.duplicated)
        if self.pattern:
            d["pattern"] = self.pattern
        if self.pinned:
            d["pinned"] = True
        if self.role != GroupRole.CALL:
            d["role"] = self.role
        return d

    def note(self) -> str:
        """`` (dead: ...)`` / `` (offline: ...)`` for the listings; empty for a per-call group."""
        return ROLE_NOTES.get(self.role, "")


#: how the listings mark groups that are not per-call kernels
ROLE_NOTES = {
    GroupRole.DEAD: " (dead: no graph output depends on it; XLA's DCE would remove it)",
    GroupRole.OFFLINE: " (offline: folds weights once, when they are loaded; not run per call)",
    GroupRole.FREE: " (free: reads its operand's buffer another way; no kernel)",
}


@dataclass(frozen=True)
class Constraints:
    """User constraints that survive re-planning.

    Parameters
    ----------
    forbidden : tuple of (str, str)
        Pairs of nodes that must never be in one group (each pair sorted).
    pinned : tuple of tuple of str
        Member sets of groups to keep exactly as they are.
    """

    forbidden: tuple[tuple[str, str], ...] = ()
    pinned: tuple[tuple[str, ...], ...] = ()

    def forbids(self, a: str, b: str) -> bool:
        """True if ``a`` and ``b`` may not share a group."""
        return tuple(sorted((a, b))) in self._forbidden_set

    @cached_property
    def _forbidden_set(self) -> frozenset:
        return frozenset(self.forbidden)

    def with_forbidden(self, a: str, b: str) -> "Constraints":
        pair = tuple(sorted((a, b)))
        if pair in self._forbidden_set:
            return self
        return Constraints(tuple(sorted(self.forbidden + (pair,))), self.pinned)

    def with_pinned(self, members: Iterable[str]) -> "Constraints":
        m = tuple(sorted(members))
        if m in self.pinned:
            return self
        return Constraints(self.forbidden, tuple(sorted(self.pinned + (m,))))

    def to_json(self) -> dict:
        return {"forbidden": [list(p) for p in self.forbidden],
                "pinned": [list(p) for p in self.pinned]}

    @staticmethod
    def from_json(d: dict | None) -> "Constraints":
        d = d or {}
        return Constraints(tuple(tuple(sorted(p)) for p in d.get("forbidden", ())),
                           tuple(tuple(sorted(p)) for p in d.get("pinned", ())))


class _GraphFingerprint:
    """The field :attr:`Plan.graph_fingerprint`: set to the fingerprint, or to the
    :class:`Graph` itself, whose :attr:`~Graph.fingerprint` is then taken when the field is
    first read (the planner's plan of a large graph does not hash the whole graph unless
    someone asks: 0.6 s of a 100,000-node plan)."""

    def __set_name__(self, owner, name: str) -> None:
        self.key = "_" + name

    def __get__(self, obj, owner=None) -> str:
        if obj is None:              # the class's own access: the dataclass field has no default
            raise AttributeError(self.key)
        v = obj.__dict__[self.key]
        if v.__class__ is not str:
            v = obj.__dict__[self.key] = v.fingerprint
        return v

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.key] = value


@dataclass(frozen=True)
class Plan:
    """A fusion plan for one graph: groups in launch order, the decision log, constraints.

    Build plans with :func:`make_plan` (or the planner), never field by field.

    Parameters
    ----------
    graph_name, graph_fingerprint : str
        The graph the plan is for (:attr:`Graph.fingerprint`; the graph itself may be given
        for the fingerprint, which is then taken when first read).
    policy : str
        The planner policy that made it (``priority``, ``xla-cpu``, ``greedy``, ``unfused``,
        ``xla`` for XLA's own grouping, ``edited``).
    device : str
        The device profile its costs were computed for.
    groups : tuple of FusionGroup
        In a topological (launch) order.
    decisions : tuple of Decision
        The log, in order.
    constraints : Constraints
    """

    graph_name: str
    graph_fingerprint: str = _GraphFingerprint()   # type: ignore[assignment]
    policy: str
    device: str
    groups: tuple[FusionGroup, ...]
    decisions: tuple[Decision, ...] = ()
    constraints: Constraints = field(default_factory=Constraints)

    @cached_property
    def _home(self) -> dict[str, str]:
        home: dict[str, str] = {}
        for g in self.groups:
            for o in g.outputs:
                home.setdefault(o, g.id)
        for g in self.groups:
            for n in g.nodes:
                home.setdefault(n, g.id)
        return home

    @cached_property
    def _by_id(self) -> dict[str, FusionGroup]:
        return {g.id: g for g in self.groups}

    def group(self, group_id: str) -> FusionGroup:
        """The group with this id; raises :class:`PlanError` if none."""
        try:
            return self._by_id[group_id]
        except KeyError:
            raise PlanError(f"the plan has no group {group_id!r}") from None

    def group_of(self, node_id: str) -> FusionGroup:
        """The group that owns ``node_id`` (writes it, or else first computes it)."""
        try:
            return self._by_id[self._home[node_id]]
        except KeyError:
            raise PlanError(f"node {node_id!r} is in no group (a parameter or constant?)",
                            node=node_id) from None

    def groups_of(self, node_id: str) -> tuple[FusionGroup, ...]:
        """Every group that computes ``node_id`` (several for a duplicated producer)."""
        return tuple(g for g in self.groups if node_id in g.nodes)

    def member_sets(self) -> list[frozenset]:
        """The groups' member sets, in plan order."""
        return [frozenset(g.nodes) for g in self.groups]

    @cached_property
    def fingerprint(self) -> str:
        """A stable hash of what the plan runs: its graph's fingerprint and each group's
        members, outputs and role, in launch order (16 hex digits). Two plans with one grouping
        have one fingerprint whatever policy or device made them (the results store keys
        measurements by it); the decision log, patterns and constraints do not count."""
        import hashlib

        h = hashlib.sha256(self.graph_fingerprint.encode())
        for g in self.groups:
            h.update(repr((g.nodes, g.outputs, g.role)).encode())
        return h.hexdigest()[:16]

    @property
    def num_kernels(self) -> int:
        """Kernels launched: one per group."""
        return len(self.groups)

    def __getstate__(self) -> dict:
        self.graph_fingerprint           # a pickled plan carries the string, not the graph
        return self.__dict__

    def replace(self, **changes) -> "Plan":
        d = dict(graph_name=self.graph_name,
                 graph_fingerprint=self.__dict__["_graph_fingerprint"],
                 policy=self.policy, device=self.device, groups=self.groups,
                 decisions=self.decisions, constraints=self.constraints)
        d.update(changes)
        return Plan(**d)

    # ----- text and JSON ---------------------------------------------------------------------

    def text(self, graph: Graph | None = None) -> str:
        """A readable, deterministic listing: one line per group, ops in order."""
        n = len(self.groups)
        lines = [f"plan for {self.graph_name} (policy {self.policy}, device {self.device}): "
                 f"{n} kernel{'' if n == 1 else 's'}"]
        for g in self.groups:
            ops = ", ".join(
                (f"{n}:{graph.node(n).op}" if graph is not None else n)
                + ("*" if n in g.duplicated else "") for n in g.nodes)
            extra = f" [{g.pattern}]" if g.pattern else ""
            pin = " (pinned)" if g.pinned else ""
            lines.append(f"  {g.id} {g.kind}{extra}{pin}{g.note()} -> "
                         f"{', '.join(g.outputs) or '-'}: {ops}")
        if any(g.duplicated for g in self.groups):
            lines.append("  (* duplicated: recomputed in each group that lists it)")
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"format": PLAN_FORMAT, "version": PLAN_VERSION, "graph": self.graph_name,
                "graph_fingerprint": self.graph_fingerprint, "policy": self.policy,
                "device": self.device, "groups": [g.to_json() for g in self.groups],
                "constraints": self.constraints.to_json(),
                "decisions": [d.to_json() for d in self.decisions]}

    def dumps(self) -> str:
        """The plan as JSON text."""
        return json.dumps(self.to_json(), indent=1)


# ----- building plans -------------------------------------------------------------------------

def make_plan(graph: Graph, member_sets: Sequence[Iterable[str]], *, policy: str,
              device: str = "cpu", decisions: Sequence[Decision] = (),
              constraints: Constraints | None = None,
              patterns: dict | None = None, pinned: Iterable[frozenset] = ()) -> Plan:
    """Build a plan from the member sets of its groups, checking the plan's invariants.

    Parameters
    ----------
    graph : Graph
    member_sets : sequence of iterables of node ids
        One per group; sources (parameters, constants) are dropped; a node may be in several
        sets (duplication).
    policy, device : str
    decisions : sequence of Decision
    constraints : Constraints, optional
    patterns : dict, optional
        frozenset of members -> pattern name, for groups formed by a named pattern.
    pinned : iterable of frozenset
        Member sets of pinned groups.

    Returns
    -------
    Plan
        Groups ordered topologically (ties by their first member's position), ids ``g0..``.

    Raises
    ------
    PlanError
        If a node is unknown, a non-source node is in no group, a set is empty, or a value
        needed outside its groups is computed by no group.
    CycleError
        If the groups cannot be ordered (the graph of groups has a cycle).
    """
    ix = _index(graph)
    pos, source = ix.pos, ix.source
    sets = []
    for s in member_sets:
        members = set()
        for n in s:
            i = pos.get(n)
            if i is None:
                raise PlanError(f"the plan names node {n!r}, which is not in graph "
                                f"{graph.name!r}", node=n)
            if not source[i]:
                members.add(i)
        sets.append(members)
    # a name that is not a node, or a source, makes a key no group's members match
    get = pos.get
    patterns = {frozenset(get(n) for n in k): v for k, v in (patterns or {}).items()}
    pinned = [frozenset(get(n) for n in p) for p in pinned]
    return plan_of_index_sets(graph, sets, policy=policy, device=device, decisions=decisions,
                              constraints=constraints, patterns=patterns, pinned=pinned)


def plan_of_index_sets(graph: Graph, member_sets, *, policy: str, device: str = "cpu",
                       decisions: Sequence[Decision] = (),
                       constraints: Constraints | None = None, patterns: dict | None = None,
                       pinned: Iterable[frozenset] = ()) -> Plan:
    """:func:`make_plan` of member sets given as the graph index's node numbers, sources
    already left out (what the planner holds): the same checks and the same plan.
    ``patterns`` and ``pinned`` are keyed by frozensets of node numbers."""
    ix = _index(graph)
    source, ids = ix.source, ix.ids
    sets: list[frozenset] = []
    seen: set[frozenset] = set()
    for members in member_sets:
        if members:
            fs = frozenset(members)
            if fs not in seen:
                seen.add(fs)
                sets.append(fs)
    covered = set().union(*sets) if sets else set()
    for i in range(len(ids)):
        if not source[i] and i not in covered:
            raise PlanError("the node is in no fusion group", node=ids[i])

    # Which group provides each value to readers outside the groups that compute it.
    computing: dict[int, list[int]] = {}
    for gi, s in enumerate(sets):
        for n in s:
            c = computing.get(n)
            if c is None:
                computing[n] = [gi]
            else:
                c.append(gi)
    # order groups: the group DAG through provider groups (first computing group provides)
    succ: list[set] = [set() for _ in sets]
    needs_output: list[set] = [set() for _ in sets]
    live, operands = ix.live, ix.operands
    for gi, s in enumerate(sets):
        dead_reader = not any(live[n] for n in s)
        for n in s:
            for oi in operands[n]:
                if source[oi] or oi in s:
                    continue
                provider = computing[oi][0]
                if not (dead_reader and live[oi]):
                    needs_output[provider].add(oi)
                succ[provider].add(gi)
    pos = ix.pos
    for o in graph.outputs:
        oi = pos[o]
        if not source[oi]:
            needs_output[computing[oi][0]].add(oi)
    keys = [tuple(sorted(s)) for s in sets]
    order = _lexicographic_order(succ, keys)
    if order is None:
        dag = nx.DiGraph()
        dag.add_edges_from((a, b) for a, bs in enumerate(succ) for b in bs)
        raise _group_cycle([frozenset(ids[i] for i in s) for s in sets], nx.find_cycle(dag),
                           pos)

    patterns = patterns or {}
    pinned_sets = {frozenset(p) for p in pinned}
    groups = []
    for k, gi in enumerate(order):
        s = sets[gi]
        idx = keys[gi]
        nodes = tuple([ids[i] for i in idx])
        outs = tuple([ids[i] for i in sorted(needs_output[gi])])
        dup = tuple([ids[i] for i in idx if len(computing[i]) > 1])
        groups.append(FusionGroup(f"g{k}", nodes, _kind_ix(ix, idx, len(outs)), outs, dup,
                                  patterns.get(s), s in pinned_sets, _role_ix(ix, idx)))
    # the graph, whose fingerprint the plan takes when it is first asked for
    return Plan(graph.name, graph, policy, device, tuple(groups),
                tuple(decisions), constraints or Constraints())


def _group_cycle(sets, cycle, pos) -> CycleError:
    names = [sorted(sets[a], key=pos.get)[0] for a, _ in cycle]
    return CycleError("the fusion groups form a cycle (a path leaves a group and comes back "
                      f"into it) through groups containing {', '.join(names)}")


def _lexicographic_order(succ: list, keys: list) -> list | None:
    """A topological order of the group DAG (``succ``: successors of each group) taking,
    among the groups ready to run, the one with the smallest key first (what networkx's
    ``lexicographical_topological_sort`` gives, without building a DiGraph: planning a
    40,000-op module made that the slow part); None if there is a cycle."""
    import heapq

    indeg = [0] * len(succ)
    for bs in succ:
        for b in bs:
            indeg[b] += 1
    ready = [(keys[g], g) for g in range(len(succ)) if indeg[g] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, g = heapq.heappop(ready)
        order.append(g)
        for b in succ[g]:
            indeg[b] -= 1
            if indeg[b] == 0:
                heapq.heappush(ready, (keys[b], b))
    return order if len(order) == len(succ) else None


def _kind_ix(ix, idx, n_outputs: int) -> str:
    """:func:`group_kind` of the members numbered ``idx`` (the flat index's ops and
    reduction flags)."""
    ops = ix.ops
    return _kind_of([ops[i] for i in idx], (ix.reduction[i] for i in idx), n_outputs)


def _role_ix(ix, idx) -> str:
    """:func:`_role` of the members numbered ``idx``."""
    if not any(ix.live[i] for i in idx):
        return GroupRole.DEAD
    if all(ix.offline[i] for i in idx):
        return GroupRole.OFFLINE
    if len(idx) == 1 and ix.free[idx[0]]:
        return GroupRole.FREE
    return GroupRole.CALL


_CATEGORIES: dict[str, str] = {}


def _category(op: str) -> str:
    cat = _CATEGORIES.get(op)
    if cat is None:
        cat = _CATEGORIES[op] = get_op(op).category
    return cat


def _index(graph: Graph):
    from workbench.ir.index import graph_index

    return graph_index(graph)


def _role(graph: Graph, nodes) -> str:
    ix = _index(graph)
    return _role_ix(ix, [ix.pos[n] for n in nodes])


def unfused_plan(graph: Graph, device: str = "cpu") -> Plan:
    """The baseline: one op per group (every op its own kernel)."""
    return make_plan(graph, [[n] for n in graph.topo_order if not is_source(graph, n)],
                     policy="unfused", device=device)


def xla_plan(graph: Graph, device: str = "cpu") -> Plan:
    """XLA's own grouping of a flattened optimised module (``meta['xla_fusion']`` tags).

    Nodes outside any XLA fusion become one-op groups.

    Raises
    ------
    PlanError
        If the graph has no XLA fusion tags (it is not an optimised module; a module whose
        fusions all sit inside a while loop's body is optimised, ``meta['has_xla_fusions']``).
    """
    groups: dict[str, list[str]] = {}
    singles = []
    for n in graph.topo_order:
        if is_source(graph, n):
            continue
        tag = graph.node(n).meta.get("xla_fusion")
        if tag is None:
            singles.append([n])
        else:
            groups.setdefault(tag, []).append(n)
    if not groups and not graph.meta.get("has_xla_fusions"):
        raise PlanError(f"graph {graph.name!r} has no XLA fusion tags: load a module XLA has "
                        "optimised (*.after_noynn.hlo, or *.after.hlo) to see XLA's grouping")
    return make_plan(graph, list(groups.values()) + singles, policy="xla", device=device)


def plan_from_json(doc, graph: Graph) -> Plan:
    """Read a plan saved by :meth:`Plan.to_json` and check it against ``graph``.

    Raises
    ------
    PlanError
        If the document is not a plan, was made for another graph, or breaks an invariant.
    """
    if isinstance(doc, (str, bytes)):
        try:
            doc = json.loads(doc)
        except json.JSONDecodeError as exc:
            raise PlanError(f"malformed plan JSON at line {exc.lineno} column {exc.colno}: "
                            f"{exc.msg}") from None
    if not isinstance(doc, dict) or doc.get("format") != PLAN_FORMAT:
        raise PlanError(f"not a workbench plan (expected format {PLAN_FORMAT!r})")
    if doc.get("graph_fingerprint") != graph.fingerprint:
        raise PlanError(f"the plan was made for graph {doc.get('graph')!r} "
                        f"({doc.get('graph_fingerprint')}), not for {graph.name!r} "
                        f"({graph.fingerprint})")
    try:
        groups = doc["groups"]
        sets = [g["nodes"] for g in groups]
        patterns = {frozenset(g["nodes"]): g["pattern"] for g in groups if g.get("pattern")}
        pinned = [frozenset(g["nodes"]) for g in groups if g.get("pinned")]
        decisions = [Decision.from_json(d) for d in doc.get("decisions", ())]
    except (KeyError, TypeError, ValueError) as exc:
        raise PlanError(f"malformed plan: {exc!r}") from None
    return make_plan(graph, sets, policy=str(doc.get("policy", "loaded")),
                     device=str(doc.get("device", "cpu")), decisions=decisions,
                     constraints=Constraints.from_json(doc.get("constraints")),
                     patterns=patterns, pinned=pinned)


def replay(plan: Plan, graph: Graph, upto: int | None = None) -> list[frozenset]:
    """The groups after the first ``upto`` decisions, starting from every op alone.

    Each taken decision's ``members`` replace the groups it absorbed: exactly its ``removed``
    sets when it lists them, else every existing group that is a subset of the new groups'
    union. With ``upto=None`` all decisions are replayed.
    """
    state = [frozenset([n]) for n in graph.topo_order if not is_source(graph, n)]
    for d in plan.decisions[:upto]:
        if not d.fused or not d.members:
            continue
        new = [frozenset(m) for m in d.members]
        if d.removed:
            gone = [frozenset(m) for m in d.removed]
            kept = []
            for s in state:
                if s in gone:
                    gone.remove(s)
                else:
                    kept.append(s)
            state = kept + [s for s in new if s not in kept]
        else:
            union = frozenset().union(*new)
            state = [s for s in state if not s <= union] + new
    return state

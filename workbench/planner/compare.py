"""How far a plan agrees with XLA's own fusion decisions on the same graph.

An optimised HLO module (``*.after_noynn.hlo``), flattened by the importer, tags every node with
the XLA fusion it came from (``meta['xla_fusion']``). Those tags are the answer key: the planner
never reads them, only this comparison does.

Agreement is measured on pairs of ops: a pair is *fused* by a plan when one kernel computes both.
XLA's pairs come from its fusions of two or more ops (XLA:CPU wraps every other op in a one-op
fusion, which fuses nothing). With ``P`` the plan's fused pairs and ``X`` XLA's, over the
non-source nodes of the graph::

    precision = |P & X| / |P|     recall = |P & X| / |X|     F1 = 2 p r / (p + r)

Pairs are counted over all ops, so a plan that fuses an op XLA left alone (a dot with its
epilogue, say) loses precision. A ratio with an empty denominator is not a score: precision is
``None`` when the plan fuses no pair, recall when XLA fuses none, and F1 when neither does (a
module whose kernels are all single ops, such as ``sum(cos(x))`` on ``f32[33]``, which XLA:CPU
runs as three one-op kernels); with pairs on one side only, F1 is 0.

Beside the pairs, the comparison goes **per XLA kernel**, by XLA's names
(:class:`FusionDiff`): each fusion XLA made (``meta['xla_fusion']``), and each op it left
outside any fusion (named by the op), is ``same`` (one of the plan's kernels computes exactly its
ops), ``split`` (the plan spreads its ops over several kernels), ``merged`` (one kernel of the
plan computes it with ops of other XLA kernels) or ``split and merged``; for a difference, the
plan's decisions that made it are quoted (the refusal that cut it, the fusion that joined it).

Free ops that XLA left outside its fusions (a bitcast that keeps the row-major order, a
get-tuple-element: no kernel, no data moved) are dropped from both sides before counting: a
plan that puts such a bitcast into the consumer's kernel fuses nothing XLA did not, and the
comparison names the ops it dropped (``Agreement.dropped``).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from workbench.errors import PlanError
from workbench.ir.graph import Graph
from workbench.planner.plan import Plan, is_source, xla_plan


@dataclass(frozen=True)
class FusionDiff:
    """One of XLA's kernels, compared with the plan.

    Attributes
    ----------
    name : str
        XLA's fusion name (``fusion.3``, ``wrapped_cosine``), or the op's id for an op XLA left
        outside any fusion.
    kind : str
        XLA's fusion kind (``kLoop``, ``kInput``, ``kOutput``, ...), ``""`` for a lone op.
    ops : tuple of str
        Its non-source ops, in topological order.
    verdict : str
        ``same``, ``split``, ``merged`` or ``split and merged`` (see the module notes).
    groups : tuple of str
        The plan's groups (kernels) that compute its ops.
    others : tuple of str
        The other XLA kernels whose ops share those groups (for ``merged``).
    why : tuple of str
        The plan's decisions behind the difference (their sentences), at most three.
    """

    name: str
    kind: str
    ops: tuple
    verdict: str
    groups: tuple
    others: tuple = ()
    why: tuple = ()

    def to_json(self) -> dict:
        return {"name": self.name, "kind": self.kind, "ops": list(self.ops),
                "verdict": self.verdict, "groups": list(self.groups),
                "others": list(self.others), "why": list(self.why)}


@dataclass(frozen=True)
class Agreement:
    """Pairwise same-kernel agreement between a plan and XLA.

    Attributes
    ----------
    precision, recall, f1 : float or None
        ``None`` where the ratio's denominator is empty (see the module notes).
    extra_pairs : tuple of (str, str)
        Pairs the plan fuses and XLA does not (sorted).
    missing_pairs : tuple of (str, str)
        Pairs XLA fuses and the plan does not (sorted).
    plan_pairs, xla_pairs : int
        Sizes of the two pair sets.
    fusions : tuple of FusionDiff
        Every XLA kernel compared with the plan, in XLA's launch order.
    dropped : tuple of str
        Free ops outside XLA's fusions, left out of the comparison (see the module notes).
    """

    precision: float | None
    recall: float | None
    f1: float | None
    extra_pairs: tuple = ()
    missing_pairs: tuple = ()
    plan_pairs: int = 0
    xla_pairs: int = 0
    fusions: tuple = ()
    dropped: tuple = ()

    @property
    def same(self) -> int:
        """XLA kernels the plan reproduces exactly."""
        return sum(1 for f in self.fusions if f.verdict == "same")

    def score_text(self) -> str:
        """``precision 1.000  recall 0.500  F1 0.667`` or, with no pairs on either side, what
        was compared instead of a score; then the per-kernel count."""
        def num(v):
            return "n/a" if v is None else f"{v:.3f}"

        if self.f1 is None:
            text = ("F1 not defined: neither the plan nor XLA puts two ops in one kernel "
                    "(0 vs 0 pairs)")
        else:
            text = (f"precision {num(self.precision)}  recall {num(self.recall)}  "
                    f"F1 {num(self.f1)}")
        return text + (f"; XLA's kernels reproduced exactly: {self.same} of "
                       f"{len(self.fusions)}")

    def to_json(self) -> dict:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1,
                "plan_pairs": self.plan_pairs, "xla_pairs": self.xla_pairs,
                "extra_pairs": [list(p) for p in self.extra_pairs],
                "missing_pairs": [list(p) for p in self.missing_pairs],
                "fusions_same": self.same, "fusions_total": len(self.fusions),
                "fusions": [f.to_json() for f in self.fusions],
                "dropped": list(self.dropped)}


def fused_pairs(graph: Graph, member_sets, skip=frozenset()) -> set[tuple[str, str]]:
    """Every pair of non-source nodes that share a group (sorted pairs), ``skip`` left out."""
    pairs: set[tuple[str, str]] = set()
    for s in member_sets:
        ops = sorted(n for n in s if not is_source(graph, n) and n not in skip)
        pairs.update(combinations(ops, 2))
    return pairs


def free_outside_fusions(graph: Graph) -> tuple[str, ...]:
    """Free ops (no data moved: a bitcast keeping the row-major order, a get-tuple-element)
    that XLA left outside every fusion, in topological order."""
    from workbench.ir.index import graph_index

    ix = graph_index(graph)
    return tuple(nid for i, nid in enumerate(ix.ids)
                 if ix.free[i] and "xla_fusion" not in graph.node(nid).meta)


def compare_with_xla(graph: Graph, plan: Plan) -> Agreement:
    """Compare ``plan`` with XLA's grouping recorded in ``graph``'s fusion tags.

    Parameters
    ----------
    graph : Graph
        A flattened optimised HLO module (from an ``.after*.hlo`` file).
    plan : Plan
        A plan for ``graph``.

    Returns
    -------
    Agreement

    Raises
    ------
    PlanError
        If the graph has no XLA fusion tags or the plan is for another graph.
    """
    if plan.graph_fingerprint != graph.fingerprint:
        raise PlanError(f"the plan is for graph {plan.graph_name!r}, not {graph.name!r}")
    skip = frozenset(free_outside_fusions(graph))
    ours = fused_pairs(graph, plan.member_sets(), skip)
    theirs = fused_pairs(graph, xla_plan(graph).member_sets(), skip)
    both = len(ours & theirs)
    precision = both / len(ours) if ours else None
    recall = both / len(theirs) if theirs else None
    if not ours and not theirs:
        f1 = None
    else:
        p, r = precision or 0.0, recall or 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
    return Agreement(precision, recall, f1, tuple(sorted(ours - theirs)),
                     tuple(sorted(theirs - ours)), len(ours), len(theirs),
                     per_fusion(graph, plan, skip),
                     tuple(n for n in graph.topo_order if n in skip))


def xla_kernels(graph: Graph, skip=frozenset()) -> list[tuple[str, str, tuple]]:
    """XLA's kernels of a flattened optimised module: ``(name, kind, ops)`` for each fusion
    (by its tag) and each non-source op outside any fusion (named by itself), in order; the
    ops in ``skip`` (free ops outside XLA's fusions, which are no kernel) left out."""
    order: dict[str, list] = {}
    kinds: dict[str, str] = {}
    for n in graph.topo_order:
        if is_source(graph, n) or n in skip:
            continue
        meta = graph.node(n).meta
        tag = meta.get("xla_fusion")
        key = tag if tag is not None else n
        order.setdefault(key, []).append(n)
        kinds[key] = str(meta.get("xla_fusion_kind") or "") if tag is not None else ""
    return [(k, kinds[k], tuple(v)) for k, v in order.items()]


def per_fusion(graph: Graph, plan: Plan, skip=frozenset()) -> tuple:
    """A :class:`FusionDiff` for every XLA kernel of ``graph`` against ``plan``, the ops in
    ``skip`` left out of both sides."""
    kernels = xla_kernels(graph, skip)
    owner = {n: name for name, _, ops in kernels for n in ops}
    homes: dict[str, list[str]] = {}
    members: dict[str, frozenset] = {}
    for g in plan.groups:
        members[g.id] = frozenset(n for n in g.nodes
                                  if not is_source(graph, n) and n not in skip)
        for n in members[g.id]:
            homes.setdefault(n, []).append(g.id)
    out = []
    for name, kind, ops in kernels:
        gids = tuple(dict.fromkeys(h for n in ops for h in homes.get(n, ())))
        others = tuple(dict.fromkeys(owner[m] for g in gids for m in sorted(members[g])
                                     if owner.get(m, name) != name))
        split = len(gids) > 1
        exact = len(gids) == 1 and members[gids[0]] == frozenset(ops)
        verdict = ("same" if exact else "split and merged" if split and others
                   else "split" if split else "merged")
        out.append(FusionDiff(name, kind, ops, verdict, gids, others,
                              _why(plan, set(ops), owner, name, verdict)))
    return tuple(out)


def _why(plan: Plan, ops: set, owner: dict, name: str, verdict: str) -> tuple:
    """The plan's decisions behind a difference: refusals between two of the kernel's ops
    (what cut it) and fusions that brought in another XLA kernel's op (what joined it)."""
    if verdict == "same":
        return ()
    found = []
    for d in plan.decisions:
        inside = [n for n in d.nodes if n in ops]
        if "split" in verdict and not d.fused and len(inside) >= 2:
            found.append(d.message)
        elif "merged" in verdict and d.fused and inside and any(
                owner.get(n, name) != name for n in d.nodes):
            found.append(d.message)
        if len(found) == 3:
            break
    return tuple(found)


def fusion_summary(agreement: Agreement, limit: int = 12) -> list[str]:
    """Per XLA kernel, by XLA's names: those the plan reproduces, then at most ``limit`` of
    those it does differently, each with what the plan does and the decisions that say why."""
    from workbench.fmt import name_list, plural

    diff = [f for f in agreement.fusions if f.verdict != "same"]
    lines = [f"per XLA kernel: {agreement.same} of {plural(len(agreement.fusions), 'kernel')} "
             f"the same in the plan, {len(diff)} different"]
    for f in diff[:limit]:
        what = {"split": f"split over the plan's kernels {name_list(f.groups)}",
                "merged": f"computed in {name_list(f.groups)} together with "
                          f"{name_list(f.others)}",
                "split and merged": f"split over {name_list(f.groups)}, which also compute "
                                    f"{name_list(f.others)}"}[f.verdict]
        kind = f" ({f.kind})" if f.kind else ""
        lines.append(f"  {f.name}{kind}, {plural(len(f.ops), 'op')}: {what}")
        for w in f.why or ("no decision of the plan names this difference (an edit, or a "
                           "plan made outside the planner)",):
            lines.append(f"    why: {w}")
    if len(diff) > limit:
        lines.append(f"  ... and {len(diff) - limit} more")
    return lines


def difference_summary(graph: Graph, agreement: Agreement, limit: int = 12) -> list[str]:
    """The differences as lines: a count per side, then at most ``limit`` (>= 0) pairs of each."""
    from workbench.fmt import plural

    if limit < 0:
        raise ValueError(f"limit must be 0 or more, got {limit}")
    lines = []
    for title, pairs in (("fused by the plan, not by XLA", agreement.extra_pairs),
                         ("fused by XLA, not by the plan", agreement.missing_pairs)):
        lines.append(f"{title}: {plural(len(pairs), 'pair')}")
        for a, b in pairs[:limit]:
            lines.append(f"  {a} ({graph.node(a).op}) + {b} ({graph.node(b).op})")
        if len(pairs) > limit:
            lines.append(f"  ... and {len(pairs) - limit} more")
    return lines

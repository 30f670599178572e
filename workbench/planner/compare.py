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
epilogue, say) loses precision. An empty set scores 1 (nothing claimed, nothing missed).

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
class Agreement:
    """Pairwise same-kernel agreement between a plan and XLA.

    Attributes
    ----------
    precision, recall, f1 : float
    extra_pairs : tuple of (str, str)
        Pairs the plan fuses and XLA does not (sorted).
    missing_pairs : tuple of (str, str)
        Pairs XLA fuses and the plan does not (sorted).
    plan_pairs, xla_pairs : int
        Sizes of the two pair sets.
    dropped : tuple of str
        Free ops outside XLA's fusions, left out of the comparison (see the module notes).
    """

    precision: float
    recall: float
    f1: float
    extra_pairs: tuple = ()
    missing_pairs: tuple = ()
    plan_pairs: int = 0
    xla_pairs: int = 0
    dropped: tuple = ()

    def to_json(self) -> dict:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1,
                "plan_pairs": self.plan_pairs, "xla_pairs": self.xla_pairs,
                "extra_pairs": [list(p) for p in self.extra_pairs],
                "missing_pairs": [list(p) for p in self.missing_pairs],
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
    precision = both / len(ours) if ours else 1.0
    recall = both / len(theirs) if theirs else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Agreement(precision, recall, f1, tuple(sorted(ours - theirs)),
                     tuple(sorted(theirs - ours)), len(ours), len(theirs),
                     tuple(n for n in graph.topo_order if n in skip))


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

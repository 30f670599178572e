"""What the legality predicates may ask about a candidate group: :class:`GroupView`."""

from __future__ import annotations

from workbench.ir.index import GraphIndex


class GroupView:
    """What the predicates may ask about a candidate group.

    Built from a member set (``GroupView(index, members)``: every fact is derived), or by the
    planner from the parts it unites with the counts it maintains; facts not given are derived
    lazily from the members.

    Parameters
    ----------
    index : GraphIndex
    parts : sequence of sets of int
        The member sets being united (node indices); one set for a plain group.
    upstream : int, optional
        Index in ``parts`` of a part that is upstream of all the others (a producer fused into
        consumers); reduction-structure checks then only look at what that part newly feeds.
    counts : dict, optional
        Any of ``size``, ``n_inputs``, ``n_outputs``, ``roots``, ``live_bound``, and the member
        lists ``reductions``, ``contractions``, ``opaque``, ``dead``, ``offline``.
    """

    __slots__ = ("index", "parts", "upstream", "check_cycle", "live_bound", "_members", "size",
                 "n_inputs", "n_outputs", "roots", "reductions", "contractions", "opaque",
                 "dead", "offline", "upstream_reduces")

    def __init__(self, index: GraphIndex, parts, upstream: int | None = None,
                 counts: dict | None = None, check_cycle: bool = True):
        self.index = index
        self.parts = [p if isinstance(p, (set, frozenset)) else set(p) for p in parts]
        self.upstream = upstream
        self.check_cycle = check_cycle
        self._members = None
        c = counts or {}
        self.live_bound = c.get("live_bound")
        ix = index
        for key, flags in (("reductions", ix.reduction), ("contractions", ix.contraction),
                           ("opaque", ix.opaque), ("dead", ix.dead), ("offline", ix.offline)):
            setattr(self, key, c[key] if key in c else
                    sorted({m for p in self.parts for m in p if flags[m]}))
        self.size = c["size"] if "size" in c else len(self.members)
        self.n_inputs = c["n_inputs"] if "n_inputs" in c else self._inputs()
        self.n_outputs = c["n_outputs"] if "n_outputs" in c else self._outputs()
        self.roots = c["roots"] if "roots" in c else self._roots()
        if "upstream_reduces" in c:
            self.upstream_reduces = bool(c["upstream_reduces"])
        else:
            self.upstream_reduces = upstream is None or any(
                ix.reduction[m] for m in self.parts[upstream])

    def contains(self, i: int) -> bool:
        for p in self.parts:
            if i in p:
                return True
        return False

    @property
    def members(self) -> set[int]:
        if self._members is None:
            self._members = (set().union(*self.parts) if len(self.parts) > 1
                             else set(self.parts[0]))
        return self._members

    def _inputs(self) -> int:
        ix, mem = self.index, self.members
        return len({o for m in mem for o in ix.operands[m] if o not in mem and ix.read_bytes[o]})

    def _outputs(self) -> int:
        ix, mem = self.index, self.members
        return sum(1 for m in mem if ix.output[m] or any(u not in mem for u in ix.users[m]))

    def _roots(self) -> list[int]:
        ix, mem = self.index, self.members
        return sorted(m for m in mem if not any(u in mem for u in ix.users[m]))

    def new_reduction_structure(self) -> bool:
        """Whether the union may create new reduction-to-member relations worth checking: a
        plain group, or an upstream part that holds a reduction."""
        return self.upstream_reduces

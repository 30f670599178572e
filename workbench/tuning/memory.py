"""Memory and recomputation of a plan, next to its time.

* **Peak live bytes**: the most bytes of values alive at once while the plan's per-call kernels
  run in launch order — the inputs and constant arrays (held by the caller throughout), each
  value a kernel writes from its launch until its last reader has run (graph outputs until the
  end). It is the liveness the compiled plan uses to refuse a plan over a memory cap
  (:class:`~workbench.codegen.runtime.Liveness`), run here on the plan's groups without
  compiling: the same numbers, less the kernels' scratch arrays (which only the code generator
  knows; :attr:`CompiledPlan.peak_bytes` adds them).
* **Recomputation**: a producer duplicated into ``k`` kernels is computed ``k - 1`` extra
  times. Its value's bytes are recomputed instead of written and read back
  (``recomputed_bytes``: ``(k - 1) x`` its size), at the price of its FLOPs and
  transcendentals again (``recomputed_flops``, ``recomputed_transcendentals``; the op registry's
  counts, as the cost model charges them).
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.codegen.runtime import Liveness
from workbench.ir.index import graph_index


@dataclass(frozen=True)
class PlanMemory:
    """Peak live bytes and recomputation of one plan.

    Attributes
    ----------
    peak_bytes : int
    peak_group : str or None
        The kernel at whose launch the peak is reached (None: the inputs alone are the peak).
    recomputed_bytes : int
        Bytes of values computed again rather than stored (see the module notes).
    recomputed_flops, recomputed_transcendentals : int
    duplicated : tuple of (str, int)
        Each duplicated node and the number of kernels computing it.
    """

    peak_bytes: int
    peak_group: str | None
    recomputed_bytes: int
    recomputed_flops: int
    recomputed_transcendentals: int
    duplicated: tuple

    def to_json(self) -> dict:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["duplicated"] = [list(x) for x in self.duplicated]
        return d


@dataclass(frozen=True)
class _Kernel:
    group_id: str
    inputs: tuple
    outputs: tuple
    scratch_bytes: int = 0


def plan_memory(graph, plan) -> PlanMemory:
    """Peak live bytes and recomputation of ``plan`` (see the module notes).

    Parameters
    ----------
    graph : Graph
    plan : Plan
        A plan of ``graph``; its dead groups are skipped (back ends skip them), its offline
        groups' outputs count as inputs (computed once, held like weights).

    Returns
    -------
    PlanMemory
    """
    ix = graph_index(graph)
    kernels, offline_outs = [], []
    for g in plan.groups:
        if g.role == "dead":
            continue
        members = set(g.nodes)
        reads = []
        for n in g.nodes:
            for o in graph.node(n).operands:
                if o not in members and o not in reads and ix.read_bytes[ix.pos[o]]:
                    reads.append(o)
        if g.role == "offline":
            offline_outs += list(g.outputs)
        else:
            kernels.append(_Kernel(g.id, tuple(reads), tuple(g.outputs)))
    read = {v for k in kernels for v in k.inputs}
    sources = [p.id for p in graph.parameters] + [
        v for v in sorted(read) if graph.node(v).op == "constant"] + offline_outs
    live = Liveness(kernels, graph.outputs, lambda v: graph.node(v).type.nbytes, sources)
    counts: dict[str, int] = {}
    for g in plan.groups:
        for n in g.duplicated:
            counts[n] = counts.get(n, 0) + 1
    extra = {n: k - 1 for n, k in counts.items() if k > 1}
    return PlanMemory(
        live.peak_bytes, live.peak_group,
        sum(ix.nbytes[ix.pos[n]] * e for n, e in extra.items()),
        sum(ix.flops[ix.pos[n]] * e for n, e in extra.items()),
        sum(ix.trans[ix.pos[n]] * e for n, e in extra.items()),
        tuple(sorted((n, e + 1) for n, e in extra.items())))

"""Where FMA contraction would change a result: products that are recomputed and then added to
or subtracted from.

The CPU backend compiles kernels with LLVM's ``contract`` flag, which lets LLVM turn ``a * b - c``
into one fused multiply-add, rounding once instead of twice. That changes the result by at most
half an ulp of ``a * b`` (IEEE 754-2008, 5.4.1: ``fusedMultiplyAdd`` rounds the exact ``a*b + c``
once): harmless on its own, but not where the same product is *also* computed elsewhere with
the usual rounding and the two meet. The softmax ``exp(x*K - max(x*K))`` recomputes ``x*K`` after
the row maximum: with ``contract``, the maximum's own element gives ``fma(x, K, -round(x*K))``
= the rounding error of ``x*K`` (about 128 for ``x = 9.7e9, K = 1/3``) instead of 0, ``exp`` of
it overflows, and the softmax is NaN. A kernel in which such a product feeds an ``add`` or a
``subtract`` is therefore compiled without ``contract`` (:func:`needs_strict_products`); every
other kernel keeps it.

A product is *recomputed* when its node is computed twice in one kernel (a row-wise kernel's
reduction phase and its tail), when the plan duplicates it into several kernels, or when another
node of the graph computes the same value (XLA's optimised modules keep copies of duplicated
producers as separate instructions): :func:`recomputed_values`.
"""

from __future__ import annotations

from collections import Counter

from workbench.codegen.kernel_ir import KernelIR, Let, Reduce, Ref

#: ops that would absorb a multiply into an FMA under ``contract``
_ADDS = ("add", "subtract")


def _statements(stmts):
    for s in stmts:
        yield s
        if isinstance(s, Reduce):
            yield from _statements(s.body)


def kernel_lets(kir: KernelIR) -> list[Let]:
    """Every ``Let`` of the kernel, reduction bodies included."""
    return [s for nest in kir.nests for level in nest.levels for s in _statements(level)
            if isinstance(s, Let)]


def needs_strict_products(kir: KernelIR, recomputed=frozenset()) -> bool:
    """True if the kernel adds or subtracts a product that is recomputed.

    Parameters
    ----------
    kir : KernelIR
    recomputed : set of str
        Graph nodes computed elsewhere too (:func:`recomputed_values`); a node computed by two
        ``Let`` statements of this kernel counts as recomputed as well.

    Returns
    -------
    bool
        The kernel must be compiled without ``contract`` (see the module notes).
    """
    lets = kernel_lets(kir)
    twice = {n for n, k in Counter(s.node for s in lets if s.node).items() if k > 1}
    by_name = {s.name: s for s in lets}
    for s in lets:
        if s.op not in _ADDS:
            continue
        for a in s.args:
            p = by_name.get(a.name) if isinstance(a, Ref) else None
            if p is not None and p.op == "multiply" and (p.node in twice or
                                                         p.node in recomputed):
                return True
    return False


def recomputed_values(xgraph, plan) -> frozenset:
    """Nodes of the (composite-expanded) graph whose value is computed more than once by
    ``plan``: duplicated members (and what a duplicated composite expands to), and every node
    whose value another node computes too (same op, attributes and operands, compared by value
    numbering)."""
    dup = {n for g in plan.groups for n in g.duplicated}
    out = {n.id for n in xgraph.nodes if n.id in dup or n.meta.get("expanded_from") in dup}
    number: dict[str, int] = {}
    seen: dict[tuple, list[str]] = {}
    for n in xgraph.topo_nodes():
        key = (n.op, n.id) if n.op == "parameter" else \
            (n.op, n.attrs, str(n.type), tuple(number[o] for o in n.operands))
        ids = seen.setdefault(key, [])
        ids.append(n.id)
        number[n.id] = len(seen) if len(ids) == 1 else number[ids[0]]
    for ids in seen.values():
        if len(ids) > 1:
            out.update(ids)
    return frozenset(out)

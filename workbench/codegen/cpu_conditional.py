"""The CPU backend's conditional: every branch compiled as a plan, the chosen one run natively.

Before this kernel a ``conditional`` ran through its numpy reference: the chosen branch's
computation evaluated op by op by the reference interpreter, called from Python between two
native runs of the plan (the corpus's ``cond_branch``: 3.05x ``jax.jit``'s time,
``switch_branch``: 1.5x). Here each branch is a graph of its own, planned (``priority``) and
compiled for the CPU by :func:`~workbench.codegen.compile_plan`, and bound once to parameter
buffers of its own, as the while loop's computations are (:mod:`workbench.codegen.cpu_while`).
A call reads the branch index (``pred``: true runs branch 0, false branch 1; ``s32``: that
branch, the last one when out of range: HLO's rule and the reference's), copies that branch's
operands into its parameter buffers, runs its kernels and copies its outputs into the node's
value (a tuple of buffers, or one buffer).

When every kernel of every branch is native this is one generated kernel with the backend's
calling convention (:mod:`workbench.codegen.native`) that calls the chosen branch's kernels
through :func:`~workbench.codegen.native.run_kernels`; its pointer table is the index, the
operands, the outputs, then the address of a context array (each branch's address and table
arrays, its parameter and output buffers). Otherwise the same runs in Python around the bound
branch plans.

Limits: operands and results of ``pred``, integer, ``f32`` and ``f64`` dtypes; the branches'
buffers belong to the compiled kernel (one call at a time; not counted in ``peak_bytes``); the
operands are copied into the branch's own buffers on every call (bytes of the operands).
"""

from __future__ import annotations

import numpy as np

from workbench.codegen.cpu_sort import SORT_DTYPES
from workbench.codegen.lower_base import Unsupported
from workbench.codegen.runtime import flat_leaves
from workbench.codegen.source import Writer, module_hash
from workbench.ir.types import DTYPES, TupleType


def is_conditional_group(xgraph, members) -> bool:
    """True if the group is one ``conditional`` node (what :class:`Conditional` compiles)."""
    return len(members) == 1 and xgraph.node(members[0]).op == "conditional"


class Conditional:
    """A ``conditional`` node's branches, compiled and bound to buffers of their own.

    Parameters
    ----------
    xgraph : Graph
        The composite-expanded graph holding the node.
    nid : str
        The ``conditional`` node: the branch index, then each branch's operands in turn.
    exact_math : bool
        Passed to :func:`~workbench.codegen.compile_plan` for every branch.
    cache_dir : path or None
        The kernel cache.
    compile_plan : callable
        :func:`~workbench.codegen.compile_plan`, passed in by the compiler that meets the node
        (this module is below it: it does not import the compiler).

    Attributes
    ----------
    native : bool
        True when every kernel of every branch is native: :attr:`source` is the kernel.
    source : str
        The generated module of the native kernel ('' otherwise).
    args : tuple of (str, int)
        (dtype, elements) of each array of the pointer table (index, operands, outputs).
    context : numpy.ndarray
        int64: what the native kernel reads through its table's last entry.
    branches : list of CompiledPlan

    Raises
    ------
    Unsupported
        For an operand or result dtype outside :data:`~workbench.codegen.cpu_sort.SORT_DTYPES`,
        offline groups in a branch, or a branch that could not be bound to its buffers.
    """

    def __init__(self, xgraph, nid: str, exact_math: bool, cache_dir, compile_plan):
        from workbench.planner import plan_graph

        node = xgraph.node(nid)
        self.nid = nid
        itype = xgraph.node(node.operands[0]).type
        optypes = [xgraph.node(o).type for o in node.operands[1:]]
        rtypes = list(node.type.elements) if isinstance(node.type, TupleType) else [node.type]
        for t in optypes + rtypes:
            if isinstance(t, TupleType) or t.dtype not in SORT_DTYPES:
                raise Unsupported(f"conditional with {t} values runs through the numpy "
                                  "reference (the cpu conditional takes pred, integer, f32 and "
                                  "f64 values)", nid)
        self.index_dtype = itype.dtype
        self.counts = list(node.attrs["branch_operands"])
        self.branches, self.bound, self.params, self.outs = [], [], [], []
        for comp in node.attrs["branches"]:
            compiled = compile_plan(comp, plan_graph(comp, "priority"), "cpu", exact_math,
                                    cache_dir=cache_dir)
            if compiled.offline:
                raise Unsupported("conditional: a branch holds offline (weight-folding) "
                                  "groups", nid)
            shaped = [np.zeros(p.type.shape, p.type.np_dtype) for p in comp.parameters]
            env = compiled.prepare(shaped, None)
            for p, s in zip(comp.parameters, shaped):
                if env[p.id].ctypes.data != s.ctypes.data:
                    raise Unsupported(f"conditional branch {comp.name!r}: parameter {p.id} "
                                      "could not be bound to its buffer", nid)
            bound = compiled.bind(env)
            self.branches.append(compiled)
            self.bound.append(bound)
            self.params.append([s.reshape(-1) for s in shaped])
            self.outs.append([np.asarray(o).reshape(-1) for o in bound.outputs])
        self.rtypes = rtypes
        self.optypes = optypes
        self.native = all(k.address is not None for c in self.branches for k in c.call)
        self.args = ((itype.dtype, 1),) + tuple((t.dtype, t.size) for t in optypes) + tuple(
            (t.dtype, t.size) for t in rtypes)
        self.context = self._context()
        self.source = self._render() if self.native else ""
        fb = [f"branch {b} {k.group_id}" for b, c in enumerate(self.branches)
              for k in c.call if k.fallback]
        self.notes = ([f"kernels of its branches run through numpy ({', '.join(fb)}): the "
                       "branch runs from Python"] if fb else [])

    def _context(self) -> np.ndarray:
        words = []
        for bound, params, outs in zip(self.bound, self.params, self.outs):
            words += [bound.addresses.ctypes.data, bound.table_addresses.ctypes.data,
                      len(bound.kernels)]
            words += [a.ctypes.data for a in params + outs]
        return np.array(words, np.int64)

    def choose(self, index) -> int:
        """The branch ``index`` selects (HLO's rule: pred true -> 0; s32 out of range -> last)."""
        if self.index_dtype == "pred":
            return 0 if bool(index) else 1
        b = int(index)
        return b if 0 <= b < len(self.branches) else len(self.branches) - 1

    def _render(self) -> str:
        nops, nres = len(self.optypes), len(self.rtypes)
        ntab = 1 + nops + nres
        w = Writer()
        w.line("# Generated by Fusion Workbench codegen (workbench.codegen.cpu_conditional "
               f"{module_hash('workbench.codegen.cpu_conditional')}) for backend cpu.")
        w.line(f"# Ops: a conditional of {len(self.branches)} branches; each branch a compiled "
               "plan called through the context. Do not edit.")
        w.line(f"# native calls: workbench.codegen.native "
               f"{module_hash('workbench.codegen.native')}")
        w.line("import numpy as np")
        w.line("from numba import carray, njit")
        w.line("from workbench.codegen.native import as_voidptr, run_kernels")
        w.line("")
        w.line("SIGNATURE = 'void(int64)'  # the address of the kernel's pointer table")
        w.line(f"ARGS = {self.args!r}  # (dtype, elements) of each array in the table")
        w.line("")
        w.line("")
        w.line("@njit(SIGNATURE, cache=True, boundscheck=False, nogil=True)")
        w.line("def kernel(p_table):")
        w.line(f"    p = carray(as_voidptr(p_table), {ntab + 1}, np.int64)")
        w.line(f"    ctx = carray(as_voidptr(p[{ntab}]), {len(self.context)}, np.int64)")
        ity = "np.uint8" if self.index_dtype == "pred" else \
            f"np.{np.dtype(DTYPES[self.index_dtype]).name}"
        w.line(f"    idx = carray(as_voidptr(p[0]), 1, {ity})")
        nb = len(self.branches)
        if self.index_dtype == "pred":
            w.line("    b = 0 if idx[0] != 0 else 1")
        else:
            w.line("    b = np.int64(idx[0])")
            w.line(f"    if b < 0 or b >= {nb}:")
            w.line(f"        b = {nb - 1}")
        pos, word = 1, 0
        for b, (comp, params, outs) in enumerate(zip(self.branches, self.params, self.outs)):
            w.line(f"    {'if' if b == 0 else 'elif'} b == {b}:")
            w.line(f"        run_a = carray(as_voidptr(ctx[{word}]), ctx[{word + 2}], np.int64)")
            w.line(f"        run_t = carray(as_voidptr(ctx[{word + 1}]), ctx[{word + 2}], "
                   "np.int64)")
            word += 3
            for k, prm in enumerate(params):
                w.line(f"        d = carray(as_voidptr(ctx[{word}]), {prm.nbytes}, np.uint8)")
                w.line(f"        s = carray(as_voidptr(p[{pos + k}]), {prm.nbytes}, np.uint8)")
                w.line(f"        for i in range({prm.nbytes}):")
                w.line("            d[i] = s[i]")
                word += 1
            w.line("        run_kernels(run_a, run_t, 0, run_a.size)")
            for j, o in enumerate(outs):
                w.line(f"        s = carray(as_voidptr(ctx[{word}]), {o.nbytes}, np.uint8)")
                w.line(f"        d = carray(as_voidptr(p[{1 + nops + j}]), {o.nbytes}, "
                       "np.uint8)")
                w.line(f"        for i in range({o.nbytes}):")
                w.line("            d[i] = s[i]")
                word += 1
            pos += self.counts[b]
        return w.text()

    def run_python(self, arrays) -> None:
        """The chosen branch from Python: ``arrays`` are the index, the operands, then the
        outputs (flat)."""
        arrays = flat_leaves(arrays)
        b = self.choose(np.asarray(arrays[0]).reshape(-1)[0])
        pos = 1 + sum(self.counts[:b])
        for prm, a in zip(self.params[b], arrays[pos:pos + self.counts[b]]):
            prm.view(np.uint8)[...] = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
        self.bound[b].run()
        nops = len(self.optypes)
        for o, out in zip(self.outs[b], arrays[1 + nops:]):
            out.reshape(-1).view(np.uint8)[...] = o.view(np.uint8)


__all__ = ["Conditional", "is_conditional_group"]

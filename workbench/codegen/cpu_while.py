"""The CPU backend's while loop: its condition and body compiled as plans, driven natively.

Before this kernel a ``while`` ran through its numpy reference, which evaluates the condition
and body computations op by op with the reference interpreter on every iteration (the corpus's
``newton_while``: 19x ``jax.jit``'s time; ``gru_scan``, a ``lax.scan``: 15x). Here each of the
two computations is a graph of its own, planned (the planner's ``priority`` policy) and
compiled by :func:`~workbench.codegen.compile_plan` for the CPU like any graph, and bound once
(:meth:`~workbench.codegen.compiled.CompiledPlan.bind`) to the loop's state arrays ``S``: the
condition's and the body's parameters *are* ``S``. One call of the loop is then

1. copy the loop's operands into ``S``;
2. run the condition's kernels; stop when its ``pred`` is false;
3. run the body's kernels, copy each body output that is not ``S`` itself (a value the body
   passes through, such as a weight, is its own parameter: no copy) into ``S``; go to 2;
4. copy ``S`` into the loop's outputs (the tuple value of the node).

When every kernel of both plans is native (the usual case), this is one generated numba
kernel with the backend's calling convention (:mod:`workbench.codegen.native`): it calls both
plans' kernels through their machine-code addresses with
:func:`~workbench.codegen.native.run_kernels`, so a loop runs without returning to Python, and
the parent plan's driver calls it like any other kernel. Its pointer table holds the operands,
the outputs, and one more address: a context array of the two plans' address and table arrays,
the condition's result and the state's buffers (owned by the compiled kernel). When a body
output is another state element's buffer (a body that swaps two parameters), every output is
first copied to a temporary, then to ``S``. When a kernel of either plan runs through numpy
(a fallback), the same loop runs in Python around the two bound plans (still compiled, with
Python between iterations).

A loop that is still running after :data:`~workbench.ir.ops.control.MAX_TRIP_COUNT`
iterations stops with an :class:`~workbench.errors.EvaluationError`, as the reference does
(raised from the native kernel through numba).

Limits: state of ``pred``, integer, ``f32`` and ``f64`` values (bf16/f16 state runs through the
reference, named); the bound sub-plans belong to the compiled kernel, so two calls of plans
holding the same compiled kernel must not run at the same time (the runtime runs one call at a
time); the sub-plans' buffers are not counted in the parent plan's ``peak_bytes``.
"""

from __future__ import annotations

import numpy as np

from workbench.codegen.cpu_sort import SORT_DTYPES
from workbench.codegen.lower_base import Unsupported
from workbench.codegen.runtime import flat_leaves
from workbench.codegen.source import Writer, module_hash
from workbench.errors import EvaluationError
from workbench.ir.ops.control import MAX_TRIP_COUNT

#: context array layout: cond addresses, cond tables, cond count, body addresses, body tables,
#: body count, the condition's result, then per state element S_k, then the body's outputs
#: O_k, then (swapping bodies) the temporaries T_k
_HEAD = 7


def is_while_group(xgraph, members) -> bool:
    """True if the group is one ``while`` node (what :class:`WhileLoop` compiles)."""
    return len(members) == 1 and xgraph.node(members[0]).op == "while"


class WhileLoop:
    """A ``while`` node's condition and body, compiled and bound to its state buffers.

    Parameters
    ----------
    xgraph : Graph
        The composite-expanded graph holding the node.
    nid : str
        The ``while`` node.
    exact_math : bool
        Passed to :func:`~workbench.codegen.compile_plan` for both computations.
    cache_dir : path or None
        The kernel cache.
    compile_plan : callable
        :func:`~workbench.codegen.compile_plan`, passed in by the compiler that meets the node
        (this module is below it: it does not import the compiler).

    Attributes
    ----------
    native : bool
        True when every kernel of both plans is native: :attr:`source` is the loop's kernel.
    source : str
        The generated module of the native loop ('' otherwise).
    args : tuple of (str, int)
        (dtype, elements) of each array of the pointer table (operands, then outputs).
    context : numpy.ndarray
        int64: what the native kernel reads through its table's last entry.
    cond, body : CompiledPlan

    Raises
    ------
    Unsupported
        For a state dtype outside :data:`~workbench.codegen.cpu_sort.SORT_DTYPES`, or a plan
        that could not be bound to the state buffers without copying them.
    """

    def __init__(self, xgraph, nid: str, exact_math: bool, cache_dir, compile_plan):
        from workbench.planner import plan_graph

        node = xgraph.node(nid)
        types = [xgraph.node(o).type for o in node.operands]
        for t in types:
            if t.dtype not in SORT_DTYPES:
                raise Unsupported(f"while with {t.dtype} state runs through the numpy reference "
                                  "(the cpu while loop takes pred, integer, f32 and f64 state)",
                                  nid)
        self.nid = nid
        self.types = types
        self.n = len(types)
        self.shaped = [np.zeros(t.shape, t.np_dtype) for t in types]
        self.state = [a.reshape(-1) for a in self.shaped]        # views: the same buffers
        self.cond = compile_plan(node.attrs["condition"],
                                 plan_graph(node.attrs["condition"], "priority"), "cpu",
                                 exact_math, cache_dir=cache_dir)
        self.body = compile_plan(node.attrs["body"], plan_graph(node.attrs["body"], "priority"),
                                 "cpu", exact_math, cache_dir=cache_dir)
        if self.cond.offline or self.body.offline:   # run once by prepare: not per iteration
            raise Unsupported("while: its computations hold offline (weight-folding) groups, "
                              "which run once, not per iteration", nid)
        self.cond_bound = self._bind(self.cond)
        self.body_bound = self._bind(self.body)
        self.pred = np.asarray(self.cond_bound.outputs[0]).reshape(-1)
        self.outs = [np.asarray(o).reshape(-1) for o in self.body_bound.outputs]
        self.same = [o.ctypes.data == s.ctypes.data for o, s in zip(self.outs, self.state)]
        self.swap = any(np.shares_memory(o, s) for k, o in enumerate(self.outs)
                        for j, s in enumerate(self.state) if j != k)
        self.temps = [np.empty_like(s) for s in self.state] if self.swap else []
        self.native = all(k.address is not None for k in self.cond.call + self.body.call)
        self.args = tuple((t.dtype, t.size) for t in types) * 2
        self.context = self._context()
        self.source = self._render() if self.native else ""
        fb = [k.group_id for k in self.cond.call + self.body.call if k.fallback]
        self.notes = ([f"kernels {', '.join(fb)} of its computations run through numpy: the "
                       "loop runs in Python"] if fb else [])

    def _bind(self, compiled):
        env = compiled.prepare(self.shaped, None)
        for p, s in zip(compiled.graph.parameters, self.state):
            a = env.get(p.id)
            if a is None or a.ctypes.data != s.ctypes.data:
                raise Unsupported(f"while {compiled.graph.name!r}: parameter {p.id} could not "
                                  "be bound to the loop's state buffer", self.nid)
        return compiled.bind(env)

    def _context(self) -> np.ndarray:
        cb, bb = self.cond_bound, self.body_bound
        head = [cb.addresses.ctypes.data, cb.table_addresses.ctypes.data, len(cb.kernels),
                bb.addresses.ctypes.data, bb.table_addresses.ctypes.data, len(bb.kernels),
                self.pred.ctypes.data]
        arrays = self.state + self.outs + self.temps
        return np.array(head + [a.ctypes.data for a in arrays], np.int64)

    def _render(self) -> str:
        n = self.n
        nbytes = [t.nbytes for t in self.types]
        w = Writer()
        w.line("# Generated by Fusion Workbench codegen (workbench.codegen.cpu_while "
               f"{module_hash('workbench.codegen.cpu_while')}) for backend cpu.")
        w.line(f"# Ops: a while loop over ({', '.join(map(str, self.types))}); its condition "
               "and body are compiled plans called through the context. Do not edit.")
        w.line(f"# native calls: workbench.codegen.native "
               f"{module_hash('workbench.codegen.native')}")
        w.line("import numpy as np")
        w.line("from numba import carray, njit")
        w.line("from workbench.codegen.native import as_voidptr, run_kernels")
        w.line("from workbench.errors import EvaluationError")
        w.line("")
        w.line("SIGNATURE = 'void(int64)'  # the address of the kernel's pointer table")
        w.line(f"ARGS = {self.args!r}  # (dtype, elements) of each array in the table")
        w.line(f"MAX_TRIPS = {MAX_TRIP_COUNT}")
        w.line("")
        w.line("")
        w.line("@njit(SIGNATURE, cache=True, boundscheck=False, nogil=True)")
        w.line("def kernel(p_table):")
        w.line(f"    p = carray(as_voidptr(p_table), {2 * n + 1}, np.int64)")
        w.line(f"    ctx = carray(as_voidptr(p[{2 * n}]), "
               f"{_HEAD + (3 if self.swap else 2) * n}, np.int64)")
        w.line("    cond_a = carray(as_voidptr(ctx[0]), ctx[2], np.int64)")
        w.line("    cond_t = carray(as_voidptr(ctx[1]), ctx[2], np.int64)")
        w.line("    body_a = carray(as_voidptr(ctx[3]), ctx[5], np.int64)")
        w.line("    body_t = carray(as_voidptr(ctx[4]), ctx[5], np.int64)")
        w.line("    go = carray(as_voidptr(ctx[6]), 1, np.uint8)")
        for k, nb in enumerate(nbytes):
            w.line(f"    s{k} = carray(as_voidptr(ctx[{_HEAD + k}]), {nb}, np.uint8)")
            w.line(f"    o{k} = carray(as_voidptr(ctx[{_HEAD + n + k}]), {nb}, np.uint8)")
            if self.swap:
                w.line(f"    t{k} = carray(as_voidptr(ctx[{_HEAD + 2 * n + k}]), {nb}, "
                       "np.uint8)")
            w.line(f"    i{k} = carray(as_voidptr(p[{k}]), {nb}, np.uint8)")
            w.line(f"    r{k} = carray(as_voidptr(p[{n + k}]), {nb}, np.uint8)")
            w.line(f"    for b in range({nb}):")
            w.line(f"        s{k}[b] = i{k}[b]")
        w.line("    trips = 0")
        w.line("    while True:")
        w.line("        run_kernels(cond_a, cond_t, 0, cond_a.size)")
        w.line("        if go[0] == 0:")
        w.line("            break")
        w.line("        if trips == MAX_TRIPS:")
        w.line(f"            raise EvaluationError('while loop still running after "
               f"{MAX_TRIP_COUNT} iterations')")
        w.line("        run_kernels(body_a, body_t, 0, body_a.size)")
        for k, nb in enumerate(nbytes):
            if self.same[k]:
                continue                 # the body passes this state element through
            w.line(f"        for b in range({nb}):")
            w.line(f"            {'t' if self.swap else 's'}{k}[b] = o{k}[b]")
        if self.swap:
            for k, nb in enumerate(nbytes):
                if not self.same[k]:
                    w.line(f"        for b in range({nb}):")
                    w.line(f"            s{k}[b] = t{k}[b]")
        w.line("        trips += 1")
        for k, nb in enumerate(nbytes):
            w.line(f"    for b in range({nb}):")
            w.line(f"        r{k}[b] = s{k}[b]")
        return w.text()

    def run_python(self, arrays) -> None:
        """The loop in Python around the two bound plans: ``arrays`` are the operands, then
        the outputs (flat)."""
        arrays = flat_leaves(arrays)
        n = self.n
        for s, a in zip(self.state, arrays[:n]):
            s.view(np.uint8)[...] = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
        for _ in range(MAX_TRIP_COUNT):
            self.cond_bound.run()
            if not self.pred[0]:
                break
            self.body_bound.run()
            src = [np.array(o) for o in self.outs] if self.swap else self.outs
            for k, (s, o) in enumerate(zip(self.state, src)):
                if not self.same[k]:
                    s[...] = o
        else:
            raise EvaluationError(f"while loop still running after {MAX_TRIP_COUNT} "
                                  "iterations", node=self.nid)
        for s, out in zip(self.state, arrays[n:]):
            out.reshape(-1).view(np.uint8)[...] = s.view(np.uint8)


def native_launcher(fn, spec, context):
    """``launch(arrays)`` of the native loop: the table of the arrays and the context."""
    from workbench.codegen.runtime import table_launcher

    return table_launcher(fn, spec, tail=(int(context.ctypes.data),))


__all__ = ["WhileLoop", "is_while_group", "native_launcher"]

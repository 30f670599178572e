"""compile_plan(): every group of a plan -> one compiled kernel, and the plan as one runnable.

Each group is lowered (:mod:`workbench.codegen.lower`), rendered by its backend
(:mod:`workbench.codegen.cpu`, :mod:`workbench.codegen.cuda`), written to the kernel cache and
imported (:mod:`workbench.codegen.cache`). A group the backend cannot lower as one kernel (an
opaque op, an unsupported dtype or op) or that numba fails to compile runs through the numpy
reference of its ops instead: still one "kernel", marked ``fallback`` with the reason. Nothing a
plan contains stops compilation.
"""

from __future__ import annotations

import os
import re

from dataclasses import dataclass, field

from workbench.codegen.backend import capabilities, fast_math_table, resolve_backend
from workbench.codegen.blas import single_thread_scipy_blas
from workbench.codegen.cache import load_module
from workbench.codegen.cpu_scatter import is_scatter_group
from workbench.codegen.cpu_select import own_select_kernel
from workbench.codegen.cpu_reduce import is_computation_reduce_group
from workbench.codegen.cpu_sort import is_sort_group
from workbench.codegen.cpu_conditional import is_conditional_group
from workbench.codegen.cpu_while import is_while_group
from workbench.codegen.runtime import table_launcher
from workbench.codegen.lower import Unsupported, group_members, lower_group
from workbench.codegen.products import needs_strict_products, recomputed_values
from workbench.codegen.runtime import fallback_launcher, flat_leaves, make_alias
from workbench.errors import CompileError, EvaluationError
from workbench.ir import expand_composites, get_op


@dataclass
class CompiledKernel:
    """One group compiled to one kernel.

    Attributes
    ----------
    group_id, kind : str
        The plan group and its fusion kind.
    backend : str
        ``cpu``, ``cuda`` or ``cuda-sim``.
    fallback : bool
        True if the group runs through the numpy reference (``fallback_reason`` says why).
    source : str
        The generated module's text ('' for a fallback).
    source_path : str or None
        Where the module lives in the kernel cache.
    ir_text : str
        The kernel IR listing.
    error : dict or None
        A :class:`~workbench.errors.CompileError` as a dict, when numba failed.
    compile_s : float
        Seconds spent compiling or loading it (0 when already loaded in this process).
    cached : bool
        True if numba loaded the machine code from its on-disk cache, or the module was
        already loaded in this process: nothing was compiled.
    registers, spill_bytes, shared_bytes : int or None
        CUDA: registers per thread, local (spill) memory per thread and static shared memory
        per block, read back from the compiled kernel.
    inputs, outputs : tuple of str
        Values read and written (graph node ids; host bookkeeping).
    scratch_bytes : int
        Bytes of the kernel's scratch arrays.
    scratch : tuple of (int, numpy.dtype)
        CUDA: sizes and dtypes of the scratch arrays the runtime passes after the outputs.
    role : str
        The group's role: ``call`` (runs every call) or ``offline`` (weight folding, once).
    bytes_read, bytes_written : int
        Bytes of the kernel's arguments (each distinct input once) and results.
    flops, transcendentals : int
        Operation counts of the group's ops (the op registry's conventions).
    ops : tuple of str
        Member ops in order.
    """

    group_id: str
    kind: str
    backend: str
    fallback: bool
    fallback_reason: str | None = None
    source: str = ""
    source_path: str | None = None
    ir_text: str = ""
    error: dict | None = None
    compile_s: float = 0.0
    cached: bool = False
    registers: int | None = None
    spill_bytes: int | None = None
    shared_bytes: int | None = None
    inputs: tuple = ()
    outputs: tuple = ()
    scratch_bytes: int = 0
    scratch: tuple = ()
    role: str = "call"
    bytes_read: int = 0
    bytes_written: int = 0
    flops: int = 0
    transcendentals: int = 0
    ops: tuple = ()
    launch: object = field(default=None, repr=False)
    #: CPU: machine-code address of the kernel (numba's calling convention, one int64
    #: argument: the address of its pointer table), for the plan driver; None otherwise
    address: int | None = None
    #: CPU: (dtype, elements) of each array of its pointer table (inputs, then outputs)
    args: tuple = ()
    #: CPU: addresses the pointer table holds after the arrays' (a while loop's context)
    table_tail: tuple = ()
    #: CPU: what the kernel keeps alive (a while loop's compiled and bound computations)
    owned: object = field(default=None, repr=False)

    def to_json(self) -> dict:
        """The kernel's facts as JSON-ready values (no source text: see ``source_path``)."""
        out = {k: getattr(self, k) for k in (
            "group_id", "kind", "backend", "fallback", "fallback_reason", "source_path",
            "compile_s", "cached", "registers", "spill_bytes", "shared_bytes", "bytes_read",
            "bytes_written", "flops", "transcendentals", "role")}
        out["ops"] = list(self.ops)
        out["error"] = self.error
        return out


def compile_plan(graph, plan, backend: str = "auto", exact_math: bool = False, progress=None,
                 cache_dir=None):
    """Compile every group of ``plan`` into one kernel for ``backend``.

    Parameters
    ----------
    graph : Graph
        The graph the plan is for.
    plan : Plan
        Any valid plan (planner-made, edited by a user, ``unfused_plan``).
    backend : {"auto", "cpu", "cuda", "cuda-sim"}
        ``auto``: see :func:`workbench.codegen.backend.detect_backend`.
    exact_math : bool
        CPU: call libm for float32 exp/log/tanh/logistic/erf instead of the vectorisable
        approximations of :mod:`workbench.codegen.fastmath`.
    progress : callable(stage, k, n, message), optional
        Called before each group is compiled (``stage="compile"``, k = 1..n) and at the end
        (k = n). Dead groups (``role == "dead"``) are skipped and not counted; free groups
        (``role == "free"``: one bitcast or get-tuple-element) get no kernel, only an alias of
        their operand's buffer (:attr:`CompiledPlan.aliases`).
    cache_dir : path, optional
        The kernel cache (default: ``$WORKBENCH_CACHE_DIR`` or
        ``~/.cache/fusion-workbench/kernels``).

    Returns
    -------
    CompiledPlan

    Raises
    ------
    CompileError
        Only for a backend that cannot be used here (``cuda`` without a GPU, ``cuda-sim``
        without the simulator). Failures of single groups become fallback kernels.
    """
    from workbench.codegen.compiled import CompiledPlan

    name, notes = resolve_backend(backend)
    table, fast_hash, math_notes = fast_math_table(exact_math) if name == "cpu" else (None, "", [])
    notes += math_notes
    if name == "cpu" and not single_thread_scipy_blas():
        notes.append("could not limit scipy's BLAS to one thread: block-wise dots may "
                     "oversubscribe the cores")
    xgraph = expand_composites(graph)
    caps = capabilities(name)
    kernels = []
    live = [g for g in plan.groups if getattr(g, "role", "call") not in ("dead", "free")]
    skipped = [g.id for g in plan.groups if getattr(g, "role", "call") == "dead"]
    aliases = [make_alias(xgraph, g) for g in plan.groups if getattr(g, "role", "call") == "free"]
    n = len(live)
    recomputed = recomputed_values(xgraph, plan) if name == "cpu" else frozenset()
    for k, group in enumerate(live, 1):
        if progress is not None:
            progress("compile", k, n, f"compiling group {k} of {n} ({group.id}, {group.kind})")
        kernel = _compile_group(graph, xgraph, group, name, caps, table, fast_hash, cache_dir,
                                recomputed, exact_math)
        kernel.role = getattr(group, "role", "call")
        kernels.append(kernel)
    if progress is not None:
        progress("compile", n, n, f"compiled {n} kernels")
    failed = [kk.group_id for kk in kernels if kk.error]
    if failed:
        notes.append(f"numba failed to compile {', '.join(failed)}: ran through numpy")
    if skipped:
        notes.append(f"dead code skipped (no output depends on it): {', '.join(skipped)}")
    if aliases:
        ops = sorted({a.op for a in aliases})
        notes.append(f"{len(aliases)} free op(s) ({', '.join(ops)}) read their operand's buffer "
                     "another way: no kernel launched for them")
    return CompiledPlan(graph, xgraph, plan, name, kernels, notes, skipped, aliases)


def _compile_group(graph, xgraph, group, backend, caps, table, fast_hash, cache_dir,
                   recomputed=frozenset(), exact_math=False):
    members = group_members(xgraph, group.nodes)
    counts = _counts(graph, group)
    if backend == "cpu" and (is_while_group(xgraph, members)
                             or is_conditional_group(xgraph, members)):
        try:
            return _compile_while(xgraph, group, members, counts, cache_dir, exact_math)
        except Unsupported as exc:
            return _fallback(xgraph, group, backend, members, exc.reason, counts)
    own = _own_kernel(xgraph, members) if backend == "cpu" else None
    if own is not None:
        try:
            return _compile_own(xgraph, group, members, counts, cache_dir, own)
        except Unsupported as exc:
            return _fallback(xgraph, group, backend, members, exc.reason, counts)
    try:
        kir = lower_group(xgraph, members, group.outputs, caps)
    except Unsupported as exc:
        return _fallback(xgraph, group, backend, members, exc.reason, counts)
    source, origin = _render(kir, backend, table, fast_hash, recomputed)
    kernel = CompiledKernel(
        group.id, group.kind, backend, False, source=source, ir_text=kir.text(),
        inputs=tuple(b.value for b in kir.inputs), outputs=tuple(b.value for b in kir.outputs),
        scratch_bytes=sum(b.size * xgraph.node(b.value).type.itemsize for b in kir.scratch),
        ops=kir.ops, **counts)
    try:
        module, path, secs, reused = load_module(source, backend, cache_dir)
    except Exception as exc:  # numba typing/lowering errors: report, then run through numpy
        err = compile_error(group.id, exc, source, origin, xgraph)
        fb = _fallback(xgraph, group, backend, members, err.message, counts)
        fb.error, fb.source, fb.ir_text = err.to_dict(), source, kernel.ir_text
        return fb
    kernel.source_path, kernel.compile_s = str(path), secs
    kernel.cached = reused or _cache_hit(module.kernel)
    kernel.launch = _launcher(module, backend)
    if backend == "cpu":
        kernel.args = tuple(module.ARGS)
        from workbench.codegen.native import kernel_address  # numba: only when compiling

        kernel.address = kernel_address(module.kernel)
    if backend != "cpu":  # CUDA scratch arrays are kernel arguments
        kernel.scratch = tuple((b.size, xgraph.node(b.value).type.np_dtype) for b in kir.scratch)
    if backend == "cuda":
        kernel.registers, kernel.spill_bytes, kernel.shared_bytes = _cuda_resources(module.kernel)
    return kernel


def _own_kernel(xgraph, members):
    """The CPU kernel of its own a group of one sort, scatter, select-and-scatter or topk gets
    (its op name), or None."""
    if is_sort_group(xgraph, members):
        return "sort"
    if is_scatter_group(xgraph, members):
        return "scatter"
    if is_computation_reduce_group(xgraph, members):
        return "reduce"
    return own_select_kernel(xgraph, members)


def _compile_own(xgraph, group, members, counts, cache_dir, op):
    """A group of one ``sort`` or ``scatter`` as its CPU kernel (:mod:`workbench.codegen.
    cpu_sort`, :mod:`workbench.codegen.cpu_scatter`); numba's failure becomes a fallback with
    the error, as for any kernel."""
    from workbench.codegen.native import kernel_address

    if op == "sort":
        from workbench.codegen.cpu import PARALLEL_MIN_WORK
        from workbench.codegen.cpu_sort import render_sort

        source, inputs, outputs, args = render_sort(xgraph, members[0], PARALLEL_MIN_WORK)
    elif op == "scatter":
        from workbench.codegen.cpu_scatter import render_scatter

        source, inputs, outputs, args = render_scatter(xgraph, members[0])
    elif op == "reduce":
        from workbench.codegen.cpu_reduce import render_reduce_group

        source, inputs, outputs, args = render_reduce_group(xgraph, members, group.outputs)
    elif op == "topk":
        from workbench.codegen.cpu_select import render_topk

        source, inputs, outputs, args = render_topk(xgraph, members[0])
    else:
        from workbench.codegen.cpu_select import render_select_and_scatter

        source, inputs, outputs, args = render_select_and_scatter(xgraph, members[0])
    what = f"{op} {members[0]}" if len(members) == 1 else f"{op} group of {len(members)}"
    kernel = CompiledKernel(group.id, group.kind, "cpu", False, source=source,
                            ir_text=f"{what} (cpu {op} kernel)", inputs=inputs,
                            outputs=outputs, ops=(op,), **counts)
    try:
        module, path, secs, reused = load_module(source, "cpu", cache_dir)
    except Exception as exc:  # numba typing/lowering errors: report, then run through numpy
        err = compile_error(group.id, exc, source, {}, xgraph)
        fb = _fallback(xgraph, group, "cpu", members, err.message, counts)
        fb.error, fb.source = err.to_dict(), source
        return fb
    kernel.source_path, kernel.compile_s = str(path), secs
    kernel.cached = reused or _cache_hit(module.kernel)
    kernel.launch = table_launcher(module.kernel, module.ARGS)
    kernel.args = tuple(module.ARGS)
    kernel.address = kernel_address(module.kernel)
    return kernel


def _compile_while(xgraph, group, members, counts, cache_dir, exact_math):
    """A group of one ``while`` or ``conditional`` as its CPU kernel
    (:mod:`workbench.codegen.cpu_while`, :mod:`workbench.codegen.cpu_conditional`): its
    computations compiled as plans; one native kernel when all their kernels are native, else
    run from Python around them. numba's failure on that kernel runs it from Python, with the
    error in the report."""
    from workbench.codegen.cpu_while import native_launcher
    from workbench.codegen.native import kernel_address

    node = xgraph.node(members[0])
    if node.op == "while":
        from workbench.codegen.cpu_while import WhileLoop

        ctl = WhileLoop(xgraph, members[0], exact_math, cache_dir, compile_plan)
        plans = [ctl.cond, ctl.body]
        what = (f"while {members[0]} (cpu while loop: condition {len(ctl.cond.call)} "
                f"kernel(s), body {len(ctl.body.call)} kernel(s))")
    else:
        from workbench.codegen.cpu_conditional import Conditional

        ctl = Conditional(xgraph, members[0], exact_math, cache_dir, compile_plan)
        plans = ctl.branches
        what = (f"conditional {members[0]} (cpu conditional: branches of "
                f"{', '.join(str(len(c.call)) for c in plans)} kernel(s))")
    subs = [k for c in plans for k in c.kernels]
    kernel = CompiledKernel(group.id, group.kind, "cpu", False, source=ctl.source,
                            ir_text=what, inputs=tuple(node.operands), outputs=(members[0],),
                            ops=(node.op,), owned=ctl,
                            compile_s=sum(k.compile_s for k in subs),
                            cached=all(k.cached for k in subs), **counts)
    kernel.args = ctl.args
    kernel.launch = ctl.run_python
    if not ctl.native:
        kernel.ir_text += "; " + "; ".join(ctl.notes)
        return kernel
    try:
        module, path, secs, reused = load_module(ctl.source, "cpu", cache_dir)
    except Exception as exc:  # numba typing/lowering errors: run from Python
        kernel.error = compile_error(group.id, exc, ctl.source, {}, xgraph).to_dict()
        return kernel
    kernel.source_path, kernel.compile_s = str(path), kernel.compile_s + secs
    kernel.cached = kernel.cached and (reused or _cache_hit(module.kernel))
    kernel.launch = native_launcher(module.kernel, module.ARGS, ctl.context)
    kernel.table_tail = (int(ctl.context.ctypes.data),)
    kernel.address = kernel_address(module.kernel)
    return kernel


def _render(kir, backend, table, fast_hash, recomputed=frozenset()):
    if backend == "cpu":
        from workbench.codegen.cpu import render_cpu

        return render_cpu(kir, table, fast_hash,
                          strict_products=needs_strict_products(kir, recomputed))
    from workbench.codegen.cuda import render_cuda

    return render_cuda(kir, simulator=backend == "cuda-sim")


def _launcher(module, backend):
    fn = module.kernel
    if backend == "cpu":
        return table_launcher(fn, module.ARGS)
    grid, block = module.GRID, module.BLOCK
    if module.COOPERATIVE and backend == "cuda":  # all blocks must be resident at once
        compiled = next(iter(fn.overloads.values()))
        grid = max(1, min(grid, compiled.max_cooperative_grid_blocks(block)))
    return lambda arrays: fn[grid, block](*arrays)




def _fallback(xgraph, group, backend, members, reason, counts):
    inside = set(members)
    inputs = []
    for m in members:
        for o in xgraph.node(m).operands:
            if o not in inside and o not in inputs and xgraph.node(o).op != "constant":
                inputs.append(o)
    return CompiledKernel(
        group.id, group.kind, backend, True, fallback_reason=reason, inputs=tuple(inputs),
        outputs=tuple(group.outputs), ops=tuple(get_op(xgraph.node(m).op).name for m in members),
        launch=fallback_launcher(xgraph, members, inputs, group.outputs), **counts)


def _counts(graph, group) -> dict:
    """Bytes read/written and operation counts of a group (original, unexpanded nodes)."""
    nodes = group.nodes
    inside = set(nodes)
    flops = trans = 0
    read: dict[str, int] = {}
    for n in nodes:
        node = graph.node(n)
        opdef = get_op(node.op)
        in_types = [graph.node(o).type for o in node.operands]
        flops += opdef.flops(in_types, node.type, node.attrs)
        trans += opdef.transcendentals(in_types, node.type, node.attrs)
        for o in node.operands:
            src = graph.node(o)
            if o not in inside and not (src.op == "constant" and src.type.size <= 1):
                read[o] = src.type.nbytes
    written = sum(graph.node(n).type.nbytes for n in group.outputs)
    return dict(bytes_read=sum(read.values()), bytes_written=written, flops=flops,
                transcendentals=trans)


def _cache_hit(dispatcher) -> bool:
    stats = getattr(dispatcher, "stats", None)
    hits = getattr(stats, "cache_hits", None)
    return bool(hits) and sum(hits.values()) > 0


def _cuda_resources(dispatcher):
    def one(getter):
        try:
            v = getter()
        except Exception:  # not available on this driver / numba version
            return None
        if isinstance(v, dict):
            v = next(iter(v.values()), None)
        return int(v) if v is not None else None
    return (one(dispatcher.get_regs_per_thread), one(dispatcher.get_local_mem_per_thread),
            one(dispatcher.get_shared_mem_per_block))


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def compile_error(group_id, exc, source, origin, xgraph) -> CompileError:
    """A :class:`CompileError` naming the group, the op and the generated line numba rejected.

    Parameters
    ----------
    group_id : str
    exc : Exception
        What numba raised.
    source : str
        The generated module.
    origin : dict
        Generated line number -> (op, node id) from the renderer.
    xgraph : Graph
        The expanded graph (to name the composite a node was expanded from).
    """
    text = _ANSI.sub("", str(exc))
    line = None
    for m in re.finditer(r'File "([^"]+)", line (\d+)', text):
        if os.path.basename(m.group(1)).startswith("k_"):
            line = int(m.group(2))
    op, node = origin.get(line, (None, None)) if line else (None, None)
    if node is not None and node in xgraph:
        node = xgraph.node(node).meta.get("expanded_from", node)
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), type(exc).__name__)
    where = ""
    if line is not None:
        code = source.splitlines()[line - 1].strip() if line <= len(source.splitlines()) else ""
        where = f" at generated line {line}: `{code}`"
    what = f"op {op}" if op else "the kernel"
    return CompileError(f"group {group_id}: numba could not compile {what}{where}: "
                        f"{type(exc).__name__}: {first}"[:600], node=node)

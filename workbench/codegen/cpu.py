"""The CPU backend: kernel IR -> a numba ``@njit(parallel=True)`` module.

Each nest becomes a loop nest whose outermost loop is a ``prange`` (numba's parallel loop, run
on its thread pool); loops over dimensions with nothing placed between them are merged (one
``prange`` over the rows of a ``[2, 64, 128]`` space), and the innermost dimension always keeps
its own loop so that LLVM can vectorise it. Output fusions compute their dot or convolution by
row blocks inside the ``prange``: ``np.dot`` (BLAS through scipy) on a block of rows, then the
epilogue over that block while it is in cache; a convolution first gathers the block's patches
(im2col). Kernels are compiled eagerly from an explicit signature with ``cache=True``.

Float flags: ``fastmath={'reassoc', 'contract'}`` lets LLVM reorder sums (vectorised
reductions) and fuse multiply-adds; no ``nnan``/``ninf``, so NaN and inf behave as in numpy. A
kernel that adds or subtracts a product it recomputes (a softmax's ``x*K - max(x*K)``) drops
``contract`` (:data:`STRICT_FLAGS`): an FMA there rounds differently from the product it is
compared with, and the difference, which should be 0, can overflow ``exp``
(:mod:`workbench.codegen.products`). ``reassoc`` changes a sum of ``n`` terms by at most the
reordering bound the correctness check allows (``n * eps * max|term|``, Higham 4.2); ``contract``
changes ``a*b + c`` by at most half an ulp of ``a*b``.
"""

from __future__ import annotations

from workbench.codegen.cpu_contraction import contraction_blocks, contraction_nest
from workbench.codegen.emitters import CPU_TABLE, NUMBA_TYPES, NUMPY_TYPES, EmitContext
from workbench.codegen.kernel_ir import KernelIR, Nest, nest_work
from workbench.codegen.source import (Writer, arg_names, emit_stmts, module_constants,
                                      module_hash, module_header, module_helpers, prod,
                                      unravel)

#: loop nests doing less work than this (statement executions, see ``nest_work``) run
#: serially: a prange launch costs ~10 us on numba's thread pool and a parallel kernel takes
#: ~3x longer to compile, and when the other cores are busy it waits for them; 2**20 simple
#: statements take ~0.3-1 ms on one core
PARALLEL_MIN_WORK = 1 << 20
FASTMATH_FLAGS = "{'reassoc', 'contract'}"
#: the flags of a kernel that adds or subtracts a recomputed product (see the module notes)
STRICT_FLAGS = "{'reassoc'}"
#: ops for which workbench.codegen.fastmath has float32 functions ...
FASTMATH_OPS = ("exponential", "log", "log-plus-one", "tanh", "logistic", "erf")
#: ... and workbench.codegen.fastmath_f64 (computed in float64 inside); sine and cosine are
#: called in two stages (``fastmath_f64.STAGED``: the reduction, then the polynomial)
FASTMATH_F64_OPS = ("sine", "cosine", "power", "exponential-minus-one")
STAGED_OPS = ("sine", "cosine")


def render_cpu(kir: KernelIR, math_table: str | None = None, fast_hash: str = "",
               strict_products: bool = False):
    """Numba CPU source for a kernel.

    Parameters
    ----------
    kir : KernelIR
    math_table : {"FAST", "EXACT"} or None
        Which table of :mod:`workbench.codegen.fastmath` supplies float32 ``exponential``,
        ``log``, ``tanh``, ``logistic`` and ``erf``; None uses ``math`` (libm) directly.
    fast_hash : str
        Hash of the approximations' source, written into the header (part of the cache key).
    strict_products : bool
        Compile without ``contract`` (:data:`STRICT_FLAGS`): the kernel adds or subtracts a
        product that is recomputed (:func:`~workbench.codegen.products.needs_strict_products`).

    Returns
    -------
    (source, origin) : (str, dict)
        The module text, and generated line -> (op, node) for error messages.
    """
    fast = ({op: f"fm_{op.replace('-', '_')}" for op in FASTMATH_OPS + FASTMATH_F64_OPS}
            if math_table else None)
    cx = EmitContext("cpu", fast)
    if math_table == "FAST":
        cx.staged = {fast[op] for op in STAGED_OPS}
    body = Writer()
    parallel = any(_parallel_worthy(n) for n in kir.nests)
    body.depth = 1
    for s in kir.scratch:
        body.line(f"{s.name} = np.empty({max(s.size, 1)}, {NUMPY_TYPES[s.dtype]})")
    for nest in kir.nests:
        _guarded_nest(body, nest, cx, parallel)
    w = Writer()
    module_header(w, "cpu", kir, cx, fast_hash)
    w.line(f"# native calls: workbench.codegen.native {module_hash('workbench.codegen.native')}")
    w.line("from numba import carray, njit, prange")
    w.line("from workbench.codegen.native import as_voidptr")
    if cx.intrinsics:
        w.line(f"from workbench.codegen.cpu_intrinsics import {', '.join(sorted(cx.intrinsics))}")
    _math_imports(w, cx, fast, math_table)
    module_constants(w, kir)
    module_helpers(w, cx, "@njit(cache=True, error_model='numpy')")
    w.line("")
    w.line("SIGNATURE = 'void(int64)'  # the address of the kernel's pointer table")
    w.line("PARALLEL = " + repr(parallel))
    w.line("")
    w.line(f"ARGS = {kernel_args(kir)!r}  # (dtype, elements) of each array in the table")
    w.line("")
    flags = STRICT_FLAGS if strict_products else FASTMATH_FLAGS
    w.line(f"@njit(SIGNATURE, parallel=PARALLEL, cache=True, fastmath={flags}, "
           "error_model='numpy', boundscheck=False, nogil=True)")
    w.line("def kernel(p_table):")
    w.line(f"    # p_table: address of {len(kir.inputs) + len(kir.outputs)} data pointers: "
           f"{', '.join(arg_names(kir))}")
    w.line(f"    p_ptrs = carray(as_voidptr(p_table), {len(kir.inputs) + len(kir.outputs)}, "
           "np.int64)")
    for k, b in enumerate(kir.inputs + kir.outputs):
        w.line(f"    {b.name} = carray(as_voidptr(p_ptrs[{k}]), {max(b.size, 0)}, "
               f"{NUMPY_TYPES[b.dtype]})")
    w.extend(body)
    return w.text(), w.origin


def _guarded_nest(body: Writer, nest: Nest, cx, parallel: bool):
    """Write a nest; one that calls a staged function (sine, cosine) with the medium-range
    reduction counts the arguments beyond that range (``p_bad``) and, when there was one,
    runs again with the full-range reduction (see ``fastmath_f64.STAGED``): the nests of a
    kernel only read its inputs and earlier nests' results, so running one twice is safe."""
    def write(w: Writer):
        if nest.contraction is not None:
            contraction_nest(w, nest, cx, parallel)
        else:
            _nest(w, nest, cx, parallel)
    sub = Writer()
    sub.depth = body.depth
    cx.used_staged = False
    write(sub)
    if not cx.used_staged:
        body.extend(sub)
        return
    body.line("p_bad = 0  # arguments of sin/cos beyond the fast reduction's range")
    body.extend(sub)
    body.line("if p_bad > 0:  # then this nest again, with the full-range reduction")
    again = Writer()
    again.depth = body.depth + 1
    cx.full_range = True
    write(again)
    cx.full_range = False
    body.extend(again)


def _math_imports(w: Writer, cx, fast: dict | None, math_table: str | None):
    """Bind the float32 math functions the kernel uses from their tables (by op name: the
    generated source names no function of an input file)."""
    used = sorted(cx.fast_used)
    if any(op in FASTMATH_OPS for op in used):
        w.line(f"from workbench.codegen.fastmath import {math_table} as _MATH")
    if any(op in FASTMATH_F64_OPS for op in used):
        w.line(f"from workbench.codegen.fastmath_f64 import {math_table} as _MATH64, STAGED, "
               "MEDIUM_LIMIT")
        w.line("TRIG_LIMIT = np.float32(MEDIUM_LIMIT)")
    for op in used:
        if fast[op] in cx.staged:
            w.line(f"{fast[op]}_1, {fast[op]}_2, {fast[op]}_3 = STAGED[{op!r}]")
        else:
            w.line(f"{fast[op]} = {'_MATH64' if op in FASTMATH_F64_OPS else '_MATH'}[{op!r}]")


def kernel_args(kir: KernelIR) -> tuple:
    """(dtype, elements) of each array a CPU kernel's pointer table holds: inputs, outputs."""
    return tuple((b.dtype, b.size) for b in kir.inputs + kir.outputs)


def _parallel_worthy(nest: Nest) -> bool:
    c = nest.contraction
    if c is not None:
        return contraction_blocks(c).parallel
    return nest.rank > 0 and nest.shape[0] > 1 and nest_work(nest) >= PARALLEL_MIN_WORK


def _nest(w: Writer, nest: Nest, cx, parallel: bool):
    levels, shape, names = nest.levels, nest.shape, nest.vars
    active = [d for d in range(nest.rank) if names[d] is not None]
    groups, cur = [], []
    for k, d in enumerate(active):
        cur.append(d)
        last = k == len(active) - 1
        between = not last and any(levels[e] for e in range(d + 1, active[k + 1] + 1))
        if last or k == len(active) - 2 or between:
            groups.append(cur)
            cur = []
    per_thread = [(b, lvl) for b, lvl in nest.rows if parallel and lvl > 0]
    for b, lvl in nest.rows:
        if (b, lvl) not in per_thread:
            _alloc_row(w, b)
    emit_stmts(w, levels[0], CPU_TABLE, cx)
    start = w.depth
    done = 1
    for gi, grp in enumerate(groups):
        ext = prod(shape[d] for d in grp)
        rng = "prange" if gi == 0 and parallel else "range"
        if len(grp) == 1:
            w.line(f"for {names[grp[0]]} in {rng}({ext}):")
            w.indent()
        else:
            lv = f"l{names[grp[0]]}"
            w.line(f"for {lv} in {rng}({ext}):")
            w.indent()
            unravel(w, lv, grp, shape, names)
            cx.merged.append((lv, {names[d]: prod(shape[e] for e in grp[k + 1:])
                                   for k, d in enumerate(grp)}))
        if gi == 0:
            for b, _ in per_thread:  # thread-private; numba hoists it out of each thread's loop
                _alloc_row(w, b)
        for lvl in range(done, grp[-1] + 2):
            emit_stmts(w, levels[lvl], CPU_TABLE, cx)
        done = grp[-1] + 2
    for lvl in range(done, len(levels)):
        emit_stmts(w, levels[lvl], CPU_TABLE, cx)
    w.depth = start
    cx.merged = []


def _alloc_row(w: Writer, b):
    w.line(f"{b.name} = np.empty({b.shape[0]}, {NUMPY_TYPES[b.dtype]})  # row cache of one row")


__all__ = ["render_cpu", "NUMBA_TYPES"]

"""The CPU backend: kernel IR -> a numba ``@njit(parallel=True)`` module.

Each nest becomes a loop nest whose outermost loop is a ``prange`` (numba's parallel loop, run
on its thread pool); loops over dimensions with nothing placed between them are merged (one
``prange`` over the rows of a ``[2, 64, 128]`` space), and the innermost dimension always keeps
its own loop so that LLVM can vectorise it. Output fusions compute their dot or convolution by
row blocks inside the ``prange``: ``np.dot`` (BLAS through scipy) on a block of rows, then the
epilogue over that block while it is in cache; a convolution first gathers the block's patches
(im2col). Kernels are compiled eagerly from an explicit signature with ``cache=True``.

Float flags: ``fastmath={'reassoc', 'contract'}`` lets LLVM reorder sums (vectorised
reductions) and fuse multiply-adds; no ``nnan``/``ninf``, so NaN and inf behave as in numpy.
"""

from __future__ import annotations

from workbench.codegen.emitters import CPU_TABLE, NUMBA_TYPES, NUMPY_TYPES, EmitContext
from workbench.codegen.kernel_ir import KernelIR, Nest, nest_work
from workbench.codegen.source import (Writer, arg_names, emit_stmts, module_constants,
                                      module_header, module_helpers, prod, signature, unravel)

#: loop nests doing less work than this (statement executions, see ``nest_work``) run
#: serially: a prange launch costs ~10 us on numba's thread pool and a parallel kernel takes
#: ~3x longer to compile, and when the other cores are busy it waits for them; 2**20 simple
#: statements take ~0.3-1 ms on one core
PARALLEL_MIN_WORK = 1 << 20
#: block-wise dots/convolutions below this many multiply-adds run serially (~50 us on one core);
#: BLAS itself is single-threaded (see workbench.codegen.blas)
PARALLEL_MIN_MACS = 1 << 20
#: row blocks a block-wise dot aims for, so that numba's threads share the work, and the
#: fewest rows a block gets (a BLAS call on fewer rows runs far below the machine's peak)
TARGET_BLOCKS = 8
MIN_BLOCK_ROWS = 16
#: a dot whose result is smaller than this (bytes), or has fewer rows (batch x M), is one BLAS
#: call per batch, then the epilogue: the result stays in cache anyway, and BLAS on all rows
#: beats single-threaded calls on small row blocks; a convolution is always blocked when large
#: enough, since gathering its patches (im2col) is work the blocks share (resnet block: 100 us
#: against 150 us per convolution)
BLOCKED_MIN_BYTES = 2 << 20
BLOCKED_MIN_ROWS = 64
#: let those one-call dots use BLAS's own threads on every usable core (the module says
#: BLAS_THREADS = 0 and the launcher lifts the one-thread limit around it). Off by default:
#: OpenBLAS's worker threads spin-wait for ~0.1 s after every multi-threaded call (its
#: THREAD_TIMEOUT), holding a core that numba's OpenMP workers, the main thread and other
#: processes need, and a call waits for workers the scheduler has not run. With more BLAS
#: threads than free cores (3 on 2) a [128, 128] x [128, 384] dot took median 19.7 ms, min
#: 11.7 ms instead of 0.1 ms; on the 2-core development machine while other sessions used
#: 30-80% of it, the transformer block's fused plan had median/min up to 16x with it on
#: (1 of 13 profiles), at most 1.25x off (14 profiles). On a quiet machine it is faster (that
#: fused plan: 620-690 us against 800-850 us). See docs/codegen.md, "Processes and threads".
BLAS_ALL_CORES = False
FASTMATH_FLAGS = "{'reassoc', 'contract'}"
#: ops for which workbench.codegen.fastmath has float32 functions
FASTMATH_OPS = ("exponential", "log", "tanh", "logistic", "erf")
#: rows per block target: a block of the dot's result (rows x N) stays within ~256 KiB (L2)
BLOCK_BYTES = 256 << 10


def render_cpu(kir: KernelIR, math_table: str | None = None, fast_hash: str = ""):
    """Numba CPU source for a kernel.

    Parameters
    ----------
    kir : KernelIR
    math_table : {"FAST", "EXACT"} or None
        Which table of :mod:`workbench.codegen.fastmath` supplies float32 ``exponential``,
        ``log``, ``tanh``, ``logistic`` and ``erf``; None uses ``math`` (libm) directly.
    fast_hash : str
        Hash of the approximations' source, written into the header (part of the cache key).

    Returns
    -------
    (source, origin) : (str, dict)
        The module text, and generated line -> (op, node) for error messages.
    """
    fast = {op: f"fm_{op.replace('-', '_')}" for op in FASTMATH_OPS} if math_table else None
    cx = EmitContext("cpu", fast)
    body = Writer()
    parallel = any(_parallel_worthy(n) for n in kir.nests)
    body.depth = 1
    for s in kir.scratch:
        body.line(f"{s.name} = np.empty({max(s.size, 1)}, {NUMPY_TYPES[s.dtype]})")
    for nest in kir.nests:
        if nest.contraction is not None:
            _contraction_nest(body, nest, cx, parallel)
        else:
            _nest(body, nest, cx, parallel)
    w = Writer()
    module_header(w, "cpu", kir, cx, fast_hash)
    w.line("from numba import njit, prange")
    if cx.intrinsics:
        w.line(f"from workbench.codegen.cpu_intrinsics import {', '.join(sorted(cx.intrinsics))}")
    if cx.fast_used:
        w.line(f"from workbench.codegen.fastmath import {math_table} as _MATH")
    for op in sorted(cx.fast_used):
        w.line(f"{fast[op]} = _MATH[{op!r}]")
    module_constants(w, kir)
    module_helpers(w, cx, "@njit(cache=True, error_model='numpy')")
    w.line("")
    w.line(f"SIGNATURE = {signature(kir)!r}")
    w.line("PARALLEL = " + repr(parallel))
    contractions = [n.contraction for n in kir.nests if n.contraction is not None]
    threads = 0 if (BLAS_ALL_CORES and contractions
                    and not any(_blocked(c) for c in contractions)) else 1
    w.line(f"BLAS_THREADS = {threads}  # 0: BLAS may use every core (no dot runs in a prange)")
    w.line("")
    w.line(f"@njit(SIGNATURE, parallel=PARALLEL, cache=True, fastmath={FASTMATH_FLAGS}, "
           "error_model='numpy', boundscheck=False, nogil=True)")
    w.line(f"def kernel({', '.join(arg_names(kir))}):")
    w.extend(body)
    if not body.lines:
        w.line("    return")
    return w.text(), w.origin


def _blocked(c) -> bool:
    """True if a contraction runs as row blocks in a prange (else one BLAS call per batch)."""
    itemsize = 4 if c.lhs.dtype == "f32" else 8
    big = c.kind == "conv" or c.B * c.M * c.N * itemsize >= BLOCKED_MIN_BYTES  # im2col pays
    return (big and c.B * c.M >= BLOCKED_MIN_ROWS
            and c.B * c.M * c.N * max(c.K, 1) >= PARALLEL_MIN_MACS)


def _parallel_worthy(nest: Nest) -> bool:
    c = nest.contraction
    if c is not None:
        return _blocked(c)
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


def _contraction_nest(w: Writer, nest: Nest, cx, parallel: bool):
    c = nest.contraction
    names, shape, levels = nest.vars, nest.shape, nest.levels
    dt = NUMPY_TYPES[c.lhs.dtype]
    itemsize = 4 if c.lhs.dtype == "f32" else 8
    cache_rows = BLOCK_BYTES // max(1, itemsize * max(c.N, c.K))
    share_rows = -(-c.M * c.B // TARGET_BLOCKS) if c.B < TARGET_BLOCKS else c.M
    bm = max(1, min(c.M, max(min(cache_rows, share_rows), MIN_BLOCK_ROWS)))
    if not _blocked(c):
        bm = max(c.M, 1)
    nmb = -(-c.M // bm)
    emit_stmts(w, levels[0], CPU_TABLE, cx)
    if c.kind == "dot":
        product = _dot_setup(w, c, dt)
    else:
        product = _conv_setup(w, c, dt, bm)
    rng = "prange" if parallel else "range"
    w.line(f"for c_blk in {rng}({c.B * nmb}):")
    w.indent()
    w.line(f"c_b = c_blk // {nmb}")
    w.line(f"c_m0 = (c_blk - c_b * {nmb}) * {bm}")
    w.line(f"c_m1 = min(c_m0 + {bm}, {c.M})")
    product(w)
    w.line("for c_m in range(c_m0, c_m1):")
    w.indent()
    unravel(w, "c_b", c.batch, shape, names)
    unravel(w, "c_m", c.rows, shape, names)
    last_row = (c.batch + c.rows)[-1] if c.batch + c.rows else -1
    # a dot without column dimensions (N == 1: "ted,te->td") places its value at the row level
    cx.contraction_value = "c_tmp[uint64(c_m - c_m0), 0]"
    for lvl in range(1, last_row + 2):
        emit_stmts(w, levels[lvl], CPU_TABLE, cx)
    w.line(f"for c_n in range({c.N}):")
    w.indent()
    unravel(w, "c_n", c.cols, shape, names)
    cx.contraction_value = "c_tmp[uint64(c_m - c_m0), uint64(c_n)]"
    before = len(w.lines)
    for lvl in range(last_row + 2, len(levels)):
        emit_stmts(w, levels[lvl], CPU_TABLE, cx)
    if len(w.lines) == before:
        w.line("pass")
    w.dedent(3)


def _identity(perm) -> bool:
    return tuple(perm) == tuple(range(len(perm)))


def _dot_setup(w: Writer, c, dt: str):
    B, M, N, K = c.B, c.M, c.N, c.K
    lperm, rperm, rperm_t = c.attrs["lhs_perm"], c.attrs["rhs_perm"], c.attrs["rhs_perm_t"]
    if _identity(lperm):
        w.line(f"c_A = {c.lhs.name}.reshape(({B}, {M}, {K}))")
    else:
        w.line(f"c_A = np.ascontiguousarray({c.lhs.name}.reshape({tuple(c.lhs_shape)})"
               f".transpose({tuple(lperm)})).reshape(({B}, {M}, {K}))")
    if _identity(rperm):
        w.line(f"c_W = {c.rhs.name}.reshape(({B}, {K}, {N}))")
        right = "c_W[c_b]"
    elif _identity(rperm_t):
        w.line(f"c_W = {c.rhs.name}.reshape(({B}, {N}, {K}))")
        right = "c_W[c_b].T"
    else:
        w.line(f"c_W = np.ascontiguousarray({c.rhs.name}.reshape({tuple(c.rhs_shape)})"
               f".transpose({tuple(rperm)})).reshape(({B}, {K}, {N}))")
        right = "c_W[c_b]"

    def product(wr: Writer):
        wr.line(f"c_tmp = np.dot(c_A[c_b, c_m0:c_m1], {right})", "dot", c.node)
    return product


def _conv_setup(w: Writer, c, dt: str, bm: int):
    """Pack the kernel as G matrices [window x Cin/G, Cout/G]; gather patches per block."""
    _pack_conv_weights(w, c, dt)
    return lambda wr: _gather_and_multiply(wr, c, dt)


def _pack_conv_weights(w: Writer, c, dt: str):
    g = c.attrs
    n, rm, G = len(g["kernel"]), g["rhs_map"], g["groups"]
    cg, og = g["in_features"] // G, g["out_features"] // G
    rstr = _strides(c.rhs_shape)
    w.line(f"c_W = np.empty(({G}, {prod(g['kernel']) * cg}, {og}), {dt})")
    w.line(f"for c_g in range({G}):")
    w.indent()
    for i in range(n):
        w.line(f"for c_k{i} in range({g['kernel'][i]}):")
        w.indent()
    col = _lin([f"c_k{i}" for i in range(n)], g["kernel"])
    w.line(f"for c_c in range({cg}):")
    w.line(f"    for c_o in range({og}):")
    waddr = " + ".join([f"c_k{i} * {rstr[rm[i]]}" for i in range(n)]
                       + [f"c_c * {rstr[rm['i']]}", f"(c_g * {og} + c_o) * {rstr[rm['o']]}"])
    w.line(f"        c_W[c_g, ({col}) * {cg} + c_c, c_o] = {c.rhs.name}[{waddr}]")
    w.dedent(n + 1)


def _gather_and_multiply(wr: Writer, c, dt: str):
    """im2col of the block's rows into c_P, then c_tmp = c_P @ c_W per feature group."""
    g = c.attrs
    n, lm, out_map, G = len(g["kernel"]), g["lhs_map"], g["out_map"], g["groups"]
    cg, og, kk = g["in_features"] // G, g["out_features"] // G, prod(g["kernel"])
    lstr, out_shape = _strides(c.lhs_shape), tuple(g["out_shape"])
    rows = [d for d in range(len(out_shape)) if d != out_map["f"]]
    wr.line(f"c_P = np.empty((c_m1 - c_m0, {kk * cg}), {dt})")
    if G > 1:
        wr.line(f"c_tmp = np.empty((c_m1 - c_m0, {c.N}), {dt})")
    wr.line(f"for c_g in range({G}):")
    wr.indent()
    wr.line("for c_m in range(c_m0, c_m1):")
    wr.indent()
    coord = {d: f"c_p{d}" for d in rows}
    unravel(wr, "c_m", rows, out_shape, [coord.get(d) for d in range(len(out_shape))])
    for i in range(n):
        wr.line(f"for c_k{i} in range({g['kernel'][i]}):")
        wr.indent()
        wr.line(f"c_q{i} = {coord[out_map[i]]} * {g['stride'][i]} - {g['padding'][i][0]} + "
                f"c_k{i} * {g['rhs_dilation'][i]}")
    valid = " and ".join(f"c_q{i} >= 0 and c_q{i} < {g['spatial_in'][i]}" for i in range(n))
    base = " + ".join([f"{coord[out_map['b']]} * {lstr[lm['b']]}",
                       f"c_g * {cg * lstr[lm['f']]}"] + [f"c_q{i} * {lstr[lm[i]]}"
                                                          for i in range(n)])
    wr.line(f"c_col = ({_lin([f'c_k{i}' for i in range(n)], g['kernel'])}) * {cg}")
    wr.line(f"if {valid or 'True'}:")
    wr.line(f"    c_base = {base}")
    wr.line(f"    for c_c in range({cg}):")
    wr.line(f"        c_P[c_m - c_m0, c_col + c_c] = {c.lhs.name}[c_base + c_c * "
            f"{lstr[lm['f']]}]")
    wr.line("else:")
    wr.line(f"    for c_c in range({cg}):")
    wr.line("        c_P[c_m - c_m0, c_col + c_c] = 0")
    wr.dedent(n + 1)
    if G > 1:
        wr.line(f"c_tmp[:, c_g * {og}:(c_g + 1) * {og}] = np.dot(c_P, c_W[c_g])",
                "convolution", c.node)
    else:
        wr.line("c_tmp = np.dot(c_P, c_W[0])", "convolution", c.node)
    wr.dedent()


def _strides(shape):
    out, s = [], 1
    for n in reversed(shape):
        out.append(s)
        s *= n
    return list(reversed(out))


def _lin(names, extents) -> str:
    expr = names[0] if names else "0"
    for v, n in zip(names[1:], extents[1:]):
        expr = f"({expr}) * {n} + {v}"
    return expr


__all__ = ["render_cpu", "NUMBA_TYPES"]

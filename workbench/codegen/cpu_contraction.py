"""The CPU backend's output fusions: a dot or a convolution computed in blocks, each block
followed by the fused epilogue while its result is in cache.

Threads. BLAS runs single-threaded (:mod:`workbench.codegen.blas`); a contraction large enough
to pay for a parallel launch is split into blocks that numba's ``prange`` runs on its OpenMP
thread pool, one BLAS call per block. There is one thread pool, and its idle workers sleep
(``OMP_WAIT_POLICY=PASSIVE``, :mod:`workbench.codegen`), so no BLAS worker spins between calls
holding a core that other kernels or other processes need. The alternative, OpenBLAS's own
threads around one call, measured on the 2-core development machine (2 threads, a
[256, 512] x [512, 1024] dot): with OpenBLAS's default wait policy a worker spun for 0.105 s of
CPU after every call; with ``OPENBLAS_THREAD_TIMEOUT`` set (4-12) it slept, but waking it made
the call 12-15 ms instead of 2-2.5 ms in 3 of 5 processes; see docs/codegen.md.

Blocks (:func:`contraction_blocks`). A dot splits each batch along its longer side: into row
blocks, or into column blocks when it has fewer rows than columns (the LSTM's
[128, 1024] x [1024, 2048]: each thread then packs half the weights, not all); as few blocks
as there are threads, since every BLAS call packs its share of the operands again: 16 row
blocks of a [1024, 256] x [256, 1024] dot ran at 80 GFLOP/s where 2 ran at 108 and one call at
99 (one thread each). Each block multiplies by :func:`~workbench.codegen.cpu_intrinsics.sgemm_rows`
(BLAS ``sgemm`` on addresses and row strides: no copy of a column block, no allocation by
``np.dot``) into the block's own result array. A convolution gathers each row block's
patches (im2col) and multiplies them by the packed kernel; its blocks are sized for the cache,
since the gathering is work the blocks share.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.codegen.emitters import CPU_TABLE, NUMPY_TYPES
from workbench.codegen.source import Writer, emit_stmts, prod, unravel

#: contractions with fewer multiply-adds than this, or writing fewer bytes than
#: :data:`PARALLEL_MIN_BYTES`, run serially (~15-50 us on one core: less than a parallel
#: launch and its wake-up would save)
PARALLEL_MIN_MACS = 1 << 20
#: the cost model's CPU profile follows this (``CPU_PARALLEL_MIN_BYTES`` in
#: workbench/costmodel/devices.py; a test keeps the two equal)
PARALLEL_MIN_BYTES = 64 << 10
#: the fewest rows (or columns) a block of a dot gets: a BLAS call on fewer runs far below peak
MIN_BLOCK_ROWS = 16
#: a dot's blocks hold at most this many bytes of result each (more blocks than threads when
#: the result is larger), so that its epilogue reads the block from the last-level cache
MAX_BLOCK_BYTES = 8 << 20
#: a convolution's row block aims to keep its patches within ~256 KiB (L2)
CONV_BLOCK_BYTES = 256 << 10


def usable_threads() -> int:
    """Threads a kernel's ``prange`` runs on: numba's thread count, at most the usable CPUs."""
    from numba import config

    from workbench.codegen.blas import usable_cpus

    return max(1, min(usable_cpus(), config.NUMBA_NUM_THREADS))


@dataclass(frozen=True)
class Blocks:
    """How a contraction is split: ``nmb`` row blocks of ``bm`` rows and ``nnb`` column blocks
    of ``bn`` columns per batch; ``parallel`` when the blocks run in a ``prange``."""

    bm: int
    nmb: int
    bn: int
    nnb: int
    parallel: bool


def contraction_blocks(c, threads: int | None = None) -> Blocks:
    """The blocks of contraction ``c`` (a :class:`~workbench.codegen.kernel_ir.Contraction`).

    Serial (one block per batch) below :data:`PARALLEL_MIN_MACS` multiply-adds or
    :data:`PARALLEL_MIN_BYTES` of result, or on one thread. Otherwise a dot gets at least one
    block per thread: whole batches when there are enough, else each batch split along its
    longer side: into row blocks when it has at least as many rows as columns (or too few
    columns for :data:`MIN_BLOCK_ROWS` each), else into column blocks; and more when a block
    would hold more than :data:`MAX_BLOCK_BYTES`. Every block's BLAS call packs the whole of
    the operand it does not split, so splitting the longer side packs less: a dot with fewer
    rows than columns (an MLP's [32, 256] x [256, 512]) in row blocks had each thread pack
    all of its weights, in column blocks half (measured, 2 threads, load 12.5 on 2 CPUs, per-
    kernel minima of 20 interleaved rounds: the shared mlp's three dots 1.28/2.35/0.41 ms in
    row blocks, 1.04/2.10/0.42 ms in column blocks). A convolution gets row blocks whose
    patches fill about :data:`CONV_BLOCK_BYTES`.
    """
    threads = usable_threads() if threads is None else threads
    B, M, N, K = c.B, c.M, c.N, c.K
    itemsize = 4 if c.lhs.dtype == "f32" else 8
    result = B * M * N * itemsize
    serial = Blocks(max(M, 1), 1 if M else 0, max(N, 1), 1 if N else 0, False)
    if threads <= 1 or B * M * N * max(K, 1) < PARALLEL_MIN_MACS or result < PARALLEL_MIN_BYTES:
        return serial
    if c.kind == "conv":
        bm = min(M, max(MIN_BLOCK_ROWS, CONV_BLOCK_BYTES // max(1, itemsize * max(N, K))))
        if B * -(-M // bm) < threads:           # too few blocks to share: one per thread
            bm = max(1, -(-M // -(-threads // B)))
        return Blocks(bm, -(-M // bm), N, 1, B * -(-M // bm) > 1)
    want = max(threads, -(-result // MAX_BLOCK_BYTES))
    per_batch = -(-want // B)
    if per_batch <= 1:
        return Blocks(M, 1, N, 1, B > 1)
    if M >= N or N < per_batch * MIN_BLOCK_ROWS:
        bm = max(1, -(-M // per_batch))
        return Blocks(bm, -(-M // bm), N, 1, True)
    bn = max(1, -(-N // per_batch))
    return Blocks(M, 1, bn, -(-N // bn), True)


def contraction_nest(w: Writer, nest, cx, parallel: bool):
    """Write the loop over a contraction's blocks: each block's product, then the epilogue
    over its rows and columns (``c_tmp`` holds the block's result)."""
    c = nest.contraction
    names, shape, levels = nest.vars, nest.shape, nest.levels
    dt = NUMPY_TYPES[c.lhs.dtype]
    blk = contraction_blocks(c)
    emit_stmts(w, levels[0], CPU_TABLE, cx)
    if c.kind == "dot":
        product = _dot_setup(w, c, dt, blk, cx)
    else:
        product = _conv_setup(w, c, dt)
    per = blk.nmb * blk.nnb
    rng = "prange" if parallel and blk.parallel else "range"
    w.line(f"for c_blk in {rng}({c.B * per}):")
    w.indent()
    w.line(f"c_b = c_blk // {max(per, 1)}")
    w.line(f"c_i = (c_blk - c_b * {per}) // {blk.nnb}")
    w.line(f"c_m0 = c_i * {blk.bm}")
    w.line(f"c_m1 = min(c_m0 + {blk.bm}, {c.M})")
    w.line(f"c_n0 = (c_blk - c_b * {per} - c_i * {blk.nnb}) * {blk.bn}")
    w.line(f"c_n1 = min(c_n0 + {blk.bn}, {c.N})")
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
    w.line("for c_n in range(c_n0, c_n1):")
    w.indent()
    unravel(w, "c_n", c.cols, shape, names)
    cx.contraction_value = "c_tmp[uint64(c_m - c_m0), uint64(c_n - c_n0)]"
    before = len(w.lines)
    for lvl in range(last_row + 2, len(levels)):
        emit_stmts(w, levels[lvl], CPU_TABLE, cx)
    if len(w.lines) == before:
        w.line("pass")
    w.dedent(3)


def _identity(perm) -> bool:
    return tuple(perm) == tuple(range(len(perm)))


def _dot_setup(w: Writer, c, dt: str, blk: Blocks, cx):
    """Operands as [B, M, K] and [B, K, N] (or [B, N, K]: ``trans``) row-major arrays, then per
    block ``c_tmp = A[b, m0:m1] @ W[b][:, n0:n1]`` by BLAS on their addresses."""
    B, M, N, K = c.B, c.M, c.N, c.K
    lperm, rperm, rperm_t = c.attrs["lhs_perm"], c.attrs["rhs_perm"], c.attrs["rhs_perm_t"]
    if _identity(lperm):
        w.line(f"c_A = {c.lhs.name}.reshape(({B}, {M}, {K}))")
    else:
        w.line(f"c_A = np.ascontiguousarray({c.lhs.name}.reshape({tuple(c.lhs_shape)})"
               f".transpose({tuple(lperm)})).reshape(({B}, {M}, {K}))")
    trans = not _identity(rperm) and _identity(rperm_t)
    if _identity(rperm):
        w.line(f"c_W = {c.rhs.name}.reshape(({B}, {K}, {N}))")
    elif trans:
        w.line(f"c_W = {c.rhs.name}.reshape(({B}, {N}, {K}))")
    else:
        w.line(f"c_W = np.ascontiguousarray({c.rhs.name}.reshape({tuple(c.rhs_shape)})"
               f".transpose({tuple(rperm)})).reshape(({B}, {K}, {N}))")
    gemm = "sgemm_rows" if c.lhs.dtype == "f32" else "dgemm_rows"
    cx.intrinsics.add(gemm)
    size = 4 if c.lhs.dtype == "f32" else 8
    w_col = f"c_n0 * {K}" if trans else "c_n0"
    ldw = K if trans else N

    def product(wr: Writer):
        wr.line(f"c_tmp = np.empty(({blk.bm}, {blk.bn}), {dt})")
        wr.line(f"{gemm}({int(trans)}, c_m1 - c_m0, c_n1 - c_n0, {K}, c_A.ctypes.data + "
                f"(c_b * {M * K} + c_m0 * {K}) * {size}, {K}, c_W.ctypes.data + "
                f"(c_b * {N * K} + {w_col}) * {size}, {ldw}, c_tmp.ctypes.data, {blk.bn})",
                "dot", c.node)
    return product


def _conv_setup(w: Writer, c, dt: str):
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

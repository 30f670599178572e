"""The CUDA backend: kernel IR -> a numba ``@cuda.jit`` module (real GPU or the simulator).

Every nest of a kernel runs in one launch, in one of three shapes:

* **flat** (loop fusions): a grid-stride loop over the linear index of the nest's index space,
  one element per thread per step;
* **row-wise** (input fusions): when a nest has a row-wise reduction placed at depth ``k`` (the
  reduction of a softmax or layer norm lands once per row, before the loop over the row), one
  thread block handles one row (a grid-stride loop over rows by ``blockIdx``): its threads
  reduce a strided share of the row each, combine the partial results with warp shuffles
  (``shfl_down_sync``) and shared memory, and then share the loop over the row's elements;
* **tiled dot** (output fusions): a dot is computed in ``TS x TS`` tiles staged through shared
  memory (Kirk & Hwu, *Programming Massively Parallel Processors*, ch. 5), and the epilogue is
  applied to each thread's accumulator before the store.

A group whose lowering needs a scratch array (a member computed whole before others read it:
see :mod:`workbench.codegen.lower`) runs its nests as phases of one *cooperative* launch,
separated by a grid-wide barrier (``cuda.cg.this_grid().sync()``); the grid is then limited to
the blocks that can be resident at once. Scratch arrays are kernel arguments allocated by the
runtime.

The simulator runs each thread as a Python thread and lacks warp shuffles, so ``cuda-sim``
combines partial sums with a shared-memory tree instead, and uses small blocks; everything else
is the same source. Math functions are CUDA's (``math.exp`` -> ``__nv_expf``); the CPU's
polynomial approximations are not used on the GPU.
"""

from __future__ import annotations

from workbench.codegen.emitters import CUDA_TABLE, NUMBA_TYPES, EmitContext
from workbench.codegen.kernel_ir import KernelIR, Nest, Reduce, Store
from workbench.codegen.source import (Writer, arg_names, combine, emit_stmts, module_constants,
                                      module_header, module_helpers, operand, prod, signature,
                                      unravel)

#: threads per block and dot tile size, real GPU / simulator
BLOCK, TILE = 256, 16
SIM_BLOCK, SIM_TILE = 16, 4
#: grid-stride loops make any grid correct; these cap the blocks launched
MAX_GRID, SIM_MAX_GRID = 4096, 2
#: a reduction that is itself the output element gets a thread block from this length on
BLOCK_REDUCE_MIN = 256
#: dtypes warp shuffles can carry
SHUFFLE_DTYPES = ("f32", "f64", "s32", "s64", "u32", "u64")


def render_cuda(kir: KernelIR, simulator: bool = False):
    """Numba CUDA source for a kernel (see the module notes).

    Returns
    -------
    (source, origin) : (str, dict)
        The module text, and generated line -> (op, node) for error messages.
    """
    block, tile = (SIM_BLOCK, SIM_TILE) if simulator else (BLOCK, TILE)
    cx = EmitContext("cuda-sim" if simulator else "cuda")
    r = _Renderer(cx, block, tile, simulator)
    body = Writer()
    body.depth = 1
    body.line("c_tid = cuda.threadIdx.x")
    body.line("c_nt = cuda.blockDim.x")
    body.line("c_gtid = cuda.blockIdx.x * c_nt + c_tid")
    body.line("c_gsize = cuda.gridDim.x * c_nt")
    grid = 1
    cooperative = bool(kir.scratch)
    if cooperative:
        body.line("c_grid = cuda.cg.this_grid()")
    for nest in kir.nests:
        grid = max(grid, r.nest(body, nest))
        if nest.target is not None:
            body.line("c_grid.sync()  # scratch written: every block waits (cooperative launch)")
    w = Writer()
    module_header(w, "cuda-sim" if simulator else "cuda", kir, cx, "")
    w.line("from numba import cuda")
    if simulator:
        w.line("from workbench.codegen.simmath import math  # IEEE results, as on a GPU")
    module_constants(w, kir)
    module_helpers(w, cx, "@cuda.jit(device=True)")
    w.line("")
    w.line(f"SIGNATURE = {signature(kir, scratch_args=True)!r}")
    w.line(f"BLOCK = {block}")
    if cooperative and simulator:
        grid = 1  # the simulator runs cooperative (grid-synchronised) kernels with one block
    w.line(f"GRID = {min(grid, SIM_MAX_GRID if simulator else MAX_GRID)}")
    w.line(f"COOPERATIVE = {cooperative!r}")
    w.line("")
    w.line("@cuda.jit(SIGNATURE, cache=True)")
    w.line(f"def kernel({', '.join(arg_names(kir, scratch_args=True))}):")
    for name, dt in sorted(r.shared.items()):
        w.line(f"    {name} = cuda.shared.array({block}, {NUMBA_TYPES[dt]})")
    w.extend(body)
    return w.text(), w.origin


class _Renderer:
    def __init__(self, cx, block, tile, simulator):
        self.cx, self.block, self.tile, self.simulator = cx, block, tile, simulator
        self.shared: dict[str, str] = {}   # shared array name -> dtype

    # ----- nests -------------------------------------------------------------------------

    def nest(self, w: Writer, nest: Nest) -> int:
        """Write one nest; returns the number of blocks it can use."""
        if nest.contraction is not None:
            return self._tiled(w, nest)
        k = self._row_level(nest)
        if k is None:
            return self._flat(w, nest)
        return self._rowwise(w, nest, k)

    def _row_level(self, nest: Nest):
        """The depth of the deepest row-wise reduction worth a thread block, or None.

        A reduction followed by a loop over the row (softmax, layer norm) always is; one that
        is itself the output element (a reduce to [rows]) is when it is long
        (``BLOCK_REDUCE_MIN`` terms); short ones (a 3x3 convolution window) stay one thread
        per output element.
        """
        for lvl in range(nest.rank, -1, -1):
            need = BLOCK_REDUCE_MIN if lvl == nest.rank else 2
            if any(isinstance(s, Reduce) and s.contiguous and s.dtype in SHUFFLE_DTYPES
                   and prod(n for _, n in s.loops) >= need for s in nest.levels[lvl]):
                return lvl
        return None

    def _flat(self, w: Writer, nest: Nest) -> int:
        total = prod(nest.shape)
        self.emit(w, nest.levels[0])
        w.line(f"for c_lin in range(c_gtid, {total}, c_gsize):")
        w.indent()
        before = len(w.lines)
        unravel(w, "c_lin", range(nest.rank), nest.shape, nest.vars)
        for lvl in range(1, nest.rank + 1):
            self.emit(w, nest.levels[lvl])
        if len(w.lines) == before:      # a scalar result: everything is at level 0
            w.line("pass")
        w.dedent()
        return -(-total // self.block)

    def _rowwise(self, w: Writer, nest: Nest, k: int) -> int:
        outer, inner = prod(nest.shape[:k]), prod(nest.shape[k:])
        w.line(f"for c_row in range(cuda.blockIdx.x, {outer}, cuda.gridDim.x):")
        w.indent()
        unravel(w, "c_row", range(k), nest.shape, nest.vars)
        for lvl in range(0, k + 1):
            self.emit(w, nest.levels[lvl], cooperative=lvl == k, guard_stores=True)
        if inner > 1 or k < nest.rank:
            w.line(f"for c_col in range(c_tid, {inner}, c_nt):")
            w.indent()
            before = len(w.lines)
            unravel(w, "c_col", range(k, nest.rank), nest.shape, nest.vars)
            for lvl in range(k + 1, nest.rank + 1):
                self.emit(w, nest.levels[lvl])
            if len(w.lines) == before:      # trailing size-1 dimensions: nothing per column
                w.line("pass")
            w.dedent()
        w.dedent()
        return outer

    def _tiled(self, w: Writer, nest: Nest) -> int:
        c, ts = nest.contraction, self.tile
        tm, tn = -(-c.M // ts), -(-c.N // ts)
        dt = NUMBA_TYPES[c.lhs.dtype]
        lb, lc, lf, rb, rc, rf = c.attrs["dims"]
        w.line(f"c_tx = c_tid % {ts}")
        w.line(f"c_ty = c_tid // {ts}")
        w.line(f"c_sa = cuda.shared.array(({ts}, {ts + 1}), {dt})")
        w.line(f"c_sb = cuda.shared.array(({ts}, {ts + 1}), {dt})")
        w.line(f"for c_tile in range(cuda.blockIdx.x, {c.B * tm * tn}, cuda.gridDim.x):")
        w.indent()
        w.line(f"c_b = c_tile // {tm * tn}")
        w.line(f"c_r = c_tile - c_b * {tm * tn}")
        w.line(f"c_m = (c_r // {tn}) * {ts} + c_ty")
        w.line(f"c_n = (c_r % {tn}) * {ts} + c_tx")
        w.line(f"c_acc = {dt}(0)")
        w.line(f"for c_k0 in range(0, {c.K}, {ts}):")
        w.indent()
        self._stage(w, "c_sa", c.lhs.name, c.lhs_shape, [("c_b", lb), ("c_m", lf),
                                                          ("c_k0 + c_tx", lc)],
                    f"c_m < {c.M} and c_k0 + c_tx < {c.K}", dt)
        self._stage(w, "c_sb", c.rhs.name, c.rhs_shape, [("c_b", rb), ("c_k0 + c_ty", rc),
                                                          ("c_n", rf)],
                    f"c_k0 + c_ty < {c.K} and c_n < {c.N}", dt)
        w.line("cuda.syncthreads()")
        w.line(f"for c_kk in range({ts}):")
        w.line("    c_acc += c_sa[c_ty, c_kk] * c_sb[c_kk, c_tx]", "dot", c.node)
        w.line("cuda.syncthreads()")
        w.dedent()
        w.line(f"if c_m < {c.M} and c_n < {c.N}:")
        w.indent()
        unravel(w, "c_b", c.batch, nest.shape, nest.vars)
        unravel(w, "c_m", c.rows, nest.shape, nest.vars)
        unravel(w, "c_n", c.cols, nest.shape, nest.vars)
        self.cx.contraction_value = "c_acc"
        for lvl in range(nest.rank + 1):
            self.emit(w, nest.levels[lvl])
        w.dedent(2)
        return c.B * tm * tn

    def _stage(self, w, smem, buf, shape, coords, cond, dt):
        """Load one tile element: coordinates (linear var, operand dims) -> address."""
        names = [None] * len(shape)
        w.line(f"if {cond}:")
        w.indent()
        for lin, dims in coords:
            for d in dims:
                names[d] = f"c_{smem[-1]}{d}"
            if dims:
                w.line(f"c_lin_{smem[-1]} = {lin}")
                unravel(w, f"c_lin_{smem[-1]}", dims, shape, names)
        strides, s = [0] * len(shape), 1
        for d in range(len(shape) - 1, -1, -1):
            strides[d], s = s, s * shape[d]
        addr = " + ".join(f"{names[d]} * {strides[d]}" for d in range(len(shape))
                          if names[d] is not None and shape[d] != 1) or "0"
        w.line(f"{smem}[c_ty, c_tx] = {buf}[{addr}]")
        w.dedent()
        w.line("else:")
        w.line(f"    {smem}[c_ty, c_tx] = {dt}(0)")

    # ----- statements ----------------------------------------------------------------------

    def emit(self, w: Writer, stmts, cooperative=False, guard_stores=False):
        def hook(wr, s):
            if not cooperative or not (s.contiguous and s.dtype in SHUFFLE_DTYPES):
                return False
            self._cooperative(wr, s)
            return True

        for s in stmts:
            if guard_stores and isinstance(s, Store):
                w.line("if c_tid == 0:")
                w.indent()
                emit_stmts(w, [s], CUDA_TABLE, self.cx)
                w.dedent()
            elif cooperative and isinstance(s, Reduce):
                emit_stmts(w, [s], CUDA_TABLE, self.cx, hook)
            else:
                emit_stmts(w, [s], CUDA_TABLE, self.cx)

    def _cooperative(self, w: Writer, s: Reduce):
        """A block-wide reduction: strided partial sums, then warp shuffles or a tree."""
        total = prod(n for _, n in s.loops)
        names = [v for v, _ in s.loops]
        w.line(f"{s.name} = {operand(s.init)}", f"reduce-{s.reducer}", s.node)
        w.line(f"for c_rl in range(c_tid, {total}, c_nt):")
        w.indent()
        unravel(w, "c_rl", range(len(names)), [n for _, n in s.loops], names)
        emit_stmts(w, s.body, CUDA_TABLE, self.cx)
        w.line(f"{s.name} = {combine(CUDA_TABLE, s, s.name, operand(s.value), self.cx)}",
               f"reduce-{s.reducer}", s.node)
        w.dedent()
        sm = f"sm_{s.dtype}"
        self.shared[sm] = s.dtype
        if self.simulator:
            self._tree(w, s, sm)
        else:
            self._shuffle(w, s, sm)

    def _tree(self, w, s, sm):
        comb = combine(CUDA_TABLE, s, f"{sm}[c_tid]", f"{sm}[c_tid + c_h]", self.cx)
        w.line(f"{sm}[c_tid] = {s.name}")
        w.line("cuda.syncthreads()")
        w.line("c_h = c_nt // 2")
        w.line("while c_h > 0:")
        w.line("    if c_tid < c_h:")
        w.line(f"        {sm}[c_tid] = {comb}")
        w.line("    cuda.syncthreads()")
        w.line("    c_h //= 2")
        w.line(f"{s.name} = {sm}[0]")
        w.line("cuda.syncthreads()")

    def _shuffle(self, w, s, sm):
        def warp_reduce():
            for off in (16, 8, 4, 2, 1):
                w.line(f"c_o = cuda.shfl_down_sync(0xffffffff, {s.name}, {off})")
                w.line(f"{s.name} = {combine(CUDA_TABLE, s, s.name, 'c_o', self.cx)}")
        warp_reduce()
        w.line("if c_tid % 32 == 0:")
        w.line(f"    {sm}[c_tid // 32] = {s.name}")
        w.line("cuda.syncthreads()")
        w.line(f"{s.name} = {sm}[c_tid % 32] if c_tid % 32 < c_nt // 32 else "
               f"{operand(s.init)}")
        warp_reduce()
        w.line(f"{s.name} = cuda.shfl_sync(0xffffffff, {s.name}, 0)")
        w.line("cuda.syncthreads()")


__all__ = ["render_cuda"]

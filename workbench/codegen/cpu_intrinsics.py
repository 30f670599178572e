"""LLVM intrinsics the CPU backend calls from generated kernels.

``bitcast_like(x, like)`` reinterprets the bits of ``x`` as the type of ``like`` (same width:
``bitcast_like(u, float32(0))`` is XLA's ``bitcast-convert`` from u32 to f32), an LLVM
``bitcast``.

``fmaximum``/``fminimum`` are ``llvm.maximum``/``llvm.minimum`` (IEEE 754-2019 maximum and
minimum: a NaN operand gives NaN, -0 < +0), i.e. numpy's ``maximum``/``minimum``. Written as a
Python conditional, a NaN-propagating max is a compare-and-branch chain that LLVM does not
vectorise, and a max *reduction* even less; as the intrinsic, LLVM vectorises both (measured
here: a row-wise max over [256, 1024] float32 went from 135 us to 24 us on one core).

``opaque_extent(n)`` is ``n`` hidden from the optimiser: a short reduction loop run to it is
vectorised instead of unrolled (:func:`workbench.codegen.source.emit_reduce_serial`).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


def _binary_intrinsic(base: str):
    def typer(typingctx, a, b):
        if not (isinstance(a, types.Float) and a == b):
            return None
        sig = a(a, b)

        def codegen(context, builder, signature, args):
            ty = args[0].type
            name = f"{base}.{'f32' if ty == ir.FloatType() else 'f64'}"
            fn = builder.module.globals.get(name)
            if fn is None:
                fn = ir.Function(builder.module, ir.FunctionType(ty, [ty, ty]), name)
            return builder.call(fn, args)
        return sig, codegen
    typer.__name__ = base.split(".")[-1]
    return intrinsic(typer)


#: numpy.maximum on two floats of one type (NaN-propagating), as ``llvm.maximum``
fmaximum = _binary_intrinsic("llvm.maximum")
#: numpy.minimum on two floats of one type (NaN-propagating), as ``llvm.minimum``
fminimum = _binary_intrinsic("llvm.minimum")


@intrinsic
def opaque_extent(typingctx, n):
    """``n`` itself, through an empty inline-assembly statement LLVM cannot see through.

    A loop ``for r in range(opaque_extent(64))`` has a trip count LLVM does not know when it
    compiles the kernel, so it does not fully unroll the loop; its loop vectoriser then
    vectorises it (with interleaved vector accumulators, under the kernels' ``reassoc``
    flag). A float sum over a short constant row is otherwise unrolled into a scalar chain
    that the SLP vectoriser leaves mostly serial. Measured on the 2-core development VM
    (numba 0.68, llvmlite 0.50), a row-wise float32 sum over 32,768 elements: rows of 64 took 8.6 us
    with the constant trip count and 3.4 us through this, rows of 96 11.9 and 2.9 us
    (``bench/bench_reductions.py`` prints the table).

    Parameters
    ----------
    n : int64
        A loop extent.

    Returns
    -------
    int64
        ``n``, unknown to the optimiser. The statement emits no instruction (the constraint
        ``"=r,0"`` ties the result to the operand's register).
    """
    if not isinstance(n, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        ty = args[0].type
        return builder.asm(ir.FunctionType(ty, [ty]), "", "=r,0", [args[0]], side_effect=False)
    return n(n), codegen


def _gemm_intrinsic(kind: str):
    """``C = A @ op(B)`` (row-major) through BLAS ``xgemm``, by numba's helper
    ``numba_xxgemm`` (the function numba's own ``np.dot`` calls: scipy's BLAS, found when the
    kernel is compiled), on raw addresses, so that a kernel can multiply a block of rows or
    columns in place (leading dimensions) without copying or allocating."""
    def typer(typingctx, trans_b, m, n, k, a, lda, b, ldb, c, ldc):
        from numba.np.linalg import ensure_blas

        ensure_blas()
        ints = (trans_b, m, n, k, a, lda, b, ldb, c, ldc)
        if not all(isinstance(t, types.Integer) for t in ints):
            return None
        sig = types.none(*ints)

        def codegen(context, builder, signature, args):
            from numba.core import cgutils

            i64 = ir.IntType(64)
            char, vp = ir.IntType(8), ir.IntType(8).as_pointer()
            intp = context.get_value_type(types.intp)
            fnty = ir.FunctionType(ir.IntType(32), [char, char, char, intp, intp, intp, vp, vp,
                                                    intp, vp, intp, vp, vp, intp])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "numba_xxgemm")
            ft = ir.FloatType() if kind == "s" else ir.DoubleType()
            alpha, beta = cgutils.alloca_once(builder, ft), cgutils.alloca_once(builder, ft)
            builder.store(ir.Constant(ft, 1.0), alpha)
            builder.store(ir.Constant(ft, 0.0), beta)
            v = [context.cast(builder, x, t, types.int64) for x, t in zip(args, signature.args)]
            tb, m_, n_, k_, a_, lda_, b_, ldb_, c_, ldc_ = v
            ptr = (lambda x: builder.inttoptr(x, vp))
            # row-major C[m, n] = A[m, k] @ op(B) is column-major C^T = op(B)^T @ A^T: BLAS
            # gets B first (transposed when B is stored [n, k]) and A second, untransposed
            transb = builder.select(builder.icmp_unsigned("!=", tb, ir.Constant(i64, 0)),
                                    ir.Constant(char, ord("t")), ir.Constant(char, ord("n")))
            builder.call(fn, (ir.Constant(char, ord(kind)), transb, ir.Constant(char, ord("n")),
                              n_, m_, k_, builder.bitcast(alpha, vp), ptr(b_), ldb_, ptr(a_),
                              lda_, builder.bitcast(beta, vp), ptr(c_), ldc_))
            return context.get_dummy_value()
        return sig, codegen
    typer.__name__ = f"{kind}gemm_rows"
    return intrinsic(typer)


#: ``sgemm_rows(trans_b, m, n, k, a, lda, b, ldb, c, ldc)``: float32 ``C = A @ B`` (``B``
#: stored ``[k, n]``; ``trans_b``: stored ``[n, k]``), every matrix row-major at the given
#: addresses with the given row strides (elements). The return status of BLAS is not read:
#: the backend lowers dots to BLAS only when scipy's BLAS is there (``Caps.blas_dot``).
sgemm_rows = _gemm_intrinsic("s")
#: the float64 twin of :data:`sgemm_rows`
dgemm_rows = _gemm_intrinsic("d")


@intrinsic
def bitcast_like(typingctx, x, like):
    """The bits of ``x`` as a value of ``like``'s type (equal bit widths)."""
    ok = (isinstance(x, (types.Integer, types.Float)) and isinstance(like, (types.Integer,
                                                                           types.Float))
          and x.bitwidth == like.bitwidth)
    if not ok:
        return None
    sig = like(x, like)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(signature.return_type))
    return sig, codegen

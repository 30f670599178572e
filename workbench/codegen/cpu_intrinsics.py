"""LLVM intrinsics the CPU backend calls from generated kernels.

``bitcast_like(x, like)`` reinterprets the bits of ``x`` as the type of ``like`` (same width:
``bitcast_like(u, float32(0))`` is XLA's ``bitcast-convert`` from u32 to f32), an LLVM
``bitcast``.

``fmaximum``/``fminimum`` are ``llvm.maximum``/``llvm.minimum`` (IEEE 754-2019 maximum and
minimum: a NaN operand gives NaN, -0 < +0), i.e. numpy's ``maximum``/``minimum``. Written as a
Python conditional, a NaN-propagating max is a compare-and-branch chain that LLVM does not
vectorise, and a max *reduction* even less; as the intrinsic, LLVM vectorises both (measured
here: a row-wise max over [256, 1024] float32 went from 135 us to 24 us on one core).
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

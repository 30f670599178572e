"""Native calls between compiled CPU kernels: a whole plan runs in one numba call.

Every CPU kernel takes one argument, the address of a table of its arrays' data pointers
(int64; inputs, then outputs), and rebuilds its arrays from it with the sizes and dtypes the
code generator wrote into its source (:func:`workbench.codegen.cpu.render_cpu`). All kernels
therefore have the same numba signature, ``void(int64)``, and :func:`run_kernels` can call a
plan's kernels one after the other from native code, through their machine-code addresses,
without returning to Python between them (the "one compiled plan" of issue 14): per kernel it
costs an indirect call (tens of nanoseconds) instead of a Python-level numba dispatch (about
0.4-1.2 us with the arguments unboxed, measured on the 2-core development machine).

What is here:

- :func:`as_voidptr`, :func:`call_kernel`, :func:`now_ns`: numba intrinsics (LLVM code written
  here): an integer as a pointer; a call through a function address with numba's own calling
  convention (a kernel's exception, e.g. a ``MemoryError`` from a row cache's ``np.empty``,
  propagates to the caller as in any numba call); ``clock_gettime(CLOCK_MONOTONIC)``, the
  clock ``time.perf_counter`` reads on Linux, in nanoseconds.
- :func:`run_kernels`, :func:`run_kernels_timed`: the plan drivers. They are the same for
  every plan (a loop over addresses and tables), so they are compiled once, cached by numba,
  and generated source never grows with the plan.
- :func:`kernel_address`: the machine-code address of a kernel compiled with one explicit
  signature.

Safety: a kernel called with a wrong table reads or writes wrong memory. Only the runtime
builds tables (:mod:`workbench.codegen.program`), from arrays it allocated or checked against
the kernel's declared argument sizes and dtypes.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llir
from numba import njit, types
from numba.core import cgutils
from numba.core.callconv import excinfo_t
from numba.extending import intrinsic

__all__ = ["as_voidptr", "call_kernel", "kernel_address", "now_ns", "run_kernels",
           "run_kernels_timed"]

#: CLOCK_MONOTONIC on Linux (time.h); Python's perf_counter uses the same clock
_CLOCK_MONOTONIC = 1


@intrinsic
def as_voidptr(typingctx, address):
    """An integer address as a ``void *`` (for ``numba.carray``)."""
    if not isinstance(address, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], context.get_value_type(types.voidptr))

    return types.voidptr(address), codegen


@intrinsic
def call_kernel(typingctx, address, table):
    """Call the numba function ``void(int64)`` at ``address`` with ``table``; an exception it
    raises propagates to the caller."""
    if not isinstance(address, types.Integer) or not isinstance(table, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        cc = context.call_conv
        fnty = cc.get_function_type(types.none, [types.int64])
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        retty = cc.get_return_type(types.none).pointee
        ret = cgutils.alloca_once(builder, retty)
        builder.store(cgutils.get_null_value(retty), ret)
        exc = cgutils.alloca_once(builder, llir.PointerType(excinfo_t), name="excinfo")
        packed = list(context.get_arg_packer([types.int64]).as_arguments(
            builder, [context.cast(builder, args[1], sig.args[1], types.int64)]))
        code = builder.call(fn, [ret, exc] + packed)
        status = cc._get_return_status(builder, code, builder.load(exc))
        with builder.if_then(status.is_error, likely=False):
            cc.return_status_propagate(builder, status)
        return context.get_dummy_value()

    return types.none(address, table), codegen


@intrinsic
def now_ns(typingctx):
    """``clock_gettime(CLOCK_MONOTONIC)`` in nanoseconds (int64)."""

    def codegen(context, builder, sig, args):
        i64, i32 = llir.IntType(64), llir.IntType(32)
        spec = llir.LiteralStructType([i64, i64])       # struct timespec on LP64 Linux
        fnty = llir.FunctionType(i32, [i32, spec.as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        ts = cgutils.alloca_once(builder, spec)
        builder.call(fn, [llir.Constant(i32, _CLOCK_MONOTONIC), ts])
        sec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 0))
        nsec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 1))
        return builder.add(builder.mul(sec, llir.Constant(i64, 1_000_000_000)), nsec)

    return types.int64(), codegen


@njit("void(int64[::1], int64[::1], int64, int64)", cache=True, nogil=True)
def run_kernels(addresses, tables, lo, hi):
    """Run kernels ``lo..hi-1``: kernel ``k`` is at ``addresses[k]``, its pointer table at
    ``tables[k]`` (an address)."""
    for k in range(lo, hi):
        call_kernel(addresses[k], tables[k])


@njit("void(int64[::1], int64[::1], int64, int64, int64[::1])", cache=True, nogil=True)
def run_kernels_timed(addresses, tables, lo, hi, stamps):
    """:func:`run_kernels`, writing ``clock_gettime`` nanoseconds before and after kernel
    ``k`` into ``stamps[2k]`` and ``stamps[2k + 1]``."""
    for k in range(lo, hi):
        stamps[2 * k] = now_ns()
        call_kernel(addresses[k], tables[k])
        stamps[2 * k + 1] = now_ns()


def kernel_address(dispatcher) -> int:
    """The machine-code address of ``dispatcher``'s one compiled signature (numba's calling
    convention: what :func:`call_kernel` calls).

    Raises
    ------
    ValueError
        If the dispatcher has no compiled signature, or more than one.
    """
    overloads = list(dispatcher.overloads.values())
    if len(overloads) != 1:
        raise ValueError(f"expected one compiled signature, found {len(overloads)}")
    cres = overloads[0]
    return int(cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name))


def pointer_table(arrays, tail=()) -> np.ndarray:
    """The int64 table of the arrays' data addresses, then the addresses ``tail`` (the caller
    keeps the arrays alive)."""
    return np.array([a.ctypes.data for a in arrays] + [int(t) for t in tail], dtype=np.int64)

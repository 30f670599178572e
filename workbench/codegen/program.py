"""A compiled plan bound to its inputs: every buffer allocated once, every call one driver run.

:class:`BufferPlan` assigns each value the per-call kernels write to a buffer, before anything
runs (as XLA's buffer assignment does): a value's buffer is reused by a later value of the same
byte size (CPU: any dtype, through a typed view; CUDA: the same dtype) once its last reader has
run; graph outputs get buffers of their own. :class:`BoundPlan` allocates those buffers for one
set of prepared inputs and builds each kernel's argument list once; a call then runs every
kernel without allocating:

- CPU: each maximal run of native kernels is one call of
  :func:`workbench.codegen.native.run_kernels`, which calls the kernels through their
  machine-code addresses, so no Python runs between them. A kernel that runs through the numpy
  reference (a fallback) or needs BLAS's thread count changed around it is called from Python
  between two such runs.
- CUDA: the kernels are launched from Python in order (a launch is asynchronous), then the
  device is synchronised once.

The outputs of a call are the plan's own output buffers (no copy): the next call of the same
bound plan overwrites them. :meth:`BoundPlan.run_timed` is the instrumented variant: the same
kernels, with each one's start and end read from the monotonic clock (CPU: inside the native
loop, ``clock_gettime`` around each call; CUDA: events).
"""

from __future__ import annotations

import time
from collections import defaultdict

import numpy as np

from workbench.codegen.runtime import Alias, flat_leaves, map_leaves
from workbench.ir.ops import constant_array
from workbench.ir.types import TupleType


class BufferPlan:
    """Which buffer each value written by the per-call kernels lives in.

    Parameters
    ----------
    steps : sequence of CompiledKernel or Alias
        The per-call kernels (``inputs``, ``outputs``, ``scratch``) and the free ops' aliases
        (:class:`~workbench.codegen.runtime.Alias`: no buffer of their own, they read their
        operand's), in plan order.
    graph_outputs : sequence of str
        Values that get buffers of their own (they outlive the call); for an alias, the value
        whose buffer it reads.
    xgraph : Graph
        The composite-expanded graph (each value's type; a tuple value gets one buffer per
        element).
    sources : set of str
        Values that are not written by these kernels (parameters, constants, offline results).
    share_dtypes : bool
        True (CPU): buffers are bytes, so values of one byte size share a buffer whatever their
        dtype; False (CUDA): only values of the same dtype and size share one.

    Attributes
    ----------
    slot : dict
        Value id -> buffer index (a tuple of them, nested like the type, for a tuple value).
    scratch : list of list of int
        Per kernel (aliases have none), the buffer index of each scratch array.
    buffers : list of (int, numpy.dtype)
        Per buffer: elements and dtype to allocate (CPU: bytes as uint8).
    nbytes : int
        Bytes of all buffers.

    Notes
    -----
    A buffer read through an alias stays reserved until the alias's last reader has run.
    """

    def __init__(self, steps, graph_outputs, xgraph, sources, share_dtypes: bool):
        self._share = share_dtypes
        self.slot: dict = {}
        self.scratch: list[list[int]] = []
        self.buffers: list[tuple[int, np.dtype]] = []
        root: dict[str, str] = {}
        for st in steps:
            if _is_alias(st):
                root[st.value] = root.get(st.source, st.source)
        last = {}
        for k, st in enumerate(steps):
            for v in st.inputs:
                last[root.get(v, v)] = k
        keep = {root.get(v, v) for v in graph_outputs}
        free: dict = defaultdict(list)
        for k, st in enumerate(steps):
            alias = _is_alias(st)
            if not alias:
                for v in st.outputs:
                    if v not in sources and v not in self.slot:
                        self.slot[v] = self._place(free, xgraph.node(v).type, v in keep)
                mine = [self._take(free, size, np.dtype(dt), own=False)
                        for size, dt in st.scratch]
                self.scratch.append(mine)
                for idx in mine:
                    free[self.buffers[idx]].append(idx)
            done = {root.get(v, v) for v in st.inputs if last.get(root.get(v, v)) == k}
            if not alias:
                done |= {v for v in st.outputs if v not in last}     # written, never read
            for v in sorted(done):
                if v in self.slot and v not in keep:
                    for idx in _leaves(self.slot[v]):
                        free[self.buffers[idx]].append(idx)
        self.nbytes = sum(n * dt.itemsize for n, dt in self.buffers)

    def _place(self, free, t, own: bool):
        if isinstance(t, TupleType):
            return tuple(self._place(free, e, own) for e in t.elements)
        return self._take(free, t.size, np.dtype(t.np_dtype), own)

    def _take(self, free, size: int, dtype, own: bool) -> int:
        key = (size * dtype.itemsize, np.dtype(np.uint8)) if self._share else (size, dtype)
        if not own and free[key]:
            return free[key].pop()
        self.buffers.append(key)
        return len(self.buffers) - 1


def _is_alias(step) -> bool:
    return isinstance(step, Alias)


def _leaves(slot):
    if isinstance(slot, tuple):
        for s in slot:
            yield from _leaves(s)
    else:
        yield slot


class BoundPlan:
    """A :class:`~workbench.codegen.compiled.CompiledPlan` bound to prepared inputs.

    Parameters
    ----------
    compiled : CompiledPlan
    env : dict
        What :meth:`CompiledPlan.prepare` returned: value id -> device array of the inputs,
        constants and offline results.

    Notes
    -----
    Not thread-safe: one call at a time. The arrays :meth:`run` returns are overwritten by the
    next call.
    """

    def __init__(self, compiled, env: dict):
        self.compiled = compiled
        self.kernels = compiled.call
        ex = compiled.executor
        bp = compiled.buffer_plan
        self.buffers = [ex.empty(n, dt) for n, dt in bp.buffers]
        xg = compiled.xgraph
        views = {v: self._views(idx, xg.node(v).type, ex.name) for v, idx in bp.slot.items()}
        self.values = {**env, **views}
        for st in compiled.steps:   # free ops: their operand's buffer, read another way
            if _is_alias(st):
                self.values[st.value] = st.apply(self.values[st.source])
        self.arrays = []
        for kern, scratch in zip(self.kernels, bp.scratch):
            args = [self.values[v] for v in kern.inputs + kern.outputs]
            args += [_view(self.buffers[i], n, dt, ex.name)
                     for i, (n, dt) in zip(scratch, kern.scratch)]
            self.arrays.append(args)
        self.outputs = tuple(self._output(o) for o in compiled.graph.outputs)
        self.steps = _steps(self.kernels) if ex.name == "cpu" else []
        self._native_tables()

    def _views(self, slot, t, backend: str):
        if isinstance(t, TupleType):
            return tuple(self._views(s, e, backend) for s, e in zip(slot, t.elements))
        return _view(self.buffers[slot], t.size, t.np_dtype, backend)

    def _output(self, o):
        node = self.compiled.xgraph.node(o)
        if o in self.values:
            if self.compiled.executor.name != "cpu":
                return self.values[o]
            return map_leaves(lambda a, t: a.reshape(t.shape), self.values[o], node.type)
        return constant_array(node.attrs, node.type)

    def _native_tables(self):
        from workbench.codegen.native import pointer_table

        n = len(self.kernels)
        self._tables = [pointer_table(flat_leaves(a), k.table_tail) if k.address is not None
                        else None
                        for k, a in zip(self.kernels, self.arrays)]
        self.addresses = np.array([k.address or 0 for k in self.kernels], np.int64)
        self.table_addresses = np.array([t.ctypes.data if t is not None else 0
                                         for t in self._tables], np.int64)
        self.stamps = np.zeros(2 * max(n, 1), np.int64)

    def run(self) -> tuple:
        """Run every per-call kernel once; returns the graph's outputs (the plan's own
        buffers, reshaped on the CPU; device arrays on CUDA)."""
        ex = self.compiled.executor
        if ex.name != "cpu":
            for kern, args in zip(self.kernels, self.arrays):
                kern.launch(args) if not kern.fallback else ex.call(kern, args)
            ex.synchronize()
            return self.outputs
        from workbench.codegen.native import run_kernels

        for native, lo, hi in self.steps:
            if native:
                run_kernels(self.addresses, self.table_addresses, lo, hi)
            else:
                self.kernels[lo].launch(self.arrays[lo])
        return self.outputs

    def run_timed(self) -> tuple:
        """:meth:`run`, timing each kernel.

        Returns
        -------
        (outputs, seconds, starts) : (tuple, list of float, list of float)
            Per kernel in launch order: its duration and its start on ``time.perf_counter``'s
            clock (seconds).
        """
        if self.compiled.executor.name != "cpu":
            ex = self.compiled.executor
            secs, starts = [], []
            for kern, args in zip(self.kernels, self.arrays):
                starts.append(time.perf_counter())
                secs.append(ex.call(kern, args))
            return self.outputs, secs, starts
        outputs = self.run_stamped()
        secs, starts = self.stamp_seconds()
        return outputs, secs, starts

    def run_stamped(self) -> tuple:
        """The instrumented call alone (CPU): :meth:`run`, writing each kernel's start and end
        (``clock_gettime(CLOCK_MONOTONIC)`` nanoseconds, ``time.perf_counter``'s clock) into
        :attr:`stamps` (``[2k]`` and ``[2k + 1]`` for kernel ``k``); returns the outputs.
        :meth:`stamp_seconds` turns them into seconds afterwards, so that a caller timing the
        call from outside counts the clock reads but not that conversion."""
        from workbench.codegen.native import run_kernels_timed

        st = self.stamps
        for native, lo, hi in self.steps:
            if native:
                run_kernels_timed(self.addresses, self.table_addresses, lo, hi, st)
            else:
                t0 = time.perf_counter()
                self.kernels[lo].launch(self.arrays[lo])
                st[2 * lo], st[2 * lo + 1] = int(t0 * 1e9), int(time.perf_counter() * 1e9)
        return self.outputs

    def stamp_seconds(self) -> tuple[list, list]:
        """(durations, starts) of the last :meth:`run_stamped`, per kernel in launch order
        (seconds; starts on ``time.perf_counter``'s clock)."""
        st, n = self.stamps, len(self.kernels)
        return ((st[1:2 * n:2] - st[0:2 * n:2]) * 1e-9).tolist(), (st[0:2 * n:2] * 1e-9).tolist()


def _view(buffer, size: int, dtype, backend: str):
    if backend == "cpu":
        return buffer[:size * np.dtype(dtype).itemsize].view(dtype)
    return buffer


def _steps(kernels) -> list[tuple[bool, int, int]]:
    """Maximal runs of native kernels ``(True, lo, hi)`` and Python calls ``(False, k, k+1)``."""
    steps = []
    for k, kern in enumerate(kernels):
        native = kern.address is not None
        if native and steps and steps[-1][0]:
            steps[-1] = (True, steps[-1][1], k + 1)
        else:
            steps.append((native, k, k + 1))
    return steps

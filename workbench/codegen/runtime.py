"""Running compiled plans: buffers, launches, the numpy fallback, memory accounting, timing.

Every value passed between kernels is a flat (1-D, row-major, contiguous) array: numpy on the
CPU, a device array on CUDA; the value of a multi-output op (a sort, a while loop) is a tuple of
such arrays. Values are freed after their last use. The peak of live bytes is computed before
anything is allocated, so that a plan needing more than a cap is refused with a
:class:`~workbench.errors.ResourceLimitError` instead of running out of memory.

Free ops (a bitcast that keeps the row-major order, a get-tuple-element) launch no kernel: an
:class:`Alias` makes their value another view of their operand's buffer.
"""

from __future__ import annotations

import time

import numpy as np

from dataclasses import dataclass

from workbench.errors import EvaluationError, WorkbenchError
from workbench.ir.graph import Graph
from workbench.ir.interpreter import cannot_evaluate
from workbench.ir.ops import constant_array, get_op
from workbench.ir.types import DTYPES, TensorType, TupleType


def map_leaves(fn, value, t):
    """``fn(array, tensor_type)`` on a value, element by element when it is a tuple."""
    if isinstance(t, TupleType):
        return tuple(map_leaves(fn, v, e) for v, e in zip(value, t.elements))
    return fn(value, t)


def flat_leaves(values) -> list:
    """The arrays of ``values`` with every tuple value (nested) replaced by its elements, in
    order: a CPU kernel's pointer table holds one pointer per array."""
    out = []
    for v in values:
        if isinstance(v, tuple):
            out.extend(flat_leaves(v))
        else:
            out.append(v)
    return out


def allocate(t, alloc):
    """A buffer for a value of type ``t``: ``alloc(size, dtype)``, a tuple of them for a tuple."""
    if isinstance(t, TupleType):
        return tuple(allocate(e, alloc) for e in t.elements)
    return alloc(t.size, t.np_dtype)


@dataclass(frozen=True)
class Alias:
    """A free op of the plan: its value is its operand's buffer read another way.

    Attributes
    ----------
    group_id : str
        The plan group (role ``free``).
    value, source : str
        The op's value and its operand.
    op : str
        ``bitcast`` or ``get-tuple-element``.
    index : int
        The tuple element (get-tuple-element).
    dtype : numpy.dtype or None
        A bitcast's new element type, when it reinterprets the bits.
    """

    group_id: str
    value: str
    source: str
    op: str
    index: int = 0
    dtype: object = None

    @property
    def inputs(self):
        return (self.source,)

    @property
    def outputs(self):
        return (self.value,)

    scratch_bytes = 0

    def apply(self, array):
        """The value from the operand's buffer (no copy)."""
        if self.op in ("get-tuple-element",):
            return array[self.index]
        if self.dtype is not None:
            return array.view(self.dtype)
        return array


def make_alias(xgraph: Graph, group) -> Alias:
    """The alias of a free group (one bitcast or get-tuple-element)."""
    (nid,) = group.nodes
    node = xgraph.node(nid)
    dtype = node.type.np_dtype if node.op == "bitcast" and "dtype" in node.attrs else None
    return Alias(group.id, nid, node.operands[0], node.op, node.attrs.get("index", 0), dtype)


def fallback_launcher(xgraph: Graph, members, inputs, outputs):
    """A launch function computing a group's ops with their numpy references, in order.

    Parameters
    ----------
    xgraph : Graph
        The composite-expanded graph.
    members : sequence of str
        The group's nodes in ``xgraph``, in topological order.
    inputs, outputs : sequence of str
        Value ids of the kernel's arguments.

    Returns
    -------
    callable(list of flat numpy arrays) -> None
        Reads ``inputs``, writes the flat ``outputs`` in place.
    """
    types = {v: xgraph.node(v).type for v in list(inputs) + list(outputs)}
    nodes = [xgraph.node(m) for m in members]

    def launch(arrays):
        env = {v: map_leaves(lambda a, t: _as_dtype(a, t.np_dtype).reshape(t.shape), arr,
                             types[v])
               for v, arr in zip(inputs, arrays)}
        for node in nodes:
            args = []
            for o in node.operands:
                if o not in env:
                    src = xgraph.node(o)
                    env[o] = constant_array(src.attrs, src.type)
                args.append(env[o])
            opdef = get_op(node.op)
            if opdef.reference is None:
                raise cannot_evaluate(xgraph, node)
            try:
                value = opdef.reference(args, node.attrs, node.type)
            except WorkbenchError as exc:
                raise EvaluationError(f"{node.op}: {exc.message}", node=node.id) from None
            env[node.id] = map_leaves(
                lambda a, t: np.asarray(a).astype(t.np_dtype, copy=False), value, node.type)
        for k, v in enumerate(outputs):
            def put(dst, src):
                src = np.asarray(src)
                _as_dtype(dst, src.dtype)[...] = src.reshape(-1)
            _zip_leaves(put, arrays[len(inputs) + k], env[v])
    return launch


def _as_dtype(a, dtype):
    """``a`` viewed as ``dtype`` when it holds that dtype's bits (bf16/f16 as uint16 on CUDA)."""
    if a.dtype != dtype and a.dtype.itemsize == np.dtype(dtype).itemsize:
        return a.view(dtype)
    return a


def _bits_dtype(dtype):
    """uint16 for bf16 and f16 (device buffers hold the bits), else ``dtype``."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 2 and (dtype.kind == "f" or dtype.name == "bfloat16"):
        return np.dtype(np.uint16)
    return dtype


def _zip_leaves(fn, a, b):
    if isinstance(a, tuple):
        for x, y in zip(a, b):
            _zip_leaves(fn, x, y)
    else:
        fn(a, b)


class Liveness:
    """When each value is last read, and the peak bytes a plan keeps alive.

    Parameters
    ----------
    kernels : sequence of objects with ``inputs``, ``outputs`` (value ids) and ``scratch_bytes``
    graph_outputs : sequence of str
    nbytes : callable(value id) -> int
    sources : sequence of str
        Values alive from the start to the end (parameters, constant arrays: the caller holds
        the inputs).
    """

    def __init__(self, kernels, graph_outputs, nbytes, sources):
        self.last = {}
        for k, kern in enumerate(kernels):
            for v in kern.inputs:
                self.last[v] = k
        keep = set(graph_outputs) | set(sources)
        live = set(sources)
        cur = sum(nbytes(v) for v in live)
        peak, at = cur, None
        for k, kern in enumerate(kernels):
            new = [v for v in kern.outputs if v not in live]
            cur += sum(nbytes(v) for v in new)
            live.update(new)
            if cur + kern.scratch_bytes > peak:
                peak, at = cur + kern.scratch_bytes, kern.group_id
            dead = [v for v in live if self.last.get(v, -1) <= k and v not in keep]
            for v in dead:
                cur -= nbytes(v)
                live.discard(v)
        self.peak_bytes = peak
        self.peak_group = at

    def dead_after(self, k: int, keep) -> list[str]:
        """Values whose last reader is kernel ``k`` (and are not graph outputs)."""
        return [v for v, last in self.last.items() if last == k and v not in keep]


class CpuExecutor:
    """Host arrays; kernel time measured with ``time.perf_counter``."""

    name = "cpu"

    def to_device(self, array):
        # a copy for read-only arrays (np.asarray(jax_array), np.load(mmap_mode="r")) and
        # non-contiguous ones: kernels take writable C-contiguous arrays
        flat = np.ascontiguousarray(array).reshape(-1)
        return flat if flat.flags.writeable else flat.copy()

    def empty(self, size, dtype):
        return np.empty(size, dtype)

    def to_host(self, array):
        return array

    def synchronize(self):
        """Nothing to wait for: CPU kernels return when done."""

    def call(self, kernel, arrays) -> float:
        t0 = time.perf_counter()
        kernel.launch(arrays)
        return time.perf_counter() - t0


class CudaExecutor:
    """Device arrays; kernel time from CUDA events (perf_counter in the simulator)."""

    def __init__(self, simulator: bool):
        from numba import cuda

        self.cuda = cuda
        self.simulator = simulator
        self.name = "cuda-sim" if simulator else "cuda"

    def to_device(self, array):
        flat = np.ascontiguousarray(array).reshape(-1)
        return self.cuda.to_device(flat.view(_bits_dtype(flat.dtype)))

    def empty(self, size, dtype):
        return self.cuda.device_array(size, _bits_dtype(dtype))

    def to_host(self, array):
        return array.copy_to_host()

    def synchronize(self):
        """Wait for every launched kernel."""
        self.cuda.synchronize()

    def call(self, kernel, arrays) -> float:
        if kernel.fallback:
            host = [_host(a) for a in arrays]
            t0 = time.perf_counter()
            kernel.launch(host)
            dt = time.perf_counter() - t0
            for a, h in zip(arrays[len(kernel.inputs):], host[len(kernel.inputs):]):
                _zip_leaves(lambda d, x: d.copy_to_device(x), a, h)
            return dt
        if self.simulator:
            t0 = time.perf_counter()
            kernel.launch(arrays)
            return time.perf_counter() - t0
        start, end = self.cuda.event(), self.cuda.event()
        start.record()
        kernel.launch(arrays)
        end.record()
        end.synchronize()
        return self.cuda.event_elapsed_time(start, end) / 1e3


def _host(a):
    return tuple(_host(x) for x in a) if isinstance(a, tuple) else a.copy_to_host()


def make_executor(backend: str):
    if backend == "cpu":
        return CpuExecutor()
    return CudaExecutor(simulator=backend == "cuda-sim")


def table_launcher(fn, spec, tail=()):
    """A launch function ``launch(arrays)`` for a CPU kernel taking a pointer table: it checks
    each array against the kernel's declared ``(dtype, elements)`` (a wrong array would be
    read or written out of bounds), builds the table (the arrays' addresses, then the
    addresses ``tail``) and calls the kernel.

    Raises
    ------
    EvaluationError
        For a wrong number of arrays, or an array of another dtype, size or layout.
    """
    # bf16 and f16 arrays may also come as their bits (uint16): the kernel reads bits
    want = [({np.dtype(DTYPES[d])} | ({np.dtype(np.uint16)} if d in ("bf16", "f16") else set()),
             n) for d, n in spec]

    def launch(arrays):
        arrays = flat_leaves(arrays)      # a tuple value (a sort's) is one array per element
        if len(arrays) != len(want):
            raise EvaluationError(f"kernel takes {len(want)} arrays, got {len(arrays)}")
        for k, (a, (dts, n)) in enumerate(zip(arrays, want)):
            if a.dtype not in dts or a.size != n or not a.flags.c_contiguous:
                raise EvaluationError(f"kernel argument {k}: expected {n} contiguous "
                                      f"{min(map(str, dts))}, got {a.size} {a.dtype}")
        table = np.array([a.ctypes.data for a in arrays] + list(tail), dtype=np.int64)
        fn(table.ctypes.data)
    return launch

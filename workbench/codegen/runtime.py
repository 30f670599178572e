"""Running compiled plans: buffers, launches, the numpy fallback, memory accounting, timing.

Every value passed between kernels is a flat (1-D, row-major, contiguous) array: numpy on the
CPU, a device array on CUDA. Values are freed after their last use. The peak of live bytes is
computed before anything is allocated, so that a plan needing more than a cap is refused with a
:class:`~workbench.errors.ResourceLimitError` instead of running out of memory.
"""

from __future__ import annotations

import time

import numpy as np

from workbench.errors import EvaluationError, WorkbenchError
from workbench.ir.graph import Graph
from workbench.ir.ops import constant_array, get_op


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
    shapes = {v: xgraph.node(v).type.shape for v in list(inputs) + list(outputs)}
    nodes = [xgraph.node(m) for m in members]

    def launch(arrays):
        env = {v: a.reshape(shapes[v]) for v, a in zip(inputs, arrays)}
        for node in nodes:
            args = []
            for o in node.operands:
                if o not in env:
                    src = xgraph.node(o)
                    env[o] = constant_array(src.attrs, src.type)
                args.append(env[o])
            opdef = get_op(node.op)
            if opdef.reference is None:
                raise EvaluationError(f"op {node.op} has no reference implementation",
                                      node=node.id)
            try:
                value = opdef.reference(args, node.attrs, node.type)
            except WorkbenchError as exc:
                raise EvaluationError(f"{node.op}: {exc.message}", node=node.id) from None
            env[node.id] = np.asarray(value).astype(node.type.np_dtype, copy=False)
        for k, v in enumerate(outputs):
            arrays[len(inputs) + k][...] = env[v].reshape(-1)
    return launch


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
        return np.ascontiguousarray(array).reshape(-1)

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
        return self.cuda.to_device(np.ascontiguousarray(array).reshape(-1))

    def empty(self, size, dtype):
        return self.cuda.device_array(size, dtype)

    def to_host(self, array):
        return array.copy_to_host()

    def synchronize(self):
        """Wait for every launched kernel."""
        self.cuda.synchronize()

    def call(self, kernel, arrays) -> float:
        if kernel.fallback:
            host = [a.copy_to_host() for a in arrays]
            t0 = time.perf_counter()
            kernel.launch(host)
            dt = time.perf_counter() - t0
            for a, h in zip(arrays[len(kernel.inputs):], host[len(kernel.inputs):]):
                a.copy_to_device(h)
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


def make_executor(backend: str):
    if backend == "cpu":
        return CpuExecutor()
    return CudaExecutor(simulator=backend == "cuda-sim")

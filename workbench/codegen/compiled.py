"""CompiledPlan: the kernels of a plan, run in launch order on one backend."""

from __future__ import annotations

import numpy as np

from workbench.codegen.runtime import Liveness, allocate, make_executor, map_leaves
from workbench.errors import ResourceLimitError
from workbench.ir import DEFAULT_MAX_BYTES
from workbench.ir.interpreter import _coerce_inputs
from workbench.ir.ops import constant_array


class CompiledPlan:
    """A plan compiled for one backend (made by :func:`~workbench.codegen.compile_plan`).

    Attributes
    ----------
    graph : Graph
    plan : Plan
    backend : str
    kernels : list of CompiledKernel
        One per group that runs, in launch order: ``role`` ``call`` (every call) or ``offline``
        (weight folding: run once, by :meth:`prepare`). Dead groups get no kernel.
    skipped : list of str
        Ids of the plan's dead groups (no output depends on them), which back ends skip.
    aliases : list of Alias
        The plan's free groups (one bitcast or get-tuple-element each): no kernel, their value
        is another view of their operand's buffer.
    notes : list of str
        Facts for the report ("no GPU: ran on cpu", kernels that fell back).
    peak_bytes : int
        Bytes of values alive at once while running (inputs, intermediates, outputs, scratch).
    offline_s : list of float
        Seconds each offline kernel took in the last :meth:`prepare`.
    """

    def __init__(self, graph, xgraph, plan, backend, kernels, notes, skipped=(), aliases=()):
        self.graph = graph
        self.xgraph = xgraph
        self.plan = plan
        self.backend = backend
        self.kernels = kernels
        self.skipped = list(skipped)
        self.aliases = list(aliases)
        self.notes = notes
        self.executor = make_executor(backend)
        needed = {v for k in list(kernels) + self.aliases for v in k.inputs}
        self.constants = {v: constant_array(xgraph.node(v).attrs, xgraph.node(v).type)
                          for v in sorted(needed) if xgraph.node(v).op == "constant"}
        self.offline = [k for k in kernels if k.role == "offline"]
        self.call = [k for k in kernels if k.role != "offline"]
        order = {g.id: i for i, g in enumerate(plan.groups)}
        #: per-call kernels and aliases in plan order
        self.steps = sorted(self.call + self.aliases, key=lambda k: order[k.group_id])
        sources = ([p.id for p in graph.parameters] + list(self.constants)
                   + [v for k in self.offline for v in k.outputs])
        self.liveness = Liveness(self.steps, graph.outputs, self._nbytes, sources)
        self.peak_bytes = self.liveness.peak_bytes
        self.offline_s: list[float] = []
        self._pool: dict = {}

    def _nbytes(self, v) -> int:
        return self.xgraph.node(v).type.nbytes

    @property
    def compile_s(self) -> float:
        """Seconds spent compiling (or loading from the cache) all kernels."""
        return sum(k.compile_s for k in self.kernels)

    def check_memory(self, max_bytes: int | None) -> None:
        """Refuse, before allocating, a plan whose live values would exceed ``max_bytes``.

        Raises
        ------
        ResourceLimitError
        """
        if max_bytes is not None and self.peak_bytes > max_bytes:
            raise ResourceLimitError(
                f"running the plan needs {self.peak_bytes / 2**20:.1f} MiB of live tensors "
                f"(peak at group {self.liveness.peak_group}), more than the cap of "
                f"{max_bytes / 2**20:.1f} MiB")

    def prepare(self, inputs, max_bytes: int | None = DEFAULT_MAX_BYTES) -> dict:
        """Check the memory cap, place inputs and constants on the device, and run the offline
        (weight-folding) kernels once; returns the environment :meth:`execute` runs on."""
        self.check_memory(max_bytes)
        host = _coerce_inputs(self.graph, inputs)
        ex = self.executor
        env = {k: ex.to_device(v) for k, v in host.items()}
        for v, arr in self.constants.items():
            env[v] = ex.to_device(arr)
        self.offline_s = []
        for kern in self.offline:
            outs = [allocate(self.xgraph.node(v).type, ex.empty) for v in kern.outputs]
            scratch = [ex.empty(size, dtype) for size, dtype in kern.scratch]
            self.offline_s.append(ex.call(kern, [env[v] for v in kern.inputs] + outs + scratch))
            env.update(zip(kern.outputs, outs))
        return env

    def execute(self, env: dict, times: list | None = None, after_kernel=None) -> tuple:
        """Run the per-call kernels once on prepared inputs; append each one's seconds to
        ``times`` (in the order of :attr:`call`); call ``after_kernel(k, n, kernel)`` after
        each (outside the timed launch).

        Intermediate, output and scratch arrays come from a pool kept between runs (as XLA's
        runtime reuses its buffers), so that repeated runs measure the kernels rather than the
        page faults of fresh allocations. The returned outputs are copies. Not thread-safe: one
        run at a time per compiled plan.
        """
        env = dict(env)
        owned = {}             # value -> the buffer it was allocated in (ours, pooled)
        base = {}              # alias value -> the value whose buffer it reads
        refs = {}              # allocated value -> live values reading its buffer
        keep = set(self.graph.outputs)
        done = 0
        for k, kern in enumerate(self.steps):
            if kern.__class__.__name__ == "Alias":
                env[kern.value] = kern.apply(env[kern.source])
                root = base.get(kern.source, kern.source)
                if root in owned:
                    base[kern.value] = root
                    refs[root] += 1
            else:
                outs = [allocate(self.xgraph.node(v).type, self._alloc) for v in kern.outputs]
                scratch = [self._alloc(size, dtype) for size, dtype in kern.scratch]
                dt = self.executor.call(kern, [env[v] for v in kern.inputs] + outs + scratch)
                done += 1
                if times is not None:
                    times.append(dt)
                if after_kernel is not None:
                    after_kernel(done, len(self.call), kern)
                env.update(zip(kern.outputs, outs))
                for v, a in zip(kern.outputs, outs):
                    owned[v], refs[v] = a, 1
                for a in scratch:
                    self._release(a)
            for v in self.liveness.dead_after(k, keep):
                env.pop(v, None)
                self._drop(v, owned, base, refs)
        results = tuple(self._result(env, o) for o in self.graph.outputs)
        for a in owned.values():
            self._release(a)
        return results

    def _drop(self, v, owned, base, refs):
        """``v`` is dead: return its buffer to the pool once no alias reads it."""
        root = base.pop(v, v)
        if root not in refs:
            return
        refs[root] -= 1
        if refs[root] == 0:
            del refs[root]
            self._release(owned.pop(root))

    def _alloc(self, size, dtype):
        free = self._pool.get((size, np.dtype(dtype).str))
        return free.pop() if free else self.executor.empty(size, dtype)

    def _release(self, array):
        if isinstance(array, tuple):
            for a in array:
                self._release(a)
            return
        self._pool.setdefault((array.size, np.dtype(array.dtype).str), []).append(array)

    def _result(self, env, o):
        node = self.xgraph.node(o)
        if o in env:
            def host(a, t):
                out = np.array(self.executor.to_host(a))
                if out.dtype != t.np_dtype:            # bf16/f16 bits from a device
                    out = out.view(t.np_dtype)
                return out.reshape(t.shape)
            return map_leaves(host, env[o], node.type)
        return constant_array(node.attrs, node.type)

    def run(self, inputs, *, max_bytes: int | None = DEFAULT_MAX_BYTES) -> tuple:
        """Run the plan on ``inputs``; returns the outputs in graph output order.

        Parameters
        ----------
        inputs : sequence of arrays (parameter order) or mapping (``argN``, id or index)
        max_bytes : int or None
            Refuse to start (before allocating) if the plan's live tensors exceed this.

        Returns
        -------
        tuple of numpy.ndarray

        Raises
        ------
        ResourceLimitError, EvaluationError
        """
        return self.execute(self.prepare(inputs, max_bytes))

    def source(self, group_id: str) -> str:
        """The generated source of one group's kernel ('' for a fallback)."""
        for k in self.kernels:
            if k.group_id == group_id:
                return k.source
        raise KeyError(group_id)

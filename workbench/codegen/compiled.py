"""CompiledPlan: the kernels of a plan, run in launch order on one backend."""

from __future__ import annotations

import numpy as np

from workbench.codegen.program import BoundPlan, BufferPlan
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
        self._buffer_plan: BufferPlan | None = None
        self._bound = None

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

    def value_type(self, v) -> tuple[int, np.dtype]:
        """(elements, numpy dtype) of a value."""
        t = self.xgraph.node(v).type
        return t.size, t.np_dtype

    @property
    def buffer_plan(self) -> BufferPlan:
        """Where each value of a call lives (made once, on first use)."""
        if self._buffer_plan is None:
            sources = {p.id for p in self.graph.parameters} | set(self.constants) | {
                v for k in self.offline for v in k.outputs}
            self._buffer_plan = BufferPlan(self.steps, self.graph.outputs, self.xgraph,
                                           sources, share_dtypes=self.backend == "cpu")
        return self._buffer_plan

    def bind(self, env: dict) -> BoundPlan:
        """The plan bound to prepared inputs (:meth:`prepare`): its buffers allocated once and
        every kernel's arguments fixed, so that :meth:`BoundPlan.run` runs a call with no
        allocation and (CPU) no Python between kernels."""
        return BoundPlan(self, env)

    def execute(self, env: dict, times: list | None = None, after_kernel=None,
                copy: bool = True) -> tuple:
        """Run the per-call kernels once on prepared inputs.

        Parameters
        ----------
        env : dict
            From :meth:`prepare`. The plan is bound to it on first use (buffers allocated
            once, :meth:`bind`) and reused while the same ``env`` is passed.
        times : list, optional
            Each kernel's seconds are appended (in the order of :attr:`call`), measured by the
            instrumented run (:meth:`BoundPlan.run_timed`).
        after_kernel : callable(k, n, kernel), optional
            Called for each kernel after the run (k = 1..n).
        copy : bool
            True: return host copies of the outputs; False: the plan's own output buffers,
            which the next run overwrites (no copy, as ``jax.jit`` returns its buffers).

        Returns
        -------
        tuple of arrays
            The outputs in graph output order, shaped.

        Notes
        -----
        Not thread-safe: one run at a time per compiled plan.
        """
        if self._bound is None or self._bound[0] is not env:
            self._bound = (env, self.bind(env))
        bound = self._bound[1]
        if times is None and after_kernel is None:
            outs = bound.run()
        else:
            outs, secs, _ = bound.run_timed()
            if times is not None:
                times.extend(secs)
            if after_kernel is not None:
                for k, kern in enumerate(self.call):
                    after_kernel(k + 1, len(self.call), kern)
        return tuple(self._host(o, v, copy) for o, v in zip(outs, self.graph.outputs))

    def _host(self, array, value: str, copy: bool):
        """An output as host arrays of its type (a tuple for a tuple value): the buffer itself
        on the CPU unless ``copy``; copied from a device, bf16/f16 bits viewed as their dtype."""
        def host(a, t):
            if isinstance(a, np.ndarray):
                out = np.array(a) if copy else a
            else:
                out = np.asarray(self.executor.to_host(a))
            if out.dtype != t.np_dtype:
                out = out.view(t.np_dtype)
            return out.reshape(t.shape)
        return map_leaves(host, array, self.xgraph.node(value).type)

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
        bound = self.bind(self.prepare(inputs, max_bytes))
        return tuple(self._host(o, v, copy=False)
                     for o, v in zip(bound.run(), self.graph.outputs))

    def source(self, group_id: str) -> str:
        """The generated source of one group's kernel ('' for a fallback)."""
        for k in self.kernels:
            if k.group_id == group_id:
                return k.source
        raise KeyError(group_id)

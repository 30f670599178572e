"""Kernel code generation: each fusion group of a plan becomes one numba kernel.

>>> from workbench.codegen import compile_plan              # doctest: +SKIP
>>> compiled = compile_plan(graph, plan, backend="cpu")     # doctest: +SKIP
>>> outputs = compiled.run(inputs)                          # doctest: +SKIP

Pipeline per group: :mod:`~workbench.codegen.lower` (group -> kernel IR, rules in
:mod:`~workbench.codegen.lower_rules`), a backend renderer (:mod:`~workbench.codegen.cpu`,
:mod:`~workbench.codegen.cuda`, emitter tables in :mod:`~workbench.codegen.emitters`), the
kernel cache (:mod:`~workbench.codegen.cache`), the runtime (:mod:`~workbench.codegen.runtime`),
and correctness checks against the reference interpreter (:mod:`~workbench.codegen.check`).
"""

from workbench.codegen.backend import BACKENDS, detect_backend, resolve_backend
from workbench.codegen.cache import default_cache_dir
from workbench.codegen.check import OutputCheck, check_outputs, reference_outputs, tolerance
from workbench.codegen.compile import CompiledKernel, compile_plan
from workbench.codegen.compiled import CompiledPlan

__all__ = [
    "BACKENDS", "CompiledKernel", "CompiledPlan", "OutputCheck", "check_outputs",
    "compile_plan", "default_cache_dir", "detect_backend", "reference_outputs", "resolve_backend",
    "tolerance",
]

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

import os

# numba's OpenMP thread pool: let idle workers spin briefly, then sleep. GNU OpenMP's default
# spin (300,000 iterations, or forever with OMP_WAIT_POLICY=ACTIVE) competes with the main thread
# between the many short parallel kernels of a plan; on a busy 2-core machine each launch then
# waited a scheduler time slice (~8 ms). Read by libgomp when numba first starts its threads.
os.environ.setdefault("GOMP_SPINCOUNT", "20000")

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

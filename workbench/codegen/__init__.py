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

# numba's OpenMP thread pool: idle workers sleep at once instead of spinning. With GNU OpenMP's
# default spinning, the short parallel kernels of a plan competed with the main thread and with
# other processes on a busy 2-core machine, and a launch sometimes waited a scheduler time
# slice (1-8 ms instead of 20-50 us); sleeping costs a wake-up (~25 us) per parallel kernel,
# which the CPU backend amortises by running small kernels serially. Read by libgomp when numba
# first starts its threads; set OMP_WAIT_POLICY yourself to override.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

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

"""Backend choice and what each backend lowers natively.

``auto`` picks ``cuda-sim`` when numba's CUDA simulator is on (it must be switched on with
``NUMBA_ENABLE_CUDASIM=1`` before numba is first imported, and in the simulator
``cuda.is_available()`` is true, so the flag is checked first), else ``cuda`` when a GPU is
available, else ``cpu``.
"""

from __future__ import annotations

import importlib.util

from workbench.codegen.emitters import CPU_TABLE, CUDA_TABLE, REDUCERS
from workbench.codegen.lower import Caps
from workbench.errors import CompileError

BACKENDS = ("cpu", "cuda", "cuda-sim")

#: dtypes numba kernels handle: bf16 and f16 as their bits in uint16 buffers, computed in
#: float32 and rounded after every op (complex and the f8 types run through the numpy fallback)
KERNEL_DTYPES = frozenset({"pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64",
                           "f32", "f64", "bf16", "f16"})


def simulator_enabled() -> bool:
    """True if numba's CUDA simulator is active in this process."""
    from numba import config

    return bool(config.ENABLE_CUDASIM)


def gpu_available() -> bool:
    """True if a real CUDA GPU can be used (false under the simulator)."""
    if simulator_enabled():
        return False
    try:
        from numba import cuda

        return bool(cuda.is_available())
    except Exception:  # driver libraries missing or broken: no GPU
        return False


def detect_backend() -> str:
    """``cuda-sim``, ``cuda`` or ``cpu``, in that order of preference (see module notes)."""
    if simulator_enabled():
        return "cuda-sim"
    return "cuda" if gpu_available() else "cpu"


def resolve_backend(name: str = "auto") -> tuple[str, list[str]]:
    """The backend to use for ``name`` and notes for the report.

    Raises
    ------
    CompileError
        For an unknown name, ``cuda`` without a GPU, or ``cuda-sim`` without the simulator.
    """
    notes = []
    if name in (None, "auto"):
        backend = detect_backend()
        if backend == "cpu":
            notes.append("no GPU: ran on cpu")
        return backend, notes
    if name not in BACKENDS:
        raise CompileError(f"unknown backend {name!r} (choose auto, {', '.join(BACKENDS)})")
    if name == "cuda-sim" and not simulator_enabled():
        raise CompileError("the CUDA simulator is off in this process: set "
                           "NUMBA_ENABLE_CUDASIM=1 before numba is imported (for the command "
                           "line: NUMBA_ENABLE_CUDASIM=1 workbench run ...)")
    if name == "cuda" and not gpu_available():
        raise CompileError("no CUDA GPU is available here" + (
            " (the CUDA simulator is on)" if simulator_enabled() else "")
            + "; use --backend cpu or cuda-sim")
    return name, notes


#: CPU row caches on (see workbench.codegen.lower); bench/bench_codegen.py turns them off to
#: measure what they save
ROW_CACHE = True


def capabilities(backend: str) -> Caps:
    """What ``backend`` lowers natively (see :class:`~workbench.codegen.lower.Caps`)."""
    if backend == "cpu":
        blas = importlib.util.find_spec("scipy") is not None  # numba's np.dot needs scipy
        return Caps("cpu", frozenset(CPU_TABLE) | frozenset(REDUCERS), KERNEL_DTYPES,
                    phases=True, blas_dot=blas, blas_conv=blas, row_cache=ROW_CACHE)
    return Caps(backend, frozenset(CUDA_TABLE) | frozenset(REDUCERS), KERNEL_DTYPES,
                phases=True, tiled_dot=True)


def fast_math_table(exact: bool) -> tuple[str | None, str, list[str]]:
    """(table name, source hash, notes) for the CPU's float32 math functions.

    The table comes from :mod:`workbench.codegen.fastmath` (``FAST``: branch-free polynomial
    approximations that vectorise; ``EXACT``: libm); without that module, ``math`` is used.
    """
    from workbench.codegen.source import module_hash

    if importlib.util.find_spec("workbench.codegen.fastmath") is None:
        return None, "", ["float32 exp/log/tanh/logistic/erf call libm (no fastmath module)"]
    digest = module_hash("workbench.codegen.fastmath")
    if importlib.util.find_spec("workbench.codegen.fastmath_f64") is not None:
        digest += "-" + module_hash("workbench.codegen.fastmath_f64")
    return ("EXACT" if exact else "FAST"), digest, []

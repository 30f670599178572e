"""Tasks and their outcomes: what an executor runs and what it gives back (see
:mod:`workbench.tuning.executors`)."""

from __future__ import annotations

import importlib
import os
import platform
from dataclasses import dataclass, field

from workbench.errors import InputError, TuneError, WorkbenchError

#: default seconds a task may run (compile, check and time one plan)
TIMEOUT_S = 600.0


@dataclass(frozen=True)
class Task:
    """One unit of work.

    Attributes
    ----------
    fn : str
        ``"package.module:function"``: a function of an installed module, named by the
        workbench's own code (the measurement task, :data:`~workbench.tuning.measure.MEASURE`),
        never by an input file.
    kwargs : dict
        Its keyword arguments (picklable workbench values).
    timeout_s : float
        Seconds it may run before its worker is killed.
    backend : str
        The backend it measures on; ``cuda`` asks Ray for a GPU.
    """

    fn: str
    kwargs: dict = field(default_factory=dict)
    timeout_s: float = TIMEOUT_S
    backend: str = "cpu"


@dataclass(frozen=True)
class Outcome:
    """What came of a task: ``status`` is ``ok``, ``error``, ``crash``, ``timeout`` or
    ``unavailable``; ``value`` is set when ok, ``message`` (one line) otherwise; ``seconds`` is
    the wall time it took."""

    status: str
    value: object = None
    message: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def value_or_raise(self):
        """The value, or a :class:`TuneError` with the one-line message."""
        if not self.ok:
            raise TuneError(self.message)
        return self.value


def resolve(fn: str):
    """The function a task names.

    Raises
    ------
    InputError
        If the name is not ``module:function`` or does not exist.
    """
    module, _, name = fn.partition(":")
    if not module or not name:
        raise InputError(f"a task must name a function as 'module:function', not {fn!r}")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise InputError(f"no task function {fn!r}: {exc}") from None


def call_task(fn: str, kwargs: dict) -> tuple:
    """Run a task here; ``("ok", value)`` or ``("error", one-line message)``."""
    try:
        return "ok", resolve(fn)(**kwargs)
    except WorkbenchError as exc:
        return "error", str(exc)
    except Exception as exc:  # generated code or a backend failing: report it, do not die
        text = " ".join(str(exc).split())[:300]
        return "error", f"{type(exc).__name__}: {text}"



def ray_entry(fn: str, kwargs: dict) -> tuple:
    """What a Ray task runs: :func:`call_task` in the Ray worker process."""
    return call_task(fn, kwargs)


def host_id(backend: str = "cpu") -> str:
    """This machine, as measurements name it: ``host|machine|N cpus`` (and the GPU's name for
    ``cuda``)."""
    base = f"{platform.node()}|{platform.machine()}|{os.cpu_count()} cpus"
    if backend == "cuda":
        try:
            from numba import cuda

            name = cuda.get_current_device().name
            base += f"|{name.decode() if isinstance(name, bytes) else name}"
        except Exception:  # no GPU: the measurement will fail with its own error
            pass
    return base

"""Executors: where compile-and-measure tasks run — worker processes here, or Ray tasks.

A :class:`Task` names a function (``"module:function"``, never code from an input file) and its
keyword arguments (a graph, a plan, a backend: values the workbench made). An executor runs a
list of tasks and returns one :class:`Outcome` per task, in order: its value, or the one-line
reason it has none — the function raised a :class:`~workbench.errors.WorkbenchError`
(``error``), its worker process died (``crash``: a segfault in generated code, a hard exit), it
ran past its timeout (``timeout``: the worker is killed), or the executor could not run it
(``unavailable``: no GPU in the cluster). A failed task never takes the caller down.

:class:`LocalExecutor` runs each task in a worker process, a fresh interpreter running
:mod:`workbench.tuning.worker` (never forked from the caller, which may be a threaded web
server); a worker is reused for the next task until one fails, then replaced. :class:`RayExecutor` submits each task as a Ray task with
a resource request (``num_gpus=1``, i.e. ``{"GPU": 1}``, for CUDA timing; one CPU otherwise),
``max_retries=0``, and the same timeout (``ray.cancel(force=True)`` kills a task that runs
past it); without an address it starts a local Ray on this machine, with one it connects to a
running cluster (``ray start --head`` prints the address). Only this package imports ray, and
only inside :class:`RayExecutor`.
"""

from __future__ import annotations

import importlib.util
import select
import signal
import subprocess
import sys
import time

from workbench.errors import InputError
from workbench.tuning.ray_executor import RayExecutor
from workbench.tuning.tasks import TIMEOUT_S, Outcome, Task, call_task, resolve
from workbench.tuning.worker import read_frame, write_frame

def _exit_text(code) -> str:
    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


class _Worker:
    """One worker process (``python -m workbench.tuning.worker``) and its pipes."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "workbench.tuning.worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, close_fds=True)

    def send(self, fn: str, kwargs: dict) -> None:
        write_frame(self.proc.stdin, (fn, kwargs))

    def wait(self, timeout_s: float) -> bool:
        """True when a result (or the end of the pipe) is ready within ``timeout_s``."""
        ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, timeout_s))
        return bool(ready)

    def receive(self):
        return read_frame(self.proc.stdout.fileno())

    def stop(self, kill: bool = False) -> None:
        for fh in (self.proc.stdin, self.proc.stdout):
            try:
                fh.close()
            except OSError:
                pass
        if kill:
            self.proc.kill()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


class LocalExecutor:
    """Tasks in worker processes on this machine, one at a time (see the module notes)."""

    name = "local"

    def __init__(self):
        self._worker: _Worker | None = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        """Stop the worker process."""
        if self._worker is not None:
            self._worker.stop()
            self._worker = None

    def device_key(self, backend: str) -> str:
        """The measuring device as the results store keys it: this machine."""
        from workbench.tuning.tasks import host_id

        return host_id(backend)

    def run(self, tasks) -> list[Outcome]:
        """Run ``tasks`` in order; one :class:`Outcome` each."""
        return [self._one(t) for t in tasks]

    def _one(self, task: Task) -> Outcome:
        t0 = time.perf_counter()
        if self._worker is None or self._worker.proc.poll() is not None:
            self._worker = _Worker()
        w = self._worker
        try:
            w.send(task.fn, task.kwargs)
            if w.wait(task.timeout_s):
                status, value = w.receive()
                took = time.perf_counter() - t0
                return Outcome("ok", value, seconds=took) if status == "ok" else \
                    Outcome("error", message=value, seconds=took)
        except (EOFError, OSError):
            w.stop()
            self._worker = None
            return Outcome("crash", message=f"the worker process died "
                           f"({_exit_text(w.proc.returncode)}) while running the task",
                           seconds=time.perf_counter() - t0)
        w.stop(kill=True)
        self._worker = None
        return Outcome("timeout", message=f"timed out after {task.timeout_s:g} s; the worker "
                       "was killed", seconds=time.perf_counter() - t0)


def ray_available() -> bool:
    """True when the optional ``ray`` package can be imported (``pip install
    'fusion-workbench[ray]'``)."""
    return importlib.util.find_spec("ray") is not None


EXECUTORS = ("local", "ray")


def make_executor(name: str = "local", address: str | None = None, num_cpus: int | None = None):
    """An executor by name: ``local`` or ``ray`` (``address`` only for ``ray``).

    Raises
    ------
    InputError
        For an unknown name, an address without ``ray``, or ``ray`` without Ray installed.
    """
    if name == "local":
        if address:
            raise InputError("--address is for --executor ray (a Ray cluster's address)")
        return LocalExecutor()
    if name == "ray":
        return RayExecutor(address=address, num_cpus=num_cpus)
    raise InputError(f"unknown executor {name!r} (known: {', '.join(EXECUTORS)})")


__all__ = ["EXECUTORS", "LocalExecutor", "Outcome", "RayExecutor", "Task", "TIMEOUT_S",
           "call_task", "make_executor", "ray_available", "resolve"]

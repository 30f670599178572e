"""The Ray executor: each task a Ray task with a resource request and a timeout.

``RayExecutor()`` starts a local Ray on this machine (or uses the one this process already
started: a test session's, say); ``RayExecutor(address="HOST:PORT")`` connects to a running
cluster (``ray start --head`` on the head node prints the address; ``auto`` finds one started
on this machine), after checking that the address answers, so that an unreachable cluster is
one error line, not a long retry loop. Each task asks for one CPU, or for ``num_gpus=1``
(``{"GPU": 1}``) when it times CUDA kernels; a GPU task on a cluster without a GPU is refused
before it is submitted, rather than waiting forever as an infeasible Ray task. At most as many
tasks as the cluster has CPUs (GPUs) are in flight, so a task's timeout counts its run, not a
queue; one that runs past it is cancelled with ``force=True``, which kills its worker process.
Tasks are submitted with ``max_retries=0``: a kernel that crashes its worker is reported as a
crash, not run again.

When connecting to a cluster, the workbench package itself is shipped with the job
(``runtime_env={"py_modules": [...]}``), so the cluster's nodes need only its dependencies
(numba, numpy, networkx...), not this checkout.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import tempfile
import time
from pathlib import Path

from workbench.errors import InputError
from workbench.tuning.tasks import Outcome, Task, ray_entry

#: CPUs a local Ray is started with when none are given (a 2-core machine keeps one for itself)
LOCAL_CPUS = 2
#: seconds to wait for a cluster's address to accept a connection
CONNECT_TIMEOUT_S = 5.0


def resources_for(task: Task) -> dict:
    """The Ray resource request of a task: ``{"num_gpus": 1, "num_cpus": 1}`` for CUDA timing,
    ``{"num_cpus": 1}`` otherwise."""
    if task.backend == "cuda":
        return {"num_gpus": 1, "num_cpus": 1}
    return {"num_cpus": 1}


def check_reachable(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Refuse an address that does not accept a TCP connection.

    Parameters
    ----------
    address : str
        ``HOST:PORT`` or ``ray://HOST:PORT`` (``auto`` is not checked).

    Raises
    ------
    InputError
        If it is not HOST:PORT, or nothing answers there within ``timeout_s``.
    """
    if address == "auto":
        return
    hostport = address.split("://", 1)[-1].rstrip("/")
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise InputError(f"Ray address {address!r} is not HOST:PORT (or ray://HOST:PORT, auto)")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_s):
            pass
    except OSError as exc:
        why = exc.strerror or str(exc) or type(exc).__name__
        raise InputError(f"cannot reach the Ray cluster at {address}: {why} (start one with "
                         "`ray start --head`, or leave out --address for a local Ray)") from None


@contextlib.contextmanager
def native_stderr_held():
    """Hold what is written to file descriptor 2 while the block runs (yields the file).

    Ray's C++ core client logs each failed try to reach a cluster's GCS straight to fd 2
    (``gcs_client.cc: Failed to get cluster ID from GCS server ...``, twenty lines and more
    when something that is not Ray answers at the address); the workbench's own one-line
    error says the same. Python's ``sys.stderr`` is flushed first and is untouched.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield held
        finally:
            os.dup2(saved, 2)
            os.close(saved)


class RayExecutor:
    """Tasks as Ray tasks (see the module notes).

    Parameters
    ----------
    address : str, optional
        A running cluster's address; ``None`` starts (or reuses) a local Ray.
    num_cpus : int, optional
        CPUs of a local Ray (default :data:`LOCAL_CPUS`).
    """

    name = "ray"

    def __init__(self, address: str | None = None, num_cpus: int | None = None):
        self.address = address
        self.num_cpus = num_cpus
        self.requests: list[dict] = []      # the resource request of every submitted task
        self._started = False
        self._ray = None

    def __enter__(self):
        self.connect()
        return self

    def __exit__(self, *exc):
        self.close()

    def connect(self) -> None:
        """Start or join Ray.

        Raises
        ------
        InputError
            Ray is not installed, or the cluster cannot be reached.
        """
        try:
            import ray
        except ImportError:
            raise InputError("the Ray executor needs Ray: pip install "
                             "'fusion-workbench[ray]'") from None
        if self.address:
            check_reachable(self.address)
        self._ray = ray
        if ray.is_initialized():
            return
        if self.address:
            import workbench

            env = {"py_modules": [str(Path(workbench.__file__).parent)]}
            try:
                with native_stderr_held():   # Ray's retries: the error below says it once
                    ray.init(address=self.address, runtime_env=env, log_to_driver=False)
            except Exception as exc:  # ray raises ConnectionError, RuntimeError ... here
                text = " ".join(str(exc).split())[:200]
                raise InputError(f"cannot connect to the Ray cluster at {self.address}: "
                                 f"{text}") from None
        else:
            self._start_local(ray)
        self._started = True

    def _start_local(self, ray) -> None:
        """Start a local Ray, trying twice: Ray waits a fixed 30 s for its raylet to register,
        which a machine under heavy load can miss once.

        Raises
        ------
        InputError
            If it does not start either time.
        """
        for attempt in (1, 2):
            try:
                ray.init(num_cpus=self.num_cpus or LOCAL_CPUS, include_dashboard=False,
                         log_to_driver=False)
                return
            except Exception as exc:  # ray raises a bare Exception on a start-up timeout
                ray.shutdown()
                if attempt == 2:
                    text = " ".join(str(exc).split())[:200]
                    raise InputError(f"could not start a local Ray on this machine: {text}") \
                        from None

    def close(self) -> None:
        """Shut down the Ray this executor started (one it found running is left alone)."""
        if self._started and self._ray is not None:
            self._ray.shutdown()
        self._started = False

    def gcs_address(self) -> str:
        """The address other processes join this Ray at (``HOST:PORT`` of its GCS): the app's
        profile workers join the local Ray its server started."""
        if self._ray is None:
            self.connect()
        return self._ray.get_runtime_context().gcs_address

    def device_key(self, backend: str) -> str:
        """The measuring device as the results store keys it: this machine for a local Ray,
        ``ray:<address>|<backend>`` for a cluster (whose nodes the driver cannot name)."""
        if not self.address:
            from workbench.tuning.tasks import host_id

            return host_id(backend)
        return f"ray:{self.address}|{backend}"

    def _capacity(self, want_gpu: bool) -> int:
        res = self._ray.cluster_resources()
        return int(res.get("GPU", 0)) if want_gpu else max(1, int(res.get("CPU", 1)))

    def run(self, tasks) -> list[Outcome]:
        """Run ``tasks`` on Ray; one :class:`Outcome` each, in order.

        Raises
        ------
        InputError
            If Ray cannot be started or reached (see :meth:`connect`).
        """
        if self._ray is None:
            self.connect()
        tasks = list(tasks)
        out: list[Outcome | None] = [None] * len(tasks)
        for want_gpu in (False, True):
            batch = [(i, t) for i, t in enumerate(tasks) if (t.backend == "cuda") == want_gpu]
            if not batch:
                continue
            cap = self._capacity(want_gpu)
            if cap == 0:
                for i, _ in batch:
                    out[i] = Outcome("unavailable", message="the Ray cluster has no GPU: a "
                                     "CUDA timing task asks for {'GPU': 1}")
                continue
            self._run_batch(batch, cap, out)
        return out

    def _run_batch(self, batch, cap: int, out: list) -> None:
        ray = self._ray
        remote = ray.remote(ray_entry)
        pending = list(batch)
        inflight: dict = {}
        while pending or inflight:
            while pending and len(inflight) < cap:
                i, t = pending.pop(0)
                opts = dict(resources_for(t), max_retries=0)
                self.requests.append(opts)
                ref = remote.options(**opts).remote(t.fn, t.kwargs)
                inflight[ref] = (i, t, time.perf_counter())
            now = time.perf_counter()
            wait = max(0.0, min(t0 + t.timeout_s - now for _, t, t0 in inflight.values()))
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=wait)
            for ref in ready:
                i, t, t0 = inflight.pop(ref)
                out[i] = self._collect(ref, time.perf_counter() - t0)
            now = time.perf_counter()
            for ref, (i, t, t0) in list(inflight.items()):
                if now - t0 >= t.timeout_s:
                    ray.cancel(ref, force=True)
                    inflight.pop(ref)
                    out[i] = Outcome("timeout", message=f"timed out after {t.timeout_s:g} s; "
                                     "the Ray task was cancelled and its worker killed",
                                     seconds=now - t0)

    def _collect(self, ref, took: float) -> Outcome:
        ray = self._ray
        try:
            status, value = ray.get(ref)
        except ray.exceptions.WorkerCrashedError:
            return Outcome("crash", message="the Ray worker process died while running the "
                           "task", seconds=took)
        except ray.exceptions.RayError as exc:
            text = " ".join(str(exc).split())[:200]
            return Outcome("crash", message=f"the Ray task failed: {text}", seconds=took)
        if status == "ok":
            return Outcome("ok", value, seconds=took)
        return Outcome("error", message=value, seconds=took)


__all__ = ["CONNECT_TIMEOUT_S", "LOCAL_CPUS", "RayExecutor", "check_reachable", "resources_for"]

"""Work the server hands to other processes: compile & profile jobs, *Tune*, lessons'
measurements, and reading uploads.

Dash's own background callbacks *fork* the job from the threaded server; a lock that another
thread held at that instant (inside sqlite, the allocator, logging...) stays held in the child
for ever, and the job hangs at 0% CPU. Here the workers are *spawned* (a fresh interpreter: on
POSIX ``multiprocessing``'s spawn is fork+exec done in C, so nothing of the server's threads or
locks reaches the worker), started when the server starts and reused from task to task; the
server talks to each over a pipe.

A :class:`WorkerPool` queues tasks with a global limit and a limit per owner (a session); every
task has a time-out, and every worker a memory limit (its resident size, watched from the
server, and optionally an address-space limit set in the worker); a queued task can be
cancelled, a running one too (its worker is ended and a fresh one started). Whatever happens, a
task ends: ``done`` with its result, or ``failed``, ``cancelled`` or ``timed out`` with a
message a person can read. The functions a worker runs are in :mod:`workbench.app.worker`.
"""

from __future__ import annotations

import itertools
import logging
import multiprocessing
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field

from workbench.errors import WorkbenchError
from workbench.fmt import fmt_bytes, fmt_time

log = logging.getLogger("workbench.app.jobs")

#: finished tasks remembered (their owners read the outcome once it is there)
KEEP_FINISHED = 1024
#: how often the server looks at a running task's worker (seconds)
WATCH_S = 0.05


class JobLimitError(WorkbenchError):
    """A task was refused: the queue is full, or its owner has one in flight already."""

    code = "busy"


@dataclass
class Task:
    """One piece of work and what became of it (read by the callbacks, written by the pool).

    ``state`` is ``queued``, ``running``, ``done``, ``failed``, ``cancelled`` or ``timed out``;
    ``progress`` is ``(k, n, text)``; ``result`` the worker's value when ``done``; ``error`` a
    :class:`~workbench.errors.WorkbenchError` when it ``failed`` or ``timed out``.
    """

    id: int
    owner: str
    kind: str
    args: tuple
    timeout_s: float
    state: str = "queued"
    progress: tuple = (0, 1, "queued")
    result: object = None
    error: WorkbenchError | None = None
    submitted: float = field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None
    cancel_requested: bool = False
    done: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def finished_ok(self) -> bool:
        """True once the task ended with a result."""
        return self.state == "done"

    @property
    def over(self) -> bool:
        """True once the task ended, whichever way."""
        return self.done.is_set()


class _Worker:
    """A spawned worker process and the server's end of its pipe."""

    def __init__(self, ctx, kinds: tuple, address_space: int | None):
        from workbench.app.worker import worker_main

        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=worker_main, args=(child, kinds, address_space),
                                daemon=True, name="workbench-worker")
        self.proc.start()
        child.close()

    def alive(self) -> bool:
        return self.proc.is_alive()

    def rss(self) -> int:
        """Resident bytes of the worker (0 if it cannot be read)."""
        import psutil

        try:
            return psutil.Process(self.proc.pid).memory_info().rss
        except (psutil.Error, OSError):
            return 0

    def kill(self) -> None:
        """End the process, and the processes it started (a tune's measuring worker, which
        would otherwise outlive it, hung in a kernel), and close the pipe; safe to call from
        two threads at once (the pool's thread and :meth:`WorkerPool.close`: the second close
        of the pipe is a no-op)."""
        import psutil

        try:
            try:
                children = psutil.Process(self.proc.pid).children(recursive=True)
            except (psutil.Error, OSError, TypeError):     # gone already, or never started
                children = []
            self.proc.kill()
            for child in children:
                try:
                    child.kill()
                except (psutil.Error, OSError):
                    pass
            self.proc.join(5)
        finally:
            try:
                self.conn.close()
            except OSError:      # closed by the other thread between its check and ours
                pass


class WorkerPool:
    """Worker processes, spawned at :meth:`start`, and a bounded queue of tasks for them.

    Parameters
    ----------
    name : str
        For messages and the server log (``"profile"``, ``"load"``).
    kinds : tuple of str
        The task kinds its workers run (names in :data:`workbench.app.worker.TASKS`); the
        workers import what those need when they start, not when the first task comes.
    workers : int
        Worker processes, i.e. tasks running at once (>= 1).
    max_queued : int
        Tasks waiting or running at once, all owners together; more are refused.
    per_owner : int
        Tasks one owner may have waiting or running at once.
    timeout_s : float
        Default wall-clock limit of a task, from when it starts running (seconds).
    memory_bytes : int or None
        A worker whose resident size passes this is ended, and its task fails saying so.
    address_space : int or None
        An address-space limit (``RLIMIT_AS``) set in each worker: an allocation past it fails
        there (a MemoryError, reported) instead of growing the machine's memory.
    start_method : str
        ``spawn`` (default) or ``forkserver``; never ``fork`` (see the module docstring).
    """

    def __init__(self, name: str, kinds: tuple, *, workers: int = 1, max_queued: int = 8,
                 per_owner: int = 1, timeout_s: float = 600.0, memory_bytes: int | None = None,
                 address_space: int | None = None, start_method: str = "spawn"):
        if start_method == "fork":
            raise ValueError("workers are never forked from the threaded server")
        self.name, self.kinds = name, tuple(kinds)
        self.workers, self.max_queued, self.per_owner = max(1, workers), max_queued, per_owner
        self.timeout_s, self.memory_bytes = float(timeout_s), memory_bytes
        self.address_space = address_space
        self._ctx = multiprocessing.get_context(start_method)
        self._cond = threading.Condition()
        self._queue: deque[Task] = deque()
        self._tasks: OrderedDict[int, Task] = OrderedDict()
        self._latest: dict[str, int] = {}
        self._ids = itertools.count(1)
        self._threads: list[threading.Thread] = []
        self._live: list[_Worker | None] = []
        self._closed = False
        self.on_finish = None  #: called with each task that ends (from a pool thread)

    # ----- lifecycle -------------------------------------------------------------------------

    def start(self) -> "WorkerPool":
        """Spawn the workers (each in its own thread, which then serves the queue); returns
        the pool. Calling it again does nothing."""
        with self._cond:
            if self._threads or self._closed:
                return self
            self._live = [None] * self.workers
            for k in range(self.workers):
                t = threading.Thread(target=self._serve, args=(k,), daemon=True,
                                     name=f"workbench-{self.name}-{k}")
                self._threads.append(t)
                t.start()
        return self

    def close(self) -> None:
        """End the workers; tasks still queued are cancelled."""
        with self._cond:
            self._closed = True
            pending = list(self._queue)
            self._queue.clear()
            self._cond.notify_all()
        for task in pending:
            self._finish(task, "cancelled")
        for w in list(self._live):
            if w is not None:
                w.kill()
        for t in self._threads:
            t.join(5)

    # ----- tasks -----------------------------------------------------------------------------

    def submit(self, owner: str, kind: str, args: tuple, timeout_s: float | None = None) -> Task:
        """Queue a task for ``owner`` (started at once if a worker is free).

        Raises
        ------
        JobLimitError
            If ``owner`` has :attr:`per_owner` tasks waiting or running, or the pool has
            :attr:`max_queued`.
        """
        if kind not in self.kinds:
            raise ValueError(f"the {self.name} workers do not run {kind!r} tasks")
        self.start()
        with self._cond:
            if self._closed:
                raise JobLimitError(f"the {self.name} workers have stopped (the server is "
                                    "shutting down)")
            active = [t for t in self._tasks.values() if not t.over]
            mine = sum(1 for t in active if t.owner == owner)
            if mine >= self.per_owner:
                raise JobLimitError(f"this session has {mine} {self.name} job(s) queued or "
                                    "running already; wait for it, or cancel it")
            if len(active) >= self.max_queued:
                raise JobLimitError(f"the server has {len(active)} {self.name} jobs queued or "
                                    f"running, its limit; try again in a while")
            task = Task(next(self._ids), owner, kind, args,
                        self.timeout_s if timeout_s is None else float(timeout_s))
            self._tasks[task.id] = task
            self._latest[owner] = task.id
            while len(self._tasks) > KEEP_FINISHED:
                old = next(iter(self._tasks.values()))
                if not old.over:
                    break
                self._forget(old)
            self._queue.append(task)
            self._cond.notify()
        return task

    def run(self, owner: str, kind: str, args: tuple, timeout_s: float | None = None):
        """Submit a task and wait for it; returns its result.

        Raises
        ------
        WorkbenchError
            The task's own error, or one saying it timed out or was cancelled;
            :class:`JobLimitError` if it was refused.
        """
        task = self.submit(owner, kind, args, timeout_s)
        task.done.wait()
        if task.state == "done":
            return task.result
        raise task.error or WorkbenchError(f"the {self.name} job was {task.state}")

    def latest(self, owner: str) -> Task | None:
        """The owner's most recent task (finished or not), or None."""
        with self._cond:
            tid = self._latest.get(owner)
            return self._tasks.get(tid) if tid is not None else None

    def position(self, task: Task) -> int:
        """How many tasks wait before ``task`` (0 when it runs or is next)."""
        with self._cond:
            for k, t in enumerate(self._queue):
                if t is task:
                    return k
        return 0

    def cancel(self, owner: str) -> Task | None:
        """Cancel the owner's task in flight, if any (a running one: its worker is ended);
        returns that task, or None when there was none."""
        with self._cond:
            task = self.latest(owner)
            if task is None or task.over:
                return None
            task.cancel_requested = True
            if task in self._queue:
                self._queue.remove(task)
                queued = True
            else:
                queued = False
        if queued:
            self._finish(task, "cancelled")
        else:
            task.done.wait(10)
        return task

    def active(self) -> int:
        """Tasks waiting or running."""
        with self._cond:
            return sum(1 for t in self._tasks.values() if not t.over)

    def _forget(self, task: Task) -> None:
        self._tasks.pop(task.id, None)
        if self._latest.get(task.owner) == task.id:
            del self._latest[task.owner]

    def _finish(self, task: Task, state: str, result=None, error=None) -> None:
        """End ``task``: its outcome, then :attr:`on_finish`, then :attr:`Task.over` — so
        whoever sees the task over sees what ``on_finish`` made of it (a stored report, a
        tuned plan made current)."""
        task.state, task.result, task.error = state, result, error
        task.finished = time.monotonic()
        if self.on_finish is not None:
            try:
                self.on_finish(task)
            except Exception:  # noqa: BLE001 - the pool must keep serving
                log.exception("on_finish of %s task %d failed", self.name, task.id)
        task.done.set()

    # ----- a worker slot ---------------------------------------------------------------------

    def _next(self) -> Task | None:
        with self._cond:
            while not self._queue and not self._closed:
                self._cond.wait()
            if self._closed:
                return None
            task = self._queue.popleft()
            task.state, task.started = "running", time.monotonic()
            task.progress = (0, 1, "starting")
            return task

    def _serve(self, k: int) -> None:
        worker = None
        while True:
            if worker is None or not worker.alive():
                if self._closed:
                    return
                worker = self._spawn(k)
            task = self._next()
            if task is None:
                return
            keep = self._watch(worker, task)
            if not keep:
                worker.kill()
                self._live[k] = worker = None

    def _spawn(self, k: int) -> _Worker:
        worker = _Worker(self._ctx, self.kinds, self.address_space)
        self._live[k] = worker
        return worker

    def _watch(self, worker: _Worker, task: Task) -> bool:
        """Hand ``task`` to ``worker`` and see it to its end; False when the worker must go
        (the task was cancelled, timed out, or the worker died or grew too big)."""
        from workbench.app.worker import rebuild_error

        try:
            worker.conn.send((task.id, task.kind, task.args))
        except (OSError, ValueError) as exc:
            self._finish(task, "failed", error=WorkbenchError(
                f"the {self.name} worker could not take the job ({exc})"))
            return False
        deadline = task.started + task.timeout_s
        next_rss = 0.0
        while True:
            if task.cancel_requested:
                self._finish(task, "cancelled")
                return False
            now = time.monotonic()
            if now > deadline:
                self._finish(task, "timed out", error=WorkbenchError(
                    f"the {task.kind} job took longer than its limit of "
                    f"{fmt_time(task.timeout_s)} and was stopped"))
                return False
            if self.memory_bytes and now >= next_rss:
                next_rss = now + 0.5
                rss = worker.rss()
                if rss > self.memory_bytes:
                    self._finish(task, "failed", error=WorkbenchError(
                        f"the {task.kind} job used {fmt_bytes(rss)} of memory, more than its "
                        f"limit of {fmt_bytes(self.memory_bytes)}, and was stopped"))
                    return False
            try:
                if not worker.conn.poll(WATCH_S):
                    if not worker.alive():
                        raise EOFError
                    continue
                msg = worker.conn.recv()
            except (EOFError, OSError):
                worker.proc.join(2)
                code = worker.proc.exitcode
                how = (f"was killed by signal {-code}" if code is not None and code < 0
                       else f"exited with status {code}" if code is not None
                       else "closed its pipe")
                self._finish(task, "failed", error=WorkbenchError(
                    f"the {self.name} worker process {how} during the job"))
                return False
            kind, tid, *rest = msg
            if tid != task.id:
                continue
            if kind == "progress":
                task.progress = tuple(rest)
            elif kind == "ok":
                self._finish(task, "done", result=rest[0])
                return True
            else:
                self._finish(task, "failed", error=rebuild_error(rest[0]))
                return True

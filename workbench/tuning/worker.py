"""The worker process of :class:`~workbench.tuning.executors.LocalExecutor`.

Started as ``python -m workbench.tuning.worker`` (a fresh interpreter: nothing is forked from
the caller, and the caller's main module is never re-imported, as ``multiprocessing``'s spawn
would). It reads tasks from its standard input and writes results to a private copy of its
standard output; its own ``sys.stdout`` goes to standard error, so what a compiler prints cannot
corrupt the protocol. A frame is an 8-byte big-endian length followed by a pickle. Only the
workbench's own processes are at either end of the pipe: the caller pickles a task name and
workbench values (graphs, plans), the worker pickles a ``(status, value)`` pair.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys

_LEN = struct.Struct(">Q")


def write_frame(fh, obj) -> None:
    """Write one pickled object to the binary file ``fh``."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    fh.write(_LEN.pack(len(data)) + data)
    fh.flush()


def read_exact(fd: int, n: int) -> bytes:
    """``n`` bytes from file descriptor ``fd``; raises EOFError if it closes first."""
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise EOFError("the pipe closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_frame(fd: int):
    """One pickled object from file descriptor ``fd``."""
    (n,) = _LEN.unpack(read_exact(fd, _LEN.size))
    return pickle.loads(read_exact(fd, n))


def main() -> None:
    """Serve tasks until standard input closes."""
    import signal

    from workbench.tuning.tasks import call_task

    signal.signal(signal.SIGINT, signal.SIG_IGN)     # the caller handles Ctrl-C
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    fd = sys.stdin.fileno()
    while True:
        try:
            fn, kwargs = read_frame(fd)
        except EOFError:
            return
        write_frame(out, call_task(fn, kwargs))


if __name__ == "__main__":
    main()

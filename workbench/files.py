"""Reading and writing the user's files safely: regular files only, sizes checked first, reads
bounded, writes atomic.

- :func:`open_regular` opens a path without blocking (``O_NONBLOCK``: opening a FIFO with no
  writer would otherwise wait for ever) and refuses at once, by what ``fstat`` says of the
  opened file (so a symbolic link to ``/dev/zero`` is seen for what it is), anything but a
  regular file: a directory, a FIFO, a socket, a character or block device.
- :func:`read_bytes` checks the size before reading and never reads more than the limit (a
  file that grows while it is read is refused, not read on).
- :func:`atomic_write` writes a temporary file beside the target, flushes it to disk and
  renames it over the target (POSIX ``rename`` is atomic), so a run that fails half way leaves
  no half-written file and an existing file is not lost; a target that exists but is not a
  regular file (a FIFO, a device, a directory) is refused before anything is written.

This module imports only :mod:`workbench.errors`; every package may use it.
"""

from __future__ import annotations

import os
import stat
import tempfile

from workbench.errors import InputError

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"))


def kind_of(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words (``a FIFO (named pipe)``)."""
    for test, words in _KINDS:
        if test(mode):
            return words
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def open_regular(path, what: str = "the file") -> int:
    """Open ``path`` for reading (a file descriptor) if it is a regular file.

    Raises
    ------
    InputError
        If it cannot be opened, or is a directory, FIFO, socket or device (at once: nothing
        waits for a writer).
    """
    path = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise InputError(f"cannot read {what}: {_why(exc)}", file=path) from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise InputError(f"cannot read {what}: {_why(exc)}", file=path) from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise InputError(f"cannot read {what}: this is {kind_of(mode)}, not a regular file",
                         file=path)
    return fd


def read_bytes(path, limit: int, what: str = "the file", limit_name: str = "") -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Parameters
    ----------
    path : str or os.PathLike
    limit : int
        Largest size accepted (bytes).
    what : str
        What the file is, for messages (``"the plan"``).
    limit_name : str
        How the user raises the limit (``"--max-file-mib"``), named in the message.

    Raises
    ------
    InputError
        For a file that is not regular (:func:`open_regular`), larger than ``limit``
        (checked before reading), or that cannot be read.
    """
    fd = open_regular(path, what)
    path = os.fspath(path)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise InputError(too_big(size, limit, limit_name), file=path)
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise InputError(too_big(total, limit, limit_name) + " (it grew while it "
                                 "was read)", file=path)
        return b"".join(chunks)
    except OSError as exc:
        raise InputError(f"cannot read {what}: {_why(exc)}", file=path) from None
    finally:
        os.close(fd)


def too_big(size: int, limit: int, limit_name: str = "") -> str:
    """The sentence for a file over a size limit, naming how to raise it."""
    how = f" (raise it with {limit_name})" if limit_name else ""
    return (f"the file is {size / 2**20:.1f} MiB, more than the {limit / 2**20:.0f} MiB "
            f"limit{how}")


def check_writable(path, what: str = "the file") -> None:
    """Refuse, before any work, an output path that cannot become a regular file.

    Raises
    ------
    InputError
        If ``path`` names a directory (or ends with a separator), a FIFO, socket or device,
        or its directory does not exist.
    """
    path = os.fspath(path)
    parent = os.path.dirname(path) or "."
    if path.endswith(os.sep):
        raise InputError(f"cannot write {what}: this is a directory, not a file name",
                         file=path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise InputError(f"cannot write {what}: {_why(exc)}", file=path) from None
    if mode is not None and not stat.S_ISREG(mode):
        raise InputError(f"cannot write {what}: this is {kind_of(mode)}, not a file name",
                         file=path)
    if not os.path.isdir(parent):
        raise InputError(f"cannot write {what}: directory {parent!r} does not exist",
                         file=path)


def atomic_write(path, write, binary: bool = False, what: str = "the file") -> None:
    """Write ``path`` all at once: ``write(f)`` fills a temporary file beside it, which then
    replaces ``path``; if ``write`` fails, ``path`` is as it was (absent, or its old content).

    The new file has the mode of the file it replaces, or ``0666`` less the umask.

    Raises
    ------
    InputError
        If the target is not writable (:func:`check_writable`) or an OS error occurs.
    Exception
        Whatever ``write`` raises (after the temporary file is removed).
    """
    path = os.fspath(path)
    check_writable(path, what)
    parent = os.path.dirname(path) or "."
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{os.path.basename(path)[:40]}.",
                                   suffix=".tmp")
    except OSError as exc:
        raise InputError(f"cannot write {what}: {_why(exc)}", file=path) from None
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else
                                                        {"encoding": "utf-8"})) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        _remove(tmp)
        raise InputError(f"cannot write {what}: {_why(exc)}", file=path) from None
    except BaseException:
        _remove(tmp)
        raise


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass

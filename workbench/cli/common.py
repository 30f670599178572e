"""What every command shares: naming a graph (a path or a sample), output paths checked before
the work, and argparse value types that report a bad value on one line."""

from __future__ import annotations

import argparse
import math
import os

from workbench.errors import InputError
from workbench.paths import sample_dir, sample_names


def resolve_graph_path(name: str) -> str:
    """A file path, or the name of a sample graph (``mlp`` or ``mlp.json``).

    Raises
    ------
    InputError
        If ``name`` is neither an existing path nor a sample's name (near names suggested).
    """
    import difflib

    if os.path.exists(name):
        return name
    stem = name[:-5] if name.endswith(".json") else name
    cand = sample_dir() / f"{stem}.json"
    if os.sep not in name and cand.exists():
        return str(cand)
    near = difflib.get_close_matches(stem, sample_names(), n=2)
    hint = (f"; did you mean the sample {' or '.join(near)}?" if near
            else f"; samples: {', '.join(sample_names())}")
    raise InputError(f"no such file or sample graph{hint}", file=name)


def load_graph_arg(name: str):
    """Load the graph a command names (a file path or a sample's name).

    Raises
    ------
    InputError, GraphError
        If there is no such file or sample, or the file is not a valid graph.
    """
    from workbench.importers import load_graph

    return load_graph(resolve_graph_path(name))


def check_out_path(path: str, what: str) -> None:
    """Refuse, before any work, an output path that cannot be a file to write.

    Parameters
    ----------
    path : str
        The file named by an option such as ``--out`` or ``--trace``.
    what : str
        What would be written, for the message (``"the plan"``, ``"the trace"``).

    Raises
    ------
    InputError
        If ``path`` names a directory (or ends with a separator), or its directory does not
        exist.
    """
    parent = os.path.dirname(path) or "."
    if path.endswith(os.sep) or os.path.isdir(path):
        raise InputError(f"cannot write {what}: this is a directory, not a file name",
                         file=path)
    if not os.path.isdir(parent):
        raise InputError(f"cannot write {what}: directory {parent!r} does not exist",
                         file=path)


def write_file(path: str, write, binary: bool = False, what: str = "the file") -> None:
    """Open ``path`` for writing and call ``write(file)``; an OS error becomes an InputError.

    Raises
    ------
    InputError
        If the file cannot be created (missing directory, a directory, no permission).
    """
    try:
        with open(path, "wb" if binary else "w") as f:
            write(f)
    except OSError as exc:
        raise InputError(f"cannot write {what}: {exc.strerror or exc}", file=path) from None


def int_at_least(low: int):
    """An argparse type: a whole number >= ``low`` (a bad value is one line, exit status 2)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be {low} or more, got {value}")
        return value
    return parse


def mib(text: str) -> float:
    """An argparse type: a finite number of MiB >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of MiB, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of MiB >= 0, got {text}")
    return value


def max_bytes(max_memory_mib: float) -> int | None:
    """``--max-memory-mib`` in bytes; 0 means no cap (``None``)."""
    return int(max_memory_mib * 2**20) if max_memory_mib else None


def one_line_errors(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Make ``parser`` report a bad argument on one line, as every other error is (no usage
    block; ``workbench COMMAND -h`` shows it), with exit status 2."""
    def error(message):
        parser.exit(2, f"{parser.prog}: error: {message} (see {parser.prog} -h)\n")
    parser.error = error
    return parser

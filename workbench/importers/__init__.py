"""Importers: read a graph from HLO text, StableHLO (MLIR) text, an XLA dump folder or the
workbench's JSON format.

:func:`load_graph` is the one entry point: it reads the file as bytes, refuses empty, binary and
oversized files with a clear error, picks the format from the extension (``.json``; ``.hlo``,
``.txt``; ``.mlir``) or, failing that, from the content, and returns a verified graph. A folder
is read as an XLA dump (:mod:`workbench.importers.xla_dump`). Loading never executes anything in
the file; StableHLO is converted by jaxlib (the ``[jax]`` extra), imported only then.
:mod:`workbench.importers.capture` (``workbench capture``) is the one place that runs user code,
and only when the command line asks it to.
"""

from __future__ import annotations

import os

from workbench.errors import InputError
from workbench.importers import limits
from workbench.importers.hlo import parse_hlo
from workbench.importers.json_format import dumps, graph_to_json, parse_json, save_json
from workbench.importers.stablehlo import looks_like_stablehlo, parse_stablehlo
from workbench.importers.xla_dump import choose_module, is_dump_dir, list_dump
from workbench.ir.graph import Graph

#: files larger than this are refused by default (bytes; ``--max-file-bytes`` raises it, see
#: :mod:`workbench.importers.limits`); the app's upload cap is lower
MAX_FILE_BYTES = 64 << 20


def decode_text(data: bytes, file: str) -> str:
    """Decode file bytes as UTF-8 text, refusing empty and binary content.

    Raises
    ------
    InputError
        If the data is empty, holds NUL bytes, or is not UTF-8.
    """
    if not data.strip():
        raise InputError("the file is empty", file=file)
    nul = data.find(b"\x00")
    if 0 <= nul < 65536:
        raise InputError("this is a binary file, not HLO text or JSON", file=file)
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise InputError("a NUL byte in the text (not HLO text or JSON)", file=file,
                         line=line, column=nul - data.rfind(b"\n", 0, nul))
    try:
        return data.decode("utf-8-sig")               # a byte-order mark is not content
    except UnicodeDecodeError as exc:
        raise InputError(f"this is not UTF-8 text (byte {exc.start}): a binary file?",
                         file=file) from None


def parse_graph(text: str, file: str = "<input>", fmt: str | None = None) -> Graph:
    """Parse graph text as JSON, HLO or StableHLO.

    The content decides when it is unambiguous (a JSON object starts with ``{``, HLO text with
    ``HloModule``, MLIR with ``module``); otherwise ``fmt`` (``"json"``, ``"hlo"``,
    ``"stablehlo"``, from the file name) does, and HLO is the default.

    Raises
    ------
    InputError, ParseError, GraphError
        :class:`~workbench.errors.MissingDependencyError` for StableHLO without jaxlib.
    """
    head = text.lstrip()
    if head.startswith("{"):
        fmt = "json"                                  # the content decides when it is clear
    elif head.startswith("HloModule"):
        fmt = "hlo"
    elif looks_like_stablehlo(head):
        fmt = "stablehlo"
    elif fmt is None:
        fmt = "hlo"
    if fmt == "json":
        return parse_json(text, file)
    if fmt == "hlo":
        return parse_hlo(text, file)
    if fmt == "stablehlo":
        return parse_stablehlo(text, file)
    raise InputError(f"unknown format {fmt!r} (json, hlo or stablehlo)", file=file)


def load_bytes(data: bytes, file: str = "<upload>") -> Graph:
    """Load a graph from the bytes of a file (as uploaded), format by name then content."""
    from workbench.files import too_big

    cap = limits.current().max_file_bytes
    if len(data) > cap:
        raise InputError(too_big(len(data), cap, limits.FLAGS["max_file_bytes"]), file=file)
    text = decode_text(data, file)
    lower = file.lower()
    fmt = ("json" if lower.endswith(".json") else "hlo" if lower.endswith((".hlo", ".txt"))
           else "stablehlo" if lower.endswith(".mlir") else None)
    return parse_graph(text, file, fmt)


def load_graph(path) -> Graph:
    """Read a graph file (HLO text or JSON) and return the verified graph.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.json`` file in the workbench's format, HLO text (``.hlo``, ``.txt``, or any
        name: the content decides), StableHLO (``.mlir``, or text starting with ``module``), or
        an XLA dump folder holding one module (its optimised module; see :func:`load_dump`
        for folders with several).

    Raises
    ------
    InputError
        If the file is missing, not a regular file (a FIFO or device: refused at once),
        empty, binary or too large (checked before reading), or a dump folder holds several
        modules (the message lists them).
    ParseError
        For syntax errors, with file, line and column.
    GraphError
        For a graph that does not verify, naming the node.
    """
    from workbench.files import read_bytes

    path = os.fspath(path)
    if os.path.isdir(path):
        return load_dump(path)
    data = read_bytes(path, limits.current().max_file_bytes, limit_name=limits.FLAGS[
        "max_file_bytes"])                       # regular files only; the size checked first
    return load_bytes(data, path)


def load_dump(path, module: str | None = None, stage: str = "after") -> Graph:
    """Load one module of an XLA dump folder (``--xla_dump_to``).

    Parameters
    ----------
    path : path
        The folder.
    module : str, optional
        The module's number or name (see :func:`workbench.importers.xla_dump.choose_module`);
        may be omitted when the folder holds one module.
    stage : {"after", "before"}
        The optimised module (default) or the one XLA was given.

    Raises
    ------
    InputError
        For a folder without dumps, an unknown or ambiguous module (listing them).
    """
    return load_graph(choose_module(path, module, stage))


__all__ = ["load_graph", "load_bytes", "load_dump", "list_dump", "is_dump_dir", "parse_graph",
           "parse_hlo", "parse_json", "parse_stablehlo", "dumps", "graph_to_json", "save_json",
           "decode_text", "MAX_FILE_BYTES"]

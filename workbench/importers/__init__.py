"""Importers: read a graph from HLO text or the workbench's JSON format.

:func:`load_graph` is the one entry point: it reads the file as bytes, refuses empty, binary and
oversized files with a clear error, picks the format from the extension (``.json``; ``.hlo``,
``.txt``) or, failing that, from the content, and returns a verified graph. Loading never
executes anything in the file.
"""

from __future__ import annotations

import os

from workbench.errors import InputError
from workbench.importers.hlo import parse_hlo
from workbench.importers.json_format import dumps, graph_to_json, parse_json, save_json
from workbench.ir.graph import Graph

#: files larger than this are refused (bytes); the app's upload cap is lower
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
    if b"\x00" in data[:65536]:
        raise InputError("this is a binary file, not HLO text or JSON", file=file)
    try:
        return data.decode("utf-8-sig")               # a byte-order mark is not content
    except UnicodeDecodeError as exc:
        raise InputError(f"this is not UTF-8 text (byte {exc.start}): a binary file?",
                         file=file) from None


def parse_graph(text: str, file: str = "<input>", fmt: str | None = None) -> Graph:
    """Parse graph text as JSON or HLO.

    The content decides when it is unambiguous (a JSON object starts with ``{``, HLO text with
    ``HloModule``); otherwise ``fmt`` (``"json"``, ``"hlo"``, from the file name) does, and HLO
    is the default.

    Raises
    ------
    InputError, ParseError, GraphError
    """
    head = text.lstrip()
    if head.startswith("{"):
        fmt = "json"                                  # the content decides when it is clear
    elif head.startswith("HloModule"):
        fmt = "hlo"
    elif fmt is None:
        fmt = "hlo"
    if fmt == "json":
        return parse_json(text, file)
    if fmt == "hlo":
        return parse_hlo(text, file)
    raise InputError(f"unknown format {fmt!r} (json or hlo)", file=file)


def load_bytes(data: bytes, file: str = "<upload>") -> Graph:
    """Load a graph from the bytes of a file (as uploaded), format by name then content."""
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"the file is {len(data) / 2**20:.1f} MiB, more than the "
                         f"{MAX_FILE_BYTES >> 20} MiB limit", file=file)
    text = decode_text(data, file)
    lower = file.lower()
    fmt = "json" if lower.endswith(".json") else ("hlo" if lower.endswith((".hlo", ".txt"))
                                                  else None)
    return parse_graph(text, file, fmt)


def load_graph(path) -> Graph:
    """Read a graph file (HLO text or JSON) and return the verified graph.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.json`` file in the workbench's format, or HLO text (``.hlo``, ``.txt``, or any
        name: the content decides).

    Raises
    ------
    InputError
        If the file is missing, not a regular file (a directory, FIFO or device: refused at
        once), empty, binary or too large (checked before reading).
    ParseError
        For syntax errors, with file, line and column.
    GraphError
        For a graph that does not verify, naming the node.
    """
    from workbench.files import read_bytes

    path = os.fspath(path)
    data = read_bytes(path, MAX_FILE_BYTES)     # regular files only; the size checked first
    return load_bytes(data, path)


__all__ = ["load_graph", "load_bytes", "parse_graph", "parse_hlo", "parse_json", "dumps",
           "graph_to_json", "save_json", "decode_text", "MAX_FILE_BYTES"]

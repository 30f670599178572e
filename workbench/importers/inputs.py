"""Reading a graph's input arrays from disk: ``arg0..argN`` in an ``.npz`` archive (the layout
of ``../shared/hlo/*.io.npz``), strictly.

The archive is read as a zip of ``.npy`` members (never unpickled: a member whose dtype holds
Python objects is refused). Every member's header (shape, dtype) is read and checked *before*
any array is allocated: the total must fit the memory cap and the data the header promises
must be in the member (a header claiming 2^40 floats in a 1 KB file is refused, not
allocated). Given the graph, the names, shapes and dtypes are checked against its parameters
and every mismatch is listed at once: a missing ``argN``, a key that names no parameter, a
shape or a dtype that is not the parameter's (no silent conversion of ints or bools to floats).
``outN`` members (the expected outputs of ``*.io.npz``) are left aside, or read on their own
with ``outputs=True`` (``workbench eval`` compares the reference's outputs with them).
"""

from __future__ import annotations

import os
import re
import struct
import zipfile
import zlib

from workbench.errors import InputError

#: the largest inputs file read (bytes), before the memory cap is looked at
MAX_INPUTS_FILE_BYTES = 16 << 30


def _headers(zf: zipfile.ZipFile, path: str) -> dict:
    """member key -> (shape, dtype, zip info), from each ``.npy`` header (no data read)."""
    import numpy as np
    from numpy.lib import format as npy

    out = {}
    for info in zf.infolist():
        if info.is_dir():
            continue
        if not info.filename.endswith(".npy"):
            raise InputError(f"cannot read inputs: member {info.filename[:60]!r} is not an "
                             ".npy array", file=path)
        key = info.filename[:-4]
        with zf.open(info) as f:
            version = npy.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = npy.read_array_header_1_0(f, max_header_size=10_000)
            elif version in ((2, 0), (3, 0)):
                shape, fortran, dtype = npy.read_array_header_2_0(f, max_header_size=10_000)
            else:
                raise ValueError(f"unsupported .npy version {version}")
            data_at = f.tell()
        if dtype.hasobject:
            raise InputError(f"cannot read inputs: {key!r} holds Python objects (it would "
                             "need unpickling, which the workbench never does)", file=path)
        count = 1
        for d in shape:
            count *= d
        nbytes = count * dtype.itemsize
        if info.file_size - data_at < nbytes:
            raise InputError(f"cannot read inputs: {key!r} claims {list(shape)} {dtype} "
                             f"({nbytes / 2**20:.1f} MiB) but its member holds "
                             f"{max(0, info.file_size - data_at):,} bytes: truncated or corrupt",
                             file=path)
        out[key] = (tuple(shape), np.dtype(dtype), info, nbytes)
    return out


def _dtype_fits(given, want) -> bool:
    """The given dtype is the parameter's, or (for dtypes numpy lacks, bf16) raw bytes of its
    width, as numpy.savez writes them."""
    if given == want:
        return True
    custom = want.kind == "V" or want.name.startswith(("bfloat", "float8", "float4"))
    return custom and given.kind in "Vu" and given.itemsize == want.itemsize


def check_against(graph, headers: dict, path: str) -> None:
    """Every mismatch between the archive's members and the graph's parameters, in one error.

    Raises
    ------
    InputError
        Listing the missing and extra keys and the wrong shapes and dtypes.
    """
    from workbench.errors import WorkbenchError

    problems, seen, missing = [], set(), []
    for p in graph.parameters:
        idx = p.attrs["index"]
        key = f"arg{idx}"
        if key not in headers:
            missing.append(key)
            continue
        seen.add(key)
        shape, dtype, _, _ = headers[key]
        t = p.tensor_type
        if shape != t.shape:
            problems.append(f"{key} has shape {list(shape)}, parameter {p.id!r} is {t}")
        try:
            want = t.np_dtype
        except WorkbenchError:
            want = None
        if want is not None and not _dtype_fits(dtype, want):
            problems.append(f"{key} is {dtype}, parameter {p.id!r} is {t.dtype}")
    extra = sorted(k for k in headers if k not in seen and not re.fullmatch(r"out[0-9]+", k))
    if missing:
        problems.insert(0, f"missing {', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''}"
                           f" ({len(missing)} of the graph's {len(graph.parameters)} "
                           "parameters)")
    if extra:
        n = len(graph.parameters)
        names = f"arg0..arg{n - 1}" if n else "none"
        problems.insert(1 if missing else 0, f"{', '.join(repr(k) for k in extra[:8])}"
                        f"{' ...' if len(extra) > 8 else ''} name no parameter (the graph's "
                        f"are {names})")
    if problems:
        more = f" (and {len(problems) - 12} more)" if len(problems) > 12 else ""
        raise InputError(f"the inputs do not fit the graph {graph.name!r}: "
                         + "; ".join(problems[:12]) + more, file=path)


def _check_outputs_fit(graph, headers: dict, path: str) -> None:
    """The ``outN`` members are the graph's outputs: as many, with their shapes and dtypes."""
    outs = sorted((int(k[3:]), k) for k in headers if re.fullmatch(r"out[0-9]+", k))
    if not outs:
        return
    problems = []
    if [i for i, _ in outs] != list(range(len(graph.outputs))):
        problems.append(f"it holds {', '.join(k for _, k in outs[:8])} but the graph has "
                        f"{len(graph.outputs)} output(s)")
    for i, k in outs:
        if i >= len(graph.outputs):
            continue
        node = graph.node(graph.outputs[i])
        shape, dtype, _, _ = headers[k]
        t = node.type
        if not hasattr(t, "shape") or shape != t.shape or not _dtype_fits(dtype, t.np_dtype):
            problems.append(f"{k} is {dtype}{list(shape)}, output {node.id!r} is {t}")
    if problems:
        raise InputError("the expected outputs do not fit the graph "
                         f"{graph.name!r}: " + "; ".join(problems[:8]), file=path)


def load_inputs(path: str, graph=None, max_bytes: int | None = None, *,
                outputs: bool = False) -> dict:
    """Read ``arg0..argN`` (and any ``outN``) from an ``.npz`` file, strictly.

    Parameters
    ----------
    path : str
        The archive (a regular file).
    graph : Graph, optional
        When given, the members are checked against its parameters first
        (:func:`check_against`); the result then holds only ``arg`` keys.
    max_bytes : int, optional
        The most the arrays may hold together (bytes), checked from their headers before any
        is read.
    outputs : bool
        Read only the ``outN`` members instead (the expected outputs; with ``graph``, checked
        to be its outputs, in number, shape and dtype); ``{}`` when there are none.

    Returns
    -------
    dict of str to numpy.ndarray

    Raises
    ------
    InputError
        For a file that is not a regular file, not a zip of ``.npy`` arrays (a single
        ``.npy``, truncated, corrupt), holds objects, promises more data than it has, passes
        the cap, or does not fit the graph; one line, naming the file.
    """
    from numpy.lib import format as npy

    from workbench.files import open_regular, too_big

    fd = open_regular(path, "inputs")
    with os.fdopen(fd, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_INPUTS_FILE_BYTES:
            raise InputError(too_big(size, MAX_INPUTS_FILE_BYTES), file=path)
        head = f.read(6)
        f.seek(0)
        if head == b"\x93NUMPY":
            raise InputError("cannot read inputs: this is a single .npy array, not an .npz "
                             "with arg0..argN (numpy.savez writes one)", file=path)
        try:
            with zipfile.ZipFile(f) as zf:
                headers = _headers(zf, path)
                total = sum(h[3] for h in headers.values())
                if max_bytes is not None and total > max_bytes:
                    raise InputError(f"the inputs hold {total / 2**20:.1f} MiB, more than the "
                                     f"cap of {max_bytes / 2**20:.1f} MiB (--max-memory-mib)",
                                     file=path)
                if graph is not None:
                    check_against(graph, headers, path)
                    if outputs:
                        _check_outputs_fit(graph, headers, path)
                keys = [k for k in headers if (re.fullmatch(r"out[0-9]+", k) if outputs else
                                               graph is None or k.startswith("arg"))]
                out = {}
                for k in keys:
                    with zf.open(headers[k][2]) as m:
                        out[k] = npy.read_array(m, allow_pickle=False)
                return out
        except InputError:
            raise
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
                KeyError, NotImplementedError, RuntimeError, MemoryError, zlib.error,
                struct.error, SyntaxError, TypeError) as exc:
            why = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            raise InputError(f"cannot read inputs: not an .npz archive of arrays "
                             f"({why})", file=path) from None


__all__ = ["load_inputs", "check_against", "MAX_INPUTS_FILE_BYTES"]

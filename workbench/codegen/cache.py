"""The on-disk kernel cache: generated modules written to files and imported by path.

A kernel's module is keyed by a hash of its generated source (which depends only on the group's
structure: ops, shapes, dtypes, attributes and literal values, never on node names), the numba
and Python versions, and the backend. Writing the source to a file and importing it gives numba a
real file, so ``cache=True`` stores the compiled machine code beside it (``__pycache__``); a
second process that imports the same module loads it instead of compiling. Identical groups in
one plan, or in two plans, share one module.

The cache directory is, in order: the ``cache_dir`` argument, the ``WORKBENCH_CACHE_DIR``
environment variable, ``~/.cache/fusion-workbench/kernels``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

_LOCK = threading.Lock()


def default_cache_dir() -> Path:
    """``$WORKBENCH_CACHE_DIR``, else ``~/.cache/fusion-workbench/kernels``."""
    env = os.environ.get("WORKBENCH_CACHE_DIR")
    if env:
        return Path(env)
    return Path.home() / ".cache" / "fusion-workbench" / "kernels"


def source_key(source: str, backend: str) -> str:
    """Hex digest naming the module of ``source`` for ``backend`` (20 hex digits)."""
    import numba

    h = hashlib.sha256()
    for part in (backend, numba.__version__, sys.version.split()[0], source):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


def module_path(source: str, backend: str, cache_dir: Path | str | None) -> tuple[str, Path]:
    """(module name, file path) of the generated module for ``source``."""
    key = source_key(source, backend)
    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    folder = root / backend.replace("-", "_")
    return f"wbk_{backend.replace('-', '_')}_{key}", folder / f"k_{key}.py"


def _write_once(path: Path, source: str) -> None:
    """Write ``source`` to ``path`` unless it is there already (atomic: temp file + rename).

    Rewriting an existing file would change its mtime and invalidate numba's cache index.
    """
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".py")
    with os.fdopen(fd, "w") as f:
        f.write(source)
    try:
        os.link(tmp, path)  # fails if another process won the race: keep theirs
    except FileExistsError:
        pass
    except OSError:
        if not path.exists():
            os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def load_module(source: str, backend: str, cache_dir=None):
    """Import the generated module for ``source`` (compiling it, or loading numba's cache).

    Returns
    -------
    (module, path, seconds, reused) : (module, Path, float, bool)
        ``seconds`` spent importing (compiling or loading), ``reused`` True when the module was
        already imported in this process.

    Raises
    ------
    Exception
        Whatever numba raises while compiling (typing and lowering errors); the caller turns it
        into a :class:`~workbench.errors.CompileError`.
    """
    name, path = module_path(source, backend, cache_dir)
    with _LOCK:
        if name in sys.modules:
            return sys.modules[name], path, 0.0, True
        _write_once(path, source)
        t0 = time.perf_counter()
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        return module, path, time.perf_counter() - t0, False

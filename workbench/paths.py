"""Where the workbench keeps things on disk: its cache directory and the sample graphs.

This module imports nothing of the workbench; every package may import it.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The workbench's cache directory: ``$WORKBENCH_CACHE_DIR``, or ``~/.cache/fusion-workbench``.

    It holds the measured ``cpu`` device profile, the kernel cache and the app's session store.
    """
    env = os.environ.get("WORKBENCH_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "fusion-workbench"


def numba_cache_dir() -> Path:
    """numba's on-disk cache of compiled functions for the app's server and its job processes.

    ``$NUMBA_CACHE_DIR`` if set, else ``cache_dir()/numba``, which is then set as
    ``$NUMBA_CACHE_DIR`` so that numba (which reads it when first imported) and the processes
    the app starts for background jobs share it. The command line does not set it: numba then
    caches beside the modules it compiles (``__pycache__``, git-ignored), the generated kernel
    modules included (see :mod:`workbench.codegen.cache`).
    """
    path = os.environ.get("NUMBA_CACHE_DIR") or str(cache_dir() / "numba")
    os.environ["NUMBA_CACHE_DIR"] = path
    return Path(path)


def sample_dir() -> Path:
    """The repository's ``sample_graphs/`` directory (beside the package in a checkout)."""
    return Path(__file__).resolve().parent.parent / "sample_graphs"


def sample_names() -> list[str]:
    """Names of the sample graphs: the file stems in ``sample_graphs/``, sorted."""
    return sorted(p.stem for p in sample_dir().glob("*.json"))

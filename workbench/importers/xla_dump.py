"""XLA dump folders (``XLA_FLAGS=--xla_dump_to=DIR``).

XLA writes each module it compiles as ``module_NNNN.NAME.before_optimizations.txt`` and
``module_NNNN.NAME.cpu_after_optimizations.txt`` (``gpu_...`` on a GPU), beside buffer
assignments, LLVM IR and object files. :func:`list_dump` finds the modules;
:func:`load_dump` opens one: by its number (``3``, ``0003``), its name (``jit_f``), or, when
the folder holds a single module, that one; the optimised text unless ``stage="before"``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from workbench.errors import InputError

_DUMP_FILE = re.compile(r"^module_(\d+)\.(.+?)\.(before_optimizations|"
                        r"(?:[\w.\-]+_)?after_optimizations)\.txt$")


@dataclass
class DumpModule:
    """One module of a dump folder.

    Attributes
    ----------
    number : str
        XLA's module number as written (``0004``).
    name : str
        The module's name (``jit_train_step``).
    files : dict
        Stage (``before``, ``after``) -> path.
    """

    number: str
    name: str
    files: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        """``module_0004.jit_f``: how the folder names it."""
        return f"module_{self.number}.{self.name}"


def is_dump_dir(path) -> bool:
    """True for a folder holding at least one XLA module dump."""
    p = Path(path)
    return p.is_dir() and any(_DUMP_FILE.match(f.name) for f in p.iterdir())


def list_dump(path) -> list[DumpModule]:
    """The modules of a dump folder, in XLA's numbering order.

    Raises
    ------
    InputError
        If the folder is missing or holds no module dumps.
    """
    p = Path(path)
    if not p.is_dir():
        raise InputError("not a folder", file=os.fspath(path))
    mods: dict[str, DumpModule] = {}
    for f in sorted(p.iterdir()):
        m = _DUMP_FILE.match(f.name)
        if not m:
            continue
        num, name, stage = m.groups()
        mod = mods.setdefault(num, DumpModule(num, name))
        key = "before" if stage == "before_optimizations" else "after"
        if key == "after" and "after" in mod.files and "cpu_" not in stage:
            continue                                  # prefer the CPU dump when both exist
        mod.files[key] = str(f)
    if not mods:
        raise InputError("this folder holds no XLA module dumps (module_NNNN.NAME."
                         "before_optimizations.txt); make one with XLA_FLAGS=--xla_dump_to=DIR",
                         file=os.fspath(path))
    return [mods[k] for k in sorted(mods, key=int)]


def choose_module(path, module: str | None = None, stage: str = "after") -> str:
    """The file of one module of a dump folder.

    Parameters
    ----------
    path : path
        The dump folder.
    module : str, optional
        Its number (``4`` or ``0004``) or name (``jit_f``, or ``module_0004.jit_f``); may be
        omitted when the folder holds one module.
    stage : {"after", "before"}

    Raises
    ------
    InputError
        For an unknown or ambiguous module (the message lists the modules), or a missing stage.
    """
    mods = list_dump(path)
    listing = ", ".join(m.label for m in mods[:12]) + (" ..." if len(mods) > 12 else "")
    if module is None:
        if len(mods) != 1:
            raise InputError(f"this dump holds {len(mods)} modules ({listing}): name one by "
                             "number or name (on the command line DIR:NUMBER; `workbench dump "
                             "DIR` lists them)", file=os.fspath(path))
        chosen = mods[0]
    else:
        key = str(module)
        hits = [m for m in mods if key in (m.name, m.label) or (key.isdigit() and int(key) ==
                                                                   int(m.number))]
        if not hits:
            raise InputError(f"no module matches {key!r} in this dump (modules: {listing})",
                             file=os.fspath(path))
        if len(hits) > 1:
            which = ", ".join(f"{int(m.number)} ({m.label})" for m in hits[:8])
            raise InputError(f"{len(hits)} modules are named {key!r} in this dump: open one "
                             f"by number (DIR:NUMBER): {which}", file=os.fspath(path))
        chosen = hits[0]
    if stage not in chosen.files:
        other = next(iter(chosen.files))
        raise InputError(f"{chosen.label} has no {stage}-optimisation dump (only {other})",
                         file=os.fspath(path))
    return chosen.files[stage]

"""The limits an input must stay within, stated and enforced before the work.

Each limit has a default that real models pass with room to spare (the largest module of
``corpus/`` and ``../shared/hlo`` has a few thousand instructions; a real training step has
about 31,000), and a flag of every command that reads a graph to raise it (``workbench inspect
--max-instructions 500000``; the app takes them from ``workbench serve``'s flags). An input past
a limit is refused with one line naming the limit, the value found and where
(:class:`~workbench.errors.ResourceLimitError` with file, line and node).

The limits in force are a context variable: :func:`current` reads them, :func:`using` sets them
for a block, :func:`set_default` for the process (the command line does).
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, fields, replace

from workbench.errors import ResourceLimitError


@dataclass(frozen=True)
class Limits:
    """What an input may hold.

    Parameters
    ----------
    max_file_bytes : int
        Size of a graph file (an upload's cap is lower: 16 MiB).
    max_instructions : int
        Nodes of a graph, nested computations and inlined calls included: 200,000 loads in
        seconds (about 6x a training step); past it the input is refused as soon as the count
        passes.
    max_rank : int
        Dimensions of a shape (numpy evaluates at most 64; XLA's own shapes rarely pass 8).
    max_elements : int
        Elements of one shape (2^40: a TiB of f8; a larger shape is a typo or an attack, and
        its byte counts would overflow 64-bit arithmetic in other tools).
    max_constant_elements : int
        Elements written out in one constant literal (4 Mi).
    max_nesting : int
        Depth of nested computations kept as graphs (a while inside a while's body...), of
        tuple types within tuple types, and of JSON arrays and objects.
    """

    max_file_bytes: int = 64 << 20
    max_instructions: int = 200_000
    max_rank: int = 32
    max_elements: int = 1 << 40
    max_constant_elements: int = 1 << 22
    max_nesting: int = 64

    def with_(self, **changes) -> "Limits":
        """A copy with some limits changed (None values ignored)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


#: how each limit is raised on the command line
FLAGS = {f.name: "--" + f.name.replace("_", "-") for f in fields(Limits)}

_CURRENT: contextvars.ContextVar[Limits | None] = contextvars.ContextVar("limits", default=None)
_DEFAULT = [Limits()]


def current() -> Limits:
    """The limits in force."""
    return _CURRENT.get() or _DEFAULT[0]


@contextlib.contextmanager
def using(limits: Limits):
    """Use ``limits`` within the block."""
    token = _CURRENT.set(limits)
    try:
        yield limits
    finally:
        _CURRENT.reset(token)


def set_default(limits: Limits) -> None:
    """Use ``limits`` from now on in this process, in every thread (where no :func:`using`
    block says otherwise)."""
    _DEFAULT[0] = limits


def exceeded(name: str, value, limit, what: str, **where) -> ResourceLimitError:
    """The error for an input past a limit: names the limit, the value and its flag."""
    return ResourceLimitError(f"{what} is {value:,}, past the limit of {limit:,} "
                              f"(raise it with {FLAGS[name]})", **where)


def check(name: str, value: int, what: str, **where) -> None:
    """Raise :func:`exceeded` when ``value`` passes the limit ``name``."""
    limit = getattr(current(), name)
    if value > limit:
        raise exceeded(name, value, limit, what, **where)


def depth_of(value) -> int:
    """The nesting depth of a parsed JSON value (lists and dicts; a scalar is 0), walked
    without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = v.values()
        elif not isinstance(v, (list, tuple)):
            continue
        deepest = max(deepest, d)
        stack.extend((x, d + 1) for x in v if isinstance(x, (dict, list, tuple)))
    return deepest

"""Immutable, hashable attribute maps for nodes and graphs.

Attribute values are JSON-like and frozen: ``None``, ``bool``, ``int``, ``float``, ``str``,
tuples of values, and nested :class:`Attrs`. Lists and dicts given to :func:`freeze` become
tuples and :class:`Attrs`. The one non-JSON value is a nested computation (the ``body`` of a
``while``, the ``comparator`` of a ``sort``): an immutable :class:`~workbench.ir.Graph`, kept
as it is (its class says so with ``__frozen_attr_value__``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np


class Attrs(Mapping):
    """An immutable, hashable mapping from str to frozen values.

    Parameters
    ----------
    items : mapping or iterable of (str, value), optional
        The entries; values are frozen with :func:`freeze`.

    Examples
    --------
    >>> a = Attrs({"dimensions": [0, 1]})
    >>> a["dimensions"]
    (0, 1)
    >>> a.set(axis=-1)["axis"]
    -1
    """

    __slots__ = ("_d", "_hash")

    def __init__(self, items=(), **kw):
        d = dict(items)
        d.update(kw)
        for k in d:
            if not isinstance(k, str):
                raise TypeError(f"attribute names are strings, got {k!r}")
        self._d = {k: freeze(v) for k, v in sorted(d.items())}
        self._hash = None

    @classmethod
    def of_scalars(cls, d: dict) -> "Attrs":
        """An Attrs of a dict whose keys are str and values already frozen scalars (None, bool,
        int, float, str), without checking or freezing them again (the planner's decision
        numbers: thousands a second on large graphs)."""
        a = cls.__new__(cls)
        a._d = dict(sorted(d.items()))
        a._hash = None
        return a

    def __getitem__(self, key):
        return self._d[key]

    def get(self, key, default=None):
        """``self[key]`` if present, else ``default`` (Mapping's ``get``, without raising and
        catching a KeyError for a missing key: the graph index asks every node)."""
        return self._d.get(key, default)

    def __contains__(self, key) -> bool:
        return key in self._d

    def items(self):
        """The entries, as the underlying dict's view (Mapping's, without a Python-level
        lookup per key: the graph's fingerprint reads every node's)."""
        return self._d.items()

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(tuple(self._d.items()))
        return self._hash

    def __eq__(self, other):
        if isinstance(other, Attrs):
            return self._d == other._d
        if isinstance(other, Mapping):
            return self._d == {k: freeze(v) for k, v in other.items()}
        return NotImplemented

    def __repr__(self):
        return f"Attrs({self._d!r})"

    def set(self, **kw) -> "Attrs":
        """A copy with the given entries replaced or added."""
        d = dict(self._d)
        d.update(kw)
        return Attrs(d)

    def without(self, *keys) -> "Attrs":
        """A copy without the given keys."""
        return Attrs({k: v for k, v in self._d.items() if k not in keys})

    def to_json(self) -> dict:
        """A plain dict of JSON values (tuples become lists; inf/nan become strings)."""
        return {k: thaw(v) for k, v in self._d.items()}


EMPTY = Attrs()


def freeze(value):
    """Turn a JSON-like value into its frozen form (lists -> tuples, dicts -> Attrs).

    Raises
    ------
    TypeError
        For values that are not JSON-like (functions, objects).
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, Attrs) or getattr(type(value), "__frozen_attr_value__", False):
        return value
    if isinstance(value, Mapping):
        return Attrs(value)
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, np.ndarray):
        return freeze(value.tolist())
    raise TypeError(f"attribute value of type {type(value).__name__} is not allowed: "
                    f"{value!r}"[:200])


def thaw(value):
    """The JSON form of a frozen value (non-finite floats as the strings 'inf', '-inf', 'nan').

    A nested computation becomes ``{"computation": name, "nodes": count}`` (a summary: the JSON
    format writes computations in full, :mod:`workbench.importers.json_format`).
    """
    if isinstance(value, Attrs):
        return value.to_json()
    if getattr(type(value), "__frozen_attr_value__", False):
        return {"computation": value.name, "nodes": len(value.nodes)}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value

"""Values computed once per object, looked up by the object's identity (no Dash here).

A :class:`~workbench.ir.graph.Graph` is a frozen dataclass: its ``hash`` walks every node, so a
``WeakKeyDictionary`` keyed by a graph costs a pass over a 30,000-node training step on every
lookup (half a second; the app looks up a graph's layers, drawing ids and key in every
callback). :class:`PerObject` keys by ``id()`` and drops an entry when its object is
collected, so a lookup costs what a dict lookup costs.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable


class PerObject:
    """A thread-safe memo of ``make(obj)`` per live object (by identity).

    Parameters
    ----------
    make : callable
        ``make(obj) -> value``; called at most once per object while it lives (two threads
        asking at once may both compute it; the first stored wins).

    Examples
    --------
    >>> class Box: pass
    >>> calls = []
    >>> size = PerObject(lambda b: calls.append(b) or 3)
    >>> b = Box(); size(b), size(b), len(calls)
    (3, 3, 1)
    """

    def __init__(self, make: Callable):
        self._make = make
        self._values: dict[int, tuple] = {}
        self._lock = threading.Lock()

    def __call__(self, obj):
        key = id(obj)
        with self._lock:
            hit = self._values.get(key)
        if hit is not None and hit[0]() is obj:
            return hit[1]
        value = self._make(obj)
        with self._lock:
            hit = self._values.get(key)
            if hit is not None and hit[0]() is obj:
                return hit[1]
            self._values[key] = (weakref.ref(obj, self._forget(key)), value)
        return value

    def _forget(self, key: int):
        def drop(ref) -> None:
            with self._lock:
                hit = self._values.get(key)
                if hit is not None and hit[0] is ref:
                    del self._values[key]
        return drop

    def __len__(self) -> int:
        with self._lock:
            return len(self._values)

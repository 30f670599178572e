"""A bounded, thread-safe cache for values that depend only on their key (no Dash here)."""

from __future__ import annotations

import threading
from collections import OrderedDict


class LruCache:
    """A bounded, thread-safe cache.

    The app keys planner proposals by (graph key, policy, device, constraints), loaded files by
    (path, mtime, size), drawings by (graph, grouping): keys that say nothing about who asked,
    so sharing the cache between sessions reveals nothing and saves recomputing the same
    result. The graph view's remembered layouts are keyed by session (a random token).

    Bounded by ``max_entries`` and, when ``weight`` (value -> a number, e.g. its nodes) is
    given, by ``max_weight`` in all: the least recently used entries go first.
    """

    def __init__(self, max_entries: int = 64, max_weight: float | None = None, weight=None):
        self.max_entries = max_entries
        self.max_weight, self._weigh = max_weight, weight
        self._weight = 0.0
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, compute):
        """The cached value for ``key``, or ``compute()`` stored under it."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key][0]
        value = compute()
        self.put(key, value)
        return value

    def peek(self, key, default=None):
        """The cached value for ``key`` (marked as used), or ``default``."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key][0]
        return default

    def put(self, key, value) -> None:
        """Store ``value`` under ``key`` (the most recently used), within the bounds: the least
        recently used entries go first (the newest stays, however heavy)."""
        w = self._weigh(value) if self._weigh else 0
        with self._lock:
            if key in self._data:
                self._weight -= self._data.pop(key)[1]
            self._data[key] = (value, w)
            self._weight += w
            while len(self._data) > 1 and (len(self._data) > self.max_entries or (
                    self.max_weight is not None and self._weight > self.max_weight)):
                self._weight -= self._data.popitem(last=False)[1][1]

    @property
    def weight(self) -> float:
        """The summed weight of the entries held now."""
        return self._weight

    def __len__(self) -> int:
        return len(self._data)


def grouping_key(groups) -> str:
    """A short, order-independent key of a grouping (sets of node ids): a hash of its sorted
    member lists."""
    import hashlib

    text = "\n".join(sorted("\t".join(sorted(g)) for g in groups))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()

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
    """

    def __init__(self, max_entries: int = 64):
        self.max_entries = max_entries
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, compute):
        """The cached value for ``key``, or ``compute()`` stored under it."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        value = compute()
        self.put(key, value)
        return value

    def peek(self, key, default=None):
        """The cached value for ``key`` (marked as used), or ``default``."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        return default

    def put(self, key, value) -> None:
        """Store ``value`` under ``key`` (the least recently used entries go beyond the bound)."""
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)


def grouping_key(groups) -> str:
    """A short, order-independent key of a grouping (sets of node ids): a hash of its sorted
    member lists."""
    import hashlib

    text = "\n".join(sorted("\t".join(sorted(g)) for g in groups))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()

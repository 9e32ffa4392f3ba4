"""A small thread-safe LRU cache with hit/miss/eviction counters (seed 004, v2.25 and v2.8).

The seed's first cache evicted in insertion order (FIFO) while calling itself LRU; this one is a
true least-recently-used cache — an ``OrderedDict`` where every ``get`` hit and every ``put``
moves the key to the end, and eviction pops the front. ``key in cache`` is *not* a use: it
neither refreshes the key nor counts as a hit or a miss. The counters feed the UI's cache panel
through ``stats()``. A lock makes it safe to share between the UI and worker threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar, overload

__all__ = ["CacheStats", "LRUCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")

_MISSING = object()


@dataclass(frozen=True)
class CacheStats:
    hits: int
    misses: int
    evictions: int
    size: int
    maxsize: int
    hit_rate: float  # hits / (hits + misses); 0.0 before the first lookup


class LRUCache(Generic[K, V]):
    """At most ``maxsize`` entries; the least recently used one is evicted first."""

    def __init__(self, maxsize: int = 100) -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self.maxsize = maxsize
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.evictions = 0

    @overload
    def get(self, key: K) -> V | None: ...

    @overload
    def get(self, key: K, default: T) -> V | T: ...

    def get(self, key: K, default: object = None) -> object:
        """The value for ``key`` (a use: it becomes the most recently used), else ``default``."""
        with self._lock:
            value = self._data.get(key, _MISSING)
            if value is _MISSING:
                self.misses += 1
                return default
            self._data.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: K, value: V) -> None:
        """Store ``value``; evicts the least recently used entries beyond ``maxsize``."""
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)
                self.evictions += 1

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._data

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def keys(self) -> list[K]:
        """The keys from least to most recently used (a snapshot)."""
        with self._lock:
            return list(self._data)

    def clear(self) -> None:
        """Drop every entry; the counters are kept (they describe the cache's whole life)."""
        with self._lock:
            self._data.clear()

    def stats(self) -> CacheStats:
        with self._lock:
            lookups = self.hits + self.misses
            return CacheStats(hits=self.hits, misses=self.misses, evictions=self.evictions,
                              size=len(self._data), maxsize=self.maxsize,
                              hit_rate=self.hits / lookups if lookups else 0.0)

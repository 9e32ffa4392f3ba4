"""The LRU cache: true least-recently-used eviction, counters, thread safety (seed 004 v2.25)."""

from __future__ import annotations

import threading

import pytest

from reviewtui.conversation.lru import CacheStats, LRUCache


def test_get_refreshes_so_the_least_recently_used_is_evicted() -> None:
    cache: LRUCache[str, int] = LRUCache(maxsize=3)
    for key, value in (("a", 1), ("b", 2), ("c", 3)):
        cache.put(key, value)
    assert cache.get("a") == 1  # "a" is now the most recently used; "b" the least
    cache.put("d", 4)
    assert "b" not in cache and "a" in cache
    assert cache.keys() == ["c", "a", "d"]
    assert cache.evictions == 1


def test_put_refreshes_too_and_contains_does_not() -> None:
    cache: LRUCache[str, int] = LRUCache(maxsize=2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)  # an update is a use
    assert "b" in cache  # not a use: "b" stays the least recently used
    cache.put("c", 3)
    assert cache.keys() == ["a", "c"]
    assert cache.get("a") == 10
    assert (cache.hits, cache.misses) == (1, 0)  # __contains__ counted nothing


def test_counters_and_stats() -> None:
    cache: LRUCache[int, str] = LRUCache(maxsize=2)
    assert cache.stats() == CacheStats(hits=0, misses=0, evictions=0, size=0, maxsize=2,
                                       hit_rate=0.0)
    cache.put(1, "one")
    assert cache.get(1) == "one"
    assert cache.get(2) is None
    assert cache.get(2, "default") == "default"
    cache.put(2, "two")
    cache.put(3, "three")
    cache.put(4, "four")
    stats = cache.stats()
    assert (stats.hits, stats.misses, stats.evictions, stats.size) == (1, 2, 2, 2)
    assert stats.hit_rate == pytest.approx(1 / 3)
    assert len(cache) == 2


def test_stored_none_is_a_hit_and_clear_keeps_counters() -> None:
    cache: LRUCache[str, int | None] = LRUCache(maxsize=4)
    cache.put("none", None)
    assert cache.get("none", 5) is None
    assert cache.hits == 1
    cache.clear()
    assert len(cache) == 0 and cache.hits == 1
    with pytest.raises(ValueError):
        LRUCache(maxsize=0)


def test_thread_safety_smoke() -> None:
    cache: LRUCache[int, int] = LRUCache(maxsize=50)
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        try:
            for step in range(2000):
                key = (seed * 7 + step) % 120
                if cache.get(key) is None:
                    cache.put(key, key)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    stats = cache.stats()
    assert stats.size == len(cache) <= 50
    assert stats.hits + stats.misses == 8 * 2000
    assert 0 < stats.size + stats.evictions <= stats.misses  # every entry came from a miss
    assert all(cache.get(key) in (None, key) for key in range(120))

"""The per-worker caches: expiry by a (fake) clock, failed loads never cached, byte bound."""

import pytest

from service.errors import Unauthorized
from service.keys import KeyIdentity
from web.caching import Expiring, KeyCache, PageCache


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_key_identities_are_reused_until_the_ttl_passes() -> None:
    clock = Clock()
    cache = KeyCache(1.0, timer=clock)
    loads: list[int] = []

    def load() -> KeyIdentity:
        loads.append(1)
        return KeyIdentity(id=len(loads), tier="free", hourly_limit=None)

    assert cache.get_or_load("h", load).id == 1
    clock.now += 0.9
    assert cache.get_or_load("h", load).id == 1
    clock.now += 0.2
    assert cache.get_or_load("h", load).id == 2
    assert len(loads) == 2


def test_a_failed_key_lookup_is_not_cached() -> None:
    cache = KeyCache(60.0, timer=Clock())
    calls: list[int] = []

    def refuse() -> KeyIdentity:
        calls.append(1)
        raise Unauthorized("API key invalid")

    for _ in range(2):
        with pytest.raises(Unauthorized):
            cache.get_or_load("h", refuse)
    assert len(calls) == 2


def test_a_zero_ttl_key_cache_always_loads() -> None:
    cache = KeyCache(0)
    identities = iter(KeyIdentity(id=i, tier="pro", hourly_limit=None) for i in range(3))
    assert [cache.get_or_load("h", lambda: next(identities)).id for _ in range(3)] == [0, 1, 2]


def test_an_expiring_value_is_reloaded_after_its_ttl() -> None:
    clock = Clock()
    values = iter(range(10))
    version = Expiring(1.0, lambda: next(values), timer=clock)
    assert version.get() == 0
    clock.now += 0.5
    assert version.get() == 0
    clock.now += 0.6
    assert version.get() == 1


def test_a_zero_ttl_expiring_value_is_read_every_time() -> None:
    values = iter(range(10))
    version = Expiring(0, lambda: next(values))
    assert [version.get() for _ in range(3)] == [0, 1, 2]


def test_the_page_cache_keeps_the_most_recent_pages_within_its_byte_bound() -> None:
    cache = PageCache(max_bytes=10)
    cache.put("a", b"12345")
    cache.put("b", b"12345")
    assert cache.get("a") == b"12345"  # now the most recently used
    cache.put("c", b"12345")  # evicts b, the least recently used
    assert cache.get("b") is None
    assert cache.get("a") == b"12345"
    assert cache.get("c") == b"12345"
    assert cache.size_bytes == 10
    cache.put("huge", b"x" * 11)  # larger than the whole cache: not stored, nothing evicted
    assert cache.get("huge") is None
    assert cache.size_bytes == 10


def test_a_zero_byte_page_cache_stores_nothing() -> None:
    cache = PageCache(max_bytes=0)
    cache.put("a", b"1")
    assert not cache.enabled
    assert cache.get("a") is None

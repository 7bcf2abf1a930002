"""Per-worker caches that keep repeated reads off the database and out of the serializers.

- Key identities: a valid key's id, tier and limit, reused for ``STATE_TTL_MS`` (a revocation
  reaches every worker within that time). Failed lookups are never cached.
- The data version: read from the database at most once per ``STATE_TTL_MS`` (a seed or import
  reaches every worker's ETags and caches within that time).
- :class:`PageCache`: a least-recently-used store bounded in bytes (``PAGE_CACHE_MB``), holding
  finished responses (web.accel.replay) and GraphQL results.
- :func:`cache_key`: the one digest that ETags, replay keys and GraphQL result tags are made of.

All are thread-safe (gthread workers) and per process: nothing is shared between workers.
"""

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from cachetools import LRUCache, TTLCache

from service.keys import KeyIdentity

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)

MAX_KEYS = 10_000  # distinct live keys remembered per worker
# The builtin len, typed to take any value: the default size of a PageCache value.
_LEN: Callable[[Any], int] = len


def cache_key(*parts: object) -> str:
    """SHA-256 (hex) of ``repr(parts)``: equal parts, equal key. Parts are plain values (numbers,
    strings, tuples and lists of them) whose repr is stable."""
    return hashlib.sha256(repr(parts).encode("utf-8", "surrogatepass")).hexdigest()


class KeyCache:
    """Key identities by key hash for ``ttl_s`` seconds (0 disables the cache)."""

    def __init__(self, ttl_s: float, *, timer: Callable[[], float] = time.monotonic) -> None:
        self._ttl_s = ttl_s
        self._entries: TTLCache[str, KeyIdentity] | None = (
            TTLCache(maxsize=MAX_KEYS, ttl=ttl_s, timer=timer) if ttl_s > 0 else None
        )
        self._lock = threading.Lock()

    def peek(self, key_hash: str) -> KeyIdentity | None:
        """The cached identity for ``key_hash``, if any (never touches the database)."""
        if self._entries is None:
            return None
        with self._lock:
            return self._entries.get(key_hash)

    def get_or_load(self, key_hash: str, load: Callable[[], KeyIdentity]) -> KeyIdentity:
        """The cached identity for ``key_hash``, or ``load()``'s (cached only if it returns)."""
        if self._entries is None:
            return load()
        with self._lock:
            found = self._entries.get(key_hash)
        if found is not None:
            return found
        identity = load()  # raises for unknown or revoked keys: nothing is cached then
        with self._lock:
            self._entries[key_hash] = identity
        return identity


class RecentlyUsed(Generic[K, T]):
    """At most ``size`` values by key, the least recently read or written first out. An
    OrderedDict under a lock: request hooks use it, where cachetools' LRUCache would cost
    microseconds a call."""

    def __init__(self, size: int) -> None:
        self._entries: OrderedDict[K, T] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, key: K) -> T | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: K, value: T) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            if len(self._entries) > self._size:
                self._entries.popitem(last=False)


class Expiring(Generic[T]):
    """``load()``'s value, reloaded at most every ``ttl_s`` seconds (0: on every call)."""

    def __init__(
        self, ttl_s: float, load: Callable[[], T], *, timer: Callable[[], float] = time.monotonic
    ) -> None:
        self._ttl_s = ttl_s
        self._load = load
        self._timer = timer
        self._value: T | None = None
        self._expires = float("-inf")
        self._lock = threading.Lock()

    def peek(self) -> T | None:
        """The value while it is fresh, else None (never loads)."""
        now = self._timer()
        with self._lock:
            return self._value if now < self._expires else None

    def get(self) -> T:
        now = self._timer()
        with self._lock:
            if now < self._expires:
                return self._value  # type: ignore[return-value]
        value = self._load()
        with self._lock:
            self._value, self._expires = value, now + self._ttl_s
        return value


class PageCache(Generic[T]):
    """Values by tag, least recently used first out, ``max_bytes`` in all (0 disables it).

    A value's size is ``len(value)`` unless ``size_of`` says otherwise.
    """

    def __init__(self, max_bytes: int, *, size_of: Callable[[T], int] = _LEN) -> None:
        self._entries: LRUCache[str, T] | None = (
            LRUCache(maxsize=max_bytes, getsizeof=size_of) if max_bytes > 0 else None
        )
        self._size_of = size_of
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self._entries is not None

    def get(self, tag: str) -> T | None:
        if self._entries is None:
            return None
        with self._lock:
            return self._entries.get(tag)

    def put(self, tag: str, value: T) -> None:
        if self._entries is None or self._size_of(value) > self._entries.maxsize:
            return
        with self._lock:
            self._entries[tag] = value

    @property
    def size_bytes(self) -> int:
        return int(self._entries.currsize) if self._entries is not None else 0

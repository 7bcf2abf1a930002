"""Per-worker caches that keep a repeated REST read off the database and out of the serializers.

- Key identities: a valid key's id, tier and limit, reused for ``STATE_TTL_MS`` (a revocation
  reaches every worker within that time). Failed lookups are never cached.
- The data version: read from the database at most once per ``STATE_TTL_MS`` (a seed or import
  reaches every worker's ETags and page cache within that time).
- Pages: the serialized body of every REST 200, keyed by the request's ETag (data version, day and
  normalized request), in a least-recently-used store bounded by ``PAGE_CACHE_MB``. A hit is
  answered after authentication and the quota check, so it is charged like any other read.

All three are thread-safe (gthread workers) and per process: nothing is shared between workers.
"""

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from cachetools import LRUCache, TTLCache
from flask import Flask, Response, g, request

from service.keys import KeyIdentity

T = TypeVar("T")

PAGE_CACHE_EXTENSION = "cds.page_cache"
MAX_KEYS = 10_000  # distinct live keys remembered per worker


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

    def get(self) -> T:
        now = self._timer()
        with self._lock:
            if now < self._expires:
                return self._value  # type: ignore[return-value]
        value = self._load()
        with self._lock:
            self._value, self._expires = value, now + self._ttl_s
        return value


class PageCache:
    """Serialized response bodies by ETag, least recently used first out, ``max_bytes`` in all."""

    def __init__(self, max_bytes: int) -> None:
        self._entries: LRUCache[str, bytes] | None = (
            LRUCache(maxsize=max_bytes, getsizeof=len) if max_bytes > 0 else None
        )
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self._entries is not None

    def get(self, tag: str) -> bytes | None:
        if self._entries is None:
            return None
        with self._lock:
            return self._entries.get(tag)

    def put(self, tag: str, body: bytes) -> None:
        if self._entries is None or len(body) > self._entries.maxsize:
            return
        with self._lock:
            self._entries[tag] = body

    @property
    def size_bytes(self) -> int:
        return int(self._entries.currsize) if self._entries is not None else 0


def init_page_cache(app: Flask, cache: PageCache) -> None:
    """Serve repeated REST reads from ``cache`` (register after the limiter's hook).

    Only GET requests that the conditional-request hook tagged (REST reads by a valid key) take
    part; only their 200 JSON bodies are stored, before compression.
    """
    app.extensions[PAGE_CACHE_EXTENSION] = cache

    @app.before_request
    def serve_cached_page() -> Response | None:
        tag = g.get("etag")
        if tag is None or request.method != "GET":
            return None
        body = cache.get(tag)
        if body is None:
            return None
        g.page_cache_hit = True
        return Response(body, status=200, mimetype="application/json")

    @app.after_request
    def store_page(response: Response) -> Response:
        tag = g.get("etag")
        if (
            tag is not None
            and request.method == "GET"
            and response.status_code == 200
            and response.mimetype == "application/json"
            and not response.is_streamed
            and not g.get("page_cache_hit")
        ):
            cache.put(tag, response.get_data())
        return response

"""Persisted GraphQL documents by SHA-256 (automatic persisted queries), bounded, shared by every
worker through the limiter's Redis when the quotas use Redis, else kept per process.

In Redis the documents sit in one hash and their last use in one sorted set; a write that takes
the count past ``max_entries`` drops the least recently used in the same script, and both keys
lapse after ``REDIS_TTL_S`` unused. While Redis fails, each process keeps its own (a warning is
logged at most once a minute). In process: a least-recently-used cache of ``max_entries``.
Documents over ``max_bytes`` are never stored.
"""

import threading
import time
from collections.abc import Callable

from cachetools import LRUCache
from flask import current_app
from flask_limiter import Limiter
from limits.storage import RedisStorage
from redis.commands.core import Script

KEY_PREFIX = "{cds:apq}"  # one hash slot: the scripts touch two keys, also on a cluster
REDIS_TTL_S = 7 * 24 * 3600  # an idle store lapses after a week

# KEYS[1]: hash -> document, KEYS[2]: hash scored by last use (ms). ARGV: digest, document, now,
# max entries, ttl. Drops the least recently used past the bound.
PUT_SCRIPT = """
redis.call('hset', KEYS[1], ARGV[1], ARGV[2])
redis.call('zadd', KEYS[2], ARGV[3], ARGV[1])
local over = redis.call('zcard', KEYS[2]) - tonumber(ARGV[4])
if over > 0 then
  local dropped = redis.call('zpopmin', KEYS[2], over)
  for i = 1, #dropped, 2 do redis.call('hdel', KEYS[1], dropped[i]) end
end
redis.call('expire', KEYS[1], ARGV[5])
redis.call('expire', KEYS[2], ARGV[5])
return 0
"""
# ARGV: digest, now. The document (or false), its use recorded.
GET_SCRIPT = """
local document = redis.call('hget', KEYS[1], ARGV[1])
if document then redis.call('zadd', KEYS[2], 'XX', ARGV[2], ARGV[1]) end
return document
"""


class DocumentStore:
    """Documents by the hex SHA-256 of their text (module docstring)."""

    WARN_EVERY_SECONDS = 60

    def __init__(
        self,
        limiter: Limiter,
        *,
        max_entries: int,
        max_bytes: int,
        prefix: str = KEY_PREFIX,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._limiter = limiter
        self._prefix = prefix
        self._clock = clock
        self._local: LRUCache[str, str] = LRUCache(maxsize=max_entries)
        self._lock = threading.Lock()
        self._scripts: dict[tuple[int, str], Script] = {}
        self._last_warning = -float(self.WARN_EVERY_SECONDS)

    def get(self, digest: str) -> str | None:
        """The document stored under ``digest``, or None."""
        storage = self._redis()
        if storage is not None:
            try:
                found = self._run(storage, GET_SCRIPT, [digest, self._now_ms()])
            except Exception as error:  # each client raises its own connection errors
                self._storage_down(error)
            else:
                if found is not None:
                    return found.decode("utf-8") if isinstance(found, bytes) else str(found)
                return None
        with self._lock:
            return self._local.get(digest)

    def put(self, digest: str, document: str) -> bool:
        """Store ``document`` under ``digest`` (the caller has checked that it is its SHA-256);
        False, storing nothing, when it is over ``max_bytes``."""
        if len(document.encode("utf-8", "surrogatepass")) > self.max_bytes:
            return False
        storage = self._redis()
        if storage is not None:
            args: list[str | int] = [
                digest,
                document,
                self._now_ms(),
                self.max_entries,
                REDIS_TTL_S,
            ]
            try:
                self._run(storage, PUT_SCRIPT, args)
            except Exception as error:  # see get()
                self._storage_down(error)
            else:
                return True
        with self._lock:
            self._local[digest] = document
        return True

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def _redis(self) -> RedisStorage | None:
        """The limiter's Redis storage while the limiter uses it (not its memory fallback)."""
        storage = self._limiter.storage
        if isinstance(storage, RedisStorage) and self._limiter.limiter.storage is storage:
            return storage
        return None

    def _run(self, storage: RedisStorage, text: str, args: list[str | int]) -> object:
        script = self._scripts.get((id(storage), text))
        if script is None:
            script = self._scripts[(id(storage), text)] = storage.get_connection().register_script(
                text  # type: ignore[arg-type]  # redis-py takes str; limits' protocol: bytes
            )
        keys = [f"{self._prefix}:documents", f"{self._prefix}:used"]
        return script(keys=keys, args=args)

    def _storage_down(self, error: Exception) -> None:
        now = time.monotonic()
        if now - self._last_warning >= self.WARN_EVERY_SECONDS:
            self._last_warning = now
            current_app.logger.warning(
                "persisted query storage unreachable (%s); each process keeps its own meanwhile",
                type(error).__name__,
            )

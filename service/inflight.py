"""Heavy work in flight: how many requests may run at once, per key and in total, and a counter
of them for one process (web.concurrency counts across processes in Redis with the same rules).

A slot lapses at its expiry even if never released, as a slot of a killed worker does in Redis.
"""

import threading
from enum import Enum


def default_heavy_total(workers: int) -> int:
    """Half the workers, at least 1: at least one worker in two stays free for cheap requests."""
    return max(1, workers // 2)


class Bound(Enum):
    """The bound that refused a slot."""

    PER_KEY = "per key"
    TOTAL = "total"


class InFlight:
    """Tokens in flight per key and over all keys, each with its expiry; safe across threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._expiries: dict[str, float] = {}  # token -> expiry
        self._keys: dict[str, str] = {}  # token -> key
        self._per_key: dict[str, int] = {}

    def acquire(
        self, key: str, token: str, *, now: float, expires: float, per_key: int, total: int
    ) -> Bound | None:
        """Hold a slot for ``token`` of ``key`` until ``expires``; the bound that refused it,
        or None when it is held."""
        with self._lock:
            self._drop_expired(now)
            if self._per_key.get(key, 0) >= per_key:
                return Bound.PER_KEY
            if len(self._expiries) >= total:
                return Bound.TOTAL
            self._expiries[token] = expires
            self._keys[token] = key
            self._per_key[key] = self._per_key.get(key, 0) + 1
            return None

    def release(self, token: str) -> None:
        """Free ``token``'s slot (nothing happens if it has lapsed or was freed)."""
        with self._lock:
            self._forget(token)

    def held(self, key: str | None = None) -> int:
        """Slots held (and not lapsed when last counted) by ``key``, or by every key."""
        with self._lock:
            return len(self._expiries) if key is None else self._per_key.get(key, 0)

    def _drop_expired(self, now: float) -> None:
        # At most the total bound of tokens: a scan is cheaper than keeping them ordered.
        for token in [token for token, expiry in self._expiries.items() if expiry <= now]:
            self._forget(token)

    def _forget(self, token: str) -> None:
        if self._expiries.pop(token, None) is None:
            return
        key = self._keys.pop(token)
        left = self._per_key[key] - 1
        if left:
            self._per_key[key] = left
        else:
            del self._per_key[key]

"""Heavy work in flight, bounded per key and over all keys (HEAVY_PER_KEY, HEAVY_TOTAL): past
either bound a heavy request is refused at once with a 429. With Redis quotas the slots are
request tokens in Redis sorted sets (one per key, one for all) scored by expiry, so a killed
worker's slots lapse; otherwise, and while Redis fails, each process counts its own.
"""

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from flask import Flask, current_app, g
from flask_limiter import Limiter
from limits.storage import RedisStorage
from redis.commands.core import Script

from service.errors import TooManyRequests
from service.inflight import Bound, InFlight

from .context import current_g

KEY_PREFIX = "{cds:heavy}"  # one hash slot: the script touches two keys, also on a cluster
# A slot outlives its request's time budget by this much before it lapses unreleased: the budget
# runs from the request's arrival and ends execution, not the response's serialization.
EXPIRY_MARGIN_S = 2.0
RETRY_AFTER_S = 1  # heavy documents mostly finish within a second
HEAVY_EXTENSION = "cds.heavy"
SLOT = "heavy_slot"  # g attribute: the current request's slot

# KEYS[1]: the key's tokens, KEYS[2]: every key's, each scored by its expiry in ms. ARGV: now in
# ms, token, its expiry, the per-key bound, the total bound. 0: taken; 1 or 2: the key's or the
# total bound is reached (nothing is added).
ACQUIRE_SCRIPT = """
redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1])
redis.call('zremrangebyscore', KEYS[2], '-inf', ARGV[1])
if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[4]) then return 1 end
if redis.call('zcard', KEYS[2]) >= tonumber(ARGV[5]) then return 2 end
redis.call('zadd', KEYS[1], ARGV[3], ARGV[2])
redis.call('zadd', KEYS[2], ARGV[3], ARGV[2])
-- An idle key's set goes once its last slot has lapsed.
local ttl = math.ceil(tonumber(ARGV[3]) - tonumber(ARGV[1]))
redis.call('pexpire', KEYS[1], ttl)
redis.call('pexpire', KEYS[2], ttl)
return 0
"""
RELEASE_SCRIPT = """
redis.call('zrem', KEYS[1], ARGV[1])
redis.call('zrem', KEYS[2], ARGV[1])
return 0
"""
_REFUSED_BY = {1: Bound.PER_KEY, 2: Bound.TOTAL}


@dataclass(frozen=True)
class Slot:
    """A held slot: its key's set, its token, and whether Redis or this process counts it."""

    key: str
    token: str
    in_redis: bool


class HeavyWork:
    """The slots of heavy work in flight for one app (module docstring)."""

    WARN_EVERY_SECONDS = 60

    def __init__(
        self,
        limiter: Limiter,
        *,
        per_key: int,
        total: int,
        hold_s: float,
        prefix: str = KEY_PREFIX,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.per_key = per_key
        self.total = total
        self._limiter = limiter
        self._hold_ms = int(hold_s * 1000)
        self._prefix = prefix
        self._clock = clock
        self._local = InFlight()
        self._scripts: dict[tuple[int, str], Script] = {}
        self._last_warning = -float(self.WARN_EVERY_SECONDS)

    def acquire(self, key_id: int, *, what: str) -> Slot:
        """Hold a slot for key ``key_id``; raise TooManyRequests naming ``what`` (the kind of
        request, plural) when the key or all keys together are at their bound."""
        key, token = f"{self._prefix}:key:{key_id}", secrets.token_hex(8)
        now_ms = int(self._clock() * 1000)
        storage = self._redis()
        refused: Bound | None = None
        if storage is not None:
            try:
                refused = self._acquire_in_redis(storage, key, token, now_ms)
            except Exception as error:  # each client raises its own connection errors
                self._storage_down(error)
                storage = None
        if storage is None:
            refused = self._local.acquire(
                key,
                token,
                now=now_ms,
                expires=now_ms + self._hold_ms,
                per_key=self.per_key,
                total=self.total,
            )
        if refused is not None:
            raise TooManyRequests(self._refusal(refused, what), retry_after=RETRY_AFTER_S)
        return Slot(key, token, in_redis=storage is not None)

    def release(self, slot: Slot) -> None:
        """Free ``slot`` (one round trip to Redis; if that fails, the slot lapses at expiry)."""
        if not slot.in_redis:
            self._local.release(slot.token)
            return
        storage = self._limiter.storage
        if not isinstance(storage, RedisStorage):
            return
        try:
            self._script(storage, RELEASE_SCRIPT)(keys=[slot.key, self._all], args=[slot.token])
        except Exception as error:  # see acquire()
            self._storage_down(error)

    @property
    def _all(self) -> str:
        return f"{self._prefix}:all"

    def _redis(self) -> RedisStorage | None:
        """The limiter's Redis storage while the limiter uses it (not its memory fallback)."""
        storage = self._limiter.storage
        if isinstance(storage, RedisStorage) and self._limiter.limiter.storage is storage:
            return storage
        return None

    def _acquire_in_redis(
        self, storage: RedisStorage, key: str, token: str, now_ms: int
    ) -> Bound | None:
        answer = self._script(storage, ACQUIRE_SCRIPT)(
            keys=[key, self._all],
            args=[now_ms, token, now_ms + self._hold_ms, self.per_key, self.total],
        )
        return _REFUSED_BY.get(int(answer))

    def _script(self, storage: RedisStorage, text: str) -> Script:
        """``text`` registered on ``storage``'s client (EVALSHA; loaded again if Redis lost it)."""
        script = self._scripts.get((id(storage), text))
        if script is None:
            script = self._scripts[(id(storage), text)] = storage.get_connection().register_script(
                text  # type: ignore[arg-type]  # redis-py takes str; limits' protocol: bytes
            )
        return script

    def _refusal(self, bound: Bound, what: str) -> str:
        if bound is Bound.PER_KEY:
            return (
                f"too many {what} in flight for this key (at most {self.per_key} at a time); "
                "retry when one finishes"
            )
        return (
            f"too many {what} in flight for all keys together (at most {self.total} at a "
            "time); retry in a moment"
        )

    def _storage_down(self, error: Exception) -> None:
        now = time.monotonic()
        if now - self._last_warning >= self.WARN_EVERY_SECONDS:
            self._last_warning = now
            current_app.logger.warning(
                "heavy-work counter storage unreachable (%s); each process counts its own "
                "meanwhile",
                type(error).__name__,
            )


def init_concurrency(app: Flask, heavy: HeavyWork) -> None:
    """Free the request's slot, if it held one, when the request ends (errors included)."""
    app.extensions[HEAVY_EXTENSION] = heavy

    @app.teardown_request
    def release_heavy_slot(_error: BaseException | None) -> None:
        slot: Slot | None = current_g().pop(SLOT, None)
        if slot is not None:
            heavy.release(slot)


def hold_heavy_slot(*, what: str) -> None:
    """Hold a slot of heavy work for the current request's key until the request ends; raise
    TooManyRequests past a bound (see :meth:`HeavyWork.acquire`)."""
    if g.get(SLOT) is None:
        heavy: HeavyWork = current_app.extensions[HEAVY_EXTENSION]
        setattr(g, SLOT, heavy.acquire(g.api_key.id, what=what))

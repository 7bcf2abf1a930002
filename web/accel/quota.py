"""Charging a key's shared quota ahead of Flask-Limiter's request hook, in one storage call.

Private API (limits): ``RedisStorage._previous_window_key``, ``RedisStorage._current_window_key``
and ``RedisStorage.prefixed_key``; a copy of ``acquire_sliding_window.lua`` that grants several
units; ``SlidingWindowCounterRateLimiter.get_window_stats``'s arithmetic in :func:`window_stats`.
When :meth:`Quota.charge` declines and how leases work: docs/performance.md ("Quotas").
"""

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from math import floor, inf

from cachetools import LRUCache
from flask import Flask, Response
from flask_limiter import Limiter
from limits import RateLimitItem
from limits.storage import RedisStorage
from limits.strategies import SlidingWindowCounterRateLimiter
from redis.commands.core import Script

from service.keys import KeyIdentity
from web.context import current_g
from web.limits import CHARGED, is_metered, quota_item, reset_second

LEASE_SECONDS = 0.05  # a lease covers about this much of a key's traffic on one worker
LEASE_SHARE = 1000  # by default a lease takes at most limit / LEASE_SHARE units (0.1 %)
LEASE_MAX_AGE_S = 1.0
MAX_LEASED_KEYS = 10_000

PRIVATE_API = (
    "limits.storage.RedisStorage._previous_window_key",
    "limits.storage.RedisStorage._current_window_key",
    "limits.storage.RedisStorage.prefixed_key",
)

# limits' acquire_sliding_window.lua over the same keys, changed to grant up to ARGV[3] units
# (as many as the window has left, none if that is fewer than ARGV[4]) and to return the window
# it decided on, so that the caller needs no second round trip to read it: {granted, previous
# count, previous TTL in ms, current count, current TTL in ms}.
TAKE_SCRIPT = """
local limit = tonumber(ARGV[1])
local expiry = tonumber(ARGV[2]) * 1000
local wanted = tonumber(ARGV[3])
local least = tonumber(ARGV[4]) or 1

local current_ttl = tonumber(redis.call('pttl', KEYS[2]))
if current_ttl > 0 and current_ttl < expiry then
    -- the current window expired: it becomes the previous one
    redis.call('rename', KEYS[2], KEYS[1])
    redis.call('set', KEYS[2], 0, 'PX', current_ttl + expiry)
end

local previous_count = tonumber(redis.call('get', KEYS[1])) or 0
local previous_ttl = tonumber(redis.call('pttl', KEYS[1])) or 0
local current_count = tonumber(redis.call('get', KEYS[2])) or 0
current_ttl = tonumber(redis.call('pttl', KEYS[2])) or 0
if previous_ttl <= 0 then previous_ttl = 0 end
if current_ttl <= 0 then current_ttl = 0 end

local weighted = math.floor(previous_count * previous_ttl / expiry) + current_count
local granted = math.min(wanted, limit - weighted)
if granted < least then
    return {0, previous_count, previous_ttl, current_count, current_ttl}
end
if redis.call('exists', KEYS[2]) == 1 then
    current_count = redis.call('incrby', KEYS[2], granted)
else
    redis.call('set', KEYS[2], granted, 'PX', expiry * 2)
    current_count = granted
    current_ttl = expiry * 2
end
return {granted, previous_count, previous_ttl, current_count, current_ttl}
"""

# A sliding window as the storages report it: previous count, seconds until the previous window
# expires, current count, seconds until the current window expires.
Window = tuple[int, float, int, float]


@dataclass(frozen=True)
class QuotaState:
    """A key's quota right after a request was charged, as the X-RateLimit-* headers show it."""

    limit: int
    remaining: int
    reset: int  # UTC epoch seconds

    def as_dict(self) -> dict[str, int]:
        """The form GraphQL's ``extensions.rateLimit`` and GET /usage use."""
        return {"limit": self.limit, "remaining": self.remaining, "reset": self.reset}

    def headers(self) -> list[tuple[str, str]]:
        return [
            ("X-RateLimit-Limit", str(self.limit)),
            ("X-RateLimit-Remaining", str(self.remaining)),
            ("X-RateLimit-Reset", str(self.reset)),
        ]


def window_stats(item: RateLimitItem, window: Window, now: float) -> tuple[float, int]:
    """(reset time, remaining) of ``window``: limits' SlidingWindowCounterRateLimiter
    arithmetic, for a window that came back with the hit."""
    previous_count, previous_expires_in, current_count, current_expires_in = window
    expiry = item.get_expiry()
    weighted = previous_count * previous_expires_in / expiry + current_count
    remaining = max(0, item.amount - floor(weighted))
    if not (previous_count or current_count):
        return now, remaining
    previous_reset_in = previous_expires_in % (expiry / previous_count) if previous_count else inf
    current_reset_in = current_expires_in % expiry if current_count else inf
    return now + min(previous_reset_in, current_reset_in), remaining


@dataclass
class _Lease:
    """Units taken from Redis for one key and not handed out yet."""

    limit: int
    left: int
    remaining: int  # what Redis had left once the lease was taken
    reset: int
    taken: int
    taken_at: float


class Quota:
    """Charges a key's quota ahead of the limiter's hook, for Flask and the replay lane (module
    docstring)."""

    def __init__(
        self,
        limiter: Limiter,
        *,
        lease_share: int = LEASE_SHARE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._limiter = limiter
        self._lease_share = lease_share
        self._clock = clock
        self._leases: LRUCache[str, _Lease] = LRUCache(maxsize=MAX_LEASED_KEYS)
        self._lock = threading.Lock()
        self._scripts: dict[int, Script] = {}

    def charge(self, api_key: KeyIdentity, units: int = 1) -> QuotaState | None:
        """Spend ``units`` of ``api_key``'s quota, all or none; the state after them, or None
        (see above)."""
        strategy = self._limiter.limiter
        storage = strategy.storage
        if storage is not self._limiter.storage or not isinstance(
            strategy, SlidingWindowCounterRateLimiter
        ):
            return None
        item, identifiers = quota_item(api_key)
        key = item.key_for(*identifiers)
        if isinstance(storage, RedisStorage):
            cap = item.amount // self._lease_share if self._lease_share else 0

            def take(wanted: int, least: int) -> tuple[int, float, int]:
                granted, window = self._take(storage, item, key, wanted, least)
                return (granted, *window_stats(item, window, time.time()))

        else:
            cap = 0  # no leases without Redis: a unit taken and never used would be burnt

            def take(wanted: int, least: int) -> tuple[int, float, int]:
                return _take_in_process(strategy, item, identifiers, wanted)

        try:
            if units > 1:
                return self._charge_several(item, key, take, units, cap)
            return self._charge(item, key, take, cap)
        except Exception:  # each storage raises its own errors; the hook logs and falls back
            return None

    def held(self, api_key: KeyIdentity) -> int:
        """Units of ``api_key`` this worker holds in a live lease: the storage counts them as
        spent, the headers this worker sent as still available (GET /usage adds them)."""
        item, identifiers = quota_item(api_key)
        with self._lock:
            lease = self._leases.get(item.key_for(*identifiers))
            if lease is None or lease.limit != item.amount:
                return 0
            return lease.left if self._clock() - lease.taken_at < LEASE_MAX_AGE_S else 0

    def _charge(
        self,
        item: RateLimitItem,
        key: str,
        take: Callable[[int, int], tuple[int, float, int]],
        cap: int,
    ) -> QuotaState | None:
        """One unit for ``key``: from its lease when one is held, else ``take(wanted, 1)`` from
        the storage, which returns (units granted, window reset, remaining after them); a new
        lease is sized to about ``LEASE_SECONDS`` of the key's traffic here, at most ``cap``."""
        now = self._clock()
        with self._lock:
            lease = self._leases.get(key)
            if lease is not None and lease.limit == item.amount:
                if lease.left > 0 and now - lease.taken_at < LEASE_MAX_AGE_S:
                    lease.left -= 1
                    return QuotaState(item.amount, lease.remaining + lease.left, lease.reset)
            else:
                lease = None
        granted, reset, remaining = take(_lease_size(cap, lease, now, LEASE_SECONDS), 1)
        if granted == 0:
            return None
        state = QuotaState(item.amount, remaining + granted - 1, reset_second(reset))
        with self._lock:
            self._leases[key] = _Lease(
                item.amount, granted - 1, remaining, state.reset, granted, now
            )
        return state

    def _charge_several(
        self,
        item: RateLimitItem,
        key: str,
        take: Callable[[int, int], tuple[int, float, int]],
        units: int,
        cap: int,
    ) -> QuotaState | None:
        """``units`` for ``key``, all or none: what its live lease holds first, the rest from the
        storage (never more than the window has left, so never beyond the limit), taking a new
        lease with them as :meth:`_charge` does when the key is busy here."""
        now = self._clock()
        with self._lock:
            lease = self._leases.get(key)
            if (
                lease is None
                or lease.limit != item.amount
                or now - lease.taken_at >= LEASE_MAX_AGE_S
            ):
                lease = None
            from_lease = min(lease.left, units) if lease is not None else 0
            if lease is not None:
                lease.left -= from_lease  # reserved; given back if the storage refuses the rest
                if from_lease == units:
                    return QuotaState(item.amount, lease.remaining + lease.left, lease.reset)
        needed = units - from_lease
        spare = _lease_size(cap, lease, now, LEASE_SECONDS) if cap >= 2 else 0
        granted, reset, remaining = take(needed + spare, needed)
        with self._lock:
            if granted < needed:
                if lease is not None:
                    lease.left += from_lease
                return None
            held = granted - needed  # lease.left is 0 here: its units did not cover these
            state = QuotaState(item.amount, remaining + held, reset_second(reset))
            if held or lease is not None:
                self._leases[key] = _Lease(item.amount, held, remaining, state.reset, granted, now)
        return state

    def _take(
        self, storage: RedisStorage, item: RateLimitItem, key: str, wanted: int, least: int
    ) -> tuple[int, Window]:
        """Take up to ``wanted`` units, none if fewer than ``least`` are left, in one script
        call (EVALSHA; redis-py loads the script if the server does not know it)."""
        script = self._scripts.get(id(storage))
        if script is None:
            script = self._scripts[id(storage)] = storage.get_connection().register_script(
                TAKE_SCRIPT  # type: ignore[arg-type]  # redis-py takes str; limits' protocol: bytes
            )
        previous = storage.prefixed_key(storage._previous_window_key(key))
        current = storage.prefixed_key(storage._current_window_key(key))
        raw = script(keys=[previous, current], args=[item.amount, item.get_expiry(), wanted, least])
        return int(raw[0]), (
            int(raw[1]),
            max(0.0, float(raw[2])) / 1000,
            int(raw[3]),
            max(0.0, float(raw[4])) / 1000,
        )


def _take_in_process(
    strategy: SlidingWindowCounterRateLimiter,
    item: RateLimitItem,
    identifiers: tuple[str, ...],
    wanted: int,
) -> tuple[int, float, int]:
    """Take ``wanted`` units from the per-process memory storage (all or nothing); (granted,
    window reset, remaining after them)."""
    if not strategy.hit(item, *identifiers, cost=wanted):
        return 0, 0.0, 0
    reset, remaining = strategy.get_window_stats(item, *identifiers)
    return wanted, reset, remaining


def _lease_size(cap: int, previous: _Lease | None, now: float, horizon: float) -> int:
    """Units to take: about ``horizon`` seconds of this key's recent rate here, from 1 to
    ``cap``."""
    if cap < 2 or previous is None:
        return 1
    elapsed = max(now - previous.taken_at, 1e-4)
    used = previous.taken - previous.left
    return max(1, min(cap, math.ceil(used / elapsed * horizon)))


def init_quota(app: Flask, quota: Quota) -> None:
    """Charge metered requests through ``quota`` (web.pipeline places this after the auth and
    conditional hooks, so 304s stay free, and before the limiter's, which skips what this charged).
    """

    @app.before_request
    def charge() -> None:
        if is_metered():
            globals_ = current_g()
            setattr(globals_, CHARGED, quota.charge(globals_.api_key))

    @app.after_request
    def quota_headers(response: Response) -> Response:
        state: QuotaState | None = current_g().get(CHARGED)
        if state is not None:
            for name, value in state.headers():
                response.headers[name] = value
        return response

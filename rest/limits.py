"""One quota per API key, shared by every REST route and /graphql (SPEC 8.1).

The limiter's application-wide limit has a single scope, so every request made with a key draws
from the same bucket whatever the endpoint. Window strategy: sliding window counter (the current
clock hour counts in full, the previous one weighted by its share of the last 60 minutes): two
counters per key and O(1) work per request on every storage, where a moving window keeps a log
of up to ``limit`` timestamps per key and walks it in Redis.
"""

import time
from dataclasses import dataclass
from functools import lru_cache
from math import floor, inf

from flask import Flask, current_app, g, request
from flask_limiter import ApplicationLimit, Limiter
from limits import RateLimitItem, parse
from limits.storage import RedisStorage
from limits.strategies import SlidingWindowCounterRateLimiter
from redis.exceptions import NoScriptError

from service.keys import KeyIdentity
from service.quotas import limit_string

FAILED_AUTH_LIMIT = "60 per hour"
QUOTA_STRATEGY = "sliding-window-counter"
QUOTA_SCOPE = "quota"  # the one bucket per key that REST and GraphQL share
LIMITER_EXTENSION = "cds.limiter"
# Answered for a valid key without spending quota (GET /api/v1/usage reports the quota).
UNMETERED_ENDPOINTS = frozenset({"api_v1.get_usage"})


def _limit_key() -> str:
    api_key = g.get("api_key")
    # A key id, never the secret; the address only as a fallback (an empty key skips limits).
    return _bucket(api_key.id) if api_key is not None else f"addr:{request.remote_addr}"


def _bucket(key_id: int) -> str:
    return f"key:{key_id}"


def _tier_limit() -> str:
    api_key = g.get("api_key")
    return limit_string(api_key) if api_key is not None else "1 per hour"


def _identify_request() -> str:
    # Unknown routes and wrong methods have no endpoint; name them so the quota still applies
    # (and its headers are sent) when the caller's key was valid.
    return request.endpoint or "unrouted"


def _not_metered() -> bool:
    """True for requests without an authenticated key (docs, preflights) and for /usage."""
    return g.get("api_key") is None or request.endpoint in UNMETERED_ENDPOINTS


def make_limiter() -> Limiter:
    """Build the limiter; app.py initialises it after the auth hook is registered."""
    limiter = Limiter(
        key_func=_limit_key,
        application_limits=[ApplicationLimit(limit_provider=_tier_limit, scope=QUOTA_SCOPE)],
        headers_enabled=True,
        strategy=QUOTA_STRATEGY,
        request_identifier=_identify_request,
        in_memory_fallback_enabled=True,
    )
    limiter.request_filter(_not_metered)
    return limiter


class FailedAuthThrottle:
    """Counts failed authentications per client address in the limiter's storage.

    If that storage is unreachable (Redis down) the throttle fails open and logs a warning at
    most once a minute: losing brute-force protection briefly beats refusing every client.
    """

    WARN_EVERY_SECONDS = 60

    def __init__(self, limiter: Limiter, limit: str = FAILED_AUTH_LIMIT) -> None:
        self._limiter = limiter
        self.item: RateLimitItem = parse(limit)
        self._last_warning = 0.0

    def exhausted(self, address: str) -> bool:
        """True when ``address`` has used up its failed attempts."""
        try:
            return not self._limiter.limiter.test(self.item, "auth-fail", address)
        except Exception as error:  # each storage backend raises its own connection errors
            self._storage_down(error)
            return False

    def record(self, address: str) -> None:
        """Count one failed attempt from ``address``."""
        try:
            self._limiter.limiter.hit(self.item, "auth-fail", address)
        except Exception as error:  # see exhausted()
            self._storage_down(error)

    def retry_after(self, address: str) -> int:
        """Seconds until ``address`` may try again."""
        reset, _remaining = self._limiter.limiter.get_window_stats(self.item, "auth-fail", address)
        return max(1, int(reset - time.time()))

    def _storage_down(self, error: Exception) -> None:
        now = time.monotonic()
        if now - self._last_warning >= self.WARN_EVERY_SECONDS:
            self._last_warning = now
            current_app.logger.warning(
                "failed-auth throttle storage unreachable (%s); not throttling meanwhile",
                type(error).__name__,
            )


def init_limits(app: Flask, limiter: Limiter) -> None:
    """Attach the limiter to the app (register the auth hook before calling this)."""
    limiter.init_app(app)


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


@lru_cache(maxsize=1024)
def _item(limit: str) -> RateLimitItem:
    return parse(limit)


# A sliding window as the storages report it: previous count, seconds until the previous window
# expires, current count, seconds until the current window expires.
Window = tuple[int, float, int, float]


def window_stats(item: RateLimitItem, window: Window, now: float) -> tuple[float, int]:
    """(reset time, remaining) of ``window``: limits' SlidingWindowCounterRateLimiter
    arithmetic, for a window read in the same round trip as the hit."""
    previous_count, previous_expires_in, current_count, current_expires_in = window
    expiry = item.get_expiry()
    weighted = previous_count * previous_expires_in / expiry + current_count
    remaining = max(0, item.amount - floor(weighted))
    if not (previous_count or current_count):
        return now, remaining
    previous_reset_in = previous_expires_in % (expiry / previous_count) if previous_count else inf
    current_reset_in = current_expires_in % expiry if current_count else inf
    return now + min(previous_reset_in, current_reset_in), remaining


class Quota:
    """Charges the shared quota of a key outside Flask-Limiter's request hook (rest.replay).

    Same limiter, strategy, storage and bucket as the hook, so both draw from one quota; on
    Redis the hit and the window read for the headers travel in one round trip. ``charge``
    declines (None) whenever the hook should decide instead: quota spent, storage unreachable,
    or the limiter running on its in-memory fallback (the hook checks for recovery).
    """

    def __init__(self, limiter: Limiter) -> None:
        self._limiter = limiter

    def charge(self, api_key: KeyIdentity) -> QuotaState | None:
        """Spend one request of ``api_key``'s quota; the state after it, or None (see above)."""
        strategy = self._limiter.limiter
        storage = strategy.storage
        if storage is not self._limiter.storage or not isinstance(
            strategy, SlidingWindowCounterRateLimiter
        ):
            return None
        item = _item(limit_string(api_key))
        identifiers = (_bucket(api_key.id), QUOTA_SCOPE)
        try:
            if isinstance(storage, RedisStorage):
                acquired, window = _hit_and_read(storage, item, item.key_for(*identifiers))
                reset, remaining = window_stats(item, window, time.time())
            else:
                acquired = strategy.hit(item, *identifiers)
                reset, remaining = strategy.get_window_stats(item, *identifiers)
        except Exception:  # each storage raises its own errors; the hook logs and falls back
            return None
        if not acquired:
            return None
        # Flask-Limiter's headers round the reset time up to the next whole second.
        return QuotaState(limit=item.amount, remaining=remaining, reset=int(reset + 1))


def _hit_and_read(storage: RedisStorage, item: RateLimitItem, key: str) -> tuple[bool, Window]:
    """limits' own two Lua scripts (acquire, then read the window) in one pipelined round trip."""
    previous = storage.prefixed_key(storage._previous_window_key(key))
    current = storage.prefixed_key(storage._current_window_key(key))
    expiry = item.get_expiry()
    pipe = storage.get_connection().pipeline(transaction=False)
    pipe.evalsha(
        storage.lua_acquire_sliding_window.sha, 2, previous, current, item.amount, expiry, 1
    )
    pipe.evalsha(storage.lua_sliding_window.sha, 2, previous, current, expiry)
    try:
        acquired, raw = pipe.execute()
    except NoScriptError:  # a fresh or flushed Redis: the library's own calls load the scripts
        acquired = storage.acquire_sliding_window_entry(key, item.amount, expiry)
        return bool(acquired), storage.get_sliding_window(key, expiry)
    return bool(acquired), (
        int(raw[0] or 0),
        max(0.0, float(raw[1] or 0)) / 1000,
        int(raw[2] or 0),
        max(0.0, float(raw[3] or 0)) / 1000,
    )


def quota_snapshot(limiter: Limiter) -> dict[str, int] | None:
    """The current request's quota as {limit, remaining, reset}, or None when not metered."""
    current = limiter.current_limit
    if current is None:
        return None
    return {
        "limit": current.limit.amount,
        "remaining": current.remaining,
        "reset": int(current.reset_at),
    }


def usage_of(limiter: Limiter, api_key: KeyIdentity) -> dict[str, int]:
    """The key's quota right now, read without spending any of it."""
    item = _item(limit_string(api_key))
    reset, remaining = limiter.limiter.get_window_stats(item, _bucket(api_key.id), QUOTA_SCOPE)
    return {"limit": item.amount, "remaining": remaining, "reset": int(reset)}


def quota_headers(limiter: Limiter) -> dict[str, str]:
    """The X-RateLimit-* headers for the current key, read without spending quota."""
    usage = usage_of(limiter, g.api_key)
    return {
        "X-RateLimit-Limit": str(usage["limit"]),
        "X-RateLimit-Remaining": str(usage["remaining"]),
        "X-RateLimit-Reset": str(usage["reset"]),
    }

"""One quota per API key, shared by every REST route and /graphql (SPEC 8.1).

The limiter's application-wide limit has a single scope, so every request made with a key draws
from the same bucket whatever the endpoint. Window strategy: sliding window counter (the current
clock hour counts in full, the previous one weighted by its share of the last 60 minutes): two
counters per key and O(1) work per request on every storage, where a moving window keeps a log
of up to ``limit`` timestamps per key and walks it in Redis.
"""

import dataclasses
import hashlib
import time
from functools import lru_cache

from flask import Flask, current_app, g, has_request_context, request
from flask_limiter import ApplicationLimit, Limiter
from limits import RateLimitItem, parse

from service.errors import TooManyRequests
from service.keys import KeyIdentity
from service.quotas import limit_string

from .context import current_g
from .routes import request_policy

FAILED_AUTH_LIMIT = "60 per hour"
# The longest spelling of an IP address (IPv6 ending in dotted IPv4); web.proxies admits only
# addresses, but the peer address is whatever the server reports.
LONGEST_ADDRESS = len("ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255")
QUOTA_STRATEGY = "sliding-window-counter"
QUOTA_SCOPE = "quota"  # the one bucket per key that REST and GraphQL share
LIMITER_EXTENSION = "cds.limiter"
QUOTA_EXTENSION = "cds.quota"  # the web.accel.quota.Quota charging ahead (speed tricks on)
CHARGED = "quota_charged"  # g attribute: the quota state after web.accel.quota charged it


def _limit_key() -> str:
    api_key = g.get("api_key")
    # A key id, never the secret; the address only as a fallback (an empty key skips limits).
    if api_key is not None:
        return _bucket(api_key.id)
    return f"addr:{address_bucket(request.remote_addr)}"


def address_bucket(address: str | None) -> str:
    """A client address as a bucket name: itself, or a digest when it is longer than any IP
    address, so a storage key stays small whatever the address."""
    address = address or "unknown"
    if len(address) <= LONGEST_ADDRESS:
        return address
    digest = hashlib.sha256(address.encode("utf-8", "surrogateescape")).hexdigest()
    return f"sha256:{digest[:32]}"


def _bucket(key_id: int) -> str:
    return f"key:{key_id}"


def quota_item(api_key: KeyIdentity) -> tuple[RateLimitItem, tuple[str, str]]:
    """The key's hourly limit and the identifiers of its one shared bucket, exactly as the
    limiter's request hook charges it."""
    return _item(limit_string(api_key)), (_bucket(api_key.id), QUOTA_SCOPE)


@lru_cache(maxsize=1024)
def _item(limit: str) -> RateLimitItem:
    return parse(limit)


def _tier_limit() -> str:
    api_key = g.get("api_key")
    return limit_string(api_key) if api_key is not None else "1 per hour"


def _identify_request() -> str:
    # Unknown routes and wrong methods have no endpoint; name them so the quota still applies
    # (and its headers are sent) when the caller's key was valid.
    return request.endpoint or "unrouted"


def is_metered() -> bool:
    """True for requests that spend quota: by an authenticated key, on a metered route."""
    return current_g().get("api_key") is not None and request_policy().metered


def in_metered_request() -> bool:
    """True inside a request that spends quota (False outside any request)."""
    return has_request_context() and is_metered()


def _not_metered() -> bool:
    """True where the limiter's hook has nothing to do: requests without an authenticated key
    (docs, preflights), unmetered routes (/usage), and requests web.accel.quota charged."""
    return not is_metered() or g.get(CHARGED) is not None


def make_limiter() -> Limiter:
    """Build the limiter (web.pipeline registers its hooks after the auth hook)."""
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
            return not self._limiter.limiter.test(self.item, "auth-fail", address_bucket(address))
        except Exception as error:  # each storage backend raises its own connection errors
            self._storage_down(error)
            return False

    def record(self, address: str) -> None:
        """Count one failed attempt from ``address``."""
        try:
            self._limiter.limiter.hit(self.item, "auth-fail", address_bucket(address))
        except Exception as error:  # see exhausted()
            self._storage_down(error)

    def retry_after(self, address: str) -> int:
        """Seconds until ``address`` may try again."""
        reset, _remaining = self._limiter.limiter.get_window_stats(
            self.item, "auth-fail", address_bucket(address)
        )
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
    """Register the limiter's own hooks (after the auth hook: it reads the authenticated key)."""
    limiter.init_app(app)


def quota_snapshot(limiter: Limiter) -> dict[str, int] | None:
    """The current request's quota as {limit, remaining, reset}, or None when not metered."""
    charged = g.get(CHARGED)
    if charged is not None:
        snapshot: dict[str, int] = charged.as_dict()  # a web.accel.quota.QuotaState
        return snapshot
    current = limiter.current_limit
    if current is None:
        return None
    return {
        "limit": current.limit.amount,
        "remaining": current.remaining,
        "reset": int(current.reset_at),
    }


def reset_second(reset: float) -> int:
    """The reset time as reported everywhere (headers, /usage, GraphQL): the whole second by
    which the count has gone down, i.e. rounded up, as Flask-Limiter's own headers do."""
    return int(reset + 1)


def usage_of(limiter: Limiter, api_key: KeyIdentity, *, held: int = 0) -> dict[str, int]:
    """The key's quota right now, read without spending any of it; ``held``: units this worker
    has leased and not used yet, which its headers report as remaining (web.accel.quota)."""
    item, identifiers = quota_item(api_key)
    reset, remaining = limiter.limiter.get_window_stats(item, *identifiers)
    remaining = min(item.amount, remaining + held)
    return {"limit": item.amount, "remaining": remaining, "reset": reset_second(reset)}


def held_units(api_key: KeyIdentity) -> int:
    """Units of ``api_key``'s quota this worker holds in a lease (0 without speed tricks)."""
    quota = current_app.extensions.get(QUOTA_EXTENSION)
    return quota.held(api_key) if quota is not None else 0


def quota_headers(limiter: Limiter, *, held: int = 0) -> dict[str, str]:
    """The X-RateLimit-* headers for the current key, read without spending quota."""
    usage = usage_of(limiter, g.api_key, held=held)
    return {
        "X-RateLimit-Limit": str(usage["limit"]),
        "X-RateLimit-Remaining": str(usage["remaining"]),
        "X-RateLimit-Reset": str(usage["reset"]),
    }


def charge_more(units: int, *, what: str) -> None:
    """Charge the current metered request ``units`` of its key's quota in all, of which the
    request hook took one, through the same bucket; raise TooManyRequests, charging nothing more,
    when the quota cannot cover them (``what`` names the request in the message)."""
    extra = units - 1
    if extra < 1 or not in_metered_request():
        return
    limiter: Limiter = current_app.extensions[LIMITER_EXTENSION]
    api_key: KeyIdentity = g.api_key
    charged = g.get(CHARGED)
    quota = current_app.extensions.get(QUOTA_EXTENSION)
    if charged is not None and quota is not None:
        state = quota.charge(api_key, extra)  # a web.accel.quota.QuotaState
        if state is not None:
            setattr(g, CHARGED, state)
            return
    # The hook's own way (or the fallback storage the limiter turned to meanwhile).
    item, identifiers = quota_item(api_key)
    try:
        admitted = limiter.limiter.hit(item, *identifiers, cost=extra)
    except Exception as error:  # the storage failed since the hook: as the hook, fail open
        current_app.logger.warning("quota storage unreachable (%s)", type(error).__name__)
        return
    if admitted:
        if charged is not None:
            remaining = max(0, charged.remaining - extra)
            setattr(g, CHARGED, dataclasses.replace(charged, remaining=remaining))
        return
    usage = usage_of(limiter, api_key, held=held_units(api_key))
    raise TooManyRequests(
        f"{what} costs {units} quota units and this API key has {usage['remaining']} left: it "
        "was not run (the request cost 1 unit); wait for the time in Retry-After, or ask for less",
        retry_after=max(1, usage["reset"] - int(time.time())),
    )

"""One quota per API key, shared by every REST route and /graphql (SPEC 8.1).

The limiter's application-wide limit has a single scope, so every request made with a key draws
from the same bucket whatever the endpoint. Window strategy: moving window (a request counts
against the key for exactly one hour after it was made; no burst at window edges).
"""

import time

from flask import Flask, g, request
from flask_limiter import Limiter
from limits import RateLimitItem, parse

from service.quotas import limit_string

FAILED_AUTH_LIMIT = "60 per hour"
QUOTA_STRATEGY = "moving-window"


def _limit_key() -> str:
    api_key = g.get("api_key")
    # A key id, never the secret; the address only as a fallback (an empty key skips limits).
    return f"key:{api_key.id}" if api_key is not None else f"addr:{request.remote_addr}"


def _tier_limit() -> str:
    api_key = g.get("api_key")
    return limit_string(api_key) if api_key is not None else "1 per hour"


def _identify_request() -> str:
    # Unknown routes and wrong methods have no endpoint; name them so the quota still applies
    # (and its headers are sent) when the caller's key was valid.
    return request.endpoint or "unrouted"


def _not_metered() -> bool:
    """True for requests that carry no authenticated key (docs, preflights, public pages)."""
    return g.get("api_key") is None


def make_limiter() -> Limiter:
    """Build the limiter; app.py initialises it after the auth hook is registered."""
    limiter = Limiter(
        key_func=_limit_key,
        application_limits=[_tier_limit],
        headers_enabled=True,
        strategy=QUOTA_STRATEGY,
        request_identifier=_identify_request,
        in_memory_fallback_enabled=True,
    )
    limiter.request_filter(_not_metered)
    return limiter


class FailedAuthThrottle:
    """Counts failed authentications per client address in the limiter's storage."""

    def __init__(self, limiter: Limiter, limit: str = FAILED_AUTH_LIMIT) -> None:
        self._limiter = limiter
        self.item: RateLimitItem = parse(limit)

    def exhausted(self, address: str) -> bool:
        """True when ``address`` has used up its failed attempts."""
        return not self._limiter.limiter.test(self.item, "auth-fail", address)

    def record(self, address: str) -> None:
        """Count one failed attempt from ``address``."""
        self._limiter.limiter.hit(self.item, "auth-fail", address)

    def retry_after(self, address: str) -> int:
        """Seconds until ``address`` may try again."""
        reset, _remaining = self._limiter.limiter.get_window_stats(self.item, "auth-fail", address)
        return max(1, int(reset - time.time()))


def init_limits(app: Flask, limiter: Limiter) -> None:
    """Attach the limiter to the app (register the auth hook before calling this)."""
    limiter.init_app(app)


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

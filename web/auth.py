"""API key authentication for every route whose policy is keyed (web.routes): /api/v1 and
/graphql (SPEC 5).

The key comes from the X-API-Key header, else ``Authorization: Bearer <key>`` (what generated
clients send), else the api_key query parameter; the first one present wins. Failed attempts
are counted per client address (as resolved by web.proxies) and throttled; a valid key is never
refused by that throttle.
"""

from collections.abc import Collection
from typing import cast

from flask import Flask, Response, request
from werkzeug.wrappers import Request

from service import keys
from service.errors import Unauthorized
from service.numbers import canonical

from .caching import KeyCache
from .context import current_g, current_request
from .db import request_session
from .errors import error_response
from .limits import FAILED_AUTH_LIMIT, FailedAuthThrottle
from .routes import request_policy

HEADER = "X-API-Key"
AUTHORIZATION = "Authorization"
QUERY_PARAMETER = "api_key"


def key_presented_in(request_: Request) -> str | None:
    """The key a request carries: X-API-Key, else a Bearer token, else ``api_key``; an empty
    value counts as absent, and another Authorization scheme (Basic, ...) carries no key."""
    return (
        request_.headers.get(HEADER)
        or _bearer(request_.headers.get(AUTHORIZATION))
        or request_.args.get(QUERY_PARAMETER)
        or None
    )


def _bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def params_without_key(request_: Request, numbers: Collection[str] = ()) -> list[tuple[str, str]]:
    """The query parameters but ``api_key``, sorted, the values of ``numbers`` canonical: the same
    read made with any key, its parameters in any order and its numbers in any spelling gives the
    same list (ETags and replayed responses use it)."""
    return sorted(
        (name, canonical(value) if name in numbers else value)
        for name, values in request_.args.lists()
        if name != QUERY_PARAMETER
        for value in values
    )


def presented_key() -> str | None:
    """The key the current request carries (see :func:`key_presented_in`)."""
    return key_presented_in(request)


def init_auth(app: Flask, throttle: FailedAuthThrottle, key_cache: KeyCache) -> None:
    """Register the before-request hook that authenticates requests to keyed routes."""

    @app.before_request
    def authenticate() -> Response | None:
        request_ = current_request()
        if request_.method == "OPTIONS" or not request_policy().keyed:
            return None
        presented = key_presented_in(request_)
        key_hash = keys.hash_key(presented) if presented else None
        known = key_cache.peek(key_hash) if key_hash else None
        if known is not None:  # a key this worker verified moments ago: nothing to throttle
            current_g().api_key = known
            return None
        try:
            checked = keys.check_presented(presented)  # raises unless a key was sent
            current_g().api_key = key_cache.get_or_load(
                cast(str, key_hash), lambda: keys.authenticate(request_session(), checked)
            )
        except Unauthorized as error:
            # Only failed attempts are throttled: a valid key is served whatever its address
            # (behind a proxy, many customers may share one).
            address = request_.remote_addr or "unknown"
            if throttle.exhausted(address):
                return error_response(
                    429,
                    f"too many failed API key attempts from this address ({FAILED_AUTH_LIMIT})",
                    headers={"Retry-After": str(throttle.retry_after(address))},
                )
            throttle.record(address)
            return error_response(401, error.message)
        return None

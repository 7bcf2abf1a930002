"""Conditional GETs: a strong ETag on every REST 200, and a free 304 for a matching If-None-Match.

The tag is derived from the data version, the day (deals expire) and the normalized request
(path and query parameters, without api_key), so it can be computed before running any query.
The check runs after authentication and before the quota, so a 304 is never charged. A tagged
200 may also be replayed (rest.replay).
"""

import hashlib
from collections.abc import Callable
from datetime import date

from flask import Flask, Response, g, request

from .auth import params_without_key
from .replay import mark_replayable

CACHE_CONTROL = "private, no-cache"  # per-key data; always revalidate (a 304 costs nothing)


def request_etag(version: int, today: date) -> str:
    """The validator for the current request: same data, day and request give the same tag."""
    text = repr((version, today.isoformat(), request.path, params_without_key(request)))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _matching(tag: str) -> str | None:
    """The client's tag that matches ``tag`` (compressed variants carry an ":<algorithm>")."""
    if "HTTP_IF_NONE_MATCH" not in request.environ:  # most requests: nothing to parse
        return None
    if request.if_none_match.star_tag:
        return tag
    for candidate in request.if_none_match.as_set():
        if candidate.split(":", 1)[0] == tag:
            return candidate
    return None


def init_conditional(
    app: Flask,
    *,
    applies: Callable[[], bool],
    quota_headers: Callable[[], dict[str, str]],
    version: Callable[[], int],
) -> None:
    """Register the 304 check (call between the auth hook and the limiter) and the ETag setter.

    ``version()`` gives the current data version.
    """

    @app.before_request
    def not_modified() -> Response | None:
        if request.method not in ("GET", "HEAD") or not applies():
            return None
        current, today = version(), date.today()
        g.etag = request_etag(current, today)
        mark_replayable(current, today)
        client_tag = _matching(g.etag)
        if client_tag is None:
            return None
        response = Response(status=304)
        response.set_etag(client_tag)
        response.headers["Cache-Control"] = CACHE_CONTROL
        response.headers.update(quota_headers())
        return response

    @app.after_request
    def tag_response(response: Response) -> Response:
        if response.status_code == 200 and g.get("etag") and not response.get_etag()[0]:
            response.set_etag(g.etag)
            response.headers["Cache-Control"] = CACHE_CONTROL
        return response

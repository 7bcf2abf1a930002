"""Conditional GETs: a strong ETag on every REST 200, and a free 304 for a matching If-None-Match.

What the tag is made of, and when a 304 is free or charged like the 200: docs/architecture.md
("ETag and 304"). Which requests get tags is each route's policy (web.routes: conditional); a
tagged 200 may also be replayed (web.replay).
"""

import threading
from collections.abc import Callable
from datetime import date, datetime

from cachetools import LRUCache
from flask import Flask, Response, current_app, g, request
from flask_limiter import Limiter

from .auth import params_without_key
from .caching import cache_key
from .limits import held_units, quota_headers
from .replay import mark_replayable
from .routes import number_params, request_policy
from .today import current_minute, request_now, request_today

CACHE_CONTROL = "private, no-cache"  # per-key data; always revalidate (a 304 costs nothing)


def request_etag(version: int, today: date, minute: datetime | None = None) -> str:
    """The validator for the current request: same data, day (and, for an answer about the
    current minute, minute) and request give the same tag."""
    when = today.isoformat() if minute is None else minute.isoformat()
    params = params_without_key(request, number_params(current_app))
    return cache_key(version, when, request.path, params)[:32]


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


ISSUED_TAGS = 65_536  # tags remembered per worker (about 8 MiB at most)


class IssuedTags:
    """The tags this worker has sent on 200 responses, most recent first out of a bounded LRU."""

    def __init__(self, size: int = ISSUED_TAGS) -> None:
        self._tags: LRUCache[str, bool] = LRUCache(maxsize=size)
        self._lock = threading.Lock()

    def add(self, tag: str) -> None:
        with self._lock:
            self._tags[tag] = True

    def __contains__(self, tag: str) -> bool:
        with self._lock:
            return self._tags.get(tag, False)


def _applies() -> bool:
    """Reads by a valid key on a conditional route get ETags (GraphQL and /usage do not)."""
    return g.get("api_key") is not None and request_policy().conditional


def _cache_control() -> str:
    max_age = request_policy().max_age
    return CACHE_CONTROL if max_age is None else f"private, max-age={max_age}"


def uncacheable() -> None:
    """The current request's response gets no ETag, no 304 and is not replayed (an answer with
    errors, which a policy made conditional before the request ran)."""
    for name in ("etag", "etag_minute", "revalidating", "replay_mark"):
        g.pop(name, None)


def _not_modified(client_tag: str, quota_headers: dict[str, str]) -> Response:
    response = Response(status=304)
    response.set_etag(client_tag)
    response.headers["Cache-Control"] = _cache_control()
    response.headers.update(quota_headers)
    return response


def init_conditional(app: Flask, *, limiter: Limiter, version: Callable[[], int]) -> None:
    """Register the 304 check (web.pipeline places it between the auth hook and the quota
    hooks) and the ETag setter. ``version()`` gives the current data version."""
    issued = IssuedTags()

    @app.before_request
    def not_modified() -> Response | None:
        if request.method not in ("GET", "HEAD") or not _applies():
            return None
        policy = request_policy()
        current, today = version(), request_today()
        clocked = policy.reads_clock(request.args)
        g.etag = request_etag(current, today, request_now() if clocked else None)
        tags = [g.etag]
        if policy.clocked_by_answer:  # the client may hold either tag (see tag_response)
            g.etag_minute = request_etag(current, today, current_minute())
            tags.append(g.etag_minute)
        mark_replayable(current, today)
        matched = [(tag, client) for tag in tags if (client := _matching(tag)) is not None]
        if not matched:
            return None
        tag, client_tag = matched[0]
        if tag in issued:
            headers = quota_headers(limiter, held=held_units(g.api_key))
            if headers.get("X-RateLimit-Remaining") != "0":
                return _not_modified(client_tag, headers)
        g.revalidating = client_tag  # decided once the request has run (tag_response)
        return None

    @app.after_request
    def tag_response(response: Response) -> Response:
        tag = g.get("etag")
        if response.status_code != 200 or not tag:
            return response
        if g.get("clock_read") and g.get("etag_minute"):
            tag = g.etag_minute  # the answer read the clock: it holds for this minute only
        issued.add(tag)
        client_tag = g.get("revalidating")
        if client_tag is not None and client_tag.split(":", 1)[0] == tag:
            kept = {k: v for k, v in response.headers.items() if k.lower().startswith("x-")}
            response = _not_modified(client_tag, kept)
        elif not response.get_etag()[0]:
            response.set_etag(tag)
            response.headers["Cache-Control"] = _cache_control()
        return response

"""Conditional GETs: a strong ETag on every REST 200, and a free 304 for a matching If-None-Match.

What the tag is made of, and when a 304 is free or charged like the 200: docs/architecture.md
("ETag and 304"). Which requests get tags is each route's policy (web.routes: conditional); a
tagged 200 may also be replayed (web.replay).
"""

from collections.abc import Callable, Collection, Hashable
from datetime import date, datetime

from flask import Flask, Request, Response, current_app
from flask_limiter import Limiter

from .auth import params_without_key
from .caching import RecentlyUsed, cache_key
from .context import current_g, current_request
from .limits import held_units, quota_headers
from .replay import mark_replayable
from .routes import number_params, request_policy
from .today import current_minute, request_now, request_today

CACHE_CONTROL = "private, no-cache"  # per-key data; always revalidate (a 304 costs nothing)


def request_etag(version: Hashable, today: date, minute: datetime | None = None) -> str:
    """The validator for the current request: same data, day (and, for an answer about the
    current minute, minute) and request give the same tag."""
    return _etag(current_request(), number_params(current_app), version, today, minute)


def _etag(
    request_: Request,
    numbers: Collection[str],
    version: Hashable,
    today: date,
    minute: datetime | None = None,
) -> str:
    when = today.isoformat() if minute is None else minute.isoformat()
    params = params_without_key(request_, numbers)
    return cache_key(version, when, request_.path, params)[:32]


def _matching(request_: Request, tag: str) -> str | None:
    """The client's tag that matches ``tag`` (compressed variants carry an ":<algorithm>")."""
    if request_.if_none_match.star_tag:
        return tag
    for candidate in request_.if_none_match.as_set():
        if candidate.split(":", 1)[0] == tag:
            return candidate
    return None


ISSUED_TAGS = 65_536  # tags remembered per worker (about 8 MiB at most)


class IssuedTags(RecentlyUsed[str, bool]):
    """The tags this worker has sent on 200 responses; the least recently sent or matched go
    first once there are ``size`` of them."""

    def __init__(self, size: int = ISSUED_TAGS) -> None:
        super().__init__(size)

    def add(self, tag: str) -> None:
        self.put(tag, True)

    def __contains__(self, tag: str) -> bool:
        return self.get(tag) is not None


def _cache_control() -> str:
    max_age = request_policy().max_age
    return CACHE_CONTROL if max_age is None else f"private, max-age={max_age}"


def uncacheable() -> None:
    """The current request's response gets no ETag, no 304 and is not replayed (an answer with
    errors, which a policy made conditional before the request ran)."""
    globals_ = current_g()
    for name in ("etag", "etag_minute", "revalidating", "replay_mark"):
        globals_.pop(name, None)


def live_answer() -> None:
    """The current answer reads state the data version's cache may not show yet (the change
    feed): no ETag, no 304, never replayed nor kept as a GraphQL result."""
    uncacheable()
    current_g().live_answer = True


def _not_modified(client_tag: str, quota_headers: dict[str, str]) -> Response:
    response = Response(status=304)
    response.set_etag(client_tag)
    response.headers["Cache-Control"] = _cache_control()
    response.headers.update(quota_headers)
    return response


def init_conditional(
    app: Flask, *, limiter: Limiter, version: Callable[[], int], replays: bool
) -> None:
    """Register the 304 check (web.pipeline places it between the auth hook and the quota
    hooks) and the ETag setter. ``version()`` gives the current data version; ``replays``:
    whether tagged answers may be replayed (a replay store is kept), so are marked for it."""
    issued = IssuedTags()
    numbers = number_params(app)

    @app.before_request
    def not_modified() -> Response | None:
        request_, globals_ = current_request(), current_g()
        api_key = globals_.get("api_key")
        if request_.method not in ("GET", "HEAD") or api_key is None:
            return None
        policy = request_policy()  # reads by a valid key on a conditional route get ETags
        if not policy.conditional:
            return None
        data_version, today = version(), request_today()
        current: Hashable = data_version
        if policy.validator is not None:
            current = (data_version, policy.validator())
        clocked = policy.reads_clock(request_.args)
        minute = request_now() if clocked else None
        globals_.etag = _etag(request_, numbers, current, today, minute)
        tags = [globals_.etag]
        if policy.clocked_by_answer:  # the client may hold either tag (see tag_response)
            globals_.etag_minute = _etag(request_, numbers, current, today, current_minute())
            tags.append(globals_.etag_minute)
        if replays and policy.validator is None:  # the replay lane checks the version only
            mark_replayable(data_version, today)
        if "HTTP_IF_NONE_MATCH" not in request_.environ:  # most requests: nothing to match
            return None
        found = [(tag, client) for tag in tags if (client := _matching(request_, tag)) is not None]
        if not found:
            return None
        tag, client_tag = found[0]
        if tag in issued:
            headers = quota_headers(limiter, held=held_units(api_key))
            if headers.get("X-RateLimit-Remaining") != "0":
                return _not_modified(client_tag, headers)
        globals_.revalidating = client_tag  # decided once the request has run (tag_response)
        return None

    @app.after_request
    def tag_response(response: Response) -> Response:
        globals_ = current_g()
        tag = globals_.get("etag")
        if response.status_code != 200 or not tag:
            return response
        if globals_.get("clock_read") and globals_.get("etag_minute"):
            tag = globals_.etag_minute  # the answer read the clock: it holds for this minute only
        issued.add(tag)
        client_tag = globals_.get("revalidating")
        if client_tag is not None and client_tag.split(":", 1)[0] == tag:
            kept = {k: v for k, v in response.headers.items() if k.lower().startswith("x-")}
            response = _not_modified(client_tag, kept)
        elif not response.get_etag()[0]:
            response.set_etag(tag)
            response.headers["Cache-Control"] = _cache_control()
        return response

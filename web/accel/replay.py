"""Replayed responses: a repeated read answered in front of Flask, still authenticated and charged.

Private API: none, but the :class:`ReplayLane` is a second request pipeline: it re-does the
pipeline stages :data:`MIRRORS` names, and checks when built that these are exactly the stages
web.pipeline declares ``MIRRORED`` (every stage there declares what the lane does about it).

A marked 200 (web.replay) is stored once finished (every after hook has run) under everything it
depends on: data version, day, the normalized request and the headers it varies by
(Accept-Encoding, Origin, Content-Type). The lane answers a stored read again only for a GET or
POST without If-None-Match, with a key this worker verified within ``STATE_TTL_MS``, a data
version as fresh, and a quota that admits the units the first answer cost; anything else goes to
Flask untouched. X-Request-ID, the X-RateLimit-* headers and a GraphQL body's
``extensions.rateLimit`` are made fresh. An answer about the current minute (opening hours "now")
is answered again only within that minute.
"""

import hashlib
import io
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

import orjson
from flask import Flask, Response
from flask import Request as FlaskRequest
from werkzeug.wrappers import Request

from service import keys
from web.auth import key_presented_in, params_without_key
from web.caching import Expiring, KeyCache, PageCache, cache_key
from web.context import current_g, current_request
from web.observability import RequestRecord, RequestRecorder
from web.replay import Replay, ReplayMark, ReplayTreatment
from web.request_id import HEADER as REQUEST_ID_HEADER
from web.request_id import request_id_for
from web.routes import number_params
from web.today import request_now

from .quota import Quota, QuotaState

PRIVATE_API: tuple[str, ...] = ()

# Made fresh for every response, never stored.
VOLATILE_HEADERS = frozenset(
    name.lower()
    for name in (
        REQUEST_ID_HEADER,
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
        "Retry-After",
        "Content-Length",
    )
)
REPLAY_METHODS = ("GET", "POST")

# The pipeline stages this lane re-does for what it replays, each with the method doing it.
MIRRORS: dict[str, str] = {
    "auth": "_replay",  # the key, from the verified-key cache (an unknown one goes to Flask)
    "quota": "_replay",  # the units the first answer cost, charged again (headers in __call__)
    "request_id": "__call__",  # a fresh X-Request-ID
    "observability": "__call__",  # the access log line and the metrics
}


@dataclass(frozen=True)
class StoredResponse:
    """A finished 200: headers without the volatile ones, and the body around the quota."""

    route: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    # With a quota in the body: ``body`` is the part before it and ``after_quota`` the rest.
    after_quota: bytes | None = None
    # An answer about the current minute (it read web.today.request_now): the epoch second at
    # which that minute ends, and with it the answer's life.
    until: float | None = None
    # Quota units the first answer cost (a GraphQL document's, by its cost); a replay costs as many.
    units: int = 1

    @property
    def size(self) -> int:
        return len(self.body) + len(self.after_quota or b"") + 64 * (len(self.headers) + 2)

    def render(self, quota: QuotaState) -> bytes:
        if self.after_quota is None:
            return self.body
        return self.body + quota_json(quota.as_dict()) + self.after_quota


def quota_json(quota: dict[str, int]) -> bytes:
    """The quota as a body embeds it (the GraphQL view serializes with orjson too)."""
    return orjson.dumps(quota)


def replay_key(
    request_: Request, version: int, day: date, body: bytes, numbers: Collection[str] = ()
) -> str:
    """What a stored response is filed under: everything the response depends on.

    The query parameters are sorted, ``api_key`` left out and the values of ``numbers`` made
    canonical, as in the ETag: the same read made with any key, its parameters in any order and
    its numbers in any spelling shares one stored response.
    """
    headers = request_.headers
    return cache_key(
        version,
        day.isoformat(),
        request_.method,
        request_.path,
        params_without_key(request_, numbers),
        headers.get("Accept-Encoding"),
        headers.get("Origin"),
        headers.get("Content-Type"),
        hashlib.sha256(body).hexdigest(),
    )


def init_replay_store(app: Flask, cache: PageCache[StoredResponse]) -> None:
    """Store every marked 200 once it is finished (web.pipeline registers this after hook
    first: Flask runs after hooks in reverse, so it sees the response as it leaves the app)."""

    @app.after_request
    def store_for_replay(response: Response) -> Response:
        globals_ = current_g()
        mark: ReplayMark | None = globals_.get("replay_mark")
        if mark is None or not cache.enabled or response.status_code != 200:
            return response
        request_ = current_request()
        if (
            response.is_streamed
            or request_.method not in REPLAY_METHODS
            or request_.url_rule is None
        ):
            return response
        stored = _stored(request_, response, mark)
        if stored is not None and globals_.get("clock_read"):
            stored = replace(stored, until=request_now().timestamp() + 60)
        if stored is not None:
            body = request_.get_data(cache=True) if request_.method == "POST" else b""
            key = replay_key(request_, mark.version, mark.day, body, number_params(app))
            cache.put(key, stored)
        return response


def _stored(request_: FlaskRequest, response: Response, mark: ReplayMark) -> StoredResponse | None:
    headers = tuple(
        (name, value)
        for name, value in response.headers.items()
        if name.lower() not in VOLATILE_HEADERS
    )
    body = response.get_data()
    route = request_.url_rule.rule if request_.url_rule else ""
    if mark.quota_in_body is None:
        return StoredResponse(route, headers, body, units=mark.units)
    if response.headers.get("Content-Encoding"):
        return None  # the quota inside a compressed body cannot be replaced
    quota = quota_json(mark.quota_in_body)
    at = body.rfind(quota)
    if at < 0:
        return None
    return StoredResponse(
        route, headers, body[:at], after_quota=body[at + len(quota) :], units=mark.units
    )


def check_declarations(declared: Mapping[str, ReplayTreatment]) -> None:
    """Refuse a pipeline whose ``MIRRORED`` stages (``declared``: stage name -> what the lane
    does about it) are not exactly those with a step in :data:`MIRRORS`."""
    mirrored = {name for name, treatment in declared.items() if treatment.replay is Replay.MIRRORED}
    unmirrored, unknown = sorted(mirrored - MIRRORS.keys()), sorted(MIRRORS.keys() - mirrored)
    if unmirrored or unknown:
        raise RuntimeError(
            f"stages declared mirrored with no replay lane step: {unmirrored}; "
            f"replay lane steps for no stage declared mirrored: {unknown}"
        )
    missing = sorted(
        step for step in MIRRORS.values() if not callable(getattr(ReplayLane, step, None))
    )
    if missing:
        raise RuntimeError(f"the replay lane has no method {missing}")


WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class ReplayLane:
    """WSGI middleware in front of the Flask app that answers stored reads (module docstring)."""

    def __init__(
        self,
        app: WsgiApp,
        *,
        cache: PageCache[StoredResponse],
        version: Expiring[int],
        key_cache: KeyCache,
        quota: Quota,
        recorder: RequestRecorder,
        max_body_bytes: int,
        numbers: Collection[str] = (),
        declared: Mapping[str, ReplayTreatment],
    ) -> None:
        check_declarations(declared)
        self._app = app
        self._cache = cache
        self._version = version
        self._key_cache = key_cache
        self._quota = quota
        self._recorder = recorder
        self._max_body_bytes = max_body_bytes
        self._numbers = numbers

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        started = time.perf_counter()
        replayed = self._replay(environ)
        if replayed is None:
            return self._app(environ, start_response)
        stored, request_, key_id, quota = replayed
        body = stored.render(quota)
        request_id = request_id_for(request_.headers.get(REQUEST_ID_HEADER))
        headers = [
            *stored.headers,
            *quota.headers(),
            (REQUEST_ID_HEADER, request_id),
            ("Content-Length", str(len(body))),
        ]
        start_response("200 OK", headers)
        self._recorder.record(
            RequestRecord(
                request_id=request_id,
                method=request_.method,
                route=stored.route,
                status=200,
                duration_s=time.perf_counter() - started,
                key_id=key_id,
                client=environ.get("REMOTE_ADDR"),
            )
        )
        return [body]

    def _replay(
        self, environ: dict[str, Any]
    ) -> tuple[StoredResponse, Request, int, QuotaState] | None:
        method = environ.get("REQUEST_METHOD")
        if (
            not self._cache.enabled
            or method not in REPLAY_METHODS
            or "HTTP_IF_NONE_MATCH" in environ
        ):
            return None
        version = self._version.peek()
        if version is None:
            return None
        # The key first: only a key this worker has verified may make it read a body here, so a
        # keyless or unknown caller's slow body is left to Flask, which refuses it unread.
        request_ = Request(environ)
        presented = key_presented_in(request_)
        identity = self._key_cache.peek(keys.hash_key(presented)) if presented else None
        if identity is None:
            return None
        body = b""
        if method == "POST":
            read = self._read_body(environ)
            if read is None:
                return None
            body = read
        stored = self._cache.get(replay_key(request_, version, date.today(), body, self._numbers))
        if stored is None or (stored.until is not None and time.time() >= stored.until):
            return None
        quota = self._quota.charge(identity, stored.units)
        if quota is None:
            return None
        return stored, request_, identity.id, quota

    def _read_body(self, environ: dict[str, Any]) -> bytes | None:
        """The request body, read once and put back for Flask; None when it cannot be read
        here (no length given, or over the limit: Flask answers those)."""
        length = environ.get("CONTENT_LENGTH") or ""
        if not length.isdigit() or int(length) > self._max_body_bytes:
            return None
        body: bytes = environ["wsgi.input"].read(int(length))
        environ["wsgi.input"] = io.BytesIO(body)
        return body

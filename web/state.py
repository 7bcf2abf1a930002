"""The per-app objects the platform's hooks and both edges share: built once by
web.wiring.init_web and kept in ``app.extensions``; an edge reads them with :func:`web_state`
when it is set up."""

from dataclasses import dataclass

from flask import Flask
from flask_limiter import Limiter

from service.dataset import data_version

from .accel.quota import Quota
from .accel.replay import StoredResponse
from .caching import Expiring, KeyCache, PageCache
from .concurrency import EXPIRY_MARGIN_S, HeavyWork
from .db import request_connection
from .limits import LIMITER_EXTENSION, QUOTA_EXTENSION, make_limiter
from .observability import RequestRecorder
from .settings import page_cache_bytes

STATE_EXTENSION = "cds.web"


@dataclass
class WebState:
    speed_tricks: bool
    limiter: Limiter
    # Valid keys and the data version, reused for STATE_TTL_MS: one reader per app, so ETags,
    # replays and GraphQL results agree on the version.
    key_cache: KeyCache
    version: Expiring[int]
    # Heavy requests in flight, per key and in total (web.concurrency).
    heavy: HeavyWork
    # Speed tricks only (None without them): charging ahead of the limiter, stored responses.
    quota: Quota | None
    replays: PageCache[StoredResponse] | None
    recorder: RequestRecorder | None = None  # set by the observability stage


def make_state(app: Flask) -> WebState:
    """Build ``app``'s shared objects from its config and keep them in ``app.extensions``."""
    tricks = bool(app.config["SPEED_TRICKS"])
    ttl_s = app.config["STATE_TTL_MS"] / 1000
    limiter = make_limiter()
    state = WebState(
        speed_tricks=tricks,
        limiter=limiter,
        key_cache=KeyCache(ttl_s),
        version=Expiring(ttl_s, lambda: data_version(request_connection())),
        heavy=HeavyWork(
            limiter,
            per_key=app.config["HEAVY_PER_KEY"],
            total=app.config["HEAVY_TOTAL"],
            hold_s=app.config["GRAPHQL_TIME_BUDGET_MS"] / 1000 + EXPIRY_MARGIN_S,
        ),
        quota=Quota(limiter, lease_share=app.config["QUOTA_LEASE_SHARE"]) if tricks else None,
        replays=PageCache(page_cache_bytes(app), size_of=lambda stored: stored.size)
        if tricks
        else None,
    )
    app.extensions[STATE_EXTENSION] = state
    app.extensions[LIMITER_EXTENSION] = limiter
    if state.quota is not None:
        app.extensions[QUOTA_EXTENSION] = state.quota
    return state


def web_state(app: Flask) -> WebState:
    """``app``'s shared web objects (web.wiring.init_web must have run)."""
    state: WebState = app.extensions[STATE_EXTENSION]
    return state

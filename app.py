"""Composition root: ``create_app`` wires settings, database, edges and CLI together.

Nothing happens at import time; ``flask --app app ...`` and WSGI servers call ``create_app()``.
"""

import os
from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask, g, request

from graphql_schema import GRAPHQL_PATH, init_graphql, is_ide_request
from models.db import make_engines, make_session_factory
from rest import init_rest, is_api_path
from rest.auth import init_auth
from rest.caching import Expiring, KeyCache, PageCache
from rest.conditional import init_conditional
from rest.db import (
    REQUEST_ENGINE_EXTENSION,
    SESSIONS_EXTENSION,
    close_request_handles,
    request_connection,
    request_session,
)
from rest.docs import init_docs
from rest.errors import init_error_handlers
from rest.health import init_health
from rest.http import init_http
from rest.jsonprovider import OrjsonProvider
from rest.limits import (
    LIMITER_EXTENSION,
    QUOTA_EXTENSION,
    UNMETERED_ENDPOINTS,
    FailedAuthThrottle,
    init_limits,
    make_limiter,
    quota_headers,
    quota_snapshot,
)
from rest.links import init_links
from rest.observability import init_observability
from rest.proxies import trust_proxies
from rest.quota import Quota, init_quota
from rest.replay import ReplayLane, StoredResponse, init_replay, mark_replayable
from rest.request_id import init_request_id
from rest.serving import make_serve_command
from seed.cli import make_data_group, make_keys_group, make_seed_command
from service.config import Settings
from service.dataset import data_version
from service.geo import warm_zip_index

ENGINE_EXTENSION = "cds.engine"  # loads and commands


class ServiceFlask(Flask):
    """Flask, remembering which hooks and views are coroutines instead of asking per request.

    Flask passes every hook and view through ``ensure_sync`` on each request, and the check it
    makes (``inspect.iscoroutinefunction``) costs more than some of the hooks themselves.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sync_callables: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        try:
            return self._sync_callables[func]
        except KeyError:
            sync = self._sync_callables[func] = super().ensure_sync(func)
            return sync
        except TypeError:  # an unhashable callable: ask each time
            return super().ensure_sync(func)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the application; ``config`` overrides settings read from the environment."""
    app = ServiceFlask(__name__, instance_relative_config=True)
    settings = Settings.from_env(instance_path=app.instance_path)
    app.config.update(
        DATABASE_URL=settings.database_url,
        RATELIMIT_STORAGE_URI=settings.ratelimit_storage_uri,
        DOCS_URL=settings.docs_url,
        LOG_LEVEL=settings.log_level,
        CORS_ORIGINS=list(settings.cors_origins),
        DB_CONNECT_TIMEOUT_S=settings.db_connect_timeout_s,
        DB_STATEMENT_TIMEOUT_MS=settings.db_statement_timeout_ms,
        STATE_TTL_MS=settings.state_ttl_ms,
        PAGE_CACHE_MB=settings.page_cache_mb,
        QUOTA_LEASE_SHARE=settings.quota_lease_share,
        GRAPHQL_COST_BUDGET=settings.graphql_cost_budget,
        GRAPHQL_TIME_BUDGET_MS=settings.graphql_time_budget_ms,
        TRUSTED_PROXY_HOPS=settings.trusted_proxy_hops,
        METRICS_TOKEN=settings.metrics_token,
        PUBLIC_BASE_URL=settings.public_base_url,
        RATELIMIT_HEADERS_ENABLED=True,
    )
    if config:
        app.config.update(config)
    if app.config["RATELIMIT_STORAGE_URI"].startswith(("redis", "valkey")):
        # Fail fast when Redis is away: the limiter then falls back to per-process memory.
        app.config.setdefault(
            "RATELIMIT_STORAGE_OPTIONS", {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}
        )
    # FLASK_DEBUG must never reach a served app: no debugger, no tracebacks in responses.
    app.debug = bool((config or {}).get("DEBUG", False))
    app.json = OrjsonProvider(app)  # unsorted keys: SPEC field order, weekday order in hours
    app.logger.setLevel(app.config["LOG_LEVEL"])

    _init_database(app)
    page_cache_bytes = app.config["PAGE_CACHE_MB"] * 1024 * 1024
    replays: PageCache[StoredResponse] = PageCache(
        page_cache_bytes, size_of=lambda stored: stored.size
    )
    # First registered, so its after_request hook runs last and stores finished responses.
    init_replay(app, replays)
    init_request_id(app)
    recorder = init_observability(app, log_stream=app.config.get("ACCESS_LOG_STREAM"))
    init_http(app, origins=app.config["CORS_ORIGINS"])
    init_error_handlers(app)
    init_links(app)
    limiter = make_limiter()
    # Authentication must run before the limiter's own before_request hook (registration order).
    state_ttl_s = app.config["STATE_TTL_MS"] / 1000
    # One reader of the data version per app: ETags, replays and GraphQL results share it.
    version = Expiring(state_ttl_s, lambda: data_version(request_connection()))
    key_cache = KeyCache(state_ttl_s)
    init_auth(app, FailedAuthThrottle(limiter), needs_key=_needs_key, key_cache=key_cache)
    # The usual case, an admitted request, is charged in one storage call (or a lease); the
    # limiter's hook handles the rest: refusals (429), its in-memory fallback and recovery.
    quota = Quota(limiter, lease_share=app.config["QUOTA_LEASE_SHARE"])
    app.extensions[QUOTA_EXTENSION] = quota
    init_conditional(
        app,
        applies=_conditional,
        quota_headers=lambda: quota_headers(limiter, held=quota.held(g.api_key)),
        version=version.get,
    )
    init_quota(app, quota)
    init_limits(app, limiter)
    app.extensions[LIMITER_EXTENSION] = limiter
    init_rest(app)
    init_graphql(
        app,
        connections=request_connection,
        sessions=request_session,
        quota=lambda: quota_snapshot(limiter),
        version=version.get,
        results=PageCache(page_cache_bytes),
        replayable=mark_replayable,
    )
    init_health(app, engine=app.extensions[REQUEST_ENGINE_EXTENSION], limiter=limiter)
    init_docs(app)
    warm_zip_index()
    app.wsgi_app = ReplayLane(  # type: ignore[method-assign]
        app.wsgi_app,
        cache=replays,
        version=version,
        key_cache=key_cache,
        quota=quota,
        recorder=recorder,
        max_body_bytes=app.config["MAX_CONTENT_LENGTH"],
    )
    trust_proxies(app)  # outermost: the replay lane sees the resolved client address too

    app.cli.add_command(make_seed_command(lambda: app.extensions[ENGINE_EXTENSION]))
    app.cli.add_command(make_data_group(lambda: app.extensions[ENGINE_EXTENSION]))
    app.cli.add_command(make_keys_group(lambda: app.extensions[SESSIONS_EXTENSION]))
    app.cli.add_command(make_serve_command(app))
    return app


def _needs_key() -> bool:
    """REST and GraphQL operations need a key and draw from its quota; the GraphiQL page not."""
    if request.path == GRAPHQL_PATH:
        return not is_ide_request()
    return is_api_path(request.path)


def _conditional() -> bool:
    """REST reads by a valid key get ETags (GraphQL and the quota report do not)."""
    return (
        g.get("api_key") is not None
        and is_api_path(request.path)
        and request.endpoint is not None
        and request.endpoint not in UNMETERED_ENDPOINTS
    )


def _init_database(app: Flask) -> None:
    url = app.config["DATABASE_URL"]
    if url.startswith(f"sqlite:///{app.instance_path}"):
        # The default database file lives in the instance folder, which may not exist yet.
        os.makedirs(app.instance_path, exist_ok=True)
    engine, requests = make_engines(
        url,
        connect_timeout_s=app.config["DB_CONNECT_TIMEOUT_S"],
        statement_timeout_ms=app.config["DB_STATEMENT_TIMEOUT_MS"],
    )
    app.extensions[ENGINE_EXTENSION] = engine
    app.extensions[REQUEST_ENGINE_EXTENSION] = requests
    app.extensions[SESSIONS_EXTENSION] = make_session_factory(requests)

    @app.teardown_appcontext
    def close_database(_exc: BaseException | None) -> None:
        close_request_handles()


def dispose_engines(app: Flask, *, close: bool = True) -> None:
    """Close the app's pooled database connections (both engines); ``close=False`` only
    forgets them (a forked worker must not use or close its parent's connections)."""
    for name in (ENGINE_EXTENSION, REQUEST_ENGINE_EXTENSION):
        app.extensions[name].dispose(close=close)

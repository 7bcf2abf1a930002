"""The web tier's settings, read from the environment and failing loudly on bad values, and the
one step that puts every setting (domain and web) into ``app.config``.

The domain's own settings (database URL and timeouts) stay in service.config.
"""

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import Flask

from service.config import ConfigError, Settings, positive_int, url_setting, whole_number
from service.inflight import default_heavy_total

STORAGE_SCHEMES = ("memory", "redis", "rediss", "valkey")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
MIN_TOKEN_LENGTH = 16
MAX_BODY_BYTES = 64 * 1024  # GraphQL documents; REST takes no body


@dataclass(frozen=True)
class WebSettings:
    ratelimit_storage_uri: str = "memory://"
    # Base of the links in error.docs; "#error-<code>" is appended.
    docs_url: str = "/docs/errors"
    log_level: str = "INFO"
    # Browser origins allowed by CORS: ("*",) means any origin (never with credentials).
    cors_origins: tuple[str, ...] = ("*",)
    # How long a worker reuses a key lookup and the data version (0: ask the database each time).
    state_ttl_ms: int = 1_000
    # Finished responses and GraphQL results kept per worker, in MiB (0 turns caching off).
    page_cache_mb: int = 64
    # On Redis, a busy key takes at most its hourly limit / this many units at once (0: no
    # leases, every request is counted in Redis on its own).
    quota_lease_share: int = 1_000
    # GraphQL: refuse a document whose worst-case number of answer values exceeds this
    # (docs/performance.md has the estimates of typical documents).
    graphql_cost_budget: int = 25_000
    # GraphQL: stop an operation still running this many milliseconds after its request arrived
    # (503).
    graphql_time_budget_ms: int = 3_000
    # GraphQL: a document whose cost estimate is at least this is heavy work (web.concurrency).
    graphql_heavy_cost: int = 20_000
    # GraphQL persisted queries (APQ): documents kept (least recently used out; in Redis when the
    # quotas are), the largest stored (at most MAX_BODY_BYTES), and how long a browser may keep
    # a persisted query's answer to a GET (Cache-Control: private, max-age).
    graphql_persisted_entries: int = 1_000
    graphql_persisted_max_bytes: int = 16 * 1024
    graphql_persisted_max_age_s: int = 60
    # Heavy requests in flight at once across all workers: per key, and over all keys (by
    # default half the workers, WEB_CONCURRENCY or one per core, at least 1).
    heavy_per_key: int = 1
    heavy_total: int = 1
    # Proxies in front of the app whose X-Forwarded-For is trusted (0: use the peer address).
    trusted_proxy_hops: int = 0
    # /metrics is served only when this is set, to requests sending it as a Bearer token.
    metrics_token: str | None = None
    # Absolute links (error.docs, redirects) start with this; relative links when unset.
    public_base_url: str | None = None
    # SPEED_TRICKS=off turns off every speed trick (the accel modules): the stock path.
    speed_tricks: bool = True

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "WebSettings":
        """Build settings from ``environ`` (default os.environ); raise ConfigError if bad."""
        env = os.environ if environ is None else environ
        log_level = env.get("LOG_LEVEL", "INFO").strip().upper()
        if log_level not in LOG_LEVELS:
            raise ConfigError(
                f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}; got {log_level!r}"
            )
        return cls(
            ratelimit_storage_uri=url_setting(
                env, "RATELIMIT_STORAGE_URI", "memory://", STORAGE_SCHEMES
            ),
            docs_url=env.get("DOCS_URL", cls.docs_url).strip() or cls.docs_url,
            log_level=log_level,
            cors_origins=_origins(env.get("CORS_ORIGINS", "")),
            state_ttl_ms=whole_number(env, "STATE_TTL_MS", 1_000),
            page_cache_mb=whole_number(env, "PAGE_CACHE_MB", 64),
            quota_lease_share=whole_number(env, "QUOTA_LEASE_SHARE", 1_000),
            graphql_cost_budget=positive_int(env, "GRAPHQL_COST_BUDGET", cls.graphql_cost_budget),
            graphql_time_budget_ms=positive_int(
                env, "GRAPHQL_TIME_BUDGET_MS", cls.graphql_time_budget_ms
            ),
            graphql_heavy_cost=positive_int(env, "GRAPHQL_HEAVY_COST", cls.graphql_heavy_cost),
            graphql_persisted_entries=positive_int(
                env, "GRAPHQL_PERSISTED_ENTRIES", cls.graphql_persisted_entries
            ),
            graphql_persisted_max_bytes=_persisted_max_bytes(env),
            graphql_persisted_max_age_s=whole_number(
                env, "GRAPHQL_PERSISTED_MAX_AGE_S", cls.graphql_persisted_max_age_s
            ),
            heavy_per_key=positive_int(env, "HEAVY_PER_KEY", cls.heavy_per_key),
            heavy_total=positive_int(env, "HEAVY_TOTAL", _default_heavy_total(env)),
            trusted_proxy_hops=whole_number(env, "TRUSTED_PROXY_HOPS", 0),
            metrics_token=_token(env, "METRICS_TOKEN"),
            public_base_url=_base_url(env, "PUBLIC_BASE_URL"),
            speed_tricks=_switch(env, "SPEED_TRICKS", cls.speed_tricks),
        )


def configure(app: Flask, overrides: Mapping[str, Any] | None) -> None:
    """Put the domain and web settings from the environment into ``app.config``, then
    ``overrides`` over them (tests pass theirs)."""
    domain = Settings.from_env(instance_path=app.instance_path)
    web = WebSettings.from_env()
    app.config.update(
        DATABASE_URL=domain.database_url,
        DB_CONNECT_TIMEOUT_S=domain.db_connect_timeout_s,
        DB_STATEMENT_TIMEOUT_MS=domain.db_statement_timeout_ms,
        CHANGE_RETENTION_DAYS=domain.change_retention_days,
        RATELIMIT_STORAGE_URI=web.ratelimit_storage_uri,
        DOCS_URL=web.docs_url,
        LOG_LEVEL=web.log_level,
        CORS_ORIGINS=list(web.cors_origins),
        STATE_TTL_MS=web.state_ttl_ms,
        PAGE_CACHE_MB=web.page_cache_mb,
        QUOTA_LEASE_SHARE=web.quota_lease_share,
        GRAPHQL_COST_BUDGET=web.graphql_cost_budget,
        GRAPHQL_TIME_BUDGET_MS=web.graphql_time_budget_ms,
        GRAPHQL_HEAVY_COST=web.graphql_heavy_cost,
        GRAPHQL_PERSISTED_ENTRIES=web.graphql_persisted_entries,
        GRAPHQL_PERSISTED_MAX_BYTES=web.graphql_persisted_max_bytes,
        GRAPHQL_PERSISTED_MAX_AGE_S=web.graphql_persisted_max_age_s,
        HEAVY_PER_KEY=web.heavy_per_key,
        HEAVY_TOTAL=web.heavy_total,
        TRUSTED_PROXY_HOPS=web.trusted_proxy_hops,
        METRICS_TOKEN=web.metrics_token,
        PUBLIC_BASE_URL=web.public_base_url,
        SPEED_TRICKS=web.speed_tricks,
        RATELIMIT_HEADERS_ENABLED=True,
    )
    if overrides:
        app.config.update(overrides)
    if app.config.get("MAX_CONTENT_LENGTH") is None:  # Flask pre-sets the key to None
        app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    if app.config["RATELIMIT_STORAGE_URI"].startswith(("redis", "valkey")):
        # Fail fast when Redis is away: the limiter then falls back to per-process memory.
        app.config.setdefault(
            "RATELIMIT_STORAGE_OPTIONS", {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}
        )
    # FLASK_DEBUG must never reach a served app: no debugger, no tracebacks in responses.
    app.debug = bool((overrides or {}).get("DEBUG", False))


def page_cache_bytes(app: Flask) -> int:
    """The byte budget of each per-worker response cache (``PAGE_CACHE_MB``)."""
    return int(app.config["PAGE_CACHE_MB"]) * 1024 * 1024


def _default_heavy_total(env: Mapping[str, str]) -> int:
    """Half the gunicorn workers: WEB_CONCURRENCY as gunicorn.conf.py reads it, else the cores."""
    return default_heavy_total(positive_int(env, "WEB_CONCURRENCY", os.cpu_count() or 1))


def _persisted_max_bytes(env: Mapping[str, str]) -> int:
    value = positive_int(
        env, "GRAPHQL_PERSISTED_MAX_BYTES", WebSettings.graphql_persisted_max_bytes
    )
    if value > MAX_BODY_BYTES:
        raise ConfigError(
            f"GRAPHQL_PERSISTED_MAX_BYTES must be at most {MAX_BODY_BYTES} (the largest request "
            f"body); got {value}"
        )
    return value


def _switch(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name, "").strip().lower()
    if not raw:
        return default
    if raw not in ("on", "off"):
        raise ConfigError(f"{name} must be on or off; got {raw!r}")
    return raw == "on"


def _origins(value: str) -> tuple[str, ...]:
    origins = tuple(o.strip().rstrip("/") for o in value.split(",") if o.strip())
    for origin in origins:
        if origin != "*" and not origin.startswith(("http://", "https://")):
            raise ConfigError(
                f"CORS_ORIGINS must be * or comma-separated http(s) origins; got {origin!r}"
            )
    return origins or ("*",)


def _token(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    if not value:
        return None
    if len(value) < MIN_TOKEN_LENGTH or not value.isascii() or not value.isprintable():
        raise ConfigError(f"{name} must be at least {MIN_TOKEN_LENGTH} printable ASCII characters")
    return value


def _base_url(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip().rstrip("/")
    if not value:
        return None
    scheme, _, rest = value.partition("://")
    if scheme not in ("http", "https") or not rest or any(c in rest for c in "?#@ "):
        raise ConfigError(
            f"{name} must be an http(s) URL without query, fragment or credentials, such as "
            f"https://api.example.com; got {value!r}"
        )
    return value

"""Typed settings read from the environment, failing loudly on bad values.

Read only by app.py, the seed CLI, bench and tests; service functions receive what they need as
arguments and never read the environment themselves.
"""

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


class ConfigError(ValueError):
    """A setting from the environment has a value that cannot be used."""


DEFAULT_DB_FILENAME = "cannabis.db"


@dataclass(frozen=True)
class Settings:
    database_url: str
    ratelimit_storage_uri: str = "memory://"
    # Base of the links in error.docs; "#error-<code>" is appended.
    docs_url: str = "/docs/errors"
    log_level: str = "INFO"
    # Browser origins allowed by CORS: ("*",) means any origin (never with credentials).
    cors_origins: tuple[str, ...] = ("*",)
    db_connect_timeout_s: int = 3
    db_statement_timeout_ms: int = 5_000
    # How long a worker reuses a key lookup and the data version (0: ask the database each time).
    state_ttl_ms: int = 1_000
    # Finished responses and GraphQL results kept per worker, in MiB (0 turns caching off).
    page_cache_mb: int = 64
    # On Redis, a busy key takes at most its hourly limit / this many units at once (0: no
    # leases, every request is counted in Redis on its own).
    quota_lease_share: int = 1_000
    # GraphQL: refuse a document whose worst-case number of answer values exceeds this. The
    # bench's 20-dispensary nested page estimates 10,402 and GraphiQL's introspection 2,601; the
    # costliest admissible document found runs in about half a second at full scale.
    graphql_cost_budget: int = 25_000
    # GraphQL: stop an operation still running this many milliseconds after its request arrived
    # (503); the costliest admissible document needs a sixth of it.
    graphql_time_budget_ms: int = 3_000
    # Proxies in front of the app whose X-Forwarded-For is trusted (0: use the peer address).
    trusted_proxy_hops: int = 0
    # /metrics is served only when this is set, to requests sending it as a Bearer token.
    metrics_token: str | None = None
    # Absolute links (error.docs, redirects) start with this; relative links when unset.
    public_base_url: str | None = None

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, *, instance_path: str | Path
    ) -> "Settings":
        """Build settings from ``environ`` (default os.environ); raise ConfigError if bad."""
        env = os.environ if environ is None else environ
        default_db = f"sqlite:///{Path(instance_path) / DEFAULT_DB_FILENAME}"
        database_url = _url(env, "DATABASE_URL", default_db, ("sqlite", "postgresql"))
        storage = _url(
            env, "RATELIMIT_STORAGE_URI", "memory://", ("memory", "redis", "rediss", "valkey")
        )
        log_level = env.get("LOG_LEVEL", "INFO").strip().upper()
        if log_level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise ConfigError(
                f"LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL; got {log_level!r}"
            )
        return cls(
            database_url=database_url,
            ratelimit_storage_uri=storage,
            docs_url=env.get("DOCS_URL", cls.docs_url).strip() or cls.docs_url,
            log_level=log_level,
            cors_origins=_origins(env.get("CORS_ORIGINS", "")),
            db_connect_timeout_s=_positive_int(env, "DB_CONNECT_TIMEOUT_S", 3),
            db_statement_timeout_ms=_positive_int(env, "DB_STATEMENT_TIMEOUT_MS", 5_000),
            state_ttl_ms=_whole_number(env, "STATE_TTL_MS", 1_000),
            page_cache_mb=_whole_number(env, "PAGE_CACHE_MB", 64),
            quota_lease_share=_whole_number(env, "QUOTA_LEASE_SHARE", 1_000),
            graphql_cost_budget=_positive_int(env, "GRAPHQL_COST_BUDGET", cls.graphql_cost_budget),
            graphql_time_budget_ms=_positive_int(
                env, "GRAPHQL_TIME_BUDGET_MS", cls.graphql_time_budget_ms
            ),
            trusted_proxy_hops=_whole_number(env, "TRUSTED_PROXY_HOPS", 0),
            metrics_token=_token(env, "METRICS_TOKEN"),
            public_base_url=_base_url(env, "PUBLIC_BASE_URL"),
        )


def _url(env: Mapping[str, str], name: str, default: str, schemes: tuple[str, ...]) -> str:
    value = env.get(name, "").strip() or default
    scheme = value.split(":", 1)[0].split("+", 1)[0].lower()
    if scheme not in schemes:
        raise ConfigError(
            f"{name} must start with one of {', '.join(s + ':' for s in schemes)}; "
            f"got a value starting {scheme + ':'!r}"
        )
    return value


def _origins(value: str) -> tuple[str, ...]:
    origins = tuple(o.strip().rstrip("/") for o in value.split(",") if o.strip())
    for origin in origins:
        if origin != "*" and not origin.startswith(("http://", "https://")):
            raise ConfigError(
                f"CORS_ORIGINS must be * or comma-separated http(s) origins; got {origin!r}"
            )
    return origins or ("*",)


def _positive_int(env: Mapping[str, str], name: str, default: int) -> int:
    value = _whole_number(env, name, default)
    if value < 1:
        raise ConfigError(f"{name} must be a positive whole number; got {value!r}")
    return value


def _whole_number(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if not raw.isascii() or not raw.isdigit():
        raise ConfigError(f"{name} must be a whole number (0 or more); got {raw!r}")
    return int(raw)


MIN_TOKEN_LENGTH = 16


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

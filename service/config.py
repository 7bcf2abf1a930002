"""Domain settings read from the environment, failing loudly on bad values (the web tier's are in
web.settings, built with the same helpers).

Read only by web.settings (for app.py), migrations and tests; service functions receive
what they need as arguments and never read the environment themselves.
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
    """Domain settings: where the data lives and how long the database may take.

    The web tier's settings (quotas, CORS, caches, proxies, metrics) are web.settings'.
    """

    database_url: str
    db_connect_timeout_s: int = 3
    db_statement_timeout_ms: int = 5_000
    # How long GET /changes keeps deletions (a cursor from before answers 410).
    change_retention_days: int = 30

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, *, instance_path: str | Path
    ) -> "Settings":
        """Build settings from ``environ`` (default os.environ); raise ConfigError if bad."""
        env = os.environ if environ is None else environ
        default_db = f"sqlite:///{Path(instance_path) / DEFAULT_DB_FILENAME}"
        return cls(
            database_url=url_setting(env, "DATABASE_URL", default_db, ("sqlite", "postgresql")),
            db_connect_timeout_s=positive_int(env, "DB_CONNECT_TIMEOUT_S", 3),
            db_statement_timeout_ms=positive_int(env, "DB_STATEMENT_TIMEOUT_MS", 5_000),
            change_retention_days=positive_int(env, "CHANGE_RETENTION_DAYS", 30),
        )


def url_setting(env: Mapping[str, str], name: str, default: str, schemes: tuple[str, ...]) -> str:
    """``env[name]`` (or ``default`` when blank), which must start with one of ``schemes``."""
    value = env.get(name, "").strip() or default
    scheme = value.split(":", 1)[0].split("+", 1)[0].lower()
    if scheme not in schemes:
        raise ConfigError(
            f"{name} must start with one of {', '.join(s + ':' for s in schemes)}; "
            f"got a value starting {scheme + ':'!r}"
        )
    return value


def positive_int(env: Mapping[str, str], name: str, default: int) -> int:
    """``env[name]`` as a whole number of at least 1 (``default`` when blank)."""
    value = whole_number(env, name, default)
    if value < 1:
        raise ConfigError(f"{name} must be a positive whole number; got {value!r}")
    return value


def whole_number(env: Mapping[str, str], name: str, default: int) -> int:
    """``env[name]`` as a whole number, 0 or more (``default`` when blank)."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if not raw.isascii() or not raw.isdigit():
        raise ConfigError(f"{name} must be a whole number (0 or more); got {raw!r}")
    return int(raw)

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

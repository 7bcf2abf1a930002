"""Production entrypoint: ``gunicorn -c gunicorn.conf.py`` (settings from the environment).

Sync workers, one per core by default (measured here: threads gave no throughput and a worse
p99). Access logs never show API keys: the logger below redacts ``api_key`` query values and the
X-API-Key header before formatting.
"""

import os

from gunicorn.glogging import Logger

from rest.serving import redact_query


def _int_env(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{name} must be a positive whole number; got {raw!r}")
    return int(raw)


wsgi_app = "app:create_app()"
bind = os.environ.get("BIND", "127.0.0.1:8000")
workers = _int_env("WEB_CONCURRENCY", os.cpu_count() or 1)
threads = _int_env("GUNICORN_THREADS", 1)
worker_class = "gthread" if threads > 1 else "sync"
timeout = _int_env("GUNICORN_TIMEOUT", 30)  # a stuck worker is replaced after this
graceful_timeout = _int_env("GUNICORN_GRACEFUL_TIMEOUT", 30)  # SIGTERM: finish in-flight work
keepalive = 5
max_requests = _int_env("GUNICORN_MAX_REQUESTS", 10_000)
max_requests_jitter = max_requests // 10
preload_app = os.environ.get("GUNICORN_PRELOAD", "") == "1"
accesslog = os.environ.get("GUNICORN_ACCESSLOG", "-")
errorlog = os.environ.get("GUNICORN_ERRORLOG", "-")


class RedactingLogger(Logger):
    """Gunicorn's logger with API keys removed from every access-log atom."""

    def atoms(self, resp, req, environ, request_time):  # type: ignore[no-untyped-def]
        atoms = super().atoms(resp, req, environ, request_time)
        atoms["r"] = redact_query(atoms["r"])
        if atoms.get("q"):
            atoms["q"] = redact_query("?" + atoms["q"])[1:]
        for name in list(atoms):
            if name.lower() == "{x-api-key}i":
                atoms[name] = "[redacted]"
        return atoms


logger_class = RedactingLogger


def when_ready(server) -> None:  # type: ignore[no-untyped-def]
    """Warn when quotas would be counted separately in each worker."""
    storage = os.environ.get("RATELIMIT_STORAGE_URI", "memory://")
    if server.cfg.workers > 1 and storage.startswith("memory"):
        server.log.warning(
            "RATELIMIT_STORAGE_URI is %s with %d workers: each worker counts quotas on its own, "
            "so a key gets up to %d times its limit; use redis:// for exact quotas",
            storage,
            server.cfg.workers,
            server.cfg.workers,
        )


def post_fork(server, worker) -> None:  # type: ignore[no-untyped-def]
    """With preload, drop database connections inherited from the master process."""
    if server.cfg.preload_app:
        app = server.app.wsgi()
        app.extensions["cds.engine"].dispose(close=False)

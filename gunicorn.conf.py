"""Production entrypoint: ``gunicorn -c gunicorn.conf.py`` (settings from the environment).

Sync workers, one per core by default, behind the buffering nginx of deploy/nginx (which keeps
slow clients away from them). The logger below redacts API keys (``api_key`` in queries, the
X-API-Key header, key-shaped words) from access lines and gunicorn's own messages. Quotas in
memory:// with several workers are refused at start (each would count its own); several workers
sum their Prometheus metrics through PROMETHEUS_MULTIPROC_DIR (a private temporary directory
unless the operator names one).
"""

import gc
import os
import shutil
import tempfile
from pathlib import Path

from gunicorn.glogging import Logger
from gunicorn.workers.sync import SyncWorker

from web.accel.gc_schedule import CollectBetweenRequests
from web.redaction import REDACTED, add_redacting_filter, redact_params, redact_text
from web.serving import per_worker_quota_problem


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
# As much as nginx passes on (deploy/nginx/proxy.conf: one 8 KiB buffer per line, CRLF included),
# so nothing it takes is refused here with gunicorn's own HTML page. 8190 is gunicorn's maximum
# request line; a header line counts its CRLF, and nginx may add a space after the colon.
limit_request_line = 8190
limit_request_field_size = 8193
# Recycle a worker after this many requests (a guard against slow leaks); a new worker is slow
# to start, so not too often.
max_requests = _int_env("GUNICORN_MAX_REQUESTS", 1_000_000)
max_requests_jitter = max_requests // 10
preload_app = os.environ.get("GUNICORN_PRELOAD", "") == "1"
# The app writes one JSON line per request (web/observability.py); gunicorn's own access log is
# off unless asked for (its keys are redacted by RedactingLogger below).
accesslog = os.environ.get("GUNICORN_ACCESSLOG") or None
errorlog = os.environ.get("GUNICORN_ERRORLOG", "-")

METRICS_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"
_PREPARED_ENV = "CDS_METRICS_DIR_PREPARED"  # the directory a master already made ready
_CREATED_ENV = "CDS_METRICS_DIR_CREATED"  # the directory this file created (removed on exit)


def _prepare_metrics_dir(worker_count: int) -> None:
    """Before any worker forks (and before a preloaded app imports prometheus_client): empty the
    operator's PROMETHEUS_MULTIPROC_DIR, or with several workers create a private one."""
    chosen = os.environ.get(METRICS_DIR_ENV)
    if chosen is not None and chosen == os.environ.get(_PREPARED_ENV):
        return  # a reload (HUP) or a re-executed master (USR2): live workers write there
    if chosen is not None:
        if not os.path.isdir(chosen):
            raise ValueError(f"{METRICS_DIR_ENV} must be an existing directory; got {chosen!r}")
        for stale in Path(chosen).glob("*.db"):
            stale.unlink(missing_ok=True)
    elif worker_count > 1:
        chosen = tempfile.mkdtemp(prefix="cds-metrics-")
        os.environ[METRICS_DIR_ENV] = os.environ[_CREATED_ENV] = chosen
    else:
        return
    os.environ[_PREPARED_ENV] = chosen


_prepare_metrics_dir(workers)


# Access-log atoms that hold the key header, or a bare query string (no "?" to find it by).
_HEADER_ATOMS = frozenset({"{x-api-key}i", "{http_x_api_key}e"})
_QUERY_ATOMS = frozenset({"q", "{query_string}e"})


class RedactingLogger(Logger):
    """Gunicorn's logger with API keys removed from every access-log atom and every message."""

    def setup(self, cfg):  # type: ignore[no-untyped-def]
        super().setup(cfg)
        # On the loggers, so a message logged by any path (warning, exception, log) is covered.
        add_redacting_filter(self.error_log)
        add_redacting_filter(self.access_log)

    def atoms(self, resp, req, environ, request_time):  # type: ignore[no-untyped-def]
        atoms = super().atoms(resp, req, environ, request_time)
        for name, value in atoms.items():
            if not isinstance(value, str):
                continue
            if name.lower() in _HEADER_ATOMS:
                atoms[name] = REDACTED
            elif name in _QUERY_ATOMS:
                atoms[name] = redact_params(value)
            else:
                atoms[name] = redact_text(value)
        return atoms


logger_class = RedactingLogger


def on_starting(server) -> None:  # type: ignore[no-untyped-def]
    """Let workers that run as another user (--user) write the metrics directory created here."""
    created = os.environ.get(_CREATED_ENV)
    if created and os.geteuid() == 0 and server.cfg.uid != 0:
        os.chown(created, server.cfg.uid, server.cfg.gid)


def nworkers_changed(server, new_value, old_value) -> None:  # type: ignore[no-untyped-def]
    """Refuse quotas counted per worker: at start (WEB_CONCURRENCY or --workers, before any
    socket is bound) gunicorn exits with the reason; later (TTIN, a reload) the count stays."""
    # gunicorn applies --env (raw_env) to os.environ only after this first call.
    storage = server.cfg.env.get(
        "RATELIMIT_STORAGE_URI", os.environ.get("RATELIMIT_STORAGE_URI", "")
    )
    problem = per_worker_quota_problem(storage, new_value)
    if problem is None:
        return
    if old_value is None:
        _remove_created_metrics_dir()
        raise RuntimeError(problem)  # gunicorn prints "Error: <problem>" and exits with 1
    server.log.error("%s Keeping %d worker(s).", problem, old_value)
    server.num_workers = old_value


def _remove_created_metrics_dir() -> None:
    created = os.environ.get(_CREATED_ENV)
    if created and created == os.environ.get(METRICS_DIR_ENV):
        shutil.rmtree(created, ignore_errors=True)


def when_ready(server) -> None:  # type: ignore[no-untyped-def]
    """Say where metrics are summed, or warn that each worker reports its own."""
    metrics_dir = os.environ.get(METRICS_DIR_ENV)
    if metrics_dir is not None:
        server.log.info("Prometheus metrics are summed over workers in %s", metrics_dir)
    elif server.cfg.workers > 1:
        server.log.warning(
            "%d workers from the command line and %s unset: each worker reports its own "
            "metrics; set WEB_CONCURRENCY instead of --workers, or set %s",
            server.cfg.workers,
            METRICS_DIR_ENV,
            METRICS_DIR_ENV,
        )


_collector: CollectBetweenRequests | None = None


def post_worker_init(worker) -> None:  # type: ignore[no-untyped-def]
    """The app is built: keep its long-lived objects (routes, schemas, the ZIP code table, ...)
    out of the garbage collector's full passes, which would otherwise walk them all and pause
    requests. With speed tricks on, a sync worker (one request at a time) then collects between
    requests rather than during them (web.accel.gc_schedule)."""
    global _collector
    gc.collect()
    gc.freeze()
    # A sync worker however chosen (this file, -k or --threads), on Python 3.11-3.13.
    if _speed_tricks(worker) and isinstance(worker, SyncWorker) and CollectBetweenRequests.APPLIES:
        _collector = CollectBetweenRequests()


def _speed_tricks(worker) -> bool:  # type: ignore[no-untyped-def]
    """SPEED_TRICKS of the app the worker loaded (on when it cannot tell)."""
    config = getattr(getattr(worker, "wsgi", None), "config", {})
    return bool(config.get("SPEED_TRICKS", True))


def post_request(worker, req, environ, resp) -> None:  # type: ignore[no-untyped-def]
    """The response has been sent: collect garbage now if it is due (sync workers)."""
    if _collector is not None:
        _collector.after_request()


def post_fork(server, worker) -> None:  # type: ignore[no-untyped-def]
    """With preload, drop database connections inherited from the master process."""
    if server.cfg.preload_app:
        from app import dispose_engines

        dispose_engines(server.app.wsgi(), close=False)


def child_exit(server, worker) -> None:  # type: ignore[no-untyped-def]
    """Drop a dead worker's live gauges from the summed metrics (its counters stay counted)."""
    if METRICS_DIR_ENV in os.environ:
        from prometheus_client.multiprocess import mark_process_dead

        mark_process_dead(worker.pid)


def on_exit(server) -> None:  # type: ignore[no-untyped-def]
    """Remove the metrics directory this file created, unless a new master (USR2) took over."""
    created = os.environ.get(_CREATED_ENV)
    if created and created == os.environ.get(METRICS_DIR_ENV) and not server.reexec_pid:
        shutil.rmtree(created, ignore_errors=True)

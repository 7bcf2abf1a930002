"""Prometheus metrics at /metrics (grouped by route) and one JSON log line per request.

Neither is metered or needs a key. With PROMETHEUS_MULTIPROC_DIR set (gunicorn.conf.py sets it for
several workers) every worker writes its metrics to files there and /metrics on any worker reports
the sum over all of them; without it each app has a registry of its own. Log lines carry the
request id, method, route, status, duration and the key's id, never the key itself.
"""

import logging
import os
import sys
import time

import structlog
from flask import Flask, Response, g, request
from prometheus_client import CollectorRegistry, values
from prometheus_flask_exporter import PrometheusMetrics
from prometheus_flask_exporter.multiprocess import GunicornInternalPrometheusMetrics

ACCESS_LOGGER = "cds.access"
METRICS_PATH = "/metrics"
MULTIPROC_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"


def _configure_structlog() -> None:
    if structlog.is_configured():
        return
    structlog.configure(
        processors=[
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.add_log_level,
            structlog.processors.JSONRenderer(sort_keys=False),
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        cache_logger_on_first_use=True,
    )
    stdlib = logging.getLogger(ACCESS_LOGGER)
    if not stdlib.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        stdlib.addHandler(handler)
    stdlib.setLevel(logging.INFO)


def init_observability(app: Flask) -> PrometheusMetrics:
    """Register the request log and the metrics endpoint (a registry per app, not global)."""
    _configure_structlog()
    log = structlog.get_logger(ACCESS_LOGGER)

    @app.before_request
    def start_clock() -> None:
        g.started = time.perf_counter()

    @app.after_request
    def log_request(response: Response) -> Response:
        api_key = g.get("api_key")
        log.info(
            "request",
            request_id=g.get("request_id"),
            method=request.method,
            route=request.url_rule.rule if request.url_rule else "unrouted",
            status=response.status_code,
            duration_ms=round(
                (time.perf_counter() - g.get("started", time.perf_counter())) * 1000, 2
            ),
            key_id=api_key.id if api_key is not None else None,
        )
        return response

    return _metrics(app)


def _metrics(app: Flask) -> PrometheusMetrics:
    """Per-worker files summed on each scrape with PROMETHEUS_MULTIPROC_DIR, else a per-app
    registry (many apps share a test process, so never the global default registry)."""
    if MULTIPROC_DIR_ENV not in os.environ:
        return PrometheusMetrics(
            app, path=METRICS_PATH, group_by="url_rule", registry=CollectorRegistry()
        )
    if not getattr(values.ValueClass, "_multiprocess", False):
        raise RuntimeError(
            f"{MULTIPROC_DIR_ENV} must be set before prometheus_client is first imported"
        )
    return GunicornInternalPrometheusMetrics(app, path=METRICS_PATH, group_by="url_rule")

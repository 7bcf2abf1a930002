"""Prometheus metrics at /metrics (grouped by route) and one JSON log line per request.

Both are written by :class:`RequestRecorder`, which the Flask hooks below and the replay lane in
front of Flask (web.accel.replay) call alike. Who may read /metrics, the labels, the workers'
shared registry and what a log line holds: docs/operations.md ("Metrics", "Logs").
"""

import hmac
import os
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, BinaryIO

import orjson
import structlog
from flask import Flask, Request, Response
from prometheus_client import CollectorRegistry, Counter, Histogram, values
from prometheus_flask_exporter import PrometheusMetrics  # type: ignore[import-untyped]  # no stubs
from prometheus_flask_exporter.multiprocess import (  # type: ignore[import-untyped]  # no stubs
    GunicornInternalPrometheusMetrics,
)
from werkzeug.exceptions import NotFound

from .context import current_g, current_request

METRICS_PATH = "/metrics"
MULTIPROC_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"
# The series prometheus-flask-exporter publishes by default, under the same names and labels.
DURATION_METRIC = "flask_http_request_duration_seconds"
TOTAL_METRIC = "flask_http_request_total"
ROUTE_LABEL = "url_rule"
UNROUTED = "unrouted"
# Method label values; anything else a client sends is counted as OTHER_METHOD, so made-up
# methods cannot add series.
KNOWN_METHODS = frozenset(
    ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT")
)
OTHER_METHOD = "other"


@dataclass(frozen=True)
class RequestRecord:
    """What is known of a finished request: the log line's fields and the metric labels."""

    request_id: str | None
    method: str
    route: str
    status: int
    duration_s: float
    key_id: int | None
    client: str | None = None  # the client address (web.proxies resolves it behind proxies)


class RequestRecorder:
    """Writes each finished request to the access log and the request metrics."""

    def __init__(self, stream: BinaryIO, registry: CollectorRegistry | None) -> None:
        # One fixed line per request: rendered here in the order and format structlog's
        # TimeStamper, add_log_level and JSONRenderer give, then written (and flushed, under a
        # lock) by structlog's BytesLogger; a processor chain per line would cost more than
        # the rest of a small request's log and metrics together.
        self._log = structlog.BytesLogger(stream)
        # Labelled metric children by (method, route, status): labels() checks and locks each
        # call. As bounded as the series themselves.
        self._series: dict[tuple[str, str, int], tuple[Any, Any]] = {}
        self._duration = Histogram(
            DURATION_METRIC,
            "HTTP request duration in seconds",
            ("method", ROUTE_LABEL, "status"),
            registry=registry,
        )
        self._total = Counter(
            TOTAL_METRIC, "Total number of HTTP requests", ("method", "status"), registry=registry
        )

    def record(self, done: RequestRecord) -> None:
        """Log ``done`` as one JSON line and count it in the metrics (scrapes are only logged)."""
        line = {
            "request_id": done.request_id,
            "method": done.method,
            "route": done.route,
            "status": done.status,
            "duration_ms": round(done.duration_s * 1000, 2),
            "key_id": done.key_id,
            "client": done.client,
            "event": "request",
            "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
            "level": "info",
        }
        self._log.msg(orjson.dumps(line))
        if done.route == METRICS_PATH:
            return
        method = done.method if done.method in KNOWN_METHODS else OTHER_METHOD
        labels = (method, done.route, done.status)
        series = self._series.get(labels)
        if series is None:
            series = self._series.setdefault(
                labels,
                (self._duration.labels(*labels), self._total.labels(method, done.status)),
            )
        series[0].observe(done.duration_s)
        series[1].inc()


def init_observability(app: Flask, *, log_stream: BinaryIO | None = None) -> RequestRecorder:
    """Register the request log and the metrics endpoint (a registry per app, not global).

    ``log_stream`` receives the JSON lines (standard error by default). /metrics answers only
    requests carrying ``app.config["METRICS_TOKEN"]`` as a Bearer token (none when it is unset).
    """
    metrics = _metrics(app)
    token = app.config.get("METRICS_TOKEN")
    scrape_token = token.encode() if token else None
    multiprocess = isinstance(metrics, GunicornInternalPrometheusMetrics)
    recorder = RequestRecorder(
        log_stream or sys.stderr.buffer,
        # Multiprocess values live in the per-worker files the exporter's collector reads.
        None if multiprocess else metrics.registry,
    )

    @app.before_request
    def start_clock() -> None:
        request_ = current_request()
        current_g().started = time.perf_counter()
        if request_.path == METRICS_PATH and not _is_scrape(
            request_.headers.get("Authorization"), scrape_token
        ):
            _hide_route(request_)

    @app.after_request
    def record_request(response: Response) -> Response:
        request_, globals_ = current_request(), current_g()
        api_key = globals_.get("api_key")
        rule = request_.url_rule
        recorder.record(
            RequestRecord(
                request_id=globals_.get("request_id"),
                method=request_.method,
                route=rule.rule if rule else UNROUTED,
                status=response.status_code,
                duration_s=time.perf_counter() - globals_.get("started", time.perf_counter()),
                key_id=api_key.id if api_key is not None else None,
                client=request_.remote_addr,
            )
        )
        return response

    return recorder


def _is_scrape(authorization: str | None, token: bytes | None) -> bool:
    """True when ``authorization`` is ``Bearer <token>`` (compared in constant time)."""
    if token is None or authorization is None:
        return False
    scheme, _, credentials = authorization.partition(" ")
    sent = credentials.strip().encode("utf-8", "surrogateescape")
    return scheme.lower() == "bearer" and hmac.compare_digest(sent, token)


def _hide_route(request_: Request) -> None:
    """Route ``request_`` as an unknown path: the app's ordinary 404, every hook as for one."""
    request_.url_rule = None
    request_.view_args = None
    request_.routing_exception = NotFound()


def _metrics(app: Flask) -> Any:
    """Per-worker files summed on each scrape with PROMETHEUS_MULTIPROC_DIR, else a per-app
    registry (many apps share a test process, so never the global default registry)."""
    if MULTIPROC_DIR_ENV not in os.environ:
        return PrometheusMetrics(
            app, path=METRICS_PATH, export_defaults=False, registry=CollectorRegistry()
        )
    if not getattr(values.ValueClass, "_multiprocess", False):
        raise RuntimeError(
            f"{MULTIPROC_DIR_ENV} must be set before prometheus_client is first imported"
        )
    return GunicornInternalPrometheusMetrics(app, path=METRICS_PATH, export_defaults=False)

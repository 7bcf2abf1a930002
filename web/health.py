"""GET /health: liveness plus the database and the quota storage; no key, never metered.

Load balancers poll it, and anyone can: each check's answer is reused for
``HEALTH_CHECK_TTL_S`` seconds (1 by default, 0 checks on every request), so one worker makes at
most one database and one storage check per second whatever the request rate.
"""

import threading
import time
from collections.abc import Callable

from flask import Flask, Response, jsonify
from flask_limiter import Limiter
from sqlalchemy import Engine, text

from service.errors import is_database_unavailable

from .routes import route_policy

HEALTH_PATH = "/health"
DEFAULT_TTL_S = 1.0


def _database_ok(engine: Engine) -> bool:
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as error:
        if not is_database_unavailable(error):  # a bug, not an outage: let it surface
            raise
        return False
    return True


def _limiter_storage_ok(limiter: Limiter) -> bool:
    try:
        return bool(limiter.storage.check())
    except Exception:  # each storage backend raises its own connection errors
        return False


class RecentCheck:
    """``check()``'s answer, asked again at most every ``ttl_s`` seconds of ``clock``.

    One caller at a time runs the check; the others wait for its answer rather than start their
    own (threaded workers), so a burst costs one check. An exception is not remembered.
    """

    def __init__(self, check: Callable[[], bool], ttl_s: float, clock: Callable[[], float]) -> None:
        self._check = check
        self._ttl_s = ttl_s
        self._clock = clock
        self._answer = False
        self._expires = float("-inf")
        self._lock = threading.Lock()

    def __call__(self) -> bool:
        with self._lock:
            now = self._clock()
            if now >= self._expires:
                self._answer = self._check()
                self._expires = now + self._ttl_s
            return self._answer


def init_health(app: Flask, *, engine: Engine, limiter: Limiter) -> None:
    """Register /health; 200 when everything answers, 503 with Retry-After otherwise.

    ``HEALTH_CHECK_TTL_S`` and ``HEALTH_CLOCK`` (a monotonic clock in seconds, for tests) are
    read from the app's config.
    """
    ttl_s = float(app.config.get("HEALTH_CHECK_TTL_S", DEFAULT_TTL_S))
    clock = app.config.get("HEALTH_CLOCK", time.monotonic)
    database_ok = RecentCheck(lambda: _database_ok(engine), ttl_s, clock)
    storage_ok = RecentCheck(lambda: _limiter_storage_ok(limiter), ttl_s, clock)

    @app.get(HEALTH_PATH)
    @route_policy(keyed=False, metered=False, conditional=False)
    def health() -> Response:
        database = database_ok()
        storage = storage_ok()
        response = jsonify(
            {
                "status": "ok" if database and storage else "unavailable",
                "checks": {
                    "database": "ok" if database else "unavailable",
                    "rateLimitStorage": "ok"
                    if storage
                    else "unavailable (using per-process memory)",
                },
            }
        )
        # The quota storage failing degrades fairness, not answers: only the database is fatal.
        # (web.http adds Retry-After to every 503.)
        if not database:
            response.status_code = 503
        return response

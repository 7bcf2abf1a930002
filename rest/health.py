"""GET /health: liveness plus the database and the quota storage; no key, never metered."""

from flask import Flask, Response, jsonify
from flask_limiter import Limiter
from sqlalchemy import Engine, text

from service.errors import is_database_unavailable

HEALTH_PATH = "/health"


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


def init_health(app: Flask, *, engine: Engine, limiter: Limiter) -> None:
    """Register /health; 200 when everything answers, 503 with Retry-After otherwise."""

    @app.get(HEALTH_PATH)
    def health() -> Response:
        database = _database_ok(engine)
        storage = _limiter_storage_ok(limiter)
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
        # (rest.http adds Retry-After to every 503.)
        if not database:
            response.status_code = 503
        return response

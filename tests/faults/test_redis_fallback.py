"""Quota storage in Redis: an outage degrades to per-process memory, recovery returns to Redis."""

import logging
import time
from datetime import date
from pathlib import Path

import pytest
import redis
from flask import Flask

from app import create_app, dispose_engines
from models.db import make_engine
from seed import generate, load_dataset
from service import keys

FALLBACK_WARNING = "Rate limit storage unreachable - falling back to in-memory storage"


@pytest.fixture
def redis_app(tmp_path: Path, redis_server) -> tuple[Flask, str]:
    url = f"sqlite:///{tmp_path / 'redis.db'}"
    load_dataset(make_engine(url), generate(scale="tiny", seed=7, today=date.today()))
    # HEALTH_CHECK_TTL_S=0: /health reports a stopped or restarted Redis on its next request.
    app = create_app(
        {"DATABASE_URL": url, "RATELIMIT_STORAGE_URI": redis_server.url, "HEALTH_CHECK_TTL_S": 0}
    )
    with app.extensions["cds.sessions"]() as db:
        key = keys.create_key(db, tier="free", name="redis").plaintext
        db.commit()
    yield app, key
    dispose_engines(app)


def _quota_keys(server) -> list[bytes]:
    with redis.Redis(host="127.0.0.1", port=server.port, socket_timeout=1) as client:
        return client.keys("*")


def test_quota_counts_live_in_redis(redis_app, redis_server) -> None:
    app, key = redis_app
    client = app.test_client()
    remaining = [
        client.get("/api/v1/laws/CA", headers={"X-API-Key": key}).headers["X-RateLimit-Remaining"]
        for _ in range(3)
    ]
    assert remaining == ["99", "98", "97"]
    assert len(_quota_keys(redis_server)) == 1


def test_replayed_reads_are_charged_in_redis_in_one_round_trip(
    redis_app, redis_server, redis_commands
) -> None:
    app, key = redis_app
    client = app.test_client()
    headers = {"X-API-Key": key}
    client.get("/api/v1/laws/UT", headers=headers)  # the Flask path stores the response
    client.get("/api/v1/laws/UT", headers=headers)  # the first replay loads the script
    sent = redis_commands(app)
    replayed = [client.get("/api/v1/laws/UT", headers=headers) for _ in range(3)]
    assert [r.headers["X-RateLimit-Remaining"] for r in replayed] == ["97", "96", "95"]
    assert sent == ["EVALSHA"] * 3  # the hit reports its window: nothing else is sent
    # Redis holds the count the limiter's own reading reports.
    usage = client.get("/api/v1/usage", headers=headers).get_json()["data"]
    assert usage["remaining"] == 95


def test_requests_through_flask_are_charged_in_one_round_trip_too(
    tmp_path, redis_server, redis_commands
) -> None:
    url = f"sqlite:///{tmp_path / 'cold.db'}"
    load_dataset(make_engine(url), generate(scale="tiny", seed=7, today=date.today()))
    app = create_app(
        {"DATABASE_URL": url, "RATELIMIT_STORAGE_URI": redis_server.url, "PAGE_CACHE_MB": 0}
    )
    try:
        with app.extensions["cds.sessions"]() as db:
            key = keys.create_key(db, tier="pro", name="cold").plaintext
            db.commit()
        client = app.test_client()
        headers = {"X-API-Key": key}
        client.get("/api/v1/laws/UT", headers=headers)  # loads the script
        sent = redis_commands(app)
        answers = [client.get(f"/api/v1/laws/{code}", headers=headers) for code in ("ID", "NV")]
        graphql = client.post("/graphql", json={"query": "{ laws { stateCode } }"}, headers=headers)
    finally:
        dispose_engines(app)
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == ["998", "997"]
    assert graphql.get_json()["extensions"]["rateLimit"]["remaining"] == 996
    assert graphql.headers["X-RateLimit-Remaining"] == "996"
    assert sent == ["EVALSHA"] * 3  # no second call for the headers, nothing from the hook


def test_a_redis_that_lost_its_scripts_still_counts_replayed_reads(redis_app, redis_server) -> None:
    app, key = redis_app
    client = app.test_client()
    headers = {"X-API-Key": key}
    client.get("/api/v1/laws/ID", headers=headers)
    with redis.Redis(host="127.0.0.1", port=redis_server.port, socket_timeout=1) as server:
        server.script_flush()
    again = client.get("/api/v1/laws/ID", headers=headers)
    assert again.status_code == 200
    assert again.headers["X-RateLimit-Remaining"] == "98"
    assert client.get("/api/v1/laws/ID", headers=headers).headers["X-RateLimit-Remaining"] == "97"


def test_redis_outage_falls_back_to_memory_with_one_warning_then_returns(
    redis_app, redis_server, caplog
) -> None:
    app, key = redis_app
    client = app.test_client()
    headers = {"X-API-Key": key}
    assert client.get("/api/v1/laws/CA", headers=headers).status_code == 200
    redis_server.stop()
    with caplog.at_level(logging.WARNING):
        during = [client.get("/api/v1/laws/CA", headers=headers) for _ in range(5)]
    assert [r.status_code for r in during] == [200] * 5
    assert all("X-RateLimit-Limit" in r.headers for r in during)
    assert caplog.text.count(FALLBACK_WARNING) == 1
    health = client.get("/health").get_json()
    assert health["checks"]["rateLimitStorage"].startswith("unavailable")

    redis_server.start()  # a fresh, empty Redis on the same port
    deadline = time.monotonic() + 15
    while not _quota_keys(redis_server):
        # The limiter re-checks a dead backend with exponential backoff (1 s, 2 s, ...).
        assert time.monotonic() < deadline, "quota counting did not return to Redis in 15 s"
        assert client.get("/api/v1/laws/CA", headers=headers).status_code == 200
        time.sleep(0.2)
    assert client.get("/health").get_json()["checks"]["rateLimitStorage"] == "ok"

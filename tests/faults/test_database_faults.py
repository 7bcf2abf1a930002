"""A database that is down, unreachable, unreadable or slow gives a 503 envelope, not a hang."""

import time
from datetime import date
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import text

from app import create_app, dispose_engines
from models.db import make_engine
from seed import generate, load_dataset
from service import keys
from tests.graphql_refusals import refusal_body
from web.db import request_session

ENDPOINTS = [
    "/api/v1/strains",
    "/api/v1/strains/blue-dream",
    "/api/v1/dispensaries?zip=94110",
    "/api/v1/dispensaries/disp_1001",
    "/api/v1/deals",
    "/api/v1/doctors",
    "/api/v1/laws/CA",
    "/api/v1/search?q=kush",
]
LEAKS = (
    "postgres",
    "psycopg",
    "sqlalchemy",
    "sqlite",
    "OperationalError",
    "Traceback",
    ".py",
    "5432",
)
WELL_FORMED_KEY = keys.generate_plaintext()  # never reaches the database


def _assert_unavailable(response) -> None:
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "5"
    message = "the database is unavailable; retry in a few seconds"
    if response.request.path == "/graphql":  # a GraphQL response there
        assert response.get_json() == refusal_body(503, message)
    else:
        body = response.get_json()
        assert body["success"] is False
        assert body["error"]["code"] == 503
        assert body["error"]["message"] == message
    text_body = response.get_data(as_text=True)
    assert not [leak for leak in LEAKS if leak in text_body]


def _all_endpoints(app: Flask) -> list:
    client = app.test_client()
    headers = {"X-API-Key": WELL_FORMED_KEY}
    responses = [client.get(path, headers=headers) for path in ENDPOINTS]
    responses.append(client.post("/graphql", json={"query": "{ laws { state } }"}, headers=headers))
    return responses


def test_a_closed_database_port_gives_503_on_every_endpoint_within_seconds() -> None:
    app = create_app({"DATABASE_URL": "postgresql+psycopg://postgres@127.0.0.1:9/test"})
    started = time.monotonic()
    for response in _all_endpoints(app):
        _assert_unavailable(response)
    assert time.monotonic() - started < 10
    health = app.test_client().get("/health")
    assert health.status_code == 503
    assert health.get_json()["checks"]["database"] == "unavailable"


@pytest.mark.parametrize("content", [b"this is not a database file" * 100, None])
def test_an_unreadable_sqlite_file_gives_503(tmp_path: Path, content: bytes | None) -> None:
    if content is None:
        url = f"sqlite:///{tmp_path / 'missing-dir' / 'cannabis.db'}"  # cannot be opened
    else:
        path = tmp_path / "garbage.db"
        path.write_bytes(content)
        url = f"sqlite:///{path}"
    app = create_app({"DATABASE_URL": url})
    for response in _all_endpoints(app):
        _assert_unavailable(response)
    dispose_engines(app)


@pytest.fixture
def postgres_app(postgres_forwarder) -> tuple[Flask, str]:
    url = postgres_forwarder.url
    engine = make_engine(url)
    load_dataset(engine, generate(scale="tiny", seed=7, today=date.today()))
    engine.dispose()
    # STATE_TTL_MS=0: every request reads the data version, so the outage shows at once (with the
    # default, a worker answers already-cached pages for up to a second without the database);
    # HEALTH_CHECK_TTL_S=0 likewise for /health's own answers.
    app = create_app(
        {
            "DATABASE_URL": url,
            "DB_STATEMENT_TIMEOUT_MS": 300,
            "STATE_TTL_MS": 0,
            "HEALTH_CHECK_TTL_S": 0,
        }
    )
    with app.extensions["cds.sessions"]() as db:
        key = keys.create_key(db, tier="enterprise", hourly_limit=10**6).plaintext
        db.commit()
    yield app, key
    dispose_engines(app)


@pytest.mark.postgres
def test_database_outage_gives_503_and_the_first_request_after_recovery_succeeds(
    postgres_app, postgres_forwarder
) -> None:
    app, key = postgres_app
    client = app.test_client()
    headers = {"X-API-Key": key}
    assert client.get("/api/v1/laws/CA", headers=headers).status_code == 200
    postgres_forwarder.cut()
    started = time.monotonic()
    _assert_unavailable(client.get("/api/v1/laws/CA", headers=headers))
    _assert_unavailable(client.get("/api/v1/strains", headers=headers))
    assert client.get("/health").status_code == 503
    assert time.monotonic() - started < 10
    postgres_forwarder.restore()
    assert client.get("/api/v1/laws/CA", headers=headers).status_code == 200
    assert client.get("/health").get_json() == {
        "status": "ok",
        "checks": {"database": "ok", "rateLimitStorage": "ok"},
    }


@pytest.mark.postgres
def test_a_slow_statement_is_cancelled_and_frees_the_worker(postgres_app) -> None:
    app, key = postgres_app

    def slow_view():
        request_session().execute(text("SELECT pg_sleep(5)"))
        return {"success": True}

    app.add_url_rule("/api/v1/slow", "slow", slow_view)
    started = time.monotonic()
    response = app.test_client().get("/api/v1/slow", headers={"X-API-Key": key})
    elapsed = time.monotonic() - started
    _assert_unavailable(response)
    assert elapsed < 3, f"statement_timeout=300ms should cancel pg_sleep(5); took {elapsed:.1f}s"


def _backend_pid(engine) -> int:
    with engine.connect() as conn:
        return conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()


@pytest.mark.postgres
def test_an_idle_pooled_connection_that_died_is_replaced_before_it_is_used(
    postgres_scratch_url: str,
) -> None:
    engine = make_engine(postgres_scratch_url, ping_after_idle_s=0.05)
    admin = make_engine(postgres_scratch_url)
    try:
        first = _backend_pid(engine)
        with admin.connect() as conn:  # the server drops the pooled connection while it idles
            conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": first})
        time.sleep(0.1)
        assert _backend_pid(engine) != first  # no error: the ping found it dead
    finally:
        engine.dispose()
        admin.dispose()


@pytest.mark.postgres
def test_a_connection_used_moments_ago_is_handed_out_without_a_ping(
    postgres_scratch_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(postgres_scratch_url, ping_after_idle_s=0.5)
    pings = []
    original = engine.dialect.do_ping
    monkeypatch.setattr(engine.dialect, "do_ping", lambda c: pings.append(c) or original(c))
    try:
        pids = {_backend_pid(engine) for _ in range(5)}
        assert len(pids) == 1
        assert pings == []
        time.sleep(0.6)  # now it sat unused long enough to be checked
        assert _backend_pid(engine) in pids
        assert len(pings) == 1
    finally:
        engine.dispose()

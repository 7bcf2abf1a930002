"""Shared fixtures: a tiny deterministic dataset in a temporary SQLite file, app, sessions."""

import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import date, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import Connection, Engine, create_engine, event, make_url, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session
from werkzeug.test import TestResponse

from app import REQUEST_ENGINE_EXTENSION, create_app, dispose_engines
from models import Deal
from models.db import make_engine, make_session_factory
from seed import generate, load_dataset
from service import keys
from web.db import SESSIONS_EXTENSION

TINY_SEED = 7


@pytest.fixture(scope="session")
def reference_day() -> date:
    """The seed day of the shared tiny dataset: today, so its deals are live for API tests."""
    return date.today()


@pytest.fixture(scope="session")
def tiny_db_url(tmp_path_factory: pytest.TempPathFactory, reference_day: date) -> Iterator[str]:
    """The shared tiny dataset: a temporary SQLite file, or with TEST_DATABASE_URL set (a
    PostgreSQL URL whose role may create databases) a scratch database on that server."""
    server = os.environ.get("TEST_DATABASE_URL", "").strip()
    if server:
        url = _create_scratch_database(server)
    else:
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'tiny.db'}"
    engine = make_engine(url)
    load_dataset(engine, generate(scale="tiny", seed=TINY_SEED, today=reference_day))
    engine.dispose()
    yield url
    if server:
        _drop_scratch_database(server, url)


DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@contextmanager
def postgres_scratch() -> Iterator[str]:
    """An empty scratch database on the server at TEST_POSTGRES_URL, dropped on exit (the
    test is skipped when the server is unreachable)."""
    server = os.environ.get("TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL)
    try:
        url = _create_scratch_database(server)
    except OperationalError as error:
        reason = str(error.orig).splitlines()[0] if error.orig else type(error).__name__
        pytest.skip(f"PostgreSQL is not reachable at {make_url(server).host}: {reason}")
    try:
        yield url
    finally:
        _drop_scratch_database(server, url)


@pytest.fixture
def postgres_scratch_url() -> Iterator[str]:
    """An empty scratch database for one test (see postgres_scratch)."""
    with postgres_scratch() as url:
        yield url


def _admin_engine(server_url: str) -> Engine:
    return create_engine(
        server_url, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 3}
    )


def _create_scratch_database(server_url: str) -> str:
    name = f"cds_tests_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    admin = _admin_engine(server_url)
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    admin.dispose()
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


def _drop_scratch_database(server_url: str, url: str) -> None:
    admin = _admin_engine(server_url)
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)')
    admin.dispose()


@pytest.fixture(scope="session")
def engine(tiny_db_url: str) -> Iterator[Engine]:
    engine = make_engine(tiny_db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    """A session whose writes are rolled back after the test."""
    with engine.connect() as conn:
        transaction = conn.begin()
        factory = make_session_factory(engine)
        with factory(bind=conn, join_transaction_mode="create_savepoint") as session:
            yield session
        transaction.rollback()


@pytest.fixture
def speed_tricks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Apps built in the test have every speed trick on, even in the SPEED_TRICKS=off pass
    (for the tests of a trick itself)."""
    monkeypatch.setenv("SPEED_TRICKS", "on")


@pytest.fixture
def app(tiny_db_url: str) -> Iterator[Flask]:
    app = create_app({"TESTING": True, "DATABASE_URL": tiny_db_url})
    yield app
    dispose_engines(app)


@pytest.fixture
def expired_deal(app: Flask) -> Callable[[], AbstractContextManager[str]]:
    """``with expired_deal() as public_id:`` the first deal has expired yesterday, committed on
    the app's own sessions (the ``session`` fixture's writes stay in its transaction on
    PostgreSQL), and is restored after. The shared tiny dataset is seeded today, so no deal has
    expired otherwise. Use it before the app caches an answer about that deal."""

    @contextmanager
    def expire() -> Iterator[str]:
        with app.extensions[SESSIONS_EXTENSION]() as db:
            deal = db.scalar(select(Deal).order_by(Deal.id).limit(1))
            was = deal.expires
            deal.expires = date.today() - timedelta(days=1)
            db.commit()
            try:
                yield deal.public_id
            finally:
                deal.expires = was
                db.commit()

    return expire


@pytest.fixture
def make_app(tiny_db_url: str) -> Iterator[Callable[..., Flask]]:
    """Build extra apps (on the shared dataset unless overridden); their engines are disposed."""
    created: list[Flask] = []

    def make(**config: Any) -> Flask:
        app = create_app({"TESTING": True, "DATABASE_URL": tiny_db_url, **config})
        created.append(app)
        return app

    yield make
    for app in created:
        dispose_engines(app)


@pytest.fixture(scope="session")
def api_keys(engine: Engine) -> dict[str, str]:
    """Plaintext keys per tier (enterprise at 5,000/hour), created once in the shared database."""
    factory = make_session_factory(engine)
    with factory() as db:
        created = {
            "free": keys.create_key(db, tier="free", name="tests free").plaintext,
            "pro": keys.create_key(db, tier="pro", name="tests pro").plaintext,
            "enterprise": keys.create_key(
                db, tier="enterprise", name="tests enterprise", hourly_limit=5_000
            ).plaintext,
        }
        db.commit()
    return created


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


class Api:
    """Test helper: GET an API path with a key (pro by default) and decode the JSON body."""

    def __init__(self, client: FlaskClient, key: str) -> None:
        self.client = client
        self.key = key

    def get(self, path: str, *, key: str | None = None, **params: Any) -> TestResponse:
        headers = {"X-API-Key": self.key if key is None else key} if key != "" else {}
        return self.client.get(path, query_string=params, headers=headers)

    def json(self, path: str, *, status: int = 200, **params: Any) -> dict[str, Any]:
        response = self.get(path, **params)
        assert response.status_code == status, response.get_data(as_text=True)
        return response.get_json()


@pytest.fixture
def api(client: FlaskClient, api_keys: dict[str, str]) -> Api:
    return Api(client, api_keys["pro"])


@contextmanager
def recorded_statements(target: Engine | Connection) -> Iterator[list[str]]:
    """``with recorded_statements(engine_or_connection) as seen:`` collects the SQL it runs."""
    seen: list[str] = []

    def record(_conn, _cursor, statement, *_args) -> None:
        seen.append(statement)

    event.listen(target, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(target, "before_cursor_execute", record)


def _recorded_statements(app: Flask) -> AbstractContextManager[list[str]]:
    return recorded_statements(app.extensions[REQUEST_ENGINE_EXTENSION])


@pytest.fixture
def count_statements() -> Callable[[Flask], AbstractContextManager[list[str]]]:
    """``with count_statements(app) as seen:`` collects every SQL statement ``app`` runs."""
    return _recorded_statements

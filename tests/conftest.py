"""Shared fixtures: a tiny deterministic dataset in a temporary SQLite file, app, sessions."""

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import Engine
from sqlalchemy.orm import Session
from werkzeug.test import TestResponse

from app import ENGINE_EXTENSION, create_app
from models.db import make_engine, make_session_factory
from seed import generate, load_dataset
from service import keys

TINY_SEED = 7


@pytest.fixture(scope="session")
def reference_day() -> date:
    """The seed day of the shared tiny dataset: today, so its deals are live for API tests."""
    return date.today()


@pytest.fixture(scope="session")
def tiny_db_url(tmp_path_factory: pytest.TempPathFactory, reference_day: date) -> str:
    path: Path = tmp_path_factory.mktemp("db") / "tiny.db"
    url = f"sqlite:///{path}"
    engine = make_engine(url)
    load_dataset(engine, generate(scale="tiny", seed=TINY_SEED, today=reference_day))
    engine.dispose()
    return url


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
def app(tiny_db_url: str) -> Iterator[Flask]:
    app = create_app({"TESTING": True, "DATABASE_URL": tiny_db_url})
    yield app
    app.extensions[ENGINE_EXTENSION].dispose()


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

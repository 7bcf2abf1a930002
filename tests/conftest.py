"""Shared fixtures: a tiny deterministic dataset in a temporary SQLite file, app, sessions."""

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from app import create_app
from models.db import make_engine, make_session_factory
from seed import generate, load_dataset

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
    app.extensions["cds.engine"].dispose()

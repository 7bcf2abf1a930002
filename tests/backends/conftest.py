"""The app on each supported database: SQLite and PostgreSQL, seeded with the tiny dataset.

``backend_app`` is parametrised over ["sqlite", "postgresql"] and yields ``(app, key)``: an app
on a scratch database of its own (a temporary SQLite file, or a ``cds_test_<random>`` database
on the PostgreSQL server named by TEST_POSTGRES_URL) and an enterprise key with a huge limit.
The PostgreSQL half is skipped, saying why, when that server cannot be reached within 3 seconds.
Scratch databases are dropped at the end of the session.
"""

import functools
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import Engine, func, select
from sqlalchemy.engine import URL, make_url

from app import ENGINE_EXTENSION, create_app, dispose_engines
from models import Base
from models.db import make_engine
from seed import Dataset, generate, load_dataset
from service import keys
from web.db import SESSIONS_EXTENSION

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
CONNECT_TIMEOUT_S = 3
BACKENDS = ("sqlite", "postgresql")
HUGE_LIMIT = 10_000_000


def postgres_url() -> URL:
    """The maintenance database on the test server (scratch databases are created beside it)."""
    return make_url(os.environ.get("TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL))


def libpq_dsn(url: URL) -> str:
    """``url`` as a libpq connection URI (for psycopg.connect and pg_dump)."""
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


@functools.cache
def _postgres_unavailable_reason() -> str | None:
    """None when the PostgreSQL test server answers within 3 s, else why it cannot be used."""
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed (pip install -e '.[postgres]')"
    url = postgres_url()
    try:
        with psycopg.connect(libpq_dsn(url), connect_timeout=CONNECT_TIMEOUT_S) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        return (
            f"PostgreSQL at {url.render_as_string(hide_password=True)} is unreachable "
            f"(set TEST_POSTGRES_URL): {first_line}"
        )
    return None


def _admin(statement: str) -> None:
    import psycopg

    with psycopg.connect(
        libpq_dsn(postgres_url()), connect_timeout=CONNECT_TIMEOUT_S, autocommit=True
    ) as conn:
        conn.execute(statement)


@dataclass
class Backend:
    """One seeded scratch database and an app on it."""

    name: str
    url: str
    app: Flask
    key: str
    sqlite_path: Path | None = None
    _extra_engines: list[Engine] = field(default_factory=list)

    @property
    def engine(self) -> Engine:
        return self.app.extensions[ENGINE_EXTENSION]

    @property
    def libpq_dsn(self) -> str:
        """The database as a libpq connection URI (PostgreSQL only), e.g. for pg_dump."""
        return libpq_dsn(make_url(self.url))

    def sessions(self):
        return self.app.extensions[SESSIONS_EXTENSION]()

    def row_counts(self) -> dict[str, int]:
        """Rows in every table of the schema (data tables, dataset info and API keys)."""
        with self.engine.connect() as conn:
            return {
                table.name: conn.scalar(select(func.count()).select_from(table)) or 0
                for table in Base.metadata.sorted_tables
            }


class BackendPool:
    """Builds each backend on first use, once per session; drops everything at the end."""

    def __init__(self, tmp_dir: Path, dataset: Dataset) -> None:
        self._tmp_dir = tmp_dir
        self._dataset = dataset
        self._built: dict[str, Backend] = {}
        self._scratch_databases: list[str] = []

    def get(self, name: str) -> Backend:
        """The backend called ``name``; skips the test when PostgreSQL is unreachable."""
        if name not in self._built:
            self._built[name] = self._build(name)
        return self._built[name]

    def _build(self, name: str) -> Backend:
        sqlite_path = None
        if name == "sqlite":
            sqlite_path = self._tmp_dir / "backend.db"
            url = f"sqlite:///{sqlite_path}"
        elif name == "postgresql":
            reason = _postgres_unavailable_reason()
            if reason is not None:
                pytest.skip(reason)
            database = f"cds_test_{uuid.uuid4().hex[:12]}"
            _admin(f'CREATE DATABASE "{database}"')
            self._scratch_databases.append(database)
            url = postgres_url().set(database=database).render_as_string(hide_password=False)
        else:
            raise ValueError(f"unknown backend {name!r}")
        seeding = make_engine(url)
        try:
            load_dataset(seeding, self._dataset)
        finally:
            seeding.dispose()
        # STATE_TTL_MS=0: a revocation takes effect on the very next request of this app.
        app = create_app({"TESTING": True, "DATABASE_URL": url, "STATE_TTL_MS": 0})
        with app.extensions[SESSIONS_EXTENSION]() as db:
            key = keys.create_key(
                db, tier="enterprise", name=f"backend tests ({name})", hourly_limit=HUGE_LIMIT
            ).plaintext
            db.commit()
        return Backend(name=name, url=url, app=app, key=key, sqlite_path=sqlite_path)

    def close(self) -> None:
        for backend in self._built.values():
            dispose_engines(backend.app)
        self._built.clear()
        for database in self._scratch_databases:
            _admin(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        self._scratch_databases.clear()


@pytest.fixture(scope="session")
def tiny_dataset() -> Dataset:
    """The tiny dataset (seed 7) as of today, so its deals are live; generated once."""
    return generate(scale="tiny", seed=7, today=date.today())


@pytest.fixture(scope="session")
def backend_pool(
    tmp_path_factory: pytest.TempPathFactory, tiny_dataset: Dataset
) -> Iterator[BackendPool]:
    pool = BackendPool(tmp_path_factory.mktemp("backends"), tiny_dataset)
    yield pool
    pool.close()


@pytest.fixture(
    scope="session",
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
    ],
)
def backend(request: pytest.FixtureRequest, backend_pool: BackendPool) -> Backend:
    """The seeded backend of this parametrisation (PostgreSQL skipped when unreachable)."""
    return backend_pool.get(request.param)


@pytest.fixture
def postgres_backend(backend_pool: BackendPool) -> Backend:
    """The seeded PostgreSQL backend alone (skipped when the server is unreachable)."""
    return backend_pool.get("postgresql")


@pytest.fixture(scope="session")
def backend_app(backend: Backend) -> tuple[Flask, str]:
    """``(app, key)`` on a seeded scratch database: SQLite, then PostgreSQL."""
    return backend.app, backend.key

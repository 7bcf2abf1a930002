"""PostgreSQL request connections prepare a statement on its second run and keep hundreds."""

import pytest
from sqlalchemy import text

from app import REQUEST_ENGINE_EXTENSION
from models.db import PREPARE_THRESHOLD, PREPARED_MAX

from .conftest import Backend

pytestmark = pytest.mark.postgres

PREPARED = text("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%-- probe'")


def test_a_statement_is_prepared_on_its_second_run(postgres_backend: Backend) -> None:
    engine = postgres_backend.app.extensions[REQUEST_ENGINE_EXTENSION]
    with engine.connect() as conn:
        dbapi = conn.connection.dbapi_connection
        assert (dbapi.prepare_threshold, dbapi.prepared_max) == (PREPARE_THRESHOLD, PREPARED_MAX)
        probe = text("SELECT id FROM strains WHERE thc >= :low ORDER BY id LIMIT 1 -- probe")
        conn.execute(probe, {"low": 1.0}).all()
        assert conn.execute(PREPARED).scalar_one() == 0  # a first run: not prepared
        conn.execute(probe, {"low": 2.0}).all()
        assert conn.execute(PREPARED).scalar_one() == 1

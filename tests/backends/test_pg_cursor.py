"""PostgreSQL cursors build ``description`` only when it is read, with psycopg's own columns."""

import psycopg
import pytest
from sqlalchemy import text

from app import REQUEST_ENGINE_EXTENSION
from models.accel.pg_cursor import LazyDescription, LazyDescriptionCursor
from models.db import make_engines

from .conftest import Backend

pytestmark = pytest.mark.postgres


def test_lazy_description_gives_psycopg_columns(postgres_backend: Backend) -> None:
    engine = postgres_backend.app.extensions[REQUEST_ENGINE_EXTENSION]
    with engine.connect() as conn:
        assert isinstance(conn.connection.dbapi_connection.cursor(), LazyDescriptionCursor)
        row = conn.execute(
            text("SELECT :n AS n, :t AS t, 1.5::numeric(4,2) AS x"), {"n": 1, "t": "a"}
        )
        assert list(row.keys()) == ["n", "t", "x"]

    statements = [
        "SELECT 1 AS one, 'x'::varchar(12) AS label, now()::date AS day, NULL AS nothing",
        "SELECT name, thc, effect_list FROM strains ORDER BY id LIMIT 3",
        "SELECT",  # tuples, no columns: an empty description, not None
        "SET application_name = 'lazy-description-test'",  # no tuples: None
    ]
    dsn = postgres_backend.libpq_dsn
    with (
        psycopg.connect(dsn, cursor_factory=LazyDescriptionCursor) as lazy_conn,
        psycopg.connect(dsn) as plain_conn,
    ):
        for statement in statements:
            lazy, plain = lazy_conn.cursor(), plain_conn.cursor()
            lazy.execute(statement)
            plain.execute(statement)
            got, expected = lazy.description, plain.description
            if expected is None:
                assert got is None, statement
                continue
            assert isinstance(got, LazyDescription)
            assert len(got) == len(expected)
            assert [tuple(column) for column in got] == [tuple(column) for column in expected]
            assert [column.name for column in got[1:]] == [column.name for column in expected[1:]]
            assert [repr(column) for column in got] == [repr(column) for column in expected]


def test_lazy_description_reads_its_own_result_after_the_cursor_moves_on(
    postgres_backend: Backend,
) -> None:
    with psycopg.connect(postgres_backend.libpq_dsn, cursor_factory=LazyDescriptionCursor) as conn:
        cursor = conn.cursor()
        cursor.execute("SELECT 1 AS first_column")
        first = cursor.description
        cursor.execute("SELECT 'a' AS other, 2 AS more")
        assert [column.name for column in first] == ["first_column"]
        assert [column.name for column in cursor.description] == ["other", "more"]


@pytest.mark.parametrize(
    ("accel", "cursor_class"), [(True, LazyDescriptionCursor), (False, psycopg.Cursor)]
)
def test_engines_use_the_lazy_cursor_only_with_accelerations_on(
    postgres_backend: Backend, accel: bool, cursor_class: type
) -> None:
    engines = make_engines(postgres_backend.url, accel=accel)
    try:
        for engine in engines:
            with engine.connect() as conn:
                assert type(conn.connection.dbapi_connection.cursor()) is cursor_class
                assert list(conn.execute(text("SELECT 1 AS one")).keys()) == ["one"]
    finally:
        for engine in engines:
            engine.dispose()

"""PostgreSQL sessions: requests read in autocommit, loads keep one transaction, and the typo
fallback's threshold is the documented one whatever the server's default."""

from datetime import date

import pytest
from sqlalchemy import create_engine, text

from app import ENGINE_EXTENSION, REQUEST_ENGINE_EXTENSION, create_app, dispose_engines
from models.db import make_engine, make_session_factory
from seed import generate, load_dataset
from service.filters import SearchQuery
from service.paging import PageRequest
from service.search import search

pytestmark = pytest.mark.postgres


def test_request_sessions_autocommit_while_the_engine_keeps_transactions(
    postgres_scratch_url: str,
) -> None:
    app = create_app({"DATABASE_URL": postgres_scratch_url})
    try:
        with app.extensions["cds.sessions"]() as session:
            assert session.connection().connection.dbapi_connection.autocommit is True
            # Prepared statements are planned once, not re-planned on every run, and never
            # compiled (JIT).
            assert session.scalar(text("SHOW plan_cache_mode")) == "force_generic_plan"
            assert session.scalar(text("SHOW jit")) == "off"
        with app.extensions[ENGINE_EXTENSION].connect() as conn:
            assert conn.connection.dbapi_connection.autocommit is False
        # The request pool's connections stay autocommit when they go back (nothing switches
        # them per checkout), and the loads' pool is a different one.
        with app.extensions[REQUEST_ENGINE_EXTENSION].connect() as conn:
            pooled = conn.connection.dbapi_connection
        assert pooled.autocommit is True
        assert (
            app.extensions[REQUEST_ENGINE_EXTENSION].pool
            is not app.extensions[ENGINE_EXTENSION].pool
        )
    finally:
        dispose_engines(app)


def test_the_similarity_threshold_ignores_a_different_server_default(
    postgres_scratch_url: str,
) -> None:
    engine = make_engine(postgres_scratch_url)
    today = date(2026, 3, 1)
    try:
        load_dataset(engine, generate(scale="tiny", seed=7, today=today))
        database = engine.url.database
        admin = create_engine(engine.url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(
                text(f'ALTER DATABASE "{database}" SET pg_trgm.similarity_threshold = 0.9')
            )
        admin.dispose()
        engine.dispose()  # new connections pick up the database default
        requests = make_engine(postgres_scratch_url, autocommit=True)
        with make_session_factory(requests)() as session:
            shown = session.scalar(text("SHOW pg_trgm.similarity_threshold"))
            found = search(session, SearchQuery.create(q="blue dreem"), PageRequest(), today=today)
        requests.dispose()
        assert float(shown) == 0.3
        # similarity("blue dreem", "Blue Dream") is 8/14: below 0.9, above the documented 0.3.
        assert "Blue Dream" in [hit.name for hit in found.items]
    finally:
        engine.dispose()


def test_a_load_leaves_its_tables_vacuumed_so_counts_stay_in_the_index(
    postgres_scratch_url: str,
) -> None:
    engine = make_engine(postgres_scratch_url)
    try:
        load_dataset(engine, generate(scale="tiny", seed=7, today=date(2026, 3, 1)))
        with engine.connect() as conn:
            not_visible = conn.execute(
                text(
                    "SELECT relname FROM pg_class WHERE relname IN "
                    "('strains', 'strain_effects', 'dispensaries', 'deals') "
                    "AND relallvisible < relpages"
                )
            ).all()
            vacuumed = conn.execute(
                text(
                    "SELECT count(*) FROM pg_stat_user_tables "
                    "WHERE relname = 'strains' AND last_vacuum IS NOT NULL"
                )
            ).scalar_one()
        assert not_visible == []
        assert vacuumed == 1
    finally:
        engine.dispose()

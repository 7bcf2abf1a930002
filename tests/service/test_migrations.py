"""Alembic migrations build exactly the schema the models declare, on SQLite and PostgreSQL."""

from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from models import Base

ROOT = Path(__file__).resolve().parents[2]


def _alembic(url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["configure_logger"] = False
    return config


def _assert_migrated_schema_matches_models(url: str) -> None:
    command.upgrade(_alembic(url), "head")
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            differences = compare_metadata(MigrationContext.configure(conn), Base.metadata)
            tables = set(inspect(conn).get_table_names())
    finally:
        engine.dispose()
    assert differences == []
    assert tables == set(Base.metadata.tables) | {"alembic_version"}
    command.downgrade(_alembic(url), "base")
    engine = create_engine(url)
    try:
        assert set(inspect(engine).get_table_names()) == {"alembic_version"}
    finally:
        engine.dispose()


def test_migrations_build_the_model_schema_on_sqlite(tmp_path: Path) -> None:
    _assert_migrated_schema_matches_models(f"sqlite:///{tmp_path / 'migrated.db'}")


@pytest.mark.postgres
def test_migrations_build_the_model_schema_on_postgresql(postgres_scratch_url: str) -> None:
    _assert_migrated_schema_matches_models(postgres_scratch_url)

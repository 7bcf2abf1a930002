"""Alembic migrations build exactly the schema the models declare, on SQLite and PostgreSQL."""

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import Connection, Engine, create_engine, func, inspect, select, text

from models import Base, Deal, Dispensary, Doctor, Strain
from models.db import make_engine
from models.search import pairs, pieces
from models.search.structures import (
    POSTGRES_SEARCH_INDEXES,
    SQLITE_SEARCH_TABLES,
    include_in_autogenerate,
    search_drop_statements,
)
from seed import generate, load_dataset

ROOT = Path(__file__).resolve().parents[2]


def _alembic(url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["configure_logger"] = False
    return config


@contextmanager
def _loaded_at_head(url: str) -> Iterator[Engine]:
    """The database at the head revision with the tiny dataset (seed 5) loaded; downgraded to
    base once the block has passed."""
    command.upgrade(_alembic(url), "head")
    engine = make_engine(url)
    try:
        load_dataset(engine, generate(scale="tiny", seed=5, today=date(2026, 2, 1)))
        yield engine
    finally:
        engine.dispose()
    command.downgrade(_alembic(url), "base")


def _search_structures(conn: Connection) -> set[tuple[str, str]]:
    """(name, definition) of every search structure present: FTS5 tables on SQLite; pg_trgm and
    the trigram indexes on PostgreSQL."""
    if conn.dialect.name == "sqlite":
        rows = conn.execute(text("SELECT name, coalesce(sql, '') FROM sqlite_master"))
        return {(name, sql) for name, sql in rows if name in SQLITE_SEARCH_TABLES}
    rows = conn.execute(text("SELECT indexname, indexdef FROM pg_indexes"))
    found = {(name, sql) for name, sql in rows if name in POSTGRES_SEARCH_INDEXES}
    extension = conn.scalar(text("SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'"))
    return found | ({("pg_trgm", "extension")} if extension else set())


def _expected_search_names(dialect: str) -> set[str]:
    if dialect == "sqlite":
        return set(SQLITE_SEARCH_TABLES)
    return set(POSTGRES_SEARCH_INDEXES) | {"pg_trgm"}


def _assert_migrated_schema_matches_models(url: str) -> None:
    command.upgrade(_alembic(url), "head")
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(
                conn, opts={"include_name": include_in_autogenerate}
            )
            differences = compare_metadata(context, Base.metadata)
            tables = set(inspect(conn).get_table_names()) - SQLITE_SEARCH_TABLES
            migrated = _search_structures(conn)
    finally:
        engine.dispose()
    assert differences == []
    assert tables == set(Base.metadata.tables) | {"alembic_version"}
    assert {name for name, _sql in migrated} == _expected_search_names(engine.dialect.name)
    command.downgrade(_alembic(url), "base")
    engine = create_engine(url)
    try:
        assert set(inspect(engine).get_table_names()) == {"alembic_version"}
        with engine.connect() as conn:
            assert _search_structures(conn) == set()
        # create_all (what ``flask seed`` runs) builds the very same search structures.
        with engine.begin() as conn:
            Base.metadata.create_all(conn)
        with engine.connect() as conn:
            assert _search_structures(conn) == migrated
    finally:
        engine.dispose()


def test_migrations_build_the_model_schema_on_sqlite(tmp_path: Path) -> None:
    _assert_migrated_schema_matches_models(f"sqlite:///{tmp_path / 'migrated.db'}")


@pytest.mark.postgres
def test_migrations_build_the_model_schema_on_postgresql(postgres_scratch_url: str) -> None:
    _assert_migrated_schema_matches_models(postgres_scratch_url)


SEARCHED = (Strain.__table__, Dispensary.__table__, Doctor.__table__, Deal.__table__)


def _assert_upgrade_indexes_the_rows_already_loaded(url: str) -> None:
    """A database loaded before the search revision existed is searchable after the upgrade."""
    command.upgrade(_alembic(url), "b626bef8de9d")
    engine = make_engine(url)
    try:
        load_dataset(engine, generate(scale="tiny", seed=3, today=date(2026, 1, 5)))
        with engine.begin() as conn:  # as it was before the search revision
            for statement in search_drop_statements(conn.dialect.name):
                conn.exec_driver_sql(statement)
            assert _search_structures(conn) <= {("pg_trgm", "extension")}
        command.upgrade(_alembic(url), "head")
        with engine.connect() as conn:
            names = {name for name, _sql in _search_structures(conn)}
            assert names == _expected_search_names(conn.dialect.name)
            if conn.dialect.name == "sqlite":
                rows = sum(conn.scalar(select(func.count()).select_from(t)) for t in SEARCHED)
                assert conn.scalar(text("SELECT count(*) FROM search_names")) == rows
                hits = "SELECT count(*) FROM search_names WHERE name MATCH '\"kush\"'"
                assert conn.scalar(text(hits)) > 0
    finally:
        engine.dispose()
    command.downgrade(_alembic(url), "base")


def test_upgrading_a_loaded_sqlite_database_indexes_its_rows(tmp_path: Path) -> None:
    _assert_upgrade_indexes_the_rows_already_loaded(f"sqlite:///{tmp_path / 'loaded.db'}")


@pytest.mark.postgres
def test_upgrading_a_loaded_postgresql_database_indexes_its_rows(
    postgres_scratch_url: str,
) -> None:
    _assert_upgrade_indexes_the_rows_already_loaded(postgres_scratch_url)


def _assert_trait_copies_are_filled_for_rows_loaded_before(
    url: str, revision: str, copies: tuple[str, ...]
) -> None:
    """Effect and flavor rows loaded before ``revision`` get their strain's ``copies`` (its
    columns of those names) on upgrade: downgrading to the revision before it drops the
    copies and keeps the rows."""
    with _loaded_at_head(url) as engine:
        command.downgrade(_alembic(url), revision)
        with engine.connect() as conn:
            for table in ("strain_effects", "strain_flavors"):
                columns = {c["name"] for c in inspect(conn).get_columns(table)}
                assert not columns & set(copies), table
        command.upgrade(_alembic(url), "head")
        with engine.connect() as conn:
            for table in ("strain_effects", "strain_flavors"):
                picked = ", ".join([f"t.{c}" for c in copies] + [f"s.{c}" for c in copies])
                pairs = conn.execute(
                    text(f"SELECT {picked} FROM {table} t JOIN strains s ON s.id = t.strain_id")
                ).all()
                assert len(pairs) > 100
                assert all(row[: len(copies)] == row[len(copies) :] for row in pairs), table


FACETS = ("5e2b8c41d0a7", ("type", "thc", "cbd"))  # the revision before 7a4d19e6c3b2, its copies
SORT_KEYS = ("4f7c2e9a1b63", ("sort_key",))  # the revision before 6d1e8b3f7a20, its copy


def test_the_facets_revision_fills_sqlite_rows_loaded_before(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'facets.db'}"
    _assert_trait_copies_are_filled_for_rows_loaded_before(url, *FACETS)


@pytest.mark.postgres
def test_the_facets_revision_fills_postgresql_rows_loaded_before(
    postgres_scratch_url: str,
) -> None:
    _assert_trait_copies_are_filled_for_rows_loaded_before(postgres_scratch_url, *FACETS)


def test_the_sort_keys_revision_fills_sqlite_rows_loaded_before(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'keys.db'}"
    _assert_trait_copies_are_filled_for_rows_loaded_before(url, *SORT_KEYS)


@pytest.mark.postgres
def test_the_sort_keys_revision_fills_postgresql_rows_loaded_before(
    postgres_scratch_url: str,
) -> None:
    _assert_trait_copies_are_filled_for_rows_loaded_before(postgres_scratch_url, *SORT_KEYS)


def _assert_pairs_are_filled_for_entries_built_before(url: str) -> None:
    """Entries built before the pairs revision get their pieces (pairs and, since revision
    b8e4d2a6f1c3, single characters) on upgrade."""
    with _loaded_at_head(url) as engine:
        command.downgrade(_alembic(url), "9b6e2f0c5d13")  # drops the pairs, keeps the entries
        with engine.connect() as conn:
            assert not inspect(conn).has_table("search_pairs")
        command.upgrade(_alembic(url), "head")
        with engine.connect() as conn:
            entries = conn.execute(text("SELECT id, folded FROM search_entries")).all()
            found = set(conn.execute(text("SELECT pair, entry_id FROM search_pairs")).all())
        assert found == {(piece, id_) for id_, folded in entries for piece in pieces(folded)}
        assert len(found) > 1000


def test_the_pairs_revision_fills_sqlite_entries_built_before(tmp_path: Path) -> None:
    _assert_pairs_are_filled_for_entries_built_before(f"sqlite:///{tmp_path / 'pairs.db'}")


@pytest.mark.postgres
def test_the_pairs_revision_fills_postgresql_entries_built_before(
    postgres_scratch_url: str,
) -> None:
    _assert_pairs_are_filled_for_entries_built_before(postgres_scratch_url)


def _assert_trait_lists_are_filled_for_strains_loaded_before(url: str) -> None:
    """Strains loaded before the trait-lists revision get their effect and flavor names."""
    with _loaded_at_head(url) as engine:
        with engine.connect() as conn:
            loaded = conn.execute(select(Strain.id, Strain.effect_list, Strain.flavor_list)).all()
        command.downgrade(_alembic(url), "c4d8a1f07e26")  # drops the lists, keeps the rows
        with engine.connect() as conn:
            columns = {c["name"] for c in inspect(conn).get_columns("strains")}
        assert "effect_list" not in columns
        command.upgrade(_alembic(url), "head")
        with engine.connect() as conn:
            filled = conn.execute(select(Strain.id, Strain.effect_list, Strain.flavor_list)).all()
        assert sorted(filled) == sorted(loaded)
        assert len(filled) > 100
        assert all(effects and flavors for _, effects, flavors in filled)


def test_the_trait_lists_revision_fills_sqlite_strains_loaded_before(tmp_path: Path) -> None:
    _assert_trait_lists_are_filled_for_strains_loaded_before(f"sqlite:///{tmp_path / 'lists.db'}")


@pytest.mark.postgres
def test_the_trait_lists_revision_fills_postgresql_strains_loaded_before(
    postgres_scratch_url: str,
) -> None:
    _assert_trait_lists_are_filled_for_strains_loaded_before(postgres_scratch_url)


def _assert_ranked_pairs_are_rebuilt_from_the_first_shape(url: str) -> None:
    """The ranked-pairs revision turns the first revision's pairs (pair, entry) into rows that
    carry rank, place and scope, the same rows a load builds; its downgrade restores them."""
    every_column = text("SELECT * FROM search_pairs ORDER BY pair, rank, position")
    with _loaded_at_head(url) as engine:
        with engine.connect() as conn:
            loaded = conn.execute(every_column).all()
            entries = conn.execute(text("SELECT id, folded FROM search_entries")).all()
        command.downgrade(_alembic(url), "e5b7c2d94a18")
        with engine.connect() as conn:
            columns = {c["name"] for c in inspect(conn).get_columns("search_pairs")}
            first = set(conn.execute(text("SELECT pair, entry_id FROM search_pairs")).all())
        assert columns == {"pair", "entry_id"}
        assert first == {(pair, id_) for id_, folded in entries for pair in pairs(folded)}
        command.upgrade(_alembic(url), "head")
        with engine.connect() as conn:
            rebuilt = conn.execute(every_column).all()
        assert rebuilt == loaded
        assert len(loaded) > 1000
        assert {row.rank for row in loaded} >= {1, 2, 3}  # no name of two characters here


def test_the_ranked_pairs_revision_rebuilds_sqlite_pairs(tmp_path: Path) -> None:
    _assert_ranked_pairs_are_rebuilt_from_the_first_shape(f"sqlite:///{tmp_path / 'ranked.db'}")


@pytest.mark.postgres
def test_the_ranked_pairs_revision_rebuilds_postgresql_pairs(postgres_scratch_url: str) -> None:
    _assert_ranked_pairs_are_rebuilt_from_the_first_shape(postgres_scratch_url)


def _assert_single_characters_come_and_go_with_their_revision(url: str) -> None:
    """Revision b8e4d2a6f1c3 adds each entry under each of its characters, as a load does; its
    downgrade leaves the two-character rows as they were."""
    every_column = text("SELECT * FROM search_pairs ORDER BY pair, rank, position")
    with _loaded_at_head(url) as engine:
        with engine.connect() as conn:
            loaded = conn.execute(every_column).all()
        singles = [row for row in loaded if len(row.pair) == 1]
        assert len(singles) > 1000
        assert not any(row.pair.isspace() for row in singles)
        command.downgrade(_alembic(url), "a3d5e7f9b1c2")
        with engine.connect() as conn:
            assert conn.execute(every_column).all() == [r for r in loaded if len(r.pair) == 2]
        command.upgrade(_alembic(url), "head")
        with engine.connect() as conn:
            assert conn.execute(every_column).all() == loaded


def test_the_single_character_revision_on_sqlite(tmp_path: Path) -> None:
    _assert_single_characters_come_and_go_with_their_revision(f"sqlite:///{tmp_path / 'one.db'}")


@pytest.mark.postgres
def test_the_single_character_revision_on_postgresql(postgres_scratch_url: str) -> None:
    _assert_single_characters_come_and_go_with_their_revision(postgres_scratch_url)


def _assert_time_zones_are_filled_for_listings_loaded_before(url: str) -> None:
    """Dispensaries and doctors loaded before the time-zone revision get their ZIP code's zone,
    the one a load gives them; the downgrade drops the column."""
    zones = {
        table: text(f"SELECT public_id, timezone FROM {table} ORDER BY id")
        for table in ("dispensaries", "doctors")
    }
    with _loaded_at_head(url) as engine:
        with engine.connect() as conn:
            loaded = {table: conn.execute(query).all() for table, query in zones.items()}
        command.downgrade(_alembic(url), "b8e4d2a6f1c3")
        with engine.connect() as conn:
            for table in zones:
                assert "timezone" not in {c["name"] for c in inspect(conn).get_columns(table)}
        command.upgrade(_alembic(url), "head")
        with engine.connect() as conn:
            filled = {table: conn.execute(query).all() for table, query in zones.items()}
            nullable = {c["name"]: c["nullable"] for c in inspect(conn).get_columns("doctors")}
        assert filled == loaded
        assert nullable["timezone"] is False
        assert ("disp_1001", "America/Anchorage") in loaded["dispensaries"]  # Alaska sorts first
        assert len({zone for _, zone in loaded["dispensaries"]}) > 5


def test_the_time_zone_revision_fills_sqlite_listings(tmp_path: Path) -> None:
    _assert_time_zones_are_filled_for_listings_loaded_before(f"sqlite:///{tmp_path / 'zones.db'}")


@pytest.mark.postgres
def test_the_time_zone_revision_fills_postgresql_listings(postgres_scratch_url: str) -> None:
    _assert_time_zones_are_filled_for_listings_loaded_before(postgres_scratch_url)


def _assert_open_spans_are_filled_for_rows_loaded_before(url: str) -> None:
    """Dispensaries loaded before the open-spans revision get their openings and zones."""
    spans = text("SELECT dispensary_id, starts, ends FROM dispensary_open_spans")
    zones = text("SELECT name FROM dispensary_time_zones")
    with _loaded_at_head(url) as engine:
        with engine.connect() as conn:
            loaded = (set(conn.execute(spans).all()), set(conn.execute(zones).all()))
        command.downgrade(_alembic(url), "6d1e8b3f7a20")  # drops both, keeps the shops
        with engine.connect() as conn:
            assert not inspect(conn).has_table("dispensary_open_spans")
            assert not inspect(conn).has_table("dispensary_time_zones")
        command.upgrade(_alembic(url), "head")
        with engine.connect() as conn:
            assert (set(conn.execute(spans).all()), set(conn.execute(zones).all())) == loaded
        assert len(loaded[0]) > 500
        assert len(loaded[1]) > 3


def test_the_open_spans_revision_fills_sqlite_rows_loaded_before(tmp_path: Path) -> None:
    _assert_open_spans_are_filled_for_rows_loaded_before(f"sqlite:///{tmp_path / 'open.db'}")


@pytest.mark.postgres
def test_the_open_spans_revision_fills_postgresql_rows_loaded_before(
    postgres_scratch_url: str,
) -> None:
    _assert_open_spans_are_filled_for_rows_loaded_before(postgres_scratch_url)


def _assert_chemistry_revision_keeps_rows_loaded_before(url: str) -> None:
    """Strains and menu items loaded before the chemistry revision keep their rows: each strain
    becomes of ``unknown`` origin without chemistry or parents, and each item of a weight unit
    gets the price per gram a load gives it (others None)."""
    with _loaded_at_head(url) as engine:
        command.downgrade(_alembic(url), "c7e1a4f2b9d0")
        with engine.connect() as conn:
            assert not inspect(conn).has_table("strain_parents")
            assert "lab" not in {c["name"] for c in inspect(conn).get_columns("menu_items")}
            strains = conn.scalar(text("SELECT count(*) FROM strains"))
        command.upgrade(_alembic(url), "head")
        with engine.connect() as conn:
            origins = conn.execute(text("SELECT origin, count(*) FROM strains GROUP BY origin"))
            assert dict(origins.all()) == {"unknown": strains}
            assert conn.scalar(text("SELECT count(*) FROM strains WHERE chemistry IS NULL")) == (
                strains
            )
            items = conn.execute(text("SELECT price, unit, price_per_gram FROM menu_items")).all()
    grams = {"1g": 1.0, "3.5g": 3.5, "7g": 7.0, "14g": 14.0, "28g": 28.0, "1oz": 28.0}
    weighed = [row for row in items if row.unit.replace(" ", "").lower() in grams]
    assert len(weighed) > 100
    for price, unit, per_gram in items:
        grams_of = grams.get(unit.replace(" ", "").lower())
        assert per_gram == (None if grams_of is None else round(price / grams_of, 2)), unit


def test_the_chemistry_revision_keeps_sqlite_rows_loaded_before(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'chemistry.db'}"
    _assert_chemistry_revision_keeps_rows_loaded_before(url)


@pytest.mark.postgres
def test_the_chemistry_revision_keeps_postgresql_rows_loaded_before(
    postgres_scratch_url: str,
) -> None:
    _assert_chemistry_revision_keeps_rows_loaded_before(postgres_scratch_url)

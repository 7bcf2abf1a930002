"""The index over the search entries on each database, and the DDL that builds and drops it.

PostgreSQL: pg_trgm and a GIN index on the folded names (serves LIKE and the ``%`` operator),
and an index that lets a short query's total be counted from the index alone (its pairs' rows
by piece, expiry, kind and state; SQLite's pairs table is its own key and holds them already).
SQLite: FTS5 tables keyed by entry id: ``search_names`` (trigram tokenizer, substrings of 3+
characters, each name's trigram count) and ``search_grams`` (pg_trgm's trigrams, counted per
entry through its ``fts5vocab`` view ``search_grams_terms``). Importing this module registers
the DDL on ``Base.metadata``, so ``create_all`` builds it too.
"""

from typing import Any

from sqlalchemy import DDL, Column, Connection, Integer, MetaData, String, Table, event
from sqlalchemy.schema import SchemaItem
from sqlalchemy.sql.ddl import BaseDDLElement

from ..base import Base
from .entries import SearchEntry, SearchPair

ENTRIES: Table = Base.metadata.tables[SearchEntry.__tablename__]
PAIRS: Table = Base.metadata.tables[SearchPair.__tablename__]
PG_TRIGRAM_INDEX = "ix_search_entries_folded_trgm"
PG_PAIR_COUNT_INDEX = "ix_search_pairs_counted"

# The SQLite structures, described for queries only (never created through this metadata).
_fts = MetaData()
FTS_NAMES = Table(
    "search_names",
    _fts,
    Column("rowid", Integer),
    Column("name", String),
    Column("size", Integer),
)
FTS_GRAMS = Table("search_grams", _fts, Column("rowid", Integer), Column("grams", String))
FTS_TERMS = Table("search_grams_terms", _fts, Column("term", String), Column("doc", Integer))
# FTS5 keeps each table's index in shadow tables; a contentless one has no "_content".
_FTS5_SHADOWS = ("data", "idx", "docsize", "config")

SQLITE_SEARCH_TABLES: frozenset[str] = frozenset(
    {FTS_NAMES.name, FTS_GRAMS.name, FTS_TERMS.name, f"{FTS_NAMES.name}_content"}
    | {
        f"{table}_{shadow}"
        for table in (FTS_NAMES.name, FTS_GRAMS.name)
        for shadow in _FTS5_SHADOWS
    }
)
POSTGRES_SEARCH_INDEXES: frozenset[str] = frozenset({PG_TRIGRAM_INDEX, PG_PAIR_COUNT_INDEX})


def include_in_autogenerate(name: str | None, type_: str, _parents: Any) -> bool:
    """Alembic ``include_name`` hook: leave the search structures (built here) out of the
    model comparison: FTS5 virtual and shadow tables, and PostgreSQL's own indexes."""
    if type_ == "table":
        return name not in SQLITE_SEARCH_TABLES
    if type_ == "index":
        return name not in POSTGRES_SEARCH_INDEXES
    return True


_PG_EXTENSION = "CREATE EXTENSION IF NOT EXISTS pg_trgm"
_PG_INDEX = (
    f"CREATE INDEX IF NOT EXISTS {PG_TRIGRAM_INDEX} ON {ENTRIES.name} "
    "USING gin (folded gin_trgm_ops)"
)
PG_PAIR_COUNT_CREATE = (
    f"CREATE INDEX IF NOT EXISTS {PG_PAIR_COUNT_INDEX} ON {PAIRS.name} (pair, expires, kind, state)"
)
_SQLITE_CREATE = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_NAMES.name} "
    "USING fts5(name, size UNINDEXED, tokenize = 'trigram')",
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_GRAMS.name} "
    "USING fts5(grams, content = '', tokenize = 'unicode61')",
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TERMS.name} "
    f"USING fts5vocab({FTS_GRAMS.name}, instance)",
)
_SQLITE_DROP = tuple(f"DROP TABLE IF EXISTS {t.name}" for t in (FTS_TERMS, FTS_GRAMS, FTS_NAMES))


def _touches_entries(
    ddl: BaseDDLElement,
    target: SchemaItem | str,
    bind: Connection | None,
    tables: list[Table] | None = None,
    state: Any = None,
    **kw: Any,
) -> bool:
    return tables is None or ENTRIES in tables


def _register_search_ddl() -> None:
    """Make ``create_all``/``drop_all`` build and remove the search structures."""
    event.listen(
        Base.metadata, "before_create", DDL(_PG_EXTENSION).execute_if(dialect="postgresql")
    )
    event.listen(ENTRIES, "after_create", DDL(_PG_INDEX).execute_if(dialect="postgresql"))
    pair_index = DDL(PG_PAIR_COUNT_CREATE).execute_if(dialect="postgresql")
    event.listen(PAIRS, "after_create", pair_index)
    for statement in _SQLITE_CREATE:
        ddl = DDL(statement).execute_if(dialect="sqlite", callable_=_touches_entries)
        event.listen(Base.metadata, "after_create", ddl)
    for statement in _SQLITE_DROP:
        ddl = DDL(statement).execute_if(dialect="sqlite", callable_=_touches_entries)
        event.listen(Base.metadata, "before_drop", ddl)


_register_search_ddl()


def search_create_statements(dialect: str) -> tuple[str, ...]:
    """DDL that creates whatever search structure is missing (search_entries must exist)."""
    if dialect == "postgresql":
        return (_PG_EXTENSION, _PG_INDEX)
    if dialect == "sqlite":
        return _SQLITE_CREATE
    return ()


def search_drop_statements(dialect: str, *, extension: bool = False) -> tuple[str, ...]:
    """DDL that drops the search structures; with ``extension``, PostgreSQL's pg_trgm too
    (RESTRICT: if anything else uses it, the drop fails rather than take that along)."""
    if dialect == "postgresql":
        index = tuple(f"DROP INDEX IF EXISTS {name}" for name in sorted(POSTGRES_SEARCH_INDEXES))
        return (*index, "DROP EXTENSION IF EXISTS pg_trgm") if extension else index
    if dialect == "sqlite":
        return _SQLITE_DROP
    return ()


def create_search_structures(conn: Connection) -> None:
    """Create whatever search structure is missing."""
    for statement in search_create_statements(conn.dialect.name):
        conn.exec_driver_sql(statement)

"""The one place for SQL that differs between SQLite and PostgreSQL.

Bulk loading: sequences and transactional DDL. Planning: :class:`tested_per_row`. Arithmetic:
:class:`smaller_of`. Search: the
search entries (models.search), the index over them that makes name search fast and typo
tolerant, how both are rebuilt after each load and how they are queried.

- PostgreSQL: the ``pg_trgm`` extension and a GIN ``gin_trgm_ops`` index on the entries'
  folded names. It serves ``LIKE '%q%'`` (the substring search) and the ``%`` similarity
  operator (the typo fallback).
- SQLite: two FTS5 tables whose rowid is the entry's id. ``search_names`` (``trigram``
  tokenizer) finds the entries whose folded name contains a text of three or more characters;
  ``search_grams`` holds each name's pg_trgm trigram set (one token per trigram) and its
  ``fts5vocab`` view ``search_grams_terms`` counts shared trigrams per entry, so the similarity
  is the one pg_trgm computes. ``search_names`` also stores that set's size.
"""

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from sqlalchemy import (
    DDL,
    Column,
    ColumnElement,
    Connection,
    Engine,
    Float,
    Integer,
    MetaData,
    Select,
    String,
    Table,
    bindparam,
    cast,
    delete,
    event,
    func,
    insert,
    inspect,
    literal,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import REGCLASS
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement as SqlColumnElement
from sqlalchemy.sql.visitors import InternalTraversal

from .base import Base
from .deal import Deal
from .dispensary import Dispensary
from .doctor import Doctor
from .search import SearchEntry, SearchPair, pair_rank, pairs, spaced_words
from .strain import Strain


def advance_sequences(conn: Connection, tables: list[Table]) -> None:
    """After bulk inserts with explicit ids, move PostgreSQL's id sequences past the data.

    SQLite's INTEGER PRIMARY KEY needs nothing: it always continues from max(id).
    """
    if conn.dialect.name != "postgresql":
        return
    for table in tables:
        if "id" not in table.c or not table.c.id.autoincrement:
            continue
        highest = conn.scalar(select(func.max(table.c.id))) or 0
        conn.execute(
            text("SELECT setval(pg_get_serial_sequence(:table, 'id'), :value, :called)"),
            {"table": table.name, "value": max(highest, 1), "called": highest > 0},
        )


def settle_after_load(engine: Engine, tables: list[Table]) -> None:
    """After a load commits, PostgreSQL: VACUUM (ANALYZE) the loaded tables. Freshly written
    pages are not yet marked all-visible, so an index-only scan (the counts behind every list
    page) would still visit the table for each row; vacuuming marks them and counts stay in the
    index. SQLite needs nothing more than the ANALYZE the load ran."""
    if engine.dialect.name != "postgresql":
        return
    names = ", ".join(engine.dialect.identifier_preparer.format_table(t) for t in tables)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql(f"VACUUM (ANALYZE) {names}")


def begin_transactional_ddl(conn: Connection) -> None:
    """Make DROP/CREATE part of the open transaction on SQLite too (PostgreSQL already is).

    pysqlite only opens a transaction before DML, so DDL would otherwise commit on its own and
    a failed load would leave empty tables behind.
    """
    if conn.dialect.name == "sqlite" and not conn.connection.dbapi_connection.in_transaction:
        conn.exec_driver_sql("BEGIN")


# --- planning ---------------------------------------------------------------------------------


class tested_per_row(SqlColumnElement[Any]):
    """``column`` in a filter the database should test row by row rather than look up in an
    index. A page query (ORDER BY an index, LIMIT) then walks that index and stops after the
    page, instead of starting from the filter's matches and sorting them all. SQLite's planner
    needs the hint (a unary ``+`` hides the column from index selection); PostgreSQL plans by
    cost and gets the plain column."""

    inherit_cache = True
    # The wrapped column takes part in the statement cache key (else two statements differing
    # only in the column would share one compiled form).
    _traverse_internals: ClassVar = [("column", InternalTraversal.dp_clauseelement)]

    def __init__(self, column: SqlColumnElement[Any]) -> None:
        self.column = column
        self.type = column.type


@compiles(tested_per_row)
def _plain_column(element: tested_per_row, compiler: Any, **kw: Any) -> str:
    return compiler.process(element.column, **kw)


@compiles(tested_per_row, "sqlite")
def _sqlite_unindexed_column(element: tested_per_row, compiler: Any, **kw: Any) -> str:
    return "+" + compiler.process(element.column, **kw)


class smaller_of(SqlColumnElement[Any]):
    """The smaller of two numbers, each evaluated once: ``least`` on PostgreSQL, the two-argument
    ``min`` on SQLite (where ``least`` does not exist)."""

    inherit_cache = True
    _traverse_internals: ClassVar = [
        ("first", InternalTraversal.dp_clauseelement),
        ("second", InternalTraversal.dp_clauseelement),
    ]
    type = Float()

    def __init__(self, first: SqlColumnElement[Any], second: SqlColumnElement[Any]) -> None:
        self.first, self.second = first, second

    @property
    def _from_objects(self) -> list[Any]:
        return [*self.first._from_objects, *self.second._from_objects]


@compiles(smaller_of)
def _least(element: smaller_of, compiler: Any, **kw: Any) -> str:
    return (
        f"least({compiler.process(element.first, **kw)}, {compiler.process(element.second, **kw)})"
    )


@compiles(smaller_of, "sqlite")
def _sqlite_min(element: smaller_of, compiler: Any, **kw: Any) -> str:
    return f"min({compiler.process(element.first, **kw)}, {compiler.process(element.second, **kw)})"


# --- search: the structures --------------------------------------------------------------------

# pg_trgm's default similarity threshold, kept exact (0.3 is not exact as a float).
SIMILARITY_THRESHOLD = Fraction(3, 10)
# Trigram indexes (FTS5's and pg_trgm's) serve texts of three characters or more; shorter
# needles are matched by scanning the entries.
FTS_MIN_CHARS = 3
_ENTRIES = SearchEntry.__table__
_PAIRS = SearchPair.__table__
PG_TRIGRAM_INDEX = "ix_search_entries_folded_trgm"

# The SQLite structures, described for queries only (never created through this metadata).
_fts = MetaData()
_names = Table(
    "search_names",
    _fts,
    Column("rowid", Integer),
    Column("name", String),
    Column("size", Integer),
)
_grams = Table("search_grams", _fts, Column("rowid", Integer), Column("grams", String))
_terms = Table("search_grams_terms", _fts, Column("term", String), Column("doc", Integer))
# FTS5 keeps each table's index in shadow tables; a contentless one has no "_content".
_FTS5_SHADOWS = ("data", "idx", "docsize", "config")

SQLITE_SEARCH_TABLES: frozenset[str] = frozenset(
    {_names.name, _grams.name, _terms.name, f"{_names.name}_content"}
    | {f"{table}_{shadow}" for table in (_names.name, _grams.name) for shadow in _FTS5_SHADOWS}
)
POSTGRES_SEARCH_INDEXES: frozenset[str] = frozenset({PG_TRIGRAM_INDEX})


def include_in_autogenerate(name: str | None, type_: str, _parents: Any) -> bool:
    """Alembic ``include_name`` hook: leave the search structures (built here) out of the
    model comparison: FTS5 virtual and shadow tables, and the trigram index."""
    if type_ == "table":
        return name not in SQLITE_SEARCH_TABLES
    if type_ == "index":
        return name not in POSTGRES_SEARCH_INDEXES
    return True


# --- search: pg_trgm's trigrams, in Python ---------------------------------------------------

_WORD = re.compile(r"[^\W_]+")  # pg_trgm's words: runs of letters and digits


def trigrams(text: str) -> frozenset[str]:
    """The set pg_trgm's ``show_trgm`` gives: each lower-case word padded with two spaces in
    front and one behind, cut into three-character windows."""
    found: set[str] = set()
    for word in _WORD.findall(text.lower()):
        padded = f"  {word} "
        found.update(padded[i : i + 3] for i in range(len(padded) - 2))
    return frozenset(found)


def _gram_token(trigram: str) -> str:
    # One FTS5 (unicode61) token per trigram: hex needs no folding and no separators.
    return "g" + trigram.encode().hex()


def is_similar(shared: int, size_a: int, size_b: int) -> bool:
    """pg_trgm's test ``similarity >= threshold``, in exact arithmetic."""
    threshold = SIMILARITY_THRESHOLD
    return shared * threshold.denominator >= threshold.numerator * (size_a + size_b - shared)


def similarity(a: str, b: str) -> float:
    """pg_trgm's ``similarity(a, b)``: shared trigrams over the union of both sets."""
    first, second = trigrams(a), trigrams(b)
    union = len(first | second)
    return len(first & second) / union if union else 0.0


# --- search: DDL -------------------------------------------------------------------------------

_PG_EXTENSION = "CREATE EXTENSION IF NOT EXISTS pg_trgm"
_PG_INDEX = (
    f"CREATE INDEX IF NOT EXISTS {PG_TRIGRAM_INDEX} ON {_ENTRIES.name} "
    "USING gin (folded gin_trgm_ops)"
)
_SQLITE_CREATE = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {_names.name} "
    "USING fts5(name, size UNINDEXED, tokenize = 'trigram')",
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {_grams.name} "
    "USING fts5(grams, content = '', tokenize = 'unicode61')",
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {_terms.name} USING fts5vocab({_grams.name}, instance)",
)
_SQLITE_DROP = tuple(f"DROP TABLE IF EXISTS {t.name}" for t in (_terms, _grams, _names))


def _touches_entries(_ddl: Any, _target: Any, _bind: Any, tables: Any = None, **_kw: Any) -> bool:
    return tables is None or _ENTRIES in tables


def _register_search_ddl() -> None:
    """Make ``create_all``/``drop_all`` build and remove the search structures."""
    event.listen(
        Base.metadata, "before_create", DDL(_PG_EXTENSION).execute_if(dialect="postgresql")
    )
    event.listen(_ENTRIES, "after_create", DDL(_PG_INDEX).execute_if(dialect="postgresql"))
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
        index = (f"DROP INDEX IF EXISTS {PG_TRIGRAM_INDEX}",)
        return (*index, "DROP EXTENSION IF EXISTS pg_trgm") if extension else index
    if dialect == "sqlite":
        return _SQLITE_DROP
    return ()


def create_search_structures(conn: Connection) -> None:
    """Create whatever search structure is missing."""
    for statement in search_create_statements(conn.dialect.name):
        conn.exec_driver_sql(statement)


def _entry_sources() -> tuple[Select[Any], ...]:
    """(kind, key, name, state, expires) of every searchable row, one statement per kind."""
    nothing = literal(None)
    return (
        select(literal("strain"), Strain.slug, Strain.name, nothing, nothing).order_by(Strain.id),
        select(
            literal("dispensary"), Dispensary.public_id, Dispensary.name, Dispensary.state, nothing
        ).order_by(Dispensary.id),
        select(literal("doctor"), Doctor.public_id, Doctor.name, Doctor.state, nothing).order_by(
            Doctor.id
        ),
        select(literal("deal"), Deal.public_id, Deal.title, Dispensary.state, Deal.expires)
        .join(Dispensary, Deal.dispensary_id == Dispensary.id)
        .order_by(Deal.id),
    )


def _entries(conn: Connection) -> list[dict[str, Any]]:
    entries = []
    for source in _entry_sources():
        for kind, key, name, state, expires in conn.execute(source):
            entries.append(
                {
                    "id": len(entries) + 1,
                    "kind": kind,
                    "key": key,
                    "name": name,
                    "folded": name.lower(),
                    "words": spaced_words(name),
                    "state": state,
                    "expires": expires,
                }
            )
    return entries


def refill_search_pairs(conn: Connection) -> None:
    """Rebuild the two-character pairs (models.search.SearchPair) from the search entries.

    Skipped where the table is missing or has the first revision's shape (pair and entry
    only): a database not yet upgraded, whose upgrade to revision d7f3a9c51e20 fills it.
    """
    if not inspect(conn).has_table(_PAIRS.name):
        return
    if "rank" not in {column["name"] for column in inspect(conn).get_columns(_PAIRS.name)}:
        return
    conn.execute(delete(_PAIRS))
    e = _ENTRIES.c
    in_search_order = select(e.id, e.folded, e.words, e.kind, e.state, e.expires).order_by(
        e.folded,
        e.name,
        e.kind,
        e.key,  # the order of service.search, as the database sorts
    )
    rows = [
        {
            "pair": pair,
            "rank": pair_rank(pair, folded, words),
            "position": position,
            "entry_id": entry_id,
            "kind": kind,
            "state": state,
            "expires": expires,
        }
        for position, (entry_id, folded, words, kind, state, expires) in enumerate(
            conn.execute(in_search_order)
        )
        for pair in pairs(folded)
    ]
    rows.sort(key=lambda row: (row["pair"], row["rank"], row["position"]))  # key order
    for start in range(0, len(rows), 20_000):
        conn.execute(insert(_PAIRS), rows[start : start + 20_000])


def _flush_gin_pending_list(conn: Connection) -> None:
    # Rows inserted after a GIN index was created wait in its "fast update" pending list, which
    # every query scans linearly (only VACUUM or autovacuum merge it): merge it now.
    conn.execute(select(func.gin_clean_pending_list(literal(PG_TRIGRAM_INDEX).cast(REGCLASS))))


def _refill_fts(conn: Connection, entries: list[dict[str, Any]]) -> None:
    conn.exec_driver_sql(f"DELETE FROM {_names.name}")
    # A contentless FTS5 table is emptied with its 'delete-all' command.
    conn.exec_driver_sql(f"INSERT INTO {_grams.name}({_grams.name}) VALUES ('delete-all')")
    names, grams = [], []
    for entry in entries:
        found = trigrams(entry["name"])
        names.append({"rowid": entry["id"], "name": entry["folded"], "size": len(found)})
        grams.append({"rowid": entry["id"], "grams": " ".join(sorted(map(_gram_token, found)))})
    if names:
        conn.execute(insert(_names), names)
        conn.execute(insert(_grams), grams)
    for table in (_names, _grams):  # merge the index segments: fewer b-trees per lookup
        conn.exec_driver_sql(f"INSERT INTO {table.name}({table.name}) VALUES ('optimize')")


def rebuild_search_index(conn: Connection) -> None:
    """Rebuild the search entries from the searched tables, and the index over them; call after
    every load, in its transaction."""
    create_search_structures(conn)
    entries = _entries(conn)
    conn.execute(delete(_ENTRIES))
    if entries:
        conn.execute(insert(_ENTRIES), entries)
    refill_search_pairs(conn)
    if conn.dialect.name == "postgresql":
        _flush_gin_pending_list(conn)
    elif conn.dialect.name == "sqlite":
        _refill_fts(conn, entries)


# --- search: queries ---------------------------------------------------------------------------
# The expressions below read named bind parameters, so that a statement built once per shape can
# run for any query text: their values come from substring_params() and similar_params().

LIKE_ESCAPE = "\\"


def escape_like(text: str) -> str:
    """``text`` as a LIKE pattern that matches it literally (with ``ESCAPE LIKE_ESCAPE``)."""
    escape = LIKE_ESCAPE
    return text.replace(escape, escape * 2).replace("%", escape + "%").replace("_", escape + "_")


@dataclass(frozen=True)
class Similarity:
    """How to match entries fuzzily: WHERE terms and the similarity score (0 to 1)."""

    where: tuple[ColumnElement[bool], ...]
    score: ColumnElement[float]


_PHRASE = bindparam("phrase", type_=String)
_SIMILAR_TO = bindparam("similar_to", type_=String)
_TERMS = bindparam("terms", type_=String, expanding=True)
_AT_LEAST = bindparam("at_least", type_=Integer)
_SIZE = bindparam("size", type_=Integer)


class SearchSql:
    """Search SQL for one database; :func:`search_sql` picks the right one for a session."""

    def indexes(self, needle: str) -> bool:
        """True when a trigram index serves ``needle`` (3 or more characters); else (two
        characters) the pairs table finds its entries."""
        return len(needle) >= FTS_MIN_CHARS

    def contains(self, entry_id: ColumnElement[int]) -> tuple[ColumnElement[bool], ...]:
        """Extra WHERE terms that find the candidates for ``folded LIKE '%needle%'`` through
        the index, for needles :meth:`indexes` accepts (the LIKE still decides). None on
        PostgreSQL, whose index serves the LIKE itself."""
        return ()

    def substring_params(self, needle: str) -> dict[str, Any]:
        """Values for :meth:`contains`; ``needle`` is the lower-case query."""
        return {}

    def total(self, counting: Select[Any], *, selective: bool) -> ColumnElement[int]:
        """A column for a search page that carries the count of all its matches: a window
        over the matches, which the index has found anyway (``counting`` is that count as a
        statement of its own; ``selective``: nearly every entry the index finds matches)."""
        return func.count().over()

    def similar(self, entry_id: ColumnElement[int], folded: ColumnElement[str]) -> Similarity:
        """Fuzzy-match terms for the entries (call once per statement)."""
        raise NotImplementedError

    def similar_params(self, text: str) -> dict[str, Any]:
        """Values for :meth:`similar`."""
        raise NotImplementedError


class _PostgresSearch(SearchSql):
    """A GIN trigram index on the folded names serves LIKE directly and the ``%`` operator
    (whose threshold every connection pins to SIMILARITY_THRESHOLD, see models.db)."""

    def similar(self, entry_id: ColumnElement[int], folded: ColumnElement[str]) -> Similarity:
        return Similarity(
            where=(folded.op("%")(_SIMILAR_TO),), score=func.similarity(folded, _SIMILAR_TO)
        )

    def similar_params(self, text: str) -> dict[str, Any]:
        return {"similar_to": text.lower()}


class _SqliteSearch(SearchSql):
    """FTS5: trigram MATCH for substrings, shared-trigram counts for similarity."""

    def contains(self, entry_id: ColumnElement[int]) -> tuple[ColumnElement[bool], ...]:
        candidates = select(_names.c.rowid).where(_names.c.name.op("MATCH")(_PHRASE))
        return (entry_id.in_(candidates),)

    def substring_params(self, needle: str) -> dict[str, Any]:
        return {"phrase": '"' + needle.replace('"', '""') + '"'}  # an FTS5 string: all literal

    def total(self, counting: Select[Any], *, selective: bool) -> ColumnElement[int]:
        # A window makes SQLite keep every match, then sort them all for the page; with the
        # count as a subquery of its own (run once) it keeps only the page's rows while
        # sorting: 180 instead of 265 µs for a query with 319 matches, 2.8 instead of 4.2 ms
        # for a two-character one with 4,135. That runs the lookup twice, which costs more
        # than it saves when most entries found are then filtered out (a state's deals) or
        # scored (the typo fallback): those keep the window, as PostgreSQL does for all.
        if not selective:
            return func.count().over()
        return counting.scalar_subquery().correlate(None)

    def similar(self, entry_id: ColumnElement[int], folded: ColumnElement[str]) -> Similarity:
        hits = func.count().label("hits")
        shared = (
            select(_terms.c.doc, hits)
            .where(_terms.c.term.in_(_TERMS))
            .group_by(_terms.c.doc)
            .having(func.count() >= _AT_LEAST)
            .cte("shared")
        )
        union = _SIZE + _names.c.size - shared.c.hits
        threshold = SIMILARITY_THRESHOLD
        scored = (
            select(
                shared.c.doc.label("doc"),
                (cast(shared.c.hits, Float) / union).label("score"),
            )
            .join_from(shared, _names, _names.c.rowid == shared.c.doc)
            .where(shared.c.hits * threshold.denominator >= threshold.numerator * union)
            .cte("scored")
        )
        return Similarity(where=(scored.c.doc == entry_id,), score=scored.c.score)

    def similar_params(self, text: str) -> dict[str, Any]:
        wanted = sorted(map(_gram_token, trigrams(text)))
        # An entry reaches the threshold only if it shares at least threshold * |wanted|
        # trigrams.
        at_least = max(1, math.ceil(SIMILARITY_THRESHOLD * len(wanted)))
        return {"terms": wanted, "at_least": at_least, "size": len(wanted)}


_SEARCH_SQL: dict[str, SearchSql] = {"postgresql": _PostgresSearch(), "sqlite": _SqliteSearch()}


def search_sql(db: Session | Connection) -> SearchSql:
    """The search SQL for the database ``db`` (a session or a connection) works on."""
    bind = db if isinstance(db, Connection) else db.get_bind()
    return _SEARCH_SQL[bind.dialect.name]

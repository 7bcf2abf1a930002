"""The one place for SQL that differs between SQLite and PostgreSQL.

Bulk loading: sequences and transactional DDL. Planning: :class:`tested_per_row`. Search: the
structures that make name search indexed and typo tolerant, how they are created, rebuilt and
queried.

- PostgreSQL: the ``pg_trgm`` extension and a GIN ``gin_trgm_ops`` index on ``lower(name)``
  (``lower(title)`` for deals) per searched table. It serves ``LIKE '%q%'`` (the substring
  search) and the ``%`` similarity operator (the typo fallback), and PostgreSQL keeps it current.
- SQLite: two FTS5 tables rebuilt by :func:`rebuild_search_index` after each load.
  ``search_names`` (``trigram`` tokenizer) finds the rows whose name contains a text of three or
  more characters; ``search_grams`` holds each name's pg_trgm trigram set (one token per
  trigram) and its ``fts5vocab`` view ``search_grams_terms`` counts shared trigrams per row, so
  the similarity is the one pg_trgm computes. ``search_names`` also stores that set's size.

An FTS5 rowid packs the source row as ``code * 2**40 + id`` (code 0 strains, 1 dispensaries,
2 doctors, 3 deals), so each kind is one rowid range that FTS5 can seek to.
"""

import math
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from sqlalchemy import (
    DDL,
    Column,
    ColumnElement,
    Connection,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    and_,
    bindparam,
    cast,
    event,
    func,
    insert,
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


# --- search: what is searched ---------------------------------------------------------------

# pg_trgm's default similarity threshold, kept exact (0.3 is not exact as a float).
SIMILARITY_THRESHOLD = Fraction(3, 10)
# The FTS5 trigram tokenizer indexes three-character windows: shorter texts are scanned.
FTS_MIN_CHARS = 3
_ID_BITS = 40  # source ids must stay below 2**40 (about 10**12)


@dataclass(frozen=True)
class SearchSource:
    """One searched table: its kind, the column holding the name and its FTS5 rowid code."""

    kind: str
    table: Table
    column: str
    code: int

    @property
    def first_rowid(self) -> int:
        """The FTS5 rowid of id 0 of this source: its rows are ``first_rowid + id``."""
        return self.code << _ID_BITS

    def rowid_range(self, rowid: ColumnElement[int]) -> ColumnElement[bool]:
        """``rowid`` lies in this source's range (a constraint FTS5 uses to seek)."""
        return and_(rowid >= self.first_rowid, rowid < self.first_rowid + (1 << _ID_BITS))

    @property
    def trigram_index(self) -> str:
        """Name of the PostgreSQL GIN trigram index on ``lower(column)``."""
        return f"ix_{self.table.name}_{self.column}_trgm"


SEARCH_SOURCES: tuple[SearchSource, ...] = (
    SearchSource("strain", Strain.__table__, "name", 0),
    SearchSource("dispensary", Dispensary.__table__, "name", 1),
    SearchSource("doctor", Doctor.__table__, "name", 2),
    SearchSource("deal", Deal.__table__, "title", 3),
)
_SOURCE_BY_KIND = {source.kind: source for source in SEARCH_SOURCES}

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
POSTGRES_SEARCH_INDEXES: frozenset[str] = frozenset(s.trigram_index for s in SEARCH_SOURCES)


def include_in_autogenerate(name: str | None, type_: str, _parents: Any) -> bool:
    """Alembic ``include_name`` hook: leave the search structures (built here) out of the
    model comparison: FTS5 virtual and shadow tables, and the expression trigram indexes."""
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
_SQLITE_CREATE = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {_names.name} "
    "USING fts5(name, size UNINDEXED, tokenize = 'trigram')",
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {_grams.name} "
    "USING fts5(grams, content = '', tokenize = 'unicode61')",
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {_terms.name} USING fts5vocab({_grams.name}, instance)",
)
_SQLITE_DROP = tuple(f"DROP TABLE IF EXISTS {t.name}" for t in (_terms, _grams, _names))


def _pg_index_ddl(source: SearchSource) -> str:
    return (
        f"CREATE INDEX IF NOT EXISTS {source.trigram_index} ON {source.table.name} "
        f"USING gin (lower({source.column}) gin_trgm_ops)"
    )


def _touches_sources(_ddl: Any, _target: Any, _bind: Any, tables: Any = None, **_kw: Any) -> bool:
    searched = {source.table for source in SEARCH_SOURCES}
    return tables is None or bool(searched.intersection(tables))


def _register_search_ddl() -> None:
    """Make ``create_all``/``drop_all`` build and remove the search structures."""
    event.listen(
        Base.metadata, "before_create", DDL(_PG_EXTENSION).execute_if(dialect="postgresql")
    )
    for source in SEARCH_SOURCES:
        event.listen(
            source.table,
            "after_create",
            DDL(_pg_index_ddl(source)).execute_if(dialect="postgresql"),
        )
    for statement in _SQLITE_CREATE:
        ddl = DDL(statement).execute_if(dialect="sqlite", callable_=_touches_sources)
        event.listen(Base.metadata, "after_create", ddl)
    for statement in _SQLITE_DROP:
        ddl = DDL(statement).execute_if(dialect="sqlite", callable_=_touches_sources)
        event.listen(Base.metadata, "before_drop", ddl)


_register_search_ddl()


def search_create_statements(dialect: str) -> tuple[str, ...]:
    """DDL that creates whatever search structure is missing (the searched tables must exist)."""
    if dialect == "postgresql":
        return (_PG_EXTENSION, *(_pg_index_ddl(source) for source in SEARCH_SOURCES))
    if dialect == "sqlite":
        return _SQLITE_CREATE
    return ()


def search_drop_statements(dialect: str, *, extension: bool = False) -> tuple[str, ...]:
    """DDL that drops the search structures; with ``extension``, PostgreSQL's pg_trgm too
    (RESTRICT: if anything else uses it, the drop fails rather than take that along)."""
    if dialect == "postgresql":
        indexes = tuple(f"DROP INDEX IF EXISTS {s.trigram_index}" for s in SEARCH_SOURCES)
        return (*indexes, "DROP EXTENSION IF EXISTS pg_trgm") if extension else indexes
    if dialect == "sqlite":
        return _SQLITE_DROP
    return ()


def create_search_structures(conn: Connection) -> None:
    """Create whatever search structure is missing."""
    for statement in search_create_statements(conn.dialect.name):
        conn.exec_driver_sql(statement)


def _index_rows(conn: Connection) -> Iterator[tuple[int, str]]:
    for source in SEARCH_SOURCES:
        table = source.table
        for row_id, name in conn.execute(select(table.c.id, table.c[source.column])):
            if not 0 <= row_id < 1 << _ID_BITS:
                raise ValueError(
                    f"{source.table.name} id {row_id} is outside the search index range"
                )
            yield source.first_rowid + row_id, name


def _flush_gin_pending_lists(conn: Connection) -> None:
    # Rows inserted after a GIN index was created wait in its "fast update" pending list, which
    # every query scans linearly (only VACUUM or autovacuum merge it): merge it now.
    for source in SEARCH_SOURCES:
        conn.execute(
            select(func.gin_clean_pending_list(literal(source.trigram_index).cast(REGCLASS)))
        )


def _refill_fts(conn: Connection) -> None:
    conn.exec_driver_sql(f"DELETE FROM {_names.name}")
    # A contentless FTS5 table is emptied with its 'delete-all' command.
    conn.exec_driver_sql(f"INSERT INTO {_grams.name}({_grams.name}) VALUES ('delete-all')")
    names, grams = [], []
    for rowid, name in _index_rows(conn):
        found = trigrams(name)
        names.append({"rowid": rowid, "name": name, "size": len(found)})
        grams.append({"rowid": rowid, "grams": " ".join(sorted(map(_gram_token, found)))})
    if names:
        conn.execute(insert(_names), names)
        conn.execute(insert(_grams), grams)
    for table in (_names, _grams):  # merge the index segments: fewer b-trees per lookup
        conn.exec_driver_sql(f"INSERT INTO {table.name}({table.name}) VALUES ('optimize')")


def rebuild_search_index(conn: Connection) -> None:
    """Bring the search structures up to date with the searched tables; call after every load,
    in its transaction.

    PostgreSQL maintains its trigram indexes itself: they are created when missing and their
    pending lists merged. SQLite's FTS5 tables are created when missing, emptied and refilled.
    """
    create_search_structures(conn)
    if conn.dialect.name == "postgresql":
        _flush_gin_pending_lists(conn)
    elif conn.dialect.name == "sqlite":
        _refill_fts(conn)


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
    """How to match one source fuzzily: WHERE terms and the similarity score (0 to 1)."""

    where: tuple[ColumnElement[bool], ...]
    score: ColumnElement[float]


# Fuzzy-match terms for one source, from (kind, row id column, name column).
Similar = Callable[[str, ColumnElement[int], ColumnElement[str]], Similarity]

_WHOLE_WORD = bindparam("whole_word", type_=String)
_PHRASE = bindparam("phrase", type_=String)
_SIMILAR_TO = bindparam("similar_to", type_=String)
_TERMS = bindparam("terms", type_=String, expanding=True)
_AT_LEAST = bindparam("at_least", type_=Integer)
_SIZE = bindparam("size", type_=Integer)


class SearchSql:
    """Search SQL for one database; :func:`search_sql` picks the right one for a session."""

    def whole_word(self, folded: ColumnElement[str]) -> ColumnElement[bool]:
        """True where the words given to :meth:`substring_params` occur in ``folded`` as whole
        words. PostgreSQL: one regular expression (cheaper than folding separators first)."""
        return folded.op("~")(_WHOLE_WORD)

    def indexes(self, needle: str) -> bool:
        """True when a trigram index serves ``needle`` (3 or more characters); else the LIKE
        scans the names."""
        return len(needle) >= FTS_MIN_CHARS

    def contains(self, kind: str, row_id: ColumnElement[int]) -> tuple[ColumnElement[bool], ...]:
        """Extra WHERE terms that find the candidates for ``lower(name) LIKE '%needle%'``
        through the index, for needles :meth:`indexes` accepts (the LIKE still decides).
        None on PostgreSQL, whose index serves the LIKE itself."""
        return ()

    @contextmanager
    def planned(self, session: Session, *, indexed: bool) -> Iterator[None]:
        """Run the statements inside with the planner settings search needs (none here)."""
        yield

    def substring_params(self, needle: str, words: str, separators: str) -> dict[str, Any]:
        """Values for :meth:`whole_word` and :meth:`contains`. ``needle`` is the lower-case
        query; ``words`` the same with separators as spaces: it matches where each space stands
        for one space or separator and the ends touch a space, a separator or the text's ends."""
        boundary = _boundary_class(separators)
        body = "".join(boundary if c == " " else _regex_literal(c) for c in words)
        return {"whole_word": f"(^|{boundary}){body}($|{boundary})"}

    def similar(self) -> Similar:
        """A builder of fuzzy-match terms per source (call once per statement)."""
        raise NotImplementedError

    def similar_params(self, text: str) -> dict[str, Any]:
        """Values for :meth:`similar`."""
        raise NotImplementedError


class _PostgresSearch(SearchSql):
    """GIN trigram indexes on lower(name) serve LIKE directly and the ``%`` operator."""

    def similar(self) -> Similar:
        def build(_kind: str, _row_id: ColumnElement[int], name: ColumnElement[str]) -> Similarity:
            lowered = func.lower(name)
            return Similarity(
                where=(lowered.op("%")(_SIMILAR_TO),), score=func.similarity(lowered, _SIMILAR_TO)
            )

        return build

    def similar_params(self, text: str) -> dict[str, Any]:
        return {"similar_to": text.lower()}

    @contextmanager
    def planned(self, session: Session, *, indexed: bool) -> Iterator[None]:
        """Generic plans for indexed searches (``indexed``: a needle of 3 or more characters):
        planning a four-way union of GIN scans costs more than running it, and a generic plan
        keeps the GIN scans (even on the small doctors table). Custom plans otherwise: for a
        1-2 character needle a generic plan would read the whole GIN index. Also pins ``%`` to
        the documented threshold. Both settings are transaction-local; plan_cache_mode is put
        back afterwards for the rest of the request (after an error the rollback does it).
        The plans apply once psycopg prepares the statements (from their 6th run on a
        connection)."""
        mode = "force_generic_plan" if indexed else "force_custom_plan"
        before = select(func.current_setting("plan_cache_mode").label("mode")).offset(0).subquery()
        threshold = str(float(SIMILARITY_THRESHOLD))
        previous = session.scalar(
            select(
                before.c.mode,
                func.set_config("plan_cache_mode", mode, True),
                func.set_config("pg_trgm.similarity_threshold", threshold, True),
            )
        )
        yield
        session.execute(select(func.set_config("plan_cache_mode", previous, True)))


class _SqliteSearch(SearchSql):
    """FTS5: trigram MATCH for substrings, shared-trigram counts for similarity."""

    def whole_word(self, folded: ColumnElement[str]) -> ColumnElement[bool]:
        # SQLite has no regular expressions: GLOB with a class of the boundary characters.
        return (literal(" ") + folded + literal(" ")).op("GLOB")(_WHOLE_WORD)

    def contains(self, kind: str, row_id: ColumnElement[int]) -> tuple[ColumnElement[bool], ...]:
        rowid = _names.c.rowid
        source = _SOURCE_BY_KIND[kind]
        candidates = select(rowid - source.first_rowid).where(
            _names.c.name.op("MATCH")(_PHRASE), source.rowid_range(rowid)
        )
        return (row_id.in_(candidates),)

    def substring_params(self, needle: str, words: str, separators: str) -> dict[str, Any]:
        boundary = _boundary_class(separators)
        body = "".join(boundary if c == " " else _glob_literal(c) for c in words)
        return {
            "whole_word": f"*{boundary}{body}{boundary}*",
            "phrase": '"' + needle.replace('"', '""') + '"',  # an FTS5 string: all literal
        }

    def similar(self) -> Similar:
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

        def build(kind: str, row_id: ColumnElement[int], _name: ColumnElement[str]) -> Similarity:
            source = _SOURCE_BY_KIND[kind]
            return Similarity(
                where=(
                    source.rowid_range(scored.c.doc),
                    scored.c.doc - source.first_rowid == row_id,
                ),
                score=scored.c.score,
            )

        return build

    def similar_params(self, text: str) -> dict[str, Any]:
        wanted = sorted(map(_gram_token, trigrams(text)))
        # A row reaches the threshold only if it shares at least threshold * |wanted| trigrams.
        at_least = max(1, math.ceil(SIMILARITY_THRESHOLD * len(wanted)))
        return {"terms": wanted, "at_least": at_least, "size": len(wanted)}


def _boundary_class(separators: str) -> str:
    """A bracket expression (GLOB and POSIX regex alike) matching a space or any separator:
    ``]`` first and ``-`` last are literal there."""
    return "[]" + "".join(c for c in f" {separators}" if c not in "]-") + "-]"


def _glob_literal(char: str) -> str:
    return f"[{char}]" if char in "*?[" else char


def _regex_literal(char: str) -> str:
    return "\\" + char if char in "\\^$.|?*+()[]{}" else char


_SEARCH_SQL: dict[str, SearchSql] = {"postgresql": _PostgresSearch(), "sqlite": _SqliteSearch()}


def search_sql(session: Session) -> SearchSql:
    """The search SQL for the database ``session`` is bound to."""
    return _SEARCH_SQL[session.get_bind().dialect.name]

"""SQL expressions that compile differently on SQLite and PostgreSQL.

Both are ``FunctionElement`` subclasses with per-dialect ``@compiles`` hooks, the pattern
SQLAlchemy documents for custom constructs: their arguments take part in the statement cache key.
"""

from typing import Any

from sqlalchemy import Boolean, ColumnElement, Float, ScalarSelect, String
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import QueryableAttribute
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement


class tested_per_row(FunctionElement[Any]):
    """``column`` in a filter the database should test row by row rather than look up in an
    index, so that a page query walks its ORDER BY index and stops after the page. SQLite needs
    the hint (a unary ``+`` hides the column from index selection); PostgreSQL plans by cost and
    gets the plain column."""

    inherit_cache = True

    def __init__(self, column: ColumnElement[Any]) -> None:
        super().__init__(column)
        self.type = column.type


@compiles(tested_per_row)
def _plain_column(element: tested_per_row, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.clauses, **kw)


@compiles(tested_per_row, "sqlite")
def _sqlite_unindexed_column(element: tested_per_row, compiler: SQLCompiler, **kw: Any) -> str:
    return "+" + compiler.process(element.clauses, **kw)


class smaller_of(FunctionElement[float]):
    """The smaller of two numbers, each evaluated once: ``least`` on PostgreSQL, the
    two-argument ``min`` on SQLite (which has no ``least``)."""

    inherit_cache = True
    type = Float()

    def __init__(self, first: ColumnElement[float], second: ColumnElement[float]) -> None:
        super().__init__(first, second)


@compiles(smaller_of)
def _least(element: smaller_of, compiler: SQLCompiler, **kw: Any) -> str:
    return f"least({compiler.process(element.clauses, **kw)})"


@compiles(smaller_of, "sqlite")
def _sqlite_min(element: smaller_of, compiler: SQLCompiler, **kw: Any) -> str:
    return f"min({compiler.process(element.clauses, **kw)})"


class sorted_per_row(FunctionElement[Any]):
    """``column`` in an ORDER BY the database should sort by rather than read in the order of
    an index: when the other filters keep few rows, walking that index would read most of the
    table to find them. SQLite: a unary ``+``; PostgreSQL: ``column + 0`` (numbers and dates)."""

    inherit_cache = True

    def __init__(self, column: ColumnElement[Any] | QueryableAttribute[Any]) -> None:
        super().__init__(column)
        self.type = column.type


@compiles(sorted_per_row)
def _plus_zero(element: sorted_per_row, compiler: SQLCompiler, **kw: Any) -> str:
    return f"({compiler.process(element.clauses, **kw)} + 0)"


@compiles(sorted_per_row, "sqlite")
def _sqlite_unindexed_order(element: sorted_per_row, compiler: SQLCompiler, **kw: Any) -> str:
    return "+" + compiler.process(element.clauses, **kw)


class in_subquery_once(FunctionElement[bool]):
    """``column IN (subquery)`` for a subquery that does not depend on the row, run once per
    statement and each row tested against its result. PostgreSQL turns an ``IN`` into a
    semi-join, and a plan made for any values (models.db) that expects one outer row reads the
    subquery's rows again for every row; ``column = ANY(ARRAY(subquery))`` makes it an init
    plan, its array scanned per row (so for few rows: a box, not a whole table). SQLite already
    runs an uncorrelated ``IN`` once into a temporary index."""

    inherit_cache = True
    type = Boolean()

    def __init__(
        self, column: ColumnElement[Any] | QueryableAttribute[Any], subquery: ScalarSelect[Any]
    ) -> None:
        super().__init__(column, subquery)


@compiles(in_subquery_once)
def _any_of_array(element: in_subquery_once, compiler: SQLCompiler, **kw: Any) -> str:
    column, subquery = element.clauses
    return f"{compiler.process(column, **kw)} = ANY(ARRAY{compiler.process(subquery, **kw)})"


@compiles(in_subquery_once, "sqlite")
def _sqlite_in(element: in_subquery_once, compiler: SQLCompiler, **kw: Any) -> str:
    column, subquery = element.clauses
    return f"{compiler.process(column, **kw)} IN {compiler.process(subquery, **kw)}"


class instant_text(FunctionElement[str]):
    """An instant column as RFC 3339 text in UTC with milliseconds and Z
    (``2026-11-27T10:04:11.123Z``), written by the database: a page of the change feed is sent
    as the rows come, without a datetime made and formatted per row in Python. SQLite keeps
    instants as naive UTC text; PostgreSQL converts from its own zone."""

    inherit_cache = True
    type = String()

    def __init__(self, column: ColumnElement[Any]) -> None:
        super().__init__(column)


@compiles(instant_text)
def _to_char_utc(element: instant_text, compiler: SQLCompiler, **kw: Any) -> str:
    column = compiler.process(element.clauses, **kw)
    return f"""to_char(({column}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"""


@compiles(instant_text, "sqlite")
def _sqlite_strftime(element: instant_text, compiler: SQLCompiler, **kw: Any) -> str:
    column = compiler.process(element.clauses, **kw)
    return f"strftime('%Y-%m-%dT%H:%M:%fZ', {column})"

"""A psycopg cursor whose ``description`` is built only when something reads it.

psycopg builds ``cursor.description`` afresh on every access: one ``Column`` per result column,
each decoding its name and looking up its type. SQLAlchemy asks for it after every statement
but, for a compiled statement whose result metadata it has already cached (every statement a
request runs after the first), only checks that it is not ``None``. Building the columns cost
about 40 µs for a 13-column result (a few per cent of a PostgreSQL list request). This cursor
hands out a sequence that knows its length and builds psycopg's own columns, from the result it
was taken from, on first use.

Imported only for PostgreSQL engines (psycopg is an optional dependency).
"""

from collections.abc import Iterator, Sequence
from typing import Any, overload

import psycopg
from psycopg import pq

_ROWS = (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.SINGLE_TUPLE, pq.ExecStatus.TUPLES_CHUNK)


class _ResultView:
    """What ``psycopg.Column`` reads from a cursor, fixed to one result."""

    __slots__ = ("_encoding", "adapters", "pgresult")

    def __init__(self, cursor: psycopg.Cursor[Any], result: pq.abc.PGresult) -> None:
        self.pgresult = result
        self.adapters = cursor.adapters
        self._encoding = cursor._encoding


class LazyDescription(Sequence[psycopg.Column]):
    """The columns of one result, as ``psycopg.Cursor.description`` gives them, built lazily."""

    __slots__ = ("_columns", "_count", "_source")

    def __init__(self, cursor: psycopg.Cursor[Any], result: pq.abc.PGresult) -> None:
        self._source = _ResultView(cursor, result)
        self._count = result.nfields
        self._columns: list[psycopg.Column] | None = None

    def _built(self) -> list[psycopg.Column]:
        if self._columns is None:
            view: Any = self._source  # duck-types the cursor for psycopg.Column
            self._columns = [psycopg.Column(view, index) for index in range(self._count)]
        return self._columns

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> psycopg.Column: ...
    @overload
    def __getitem__(self, index: slice) -> list[psycopg.Column]: ...
    def __getitem__(self, index: int | slice) -> psycopg.Column | list[psycopg.Column]:
        return self._built()[index]

    def __iter__(self) -> Iterator[psycopg.Column]:
        return iter(self._built())

    def __repr__(self) -> str:
        return repr(self._built())


class LazyDescriptionCursor(psycopg.Cursor[Any]):
    """``psycopg.Cursor`` with :class:`LazyDescription` (the rules for ``None`` are psycopg's)."""

    @property
    def description(self) -> LazyDescription | None:  # type: ignore[override]
        result = self.pgresult
        if result and (result.nfields or result.status in _ROWS):
            return LazyDescription(self, result)
        return None

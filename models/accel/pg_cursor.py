"""A psycopg cursor whose ``description`` is built only when something reads it.

Private API: ``psycopg.Cursor._encoding`` (the connection's encoding), and the constructor
``psycopg.Column(cursor, index)``, which reads only ``pgresult``, ``_encoding`` and ``adapters``
from the cursor it is given (a small view stands in for the cursor here).

SQLAlchemy reads ``description`` after every statement but, once it has cached a statement's
result metadata, only checks it is not ``None``; psycopg builds every column on each read.
Installed by models.db.make_engine unless ``accel=False``; PostgreSQL engines only.
"""

from collections.abc import Iterator, Sequence
from typing import Any, overload

import psycopg
from psycopg import pq

PRIVATE_API = ("psycopg.Cursor._encoding", "psycopg.Column.__init__")

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
    # A Sequence of psycopg's columns rather than psycopg's list: SQLAlchemy and DB-API callers
    # only take its length, index it and iterate it.
    def description(self) -> LazyDescription | None:  # type: ignore[override]
        result = self.pgresult
        if result and (result.nfields or result.status in _ROWS):
            return LazyDescription(self, result)
        return None

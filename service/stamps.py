"""Change stamps as the lists read, filter and order them: ``updated_at`` (and a dispensary's
``menu_updated_at``), the instant an object last changed, cut to the millisecond (models.base).

Both edges show a stamp as RFC 3339 in UTC with three fraction digits and ``Z``
(:func:`stamp_text`); ``updated_since`` keeps the objects stamped at or after an instant and
``sort=updated_at`` / ``-updated_at`` orders by the stamp, ties by the key (then the exact
reverse), through each table's (updated_at, key) index.
"""

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, DateTime, bindparam

SINCE = "updated_since"  # the bind parameter (and the filter's name)
STAMP_SORTS = ("updated_at", "-updated_at")


def as_utc(value: datetime) -> datetime:
    """A stamp as an aware UTC datetime: SQLite gives stored stamps back naive (they are UTC),
    PostgreSQL in the session's zone."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value if value.tzinfo is UTC else value.astimezone(UTC)


def stamp_text(value: datetime) -> str:
    """``2026-11-27T10:04:11.123Z``: RFC 3339, UTC, milliseconds."""
    return as_utc(value).isoformat(timespec="milliseconds").removesuffix("+00:00") + "Z"


def since_where(column: Any) -> ColumnElement[bool]:
    """Stamped at or after ``:updated_since`` (an aware UTC instant; SQLite stores stamps as
    naive UTC text, and SQLAlchemy writes the bound value in that same form)."""
    return column >= bindparam(SINCE, type_=DateTime(timezone=True))  # type: ignore[no-any-return]


def stamp_order(stamp: Any, key: Any, sort: str) -> tuple[Any, ...]:
    """The ORDER BY of ``sort`` (one of STAMP_SORTS): oldest first, ties by ``key``; or the
    exact reverse (newest first, ties by ``key`` descending), one index read backwards."""
    if sort == "-updated_at":
        return (stamp.desc(), key.desc())
    return (stamp, key)

"""Limit/offset paging: the validated page window (each list's bounds are in ``bounds``) and
the prebuilt list statements (Listing, fetch_page)."""

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Any, Generic, TypeVar, TypeVarTuple

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Connection,
    Integer,
    Row,
    Select,
    Subquery,
    bindparam,
    func,
    select,
)

from models.db import AnyRow, AnySelect, Reader

from .bounds import DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, ListBound
from .errors import InvalidParameter

T = TypeVar("T")
Ts = TypeVarTuple("Ts")


@dataclass(frozen=True)
class PageRequest:
    """A validated page window; ``limit`` is already clamped to the operation's maximum."""

    limit: int = DEFAULT_LIMIT
    offset: int = 0

    @classmethod
    def within(
        cls, bound: ListBound, limit: int | None = None, offset: int | None = None
    ) -> "PageRequest":
        """The window of one list: ``bound.default`` items when no limit is given, at most
        ``bound.maximum``; raise InvalidParameter for a limit below 1 or a bad offset."""
        return cls.build(limit, offset, maximum=bound.maximum, default=bound.default)

    @classmethod
    def build(
        cls,
        limit: int | None = None,
        offset: int | None = None,
        *,
        maximum: int = MAX_LIMIT,
        default: int = DEFAULT_LIMIT,
    ) -> "PageRequest":
        """Validate the window; a limit over ``maximum`` is clamped, other bad values raise."""
        limit = default if limit is None else limit
        offset = 0 if offset is None else offset
        if limit < 1:
            raise InvalidParameter(
                f"limit must be an integer from 1 to {maximum} (larger values are reduced to "
                f"{maximum})",
                param="limit",
            )
        if not 0 <= offset <= MAX_OFFSET:
            raise InvalidParameter(
                f"offset must be an integer from 0 to {MAX_OFFSET}", param="offset"
            )
        return cls(limit=min(limit, maximum), offset=offset)


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of results with the total number of matches."""

    items: list[T]
    total: int
    limit: int
    offset: int


@dataclass(frozen=True)
class Listing:
    """The statements of one list query shape, built once and run with bind parameters: the
    ordered page (``:limit`` rows from ``:offset``, each ending with the count of all matches)
    and that count on its own.

    Built from columns rather than entities, they run on the session's connection and give
    plain rows: no ORM objects are made, and no statement is built or compiled per request.
    The count rides along in the page statement as an uncorrelated subquery, which the database
    evaluates once: a page and its total cost one statement (one round trip) instead of two.
    """

    page: AnySelect
    count: AnySelect

    @classmethod
    def of(
        cls,
        columns: Iterable[Any],
        where: Iterable[ColumnElement[bool]],
        order_by: Sequence[Any],
        *,
        count: AnySelect | None = None,
    ) -> "Listing":
        """``count`` replaces the plain count of the matching rows (an equal, cheaper one)."""
        matching = select(*columns).where(*where)
        if count is None:
            count = matching.with_only_columns(func.count(), maintain_column_froms=True)
        total = count.scalar_subquery().correlate(None).label("total")
        return cls(
            page=matching.add_columns(total)
            .order_by(*order_by)
            .limit(bindparam("limit", type_=Integer))
            .offset(bindparam("offset", type_=Integer)),
            count=count,
        )


def compared_where(
    columns: Mapping[str, Any], compared: Iterable[str], many: Iterable[str] = ()
) -> list[ColumnElement[bool]]:
    """One condition per set filter, against the bind parameter of the filter's name: for the
    filters in ``many`` (values "any of", bound as a list) an expanding IN, else equality."""
    several = set(many)
    return [
        columns[name].in_(bindparam(name, expanding=True))
        if name in several
        else columns[name] == bindparam(name)
        for name in compared
    ]


def compared_params(compared: Mapping[str, Any], many: Iterable[str] = ()) -> dict[str, Any]:
    """The bind parameters of :func:`compared_where`: a list for each filter in ``many``."""
    several = set(many)
    return {name: list(value) if name in several else value for name, value in compared.items()}


def ranked_listing(
    candidates: Subquery,
    within: Sequence[ColumnElement[bool]],
    order: Callable[[Any], Sequence[Any]],
    listed: Callable[[Subquery], AnySelect],
) -> Listing:
    """A list whose order the database cannot read from an index (by distance, by rating, in
    a circle): the narrow ``candidates`` rows (an ``id`` and what ``order`` sorts by) kept by
    ``within`` are ranked and counted in one pass (a window count), and ``listed`` joins the
    listed columns to the page's rows only."""
    ranked = (
        select(*candidates.c, func.count().over().label("total"))
        .where(*within)
        .order_by(*order(candidates.c))
        .limit(bindparam("limit", type_=Integer))
        .offset(bindparam("offset", type_=Integer))
        .subquery("ranked")
    )
    return Listing(
        page=listed(ranked).add_columns(ranked.c.total).order_by(*order(ranked.c)),
        count=select(func.count()).select_from(candidates).where(*within),
    )


def rows(db: Reader, stmt: Select[*Ts], params: Mapping[str, Any]) -> Sequence[Row[*Ts]]:
    """Run a column statement on ``db`` (a connection, or a session's connection); no ORM
    objects are built."""
    connection = db if isinstance(db, Connection) else db.connection()
    return connection.execute(stmt, params).all()


def rows_by_public_ids(
    db: Reader,
    stmt: AnySelect,
    pattern: re.Pattern[str],
    public_ids: Iterable[str],
    make: Callable[[Any], T],  # given each row (a Row: by position or by name)
) -> dict[str, T]:
    """The rows of ``stmt`` (filtered by an expanding ``public_ids`` parameter) for the ids that
    match ``pattern``, each made by ``make`` and keyed by its ``public_id``; ids of another
    shape are never sent to the database."""
    wanted = sorted({public_id for public_id in public_ids if pattern.fullmatch(public_id)})
    if not wanted:
        return {}
    made = (make(columns) for columns in rows(db, stmt, {"public_ids": wanted}))
    return {row.public_id: row for row in made}  # type: ignore[attr-defined]


@lru_cache(maxsize=256)
def column_getter(
    columns: tuple[str, ...], names: tuple[str, ...]
) -> Callable[[AnyRow], tuple[Any, ...]]:
    """Reads ``names`` (two or more) from rows whose columns are ``columns`` (a Row's
    ``_fields``). Looking a name up in a Row costs microseconds, so callers read ``_fields``
    once per page and each row is then read by position."""
    return itemgetter(*(columns.index(name) for name in names))


def fetch_page(
    db: Reader, listing: Listing, params: Mapping[str, Any], page: PageRequest
) -> Page[Any]:
    """One window of ``listing`` with ``params`` (each item a tuple of the listed columns) and
    the total: from the page's own rows, or counted apart when the window is past the end."""
    found, total = _window(db, listing, params, page)
    return Page(
        items=[row[:-1] for row in found], total=total, limit=page.limit, offset=page.offset
    )


def fetch_rows(
    db: Reader, listing: Listing, params: Mapping[str, Any], page: PageRequest
) -> Page[AnyRow]:
    """:func:`fetch_page` with each item the statement's row, to be read by column name (its
    last column, ``total``, is the count of all)."""
    found, total = _window(db, listing, params, page)
    return Page(items=list(found), total=total, limit=page.limit, offset=page.offset)


def _window(
    db: Reader, listing: Listing, params: Mapping[str, Any], page: PageRequest
) -> tuple[Sequence[AnyRow], int]:
    found = rows(db, listing.page, {**params, "limit": page.limit, "offset": page.offset})
    if found:
        return found, found[0][-1]
    total = known_total(page, 0)
    if total is None:
        total = rows(db, listing.count, params)[0][0]
    return found, total


# ``updated_since`` with an order of another index: up to this many matches are found through
# the (updated_at, id) index and sorted; more are met soon enough walking the order's index.
SORTED_MAX = 500


def pick_listing(
    db: Reader, count: AnySelect, params: Mapping[str, Any], sorted_: Listing, walked: Listing
) -> Listing:
    """``sorted_`` when ``count`` (run with ``params``: the rows stamped at or after
    ``updated_since``, counted in their index alone) finds at most SORTED_MAX rows, else
    ``walked``. A walk that tests each row reads about (offset + limit) x table / matches rows:
    the whole table when few match, where sorting the few is cheap. The count costs far less
    than either mistake."""
    matches = rows(db, count, params)[0][0]
    return sorted_ if matches <= SORTED_MAX else walked


def known_total(page: PageRequest, returned: int) -> int | None:
    """The total when the window alone tells it (a short page that is not empty, or the first
    page); None when it must be counted."""
    if returned < page.limit and (returned or page.offset == 0):
        return page.offset + returned
    return None


def top_per_parent(
    stmt: AnySelect,
    parent: Any,
    order: tuple[Any, ...],
    limit: int | BindParameter[int],
    *,
    offset: int | BindParameter[int] = 0,
) -> AnySelect:
    """Rewrite ``stmt`` to keep ``limit`` rows per ``parent`` after the first ``offset``, in
    ``order``.

    A row number partitioned by the parent key does in one statement what a LIMIT per parent
    would need one statement each for. The result is ``stmt``'s own columns. ``limit`` and
    ``offset`` may be bind parameters, for a statement built once.
    """
    number = func.row_number().over(partition_by=parent, order_by=order).label("row_number")
    ranked = stmt.add_columns(number).subquery()
    picked = [column for column in ranked.c if column.key != "row_number"]
    window = (
        [ranked.c.row_number <= limit]
        if isinstance(offset, int) and offset == 0
        else [ranked.c.row_number > offset, ranked.c.row_number <= offset + limit]
    )
    return select(*picked).where(*window).order_by(ranked.c[parent.key], ranked.c.row_number)

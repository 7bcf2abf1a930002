"""Deal queries: active deals only, filtered by their dispensary's place and by category."""

from collections.abc import Iterable, Sequence
from datetime import date, datetime
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import Date, Float, Integer, Subquery, bindparam, func, select

from models import Deal, Dispensary
from models.db import AnyRow, AnySelect, Reader
from models.expressions import sorted_per_row, tested_per_row

from . import open_sql
from .errors import NotFound
from .filters import DealFilters
from .geo import miles_sql
from .ids import DEAL_ID
from .paging import (
    Listing,
    Page,
    PageRequest,
    column_getter,
    compared_params,
    compared_where,
    fetch_rows,
    ranked_listing,
    rows,
    rows_by_public_ids,
    top_per_parent,
)
from .places import near_where
from .stamps import SINCE, STAMP_SORTS, since_where, stamp_order
from .when import Clock, current_minute


class DealRow(NamedTuple):
    """An active deal in a list, with its dispensary's name (a named tuple, like every row
    type read by the hundred); ``distance``: miles from the point to its dispensary, when the
    list was asked around one."""

    public_id: str
    title: str
    dispensary_name: str
    category: str
    discount: str
    expires: date
    dispensary_id: int
    dispensary_public_id: str
    updated_at: datetime  # naive on SQLite (UTC): service.stamps reads either
    distance: float | None = None


LISTED = (
    Deal.public_id,
    Deal.title,
    Dispensary.name.label("dispensary_name"),
    Deal.category,
    Deal.discount,
    Deal.expires,
    Deal.dispensary_id,
    Dispensary.public_id.label("dispensary_public_id"),
    Deal.updated_at,
)
# The filters, by name (each compared with the bind parameter of its name; "any of" the values
# for those in _MANY).
_COMPARED = {"state": Dispensary.state, "city": Dispensary.city_key, "category": Deal.category}
_MANY = ("state", "category")


def _where(compared: tuple[str, ...], since: bool = False, *, tested: bool = False) -> list[Any]:
    """The filters; ``tested``: the stamp tested per row (a page walking another index)."""
    stamp = tested_per_row(Deal.updated_at.expression) if tested else Deal.updated_at
    return [
        Deal.dispensary_id == Dispensary.id,
        Deal.expires >= bindparam("today", type_=Date),
        *compared_where(_COMPARED, compared, _MANY),
        *([since_where(stamp)] if since else []),
    ]


# 8 sets of filters, each with no open condition or one of a few, by three orders, stamped or not
@lru_cache(maxsize=128)
def _listing(
    compared: tuple[str, ...],
    opened: open_sql.OpenCondition | None = None,
    sort: str = "expires",
    since: bool = False,
) -> Listing:
    # A state or city keeps its own dispensaries' deals (a few hundred at most): found through
    # the dispensaries' indexes and sorted, where walking the expiry index would read every
    # active deal to find a small state's. Otherwise the expiry index gives the order (with
    # ``opened`` each deal's dispensary is tested on the way: service.open_sql), or the
    # (updated_at, id) index by the change stamp.
    placed = "state" in compared or "city" in compared
    stamped = sort in STAMP_SORTS
    if stamped:
        order = stamp_order(Deal.updated_at, Deal.id, sort)
    else:
        order = (sorted_per_row(Deal.expires) if placed else Deal.expires, Deal.id)
    where = _where(compared, since, tested=since and not stamped and not placed)
    if opened is not None:
        return Listing.of(LISTED, [*where, opened.where], order)
    return Listing.of(LISTED, where, order, count=_deals_count(compared, since))


def _deals_count(compared: tuple[str, ...], since: bool = False) -> AnySelect | None:
    """Without a filter on the dispensary, the count of the matching deals from the deals table
    alone: every deal has its dispensary (a foreign key), so the join changes no count, and
    without it the count reads the expiry index rather than a dispensary per active deal."""
    if not set(compared) <= {"category"}:
        return None
    # With updated_since, the stamped deals are counted through the (updated_at, id) index, each
    # tested for being active (on SQLite; PostgreSQL plans by cost).
    expires = tested_per_row(Deal.expires.expression) if since else Deal.expires
    active = expires >= bindparam("today", type_=Date)
    where = [active, *compared_where(_COMPARED, compared, _MANY)]
    if since:
        where.append(since_where(Deal.updated_at))
    return select(func.count()).select_from(Deal).where(*where)


def _order(columns: Any, sort: str) -> tuple[Any, ...]:
    """Soonest expiry first, nearest first, or by the change stamp; ties by expiry, then id
    (by the change stamp: by id), so that pages are stable."""
    if sort in STAMP_SORTS:
        return stamp_order(columns.updated_at, columns.id, sort)
    tail = (columns.expires, columns.id)
    return (columns.distance, *tail) if sort == "distance" else tail


@lru_cache(maxsize=128)
def _near_listing(
    compared: tuple[str, ...],
    sort: str,
    opened: open_sql.OpenCondition | None = None,
    since: bool = False,
) -> Listing:
    """Around a point: the narrow rows a list chooses from, every filter applied (``opened``
    too), the dispensaries narrowed by the point's bounding box (the (lat, lng) index) and
    kept by their exact distance; only the page's rows are joined for the listed columns."""
    columns: list[Any] = [Deal.id, Deal.expires]
    if sort in STAMP_SORTS:
        columns.append(Deal.updated_at)
    where = [*_where(compared, since), *([opened.where] if opened is not None else [])]
    columns.append(miles_sql(Dispensary.lat, Dispensary.lng).label("distance"))
    where.append(near_where(Dispensary.lat, Dispensary.lng))
    found = select(*columns).where(*where).subquery("candidates")
    within = [found.c.distance <= bindparam("radius", type_=Float)]

    def listed(ranked: Subquery) -> AnySelect:
        return (
            select(*LISTED, ranked.c.distance)
            .join_from(ranked, Deal, Deal.id == ranked.c.id)
            .join(Dispensary, Dispensary.id == Deal.dispensary_id)
        )

    return ranked_listing(found, within, lambda columns: _order(columns, sort), listed)


class _Shape(NamedTuple):
    """What a list statement depends on besides its bind parameters."""

    compared: tuple[str, ...]
    near: bool  # around a point (DealFilters.where, never a box)
    sort: str
    opened: open_sql.OpenCondition | None = None  # only deals whose dispensary is open
    since: bool = False  # only deals stamped at or after :updated_since


def _plan(shape: _Shape) -> Listing:
    """The statements of ``shape`` (built once per shape)."""
    if shape.near:
        return _near_listing(shape.compared, shape.sort, shape.opened, shape.since)
    return _listing(shape.compared, shape.opened, shape.sort, shape.since)


def list_deals(
    db: Reader, filters: DealFilters, page: PageRequest, *, today: date, now: Clock = current_minute
) -> Page[DealRow]:
    """Return one page of deals still active on ``today``: soonest expiry first, nearest first
    around a point, or by the change stamp (``filters.sort``). ``now`` gives the request's
    instant, called only for ``open_now`` (the deal's dispensary open then)."""
    compared = {n: value for n in _COMPARED if (value := getattr(filters, n)) is not None}
    params = compared_params(compared, _MANY)
    params["today"] = today
    if filters.where is not None:
        params.update(filters.where.params())
    if filters.updated_since is not None:
        params[SINCE] = filters.updated_since
    since = filters.updated_since is not None
    shape = _Shape(tuple(compared), filters.where is not None, filters.sort, since=since)
    when = filters.when
    if when is not None and when.only_open:
        found = _open_rows(db, shape, params, page, when.instant(now))
    else:
        found = fetch_rows(db, _plan(shape), params, page)
    return Page(_deal_rows(found.items), found.total, found.limit, found.offset)


# LISTED's column names in DealRow's field order; ``distance`` is the last field.
_LISTED_NAMES = tuple(name for name in DealRow._fields if name != "distance")


def _deal_rows(found: Sequence[AnyRow]) -> list[DealRow]:
    """Deal rows from a statement's rows of LISTED, read by column name, with their ``distance``
    column (in miles, to a tenth) if they have one."""
    if not found:
        return []
    columns = found[0]._fields
    if "distance" not in columns:
        values = column_getter(columns, _LISTED_NAMES)
        return [DealRow(*values(row)) for row in found]
    values = column_getter(columns, (*_LISTED_NAMES, "distance"))
    made = map(values, found)
    return [DealRow(*listed, distance=round(distance, 1)) for *listed, distance in made]  # type: ignore[misc]


def _open_rows(
    db: Reader, shape: _Shape, params: dict[str, Any], page: PageRequest, at: datetime
) -> Page[AnyRow]:
    """The deals whose dispensary is open at ``at`` in its own zone (as
    service.dispensary_lists reads them)."""

    def run(opened: open_sql.OpenAt) -> Page[AnyRow]:
        listing = _plan(shape._replace(opened=opened.condition))
        return fetch_rows(db, listing, {**params, **opened.params}, page)

    opened = open_sql.open_at(db, at)
    found = run(opened)
    if not found.items and (fresh := open_sql.reread(db, at, opened)) is not None:
        found = run(fresh)
    return found


@lru_cache(maxsize=1)
def _by_public_id() -> AnySelect:
    return select(*LISTED).where(
        Deal.dispensary_id == Dispensary.id,
        Deal.public_id == bindparam("public_id"),
        Deal.expires >= bindparam("today", type_=Date),
    )


def get_deal(db: Reader, public_id: str, *, today: date) -> DealRow:
    """Return the deal ``deal_<n>`` if it is still active on ``today``; raise NotFound (an
    expired deal is not found, as it is in every list)."""
    params = {"public_id": public_id, "today": today}
    found: Sequence[tuple[Any, ...]] = (
        rows(db, _by_public_id(), params) if DEAL_ID.fullmatch(public_id) else []
    )
    if not found:
        raise NotFound(f"no active deal with id {public_id!r}")
    return DealRow(*found[0])


@lru_cache(maxsize=1)
def _by_dispensary_statement() -> AnySelect:
    """``:limit`` deals active on ``:today`` (soonest expiry first) of each dispensary in ``:ids``
    after its first ``:offset``: one statement, built once, of a deal row's columns."""
    active = select(*LISTED).where(
        Deal.dispensary_id == Dispensary.id,
        Deal.dispensary_id.in_(bindparam("ids", expanding=True)),
        Deal.expires >= bindparam("today", type_=Date),
    )
    limit = bindparam("limit", type_=Integer)
    offset = bindparam("offset", type_=Integer)
    return top_per_parent(active, Deal.dispensary_id, (Deal.expires, Deal.id), limit, offset=offset)


def deals_by_dispensary(
    db: Reader, ids: Iterable[int], *, today: date, limit: int, offset: int = 0
) -> dict[int, list[DealRow]]:
    """Return up to ``limit`` active deals per dispensary (soonest expiry first) after its first
    ``offset``, by its id."""
    found: dict[int, list[DealRow]] = {id_: [] for id_ in ids}
    if not found:
        return found
    params = {"ids": list(found), "today": today, "limit": limit, "offset": offset}
    # Typed as plain tuples: mypy unpacks an untyped Row's items as ``object``.
    batch: Sequence[tuple[Any, ...]] = rows(db, _by_dispensary_statement(), params)
    for row in batch:
        deal = DealRow(*row)
        found[deal.dispensary_id].append(deal)
    return found


@lru_cache(maxsize=1)
def _by_public_ids_statement() -> AnySelect:
    return select(*LISTED).where(
        Deal.dispensary_id == Dispensary.id,
        Deal.public_id.in_(bindparam("public_ids", expanding=True)),
    )


def deal_rows_by_public_ids(db: Reader, public_ids: Iterable[str]) -> dict[str, DealRow]:
    """The deals with the given ``deal_<n>`` ids as list rows (no ORM objects), keyed by that
    id, expired or not; ids of another shape find nothing."""
    return rows_by_public_ids(
        db, _by_public_ids_statement(), DEAL_ID, public_ids, lambda columns: DealRow(*columns)
    )

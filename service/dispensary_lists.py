"""Dispensary list pages: filtered, near a point, in a map box, open at an instant, stocking a
strain; by name, distance or rating. Both edges list dispensaries through ``list_dispensaries``."""

from datetime import datetime
from functools import lru_cache, partial
from typing import Any, NamedTuple

from sqlalchemy import (
    ColumnElement,
    Float,
    Integer,
    Subquery,
    bindparam,
    func,
    select,
)

from models import Dispensary, MenuItem
from models.db import AnyRow, AnySelect, Reader, dialect_name
from models.expressions import in_subquery_once, tested_per_row

from . import open_sql
from .dispensary_rows import LISTED, DispensaryRow, StockedRow, listed_rows, with_opening
from .filters import DispensaryFilters
from .geo import miles_sql
from .offers import (
    PRICE_PER_GRAM,
    OfferChoice,
    counted_items,
    lowest_price_per_gram,
    offer_params,
    offers_at,
)
from .paging import (
    Listing,
    Page,
    PageRequest,
    compared_params,
    compared_where,
    fetch_rows,
    pick_listing,
    ranked_listing,
)
from .places import (
    Box,
    Location,
    Near,
    box_where,
    inside_tested_per_row,
    near_where,
    place_order,
)
from .stamps import SINCE, STAMP_SORTS, since_where, stamp_order
from .when import Clock, current_minute

# Filters that are column comparisons, by filter name: "any of" the values for tuples.
_COMPARED = {
    "state": Dispensary.state,
    "city": Dispensary.city_key,
    "type": Dispensary.type,
    "delivery": Dispensary.delivery,
}
_MANY = ("state", "type")


def compared_filters(filters: DispensaryFilters) -> dict[str, Any]:
    """The set filters among the comparisons, by name (their names are the parameters)."""
    return {name: value for name in _COMPARED if (value := getattr(filters, name)) is not None}


def compared_conditions(compared: tuple[str, ...]) -> list[Any]:
    """The conditions of the named comparison filters, over ``Dispensary``."""
    return compared_where(_COMPARED, compared, _MANY)


def compared_bindings(compared: dict[str, Any]) -> dict[str, Any]:
    """The bind parameters of :func:`compared_conditions` for the filters' values."""
    return compared_params(compared, _MANY)


def _stocking(choice: OfferChoice, *, near: bool = False) -> ColumnElement[bool]:
    """Only dispensaries whose menu has the strain ``:strain_id`` (an item of it that counts:
    service.offers). ``near``: the rows are those
    of a circle's bounding box, few enough to test each against the stockists' ids read once
    (models.expressions.in_subquery_once; PostgreSQL otherwise read the strain's menu items
    again for every dispensary of the box)."""
    stocked = select(MenuItem.dispensary_id).where(
        MenuItem.strain_id == bindparam("strain_id", type_=Integer), *counted_items(choice)
    )
    if near:
        return in_subquery_once(Dispensary.id, stocked.scalar_subquery())
    return Dispensary.id.in_(stocked)


class _Shape(NamedTuple):
    """What a list statement depends on besides its location's kind and its bind parameters."""

    compared: tuple[str, ...]
    stocking: bool  # only dispensaries whose menu has :strain_id
    sort: str
    opened: open_sql.OpenCondition | None = None  # only those open at an instant
    since: bool = False  # only those stamped at or after :updated_since
    offer: OfferChoice = OfferChoice()  # with stocking: which of its items count

    @property
    def walked(self) -> bool:
        """Whether the list's order and filters are those of an index walk (no ranking): by
        name or by the change stamp."""
        indexed = self.sort == "name" or self.sort in STAMP_SORTS
        return indexed and not self.stocking and self.opened is None


def _plan(where: Location | None, shape: _Shape) -> Listing:
    """The statements of ``shape`` where the list is asked about (built once per shape)."""
    if isinstance(where, Near):
        return _near(shape)
    if isinstance(where, Box):
        if shape.walked and shape.sort == "name":
            return _by_name_in_box(shape.compared, where.wide, shape.since)
        return _in_box(shape)
    if shape.walked:
        return _walk(shape.compared, shape.sort, shape.since)
    return _anywhere(shape)


def _stamped_plan(
    db: Reader, where: Location | None, shape: _Shape, params: dict[str, Any]
) -> Listing:
    """``_plan``, but a page by name that would walk the name index testing each row's stamp
    (``updated_since``: anywhere, or in a wide box) first counts the stamped rows, and sorts
    them when they are few (service.paging.pick_listing), on SQLite: PostgreSQL's plan, made
    once for any instant, walks the name index either way."""
    walked = _plan(where, shape)
    by_name = shape.since and shape.walked and shape.sort == "name"
    if not by_name or (isinstance(where, Box) and not where.wide) or isinstance(where, Near):
        return walked
    if dialect_name(db) != "sqlite":
        return walked
    sorted_ = _in_box(shape) if isinstance(where, Box) else _anywhere(shape)
    return pick_listing(db, _stamped_count(), params, sorted_, walked)


@lru_cache(maxsize=1)
def _stamped_count() -> AnySelect:
    """The dispensaries stamped at or after ``updated_since``, counted in the (updated_at, id)
    index alone."""
    return select(func.count()).select_from(Dispensary).where(since_where(Dispensary.updated_at))


def _stamp_tested(since: bool) -> list[ColumnElement[bool]]:
    """The ``updated_since`` filter of a page that walks another order: tested per row."""
    return [since_where(tested_per_row(Dispensary.updated_at.expression))] if since else []


@lru_cache(maxsize=64)
def _walk(compared: tuple[str, ...], sort: str, since: bool) -> Listing:
    """By name, or by the change stamp (through the (updated_at, id) index, from
    ``updated_since`` when given); the count finds the stamped rows through that index."""
    where = compared_conditions(compared)
    stamped = [since_where(Dispensary.updated_at)] if since else []
    count = select(func.count()).select_from(Dispensary).where(*where, *stamped)
    if sort in STAMP_SORTS:
        order = stamp_order(Dispensary.updated_at, Dispensary.id, sort)
        return Listing.of(LISTED, [*where, *stamped], order, count=count)
    order = (Dispensary.sort_key, Dispensary.id)
    if not since:
        return Listing.of(LISTED, where, order)
    return Listing.of(LISTED, [*where, *_stamp_tested(since)], order, count=count)


@lru_cache(maxsize=64)
def _by_name_in_box(compared: tuple[str, ...], wide: bool, since: bool = False) -> Listing:
    """In a box, by name. A box of few rows is found through the (lat, lng) index and sorted;
    in a ``wide`` box (service.places.WIDE_BOX_SQUARE_DEGREES) the page walks the name index
    testing each row instead, and stops once full rather than sorting every row of the box.
    The count always finds the box through the (lat, lng) index."""
    where = compared_conditions(compared)
    inside = box_where(Dispensary.lat, Dispensary.lng)
    stamped = _stamp_tested(since)
    count = select(func.count()).where(*where, inside, *stamped)
    tested = inside_tested_per_row(Dispensary.lat, Dispensary.lng) if wide else inside
    order = (Dispensary.sort_key, Dispensary.id)
    return Listing.of(LISTED, [*where, tested, *stamped], order, count=count)


@lru_cache(maxsize=128)
def _anywhere(shape: _Shape) -> Listing:
    return _ranked(shape, [])


@lru_cache(maxsize=128)
def _in_box(shape: _Shape) -> Listing:
    return _ranked(shape, [box_where(Dispensary.lat, Dispensary.lng)])


@lru_cache(maxsize=128)
def _near(shape: _Shape) -> Listing:
    """Around a point: the rows of the circle's bounding box (through the (lat, lng) index),
    kept by their exact great-circle distance (service.geo.miles_sql), computed once per row."""
    distance = miles_sql(Dispensary.lat, Dispensary.lng).label("distance")
    return _ranked(shape, [near_where(Dispensary.lat, Dispensary.lng)], distance)


def _ranked(shape: _Shape, located: list[Any], distance: Any = None) -> Listing:
    """One page of the narrow candidate rows (id, name key, rating, and ``distance`` around a
    point), every filter applied, in the list's order, each with the count of all of them;
    only the page's rows are then joined for the listed columns."""
    near = distance is not None
    columns = [Dispensary.id, Dispensary.sort_key, Dispensary.rating, *([distance] if near else [])]
    if shape.sort in STAMP_SORTS:
        columns.append(Dispensary.updated_at)
    if shape.sort == PRICE_PER_GRAM:
        columns.append(lowest_price_per_gram(shape.offer))
    where = [*compared_conditions(shape.compared), *located]
    if shape.since:
        where.append(since_where(Dispensary.updated_at))
    if shape.stocking:
        where.append(_stocking(shape.offer, near=near))
    if shape.opened is not None:
        where.append(shape.opened.where)
    candidates = select(*columns).where(*where).subquery("candidates")
    within = [candidates.c.distance <= bindparam("radius", type_=Float)] if near else []

    def listed(ranked: Subquery) -> AnySelect:
        page = select(*LISTED, *([ranked.c.distance] if near else []))
        return page.join_from(ranked, Dispensary, Dispensary.id == ranked.c.id)

    order = partial(place_order, sort=shape.sort)
    return ranked_listing(candidates, within, order, listed)


def list_dispensaries(
    db: Reader,
    filters: DispensaryFilters,
    page: PageRequest,
    *,
    now: Clock = current_minute,
    strain_id: int | None = None,
) -> Page[DispensaryRow]:
    """One page of dispensaries: by name unless ``filters.sort`` says otherwise (nearest first
    around a point by default); ``now`` is called only for ``open_now``. With ``strain_id``:
    only those whose menu has that strain, with the menu item's price and unit (StockedRow)."""
    compared = compared_filters(filters)
    params = compared_bindings(compared)
    where = filters.where
    if where is not None:
        params.update(where.params())
    if strain_id is not None:
        params["strain_id"] = strain_id
        params.update(offer_params(filters))
    if filters.updated_since is not None:
        params[SINCE] = filters.updated_since
    since = filters.updated_since is not None
    offer = OfferChoice.of(filters)
    shape = _Shape(tuple(compared), strain_id is not None, filters.sort, since=since, offer=offer)
    when = filters.when
    at = when.instant(now) if when is not None else None
    if when is not None and at is not None and when.only_open:
        found = _open_rows(db, where, shape, params, page, at)
    else:  # with open_now=false (``at`` but not only_open) every row says whether it is open
        found = fetch_rows(db, _stamped_plan(db, where, shape, params), params, page)
    items = with_opening(listed_rows(found.items), at)
    if strain_id is not None:
        items = _stocked(db, strain_id, items, filters)
    return Page(items, found.total, found.limit, found.offset)


def _open_rows(
    db: Reader,
    where: Location | None,
    shape: _Shape,
    params: dict[str, Any],
    page: PageRequest,
    at: datetime,
) -> Page[AnyRow]:
    """The rows open at ``at`` in their own zones: service.open_sql's condition in the list's
    statement, with its parameters; run again when nothing was found and a new read of the
    zones could change that."""

    def run(opened: open_sql.OpenAt) -> Page[AnyRow]:
        listing = _plan(where, shape._replace(opened=opened.condition))
        return fetch_rows(db, listing, {**params, **opened.params}, page)

    opened = open_sql.open_at(db, at)
    found = run(opened)
    if not found.items and (fresh := open_sql.reread(db, at, opened)) is not None:
        found = run(fresh)
    return found


def _stocked(
    db: Reader, strain_id: int, items: list[DispensaryRow], filters: DispensaryFilters
) -> list[DispensaryRow]:
    """The page's dispensaries with the strain's menu item that counts (service.offers)."""
    offers = offers_at(db, strain_id, [row.id for row in items], filters)
    return [StockedRow(**_fields(row), **offers[row.id]._asdict()) for row in items]


def _fields(row: DispensaryRow) -> dict[str, Any]:
    return {name: getattr(row, name) for name in DispensaryRow.__dataclass_fields__}

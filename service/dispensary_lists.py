"""Dispensary list pages: filtered, near a point, in a map box, open at an instant, stocking a
strain; by name, distance or rating. Both edges list dispensaries through ``list_dispensaries``."""

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from functools import lru_cache
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
from models.db import AnySelect, Reader
from models.expressions import in_subquery_once

from . import open_sql
from .dispensary_rows import LISTED, DispensaryRow, StockedRow, listed_row
from .filters import DispensaryFilters
from .geo import miles_sql
from .paging import (
    Listing,
    Page,
    PageRequest,
    compared_params,
    compared_where,
    fetch_page,
    ranked_listing,
    rows,
)
from .places import Box, Near, box_where, inside_tested_per_row, near_where, place_order
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


def _stocking(*, near: bool = False) -> ColumnElement[bool]:
    """Only dispensaries whose menu has the strain ``:strain_id``. ``near``: the rows are those
    of a circle's bounding box, few enough to test each against the stockists' ids read once
    (models.expressions.in_subquery_once; PostgreSQL otherwise read the strain's menu items
    again for every dispensary of the box)."""
    stocked = select(MenuItem.dispensary_id).where(
        MenuItem.strain_id == bindparam("strain_id", type_=Integer)
    )
    if near:
        return in_subquery_once(Dispensary.id, stocked.scalar_subquery())
    return Dispensary.id.in_(stocked)


@lru_cache(maxsize=64)
def _listing(compared: tuple[str, ...]) -> Listing:
    return Listing.of(LISTED, compared_conditions(compared), (Dispensary.sort_key, Dispensary.id))


@lru_cache(maxsize=64)
def _boxed_listing(compared: tuple[str, ...], wide: bool) -> Listing:
    """In a box, by name. A box of few rows is found through the (lat, lng) index and sorted;
    in a ``wide`` box (service.places.WIDE_BOX_SQUARE_DEGREES) the page walks the name index
    testing each row instead, and stops once full rather than sorting every row of the box.
    The count always finds the box through the (lat, lng) index."""
    where = compared_conditions(compared)
    inside = box_where(Dispensary.lat, Dispensary.lng)
    count = select(func.count()).where(*where, inside)
    tested = inside_tested_per_row(Dispensary.lat, Dispensary.lng) if wide else inside
    return Listing.of(LISTED, [*where, tested], (Dispensary.sort_key, Dispensary.id), count=count)


class _Shape(NamedTuple):
    """What a list statement depends on, besides its bind parameters."""

    compared: tuple[str, ...]
    where: str | None  # "near", "box" or None
    stocking: bool  # only dispensaries whose menu has :strain_id
    sort: str
    # Open at an instant: the zones' clocks the condition is built for (service.open_sql).
    open_key: open_sql.OpenKey | None = None


@lru_cache(maxsize=128)
def _candidates(shape: _Shape) -> Any:
    """The narrow rows a list chooses from (id, name key, rating, distance with a point): every
    filter applied. A point narrows the rows through the (lat, lng) index by its bounding box and
    the exact great-circle distance decides (service.geo.miles_sql), computed once per row."""
    columns: list[Any] = [Dispensary.id, Dispensary.sort_key, Dispensary.rating]
    where: list[Any] = compared_conditions(shape.compared)
    if shape.where == "near":
        columns.append(miles_sql(Dispensary.lat, Dispensary.lng).label("distance"))
        where.append(near_where(Dispensary.lat, Dispensary.lng))
    elif shape.where == "box":
        where.append(box_where(Dispensary.lat, Dispensary.lng))
    if shape.stocking:
        where.append(_stocking(near=shape.where == "near"))
    if shape.open_key is not None:
        where.append(open_sql.open_where(shape.open_key))
    near = select(*columns).where(*where).subquery("candidates")
    within = [near.c.distance <= bindparam("radius", type_=Float)] if shape.where == "near" else []
    return near, within


@lru_cache(maxsize=128)
def _ranked_listing(shape: _Shape) -> Listing:
    """One page of the candidates in the list's order, each with the count of all of them;
    only the page's rows are then joined for the listed columns."""
    near, within = _candidates(shape)

    def listed(ranked: Subquery) -> AnySelect:
        distance = [ranked.c.distance] if shape.where == "near" else []
        page = select(*LISTED, *distance)
        return page.join_from(ranked, Dispensary, Dispensary.id == ranked.c.id)

    return ranked_listing(near, within, lambda columns: place_order(columns, shape.sort), listed)


def list_dispensaries(
    db: Reader,
    filters: DispensaryFilters,
    page: PageRequest,
    *,
    now: Clock = current_minute,
    strain_id: int | None = None,
) -> Page[DispensaryRow]:
    """One page of dispensaries: by name unless ``filters.sort`` says otherwise (nearest first
    around a point by default). ``now`` gives the request's instant; it is only called for
    ``open_now``. With ``strain_id``: only those whose menu has that strain, each with the
    menu item's price and unit (StockedRow)."""
    compared = compared_filters(filters)
    where = filters.where
    params = compared_bindings(compared)
    if where is not None:
        params.update(where.params())
    if strain_id is not None:
        params["strain_id"] = strain_id
    shape = _Shape(
        tuple(compared),
        "near" if isinstance(where, Near) else "box" if isinstance(where, Box) else None,
        strain_id is not None,
        filters.sort,
    )
    when = filters.when
    at = when.instant(now) if when is not None else None
    if when is not None and at is not None and when.only_open:
        result = _open_page(db, shape, params, page, at)
    else:
        # With open_now=false (``at`` but not only_open) every row says whether it is open.
        if shape == _Shape(shape.compared, None, False, "name"):
            found = fetch_page(db, _listing(shape.compared), params, page)
            result = replace(found, items=[listed_row(row, None, at) for row in found.items])
        elif shape == _Shape(shape.compared, "box", False, "name"):
            assert isinstance(where, Box)  # the shape says so
            found = fetch_page(db, _boxed_listing(shape.compared, where.wide), params, page)
            result = replace(found, items=[listed_row(row, None, at) for row in found.items])
        else:
            result = _ranked_page(db, shape, params, page, at)
    if strain_id is not None:
        result = replace(result, items=_stocked(db, strain_id, result.items))
    return result


def _ranked_page(
    db: Reader,
    shape: _Shape,
    params: dict[str, Any],
    page: PageRequest,
    at: datetime | None = None,
) -> Page[DispensaryRow]:
    found = fetch_page(db, _ranked_listing(shape), params, page)
    listed = len(LISTED)
    near = shape.where == "near"
    items = [listed_row(row[:listed], row[listed] if near else None, at) for row in found.items]
    return replace(found, items=items)


def _open_page(
    db: Reader, shape: _Shape, params: dict[str, Any], page: PageRequest, at: datetime
) -> Page[DispensaryRow]:
    """The rows open at ``at`` in their own zones, kept by the database (service.open_sql) and
    paged like any list; whether each is open, and until when, is worked out for the page."""

    def in_sql(key: open_sql.OpenKey, clocks: dict[str, int]) -> Page[DispensaryRow]:
        return _ranked_page(db, shape._replace(open_key=key), {**params, **clocks}, page, at)

    return open_sql.kept_open(db, at, in_sql)


def _stocked(db: Reader, strain_id: int, items: list[DispensaryRow]) -> list[DispensaryRow]:
    """The page's dispensaries with the strain's menu item (the cheapest, if several)."""
    offers: dict[int, tuple[float, str]] = {}
    params = {"strain_id": strain_id, "ids": [row.id for row in items]}
    found: Sequence[tuple[int, float, str]] = rows(db, _offers_statement(), params)
    for dispensary_id, price, unit in found:
        offers.setdefault(dispensary_id, (price, unit))
    return [
        StockedRow(**_fields(row), price=offers[row.id][0], unit=offers[row.id][1]) for row in items
    ]


def _fields(row: DispensaryRow) -> dict[str, Any]:
    return {name: getattr(row, name) for name in DispensaryRow.__dataclass_fields__}


@lru_cache(maxsize=1)
def _offers_statement() -> AnySelect:
    """The menu items of :strain_id at the dispensaries in :ids, cheapest first."""
    return (
        select(MenuItem.dispensary_id, MenuItem.price, MenuItem.unit)
        .where(
            MenuItem.strain_id == bindparam("strain_id", type_=Integer),
            MenuItem.dispensary_id.in_(bindparam("ids", expanding=True)),
        )
        .order_by(MenuItem.dispensary_id, MenuItem.price, MenuItem.position)
    )

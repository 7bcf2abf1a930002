"""Where to buy several strains at once (GraphQL's Strain.dispensaries): each strain's page of
stockists under any dispensary filter, for every strain of a request level in one statement (a
row number partitioned by strain ranks each one's in the list's order); the menu item at each
listed (strain, dispensary) pair comes in one more (service.offers.offers_by_pair).
"""

from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import Float, Integer, bindparam, func, select

from models import Dispensary, MenuItem
from models.db import AnyRow, AnySelect, Reader

from . import open_sql
from .dispensary_lists import compared_bindings, compared_conditions, compared_filters
from .dispensary_rows import LISTED, DispensaryRow, listed_rows, with_opening
from .filters import DispensaryFilters
from .geo import miles_sql
from .offers import PRICE_PER_GRAM, OfferChoice, counted_items, offer_params
from .paging import PageRequest, rows
from .places import Box, Location, Near, box_where, near_where, place_order
from .stamps import SINCE, STAMP_SORTS, since_where
from .when import Clock, current_minute


class _Shape(NamedTuple):
    """What the statement depends on besides its location's kind and its bind parameters."""

    compared: tuple[str, ...]
    sort: str
    opened: open_sql.OpenCondition | None = None  # only those open at an instant
    since: bool = False  # only those stamped at or after :updated_since
    offer: OfferChoice = OfferChoice()  # which of a menu's items of the strain count


def _statement(where: Location | None, shape: _Shape) -> AnySelect:
    """The statement of ``shape`` where the list is asked about (built once per shape)."""
    if isinstance(where, Near):
        return _near(shape)
    return _in_box(shape) if isinstance(where, Box) else _anywhere(shape)


@lru_cache(maxsize=64)
def _anywhere(shape: _Shape) -> AnySelect:
    return _select_stockists(shape, [])


@lru_cache(maxsize=64)
def _in_box(shape: _Shape) -> AnySelect:
    return _select_stockists(shape, [box_where(Dispensary.lat, Dispensary.lng)])


@lru_cache(maxsize=64)
def _near(shape: _Shape) -> AnySelect:
    distance = miles_sql(Dispensary.lat, Dispensary.lng).label("distance")
    return _select_stockists(shape, [near_where(Dispensary.lat, Dispensary.lng)], distance)


def _select_stockists(shape: _Shape, located: list[Any], distance: Any = None) -> AnySelect:
    """The stockists of each strain in ``:strain_ids`` kept by the filters, ranked per strain
    in the list's order, from rank ``:offset`` + 1 to ``:offset`` + ``:limit``: the strain's
    id, the listed columns, and the ``distance`` around a point."""
    pairs = select(MenuItem.strain_id, MenuItem.dispensary_id).where(
        MenuItem.strain_id.in_(bindparam("strain_ids", expanding=True)),
        *counted_items(shape.offer),
    )
    by_price_per_gram = shape.sort == PRICE_PER_GRAM
    if by_price_per_gram:  # each pair's lowest price per gram, to order by
        lowest = func.min(MenuItem.price_per_gram).label(PRICE_PER_GRAM)
        pairs = pairs.add_columns(lowest).group_by(MenuItem.strain_id, MenuItem.dispensary_id)
    else:
        pairs = pairs.distinct()
    stocked = pairs.subquery("stocked")
    near = distance is not None
    columns: list[Any] = [stocked.c.strain_id, Dispensary.id, Dispensary.sort_key]
    columns += [Dispensary.rating, *([distance] if near else [])]
    if shape.sort in STAMP_SORTS:
        columns.append(Dispensary.updated_at)
    if by_price_per_gram:
        columns.append(stocked.c.price_per_gram)
    where: list[Any] = [Dispensary.id == stocked.c.dispensary_id]
    where += [*compared_conditions(shape.compared), *located]
    if shape.since:
        where.append(since_where(Dispensary.updated_at))
    if shape.opened is not None:
        where.append(shape.opened.where)
    candidates = select(*columns).where(*where).subquery("candidates")
    rank = func.row_number().over(
        partition_by=candidates.c.strain_id, order_by=place_order(candidates.c, shape.sort)
    )
    ranked = (
        select(
            candidates.c.strain_id,
            candidates.c.id,
            *([candidates.c.distance] if near else []),
            rank.label("rank"),
        )
        .where(*([candidates.c.distance <= bindparam("radius", type_=Float)] if near else []))
        .subquery("ranked")
    )
    offset = bindparam("offset", type_=Integer)
    return (
        select(ranked.c.strain_id, *LISTED, *([ranked.c.distance] if near else []))
        .join_from(ranked, Dispensary, Dispensary.id == ranked.c.id)
        .where(ranked.c.rank > offset, ranked.c.rank <= offset + bindparam("limit", type_=Integer))
        .order_by(ranked.c.strain_id, ranked.c.rank)
    )


def stockists_by_strain(
    db: Reader,
    strain_ids: Iterable[int],
    filters: DispensaryFilters,
    window: PageRequest,
    *,
    now: Clock = current_minute,
) -> dict[int, list[DispensaryRow]]:
    """Return each strain's page of the dispensaries whose menu lists it and that ``filters``
    keep, in their order, keyed by strain id: one statement for all of them (``now`` is called
    only for ``open_now``)."""
    found: dict[int, list[DispensaryRow]] = {id_: [] for id_ in strain_ids}
    if not found:
        return found
    compared = compared_filters(filters)
    params = compared_bindings(compared)
    params.update(strain_ids=list(found), limit=window.limit, offset=window.offset)
    params.update(offer_params(filters))
    where = filters.where
    if where is not None:
        params.update(where.params())
    if filters.updated_since is not None:
        params[SINCE] = filters.updated_since
    since = filters.updated_since is not None
    shape = _Shape(tuple(compared), filters.sort, since=since, offer=OfferChoice.of(filters))
    when = filters.when
    at = when.instant(now) if when is not None else None
    if when is not None and at is not None and when.only_open:
        stocked = _open_rows(db, where, shape, params, at)
    else:
        stocked = rows(db, _statement(where, shape), params)
    listed = with_opening(listed_rows(stocked), at)
    for row, dispensary in zip(stocked, listed, strict=True):
        found[row.strain_id].append(dispensary)
    return found


def _open_rows(
    db: Reader, where: Location | None, shape: _Shape, params: dict[str, Any], at: datetime
) -> Sequence[AnyRow]:
    """The rows open at ``at`` in their own zones (as service.dispensary_lists reads them)."""

    def run(opened: open_sql.OpenAt) -> Sequence[AnyRow]:
        statement = _statement(where, shape._replace(opened=opened.condition))
        return rows(db, statement, {**params, **opened.params})

    opened = open_sql.open_at(db, at)
    found = run(opened)
    if not found and (fresh := open_sql.reread(db, at, opened)) is not None:
        found = run(fresh)
    return found

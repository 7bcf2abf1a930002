"""A strain's menu item at a dispensary (its "offer") as a strain's dispensaries show it, in both
edges: which item counts when a menu lists the strain more than once, and the SQL pieces the
lists use to filter and order dispensaries by that item.

Which item counts (``OfferChoice``): among the dispensary's items of the strain, those whose
batch reaches ``total_thc_min`` when it is given (an item without a batch never does); of these
the cheapest (then the first in menu order), or with ``sort=price_per_gram`` the one with the
lowest price per gram (items without one last), then the cheapest, then menu order. A list sorted
by price per gram orders each dispensary by that item's price per gram, nulls last.
"""

from collections.abc import Iterable
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, Float, Integer, bindparam, func, select

from models import Dispensary, MenuItem
from models.db import AnySelect, Reader

from .filters import DispensaryFilters
from .lab import LabBatch, lab_batch
from .paging import rows

PRICE_PER_GRAM = "price_per_gram"  # the sort, and the candidates' column it orders by
TOTAL_THC_MIN = "total_thc_min"  # the filter, and its bind parameter


class OfferChoice(NamedTuple):
    """What decides which of a dispensary's items of the strain counts (see the module)."""

    total_thc_min: bool = False  # only items whose batch reaches :total_thc_min
    by_price_per_gram: bool = False

    @classmethod
    def of(cls, filters: DispensaryFilters) -> "OfferChoice":
        return cls(filters.total_thc_min is not None, filters.sort == PRICE_PER_GRAM)


class Offer(NamedTuple):
    """The strain's menu item at a dispensary: price (US dollars), unit, price per gram (None
    for a unit that is not a weight) and the batch's lab result (None without one)."""

    price: float
    unit: str
    price_per_gram: float | None = None
    lab: LabBatch | None = None


def offer_params(filters: DispensaryFilters) -> dict[str, Any]:
    """The bind parameters the choice's conditions use."""
    given = filters.total_thc_min
    return {} if given is None else {TOTAL_THC_MIN: given}


def counted_items(choice: OfferChoice) -> list[ColumnElement[bool]]:
    """The conditions on a MenuItem of the strain for it to count (beside the strain's)."""
    if not choice.total_thc_min:
        return []
    return [MenuItem.total_thc >= bindparam(TOTAL_THC_MIN, type_=Float)]


def lowest_price_per_gram(choice: OfferChoice, dispensary_id: Any = Dispensary.id) -> Any:
    """The lowest price per gram of the counted items of ``:strain_id`` at the dispensary
    ``dispensary_id``: a correlated subquery, one range of ix_menu_items_strain_id_dispensary_id
    per dispensary."""
    return (
        select(func.min(MenuItem.price_per_gram))
        .where(
            MenuItem.strain_id == bindparam("strain_id", type_=Integer),
            MenuItem.dispensary_id == dispensary_id,
            *counted_items(choice),
        )
        .scalar_subquery()
        .label(PRICE_PER_GRAM)
    )


def _item_order(choice: OfferChoice) -> tuple[Any, ...]:
    per_gram = (MenuItem.price_per_gram.asc().nulls_last(),) if choice.by_price_per_gram else ()
    return (*per_gram, MenuItem.price, MenuItem.position)


_OFFERED = (
    MenuItem.price,
    MenuItem.unit,
    MenuItem.price_per_gram,
    MenuItem.lab,
    MenuItem.total_thc,
    MenuItem.total_cbd,
)


def _offer(row: Any) -> Offer:
    price, unit, per_gram, lab, thc, cbd = row
    return Offer(price, unit, per_gram, lab_batch(lab, thc, cbd) if lab is not None else None)


@lru_cache(maxsize=4)
def _at_statement(choice: OfferChoice) -> AnySelect:
    """The counted items of :strain_id at the dispensaries in :ids, the one that counts first."""
    return (
        select(MenuItem.dispensary_id, *_OFFERED)
        .where(
            MenuItem.strain_id == bindparam("strain_id", type_=Integer),
            MenuItem.dispensary_id.in_(bindparam("ids", expanding=True)),
            *counted_items(choice),
        )
        .order_by(MenuItem.dispensary_id, *_item_order(choice))
    )


def offers_at(
    db: Reader, strain_id: int, ids: Iterable[int], filters: DispensaryFilters
) -> dict[int, Offer]:
    """The offer of the strain at each dispensary in ``ids`` that has one, keyed by dispensary
    id: one statement."""
    params = {"strain_id": strain_id, "ids": list(ids), **offer_params(filters)}
    found: dict[int, Offer] = {}
    for row in rows(db, _at_statement(OfferChoice.of(filters)), params):
        if row[0] not in found:
            found[row[0]] = _offer(row[1:])
    return found


Pair = tuple[int, int]  # (strain id, dispensary id)


@lru_cache(maxsize=4)
def _pairs_statement(choice: OfferChoice) -> AnySelect:
    """The counted items of the strains in :strains at the dispensaries in :places, the one
    that counts first for each pair."""
    return (
        select(MenuItem.strain_id, MenuItem.dispensary_id, *_OFFERED)
        .where(
            MenuItem.strain_id.in_(bindparam("strains", expanding=True)),
            MenuItem.dispensary_id.in_(bindparam("places", expanding=True)),
            *counted_items(choice),
        )
        .order_by(MenuItem.strain_id, MenuItem.dispensary_id, *_item_order(choice))
    )


def offers_by_pair(
    db: Reader, pairs: Iterable[Pair], filters: DispensaryFilters | None = None
) -> dict[Pair, Offer]:
    """The offer of each (strain id, dispensary id) under ``filters`` (by default: the cheapest
    item), in one statement; a pair whose menu does not list the strain is left out."""
    wanted = set(pairs)
    if not wanted:
        return {}
    chosen = filters if filters is not None else DispensaryFilters()
    params = {
        "strains": sorted({strain for strain, _ in wanted}),
        "places": sorted({place for _, place in wanted}),
        **offer_params(chosen),
    }
    found: dict[Pair, Offer] = {}
    for row in rows(db, _pairs_statement(OfferChoice.of(chosen)), params):
        pair = (row[0], row[1])
        if pair in wanted and pair not in found:
            found[pair] = _offer(row[2:])
    return found

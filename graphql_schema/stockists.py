"""Where to buy a strain (Strain.dispensaries): which path answers, and the menu item's price.

The service's page of a strain's stockists (``list_dispensaries(..., strain_id=)``) answers any
filter, with each menu item's price and unit, one strain at a time. Arguments the old field took
(by name, at most one state) take instead the batched relation every strain of the request
shares (``dispensaries_by_strain``: one statement); the price and unit of its dispensaries, when
the query reads them, come from ``offers_by_pair``: one more statement for all of them.
"""

from collections.abc import Iterable
from functools import lru_cache

from sqlalchemy import Connection, Select, bindparam, select

from models import MenuItem
from service.filters import DispensaryFilters
from service.paging import rows

Pair = tuple[int, int]  # (strain id, dispensary id)
Offer = tuple[float, str]  # (price in US dollars, unit) of the strain's menu item there


def by_name_suffices(filters: DispensaryFilters) -> bool:
    """Whether the batched relation answers these filters: by name, at most one state."""
    return (
        filters.where is None
        and filters.when is None
        and filters.sort == "name"
        and (filters.state is None or len(filters.state) == 1)
        and filters.city is None
        and filters.type is None
        and filters.delivery is None
    )


@lru_cache(maxsize=1)
def _offers_statement() -> Select[int | None, int, float, str]:
    """The menu items of the strains in :strains at the dispensaries in :places, cheapest
    first (then menu order, as the service's page picks them)."""
    return (
        select(MenuItem.strain_id, MenuItem.dispensary_id, MenuItem.price, MenuItem.unit)
        .where(
            MenuItem.strain_id.in_(bindparam("strains", expanding=True)),
            MenuItem.dispensary_id.in_(bindparam("places", expanding=True)),
        )
        .order_by(MenuItem.strain_id, MenuItem.dispensary_id, MenuItem.price, MenuItem.position)
    )


def offers_by_pair(db: Connection, pairs: Iterable[Pair]) -> dict[Pair, Offer]:
    """The cheapest menu item (price, unit) of each (strain id, dispensary id), in one
    statement; a pair whose menu does not list the strain is left out."""
    wanted = set(pairs)
    if not wanted:
        return {}
    params = {
        "strains": sorted({strain for strain, _ in wanted}),
        "places": sorted({place for _, place in wanted}),
    }
    found: dict[Pair, Offer] = {}
    for strain, place, price, unit in rows(db, _offers_statement(), params):
        if strain is not None and (strain, place) in wanted:
            found.setdefault((strain, place), (price, unit))
    return found

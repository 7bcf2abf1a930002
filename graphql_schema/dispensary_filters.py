"""The filters of Query.dispensaries and Strain.dispensaries: the arguments both fields take,
read once (``dispensary_filters``)."""

from collections.abc import Sequence
from datetime import datetime
from enum import Enum

from service.filters import PLACE_SORTS, DispensaryFilters

from . import places
from .arguments import BBoxInput, NearInput
from .plurals import AnyOf, enum_values


def dispensary_filters(
    *,
    state: str | None = None,
    states: list[str] | None = None,
    city: str | None = None,
    zip: str | None = None,
    radius: float | None = None,
    near: NearInput | None = None,
    bbox: BBoxInput | None = None,
    type: Enum | None = None,
    types: Sequence[Enum] | None = None,
    delivery: bool | None = None,
    open_now: bool | None = None,
    open_at: datetime | None = None,
    sort: Enum | None = None,
    updated_since: datetime | None = None,
    total_thc_min: float | None = None,
    sorts: tuple[str, ...] = PLACE_SORTS,
) -> DispensaryFilters:
    """Query.dispensaries' and Strain.dispensaries' arguments as the service's filters
    (``updated_since``: already read by ``places.updated_since``; ``sorts``: the orders the
    field takes, as the service's DispensaryFilters.create)."""
    any_of = AnyOf()
    state_or_states = any_of.pick("state", state, "states", states)
    type_or_types = any_of.pick("type", type, "types", types)
    where, when = places.where(zip, radius, near, bbox), places.when(open_now, open_at)
    with any_of.naming():
        return DispensaryFilters.create(
            state=state_or_states,
            city=city,
            type=enum_values(type_or_types),
            delivery=delivery,
            where=where,
            when=when,
            sort=places.place_order(sort, sorts),
            updated_since=updated_since,
            total_thc_min=total_thc_min,
            sorts=sorts,
        )

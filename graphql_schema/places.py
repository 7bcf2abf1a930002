"""Where and when arguments (zip, radius, near, bbox, openNow, openAt, sort) as the keyword
arguments of the service's filter constructors, with GraphQL's spelling of each parameter for
the service's messages (``names``); the filters taking one value or several (``state`` or
``states``) go through ``plurals.AnyOf``.

``radius`` is the distance from ``zip``; around ``near`` it is ``near.radius``: giving the
top-level ``radius`` with ``near`` is refused, naming ``radius``.
"""

from collections.abc import Sequence
from datetime import datetime
from enum import Enum
from typing import Any

from service.errors import InvalidParameter
from service.filters import DealFilters, DispensaryFilters, DoctorFilters

from .arguments import BBoxInput, NearInput
from .plurals import AnyOf, enum_values

# The service's names of the parameters GraphQL spells otherwise.
_NAMES = {
    "lat": "near.lat",
    "lng": "near.lng",
    "open_now": "openNow",
    "open_at": "openAt",
}


def _where(
    zip: str | None,
    radius: float | None,
    near: NearInput | None,
    bbox: BBoxInput | None,
    *,
    boxes: bool = True,
) -> dict[str, Any]:
    """The service's location parameters (and ``names``) from GraphQL's arguments."""
    names = dict(_NAMES)
    where: dict[str, Any] = {"zip": zip, "radius": radius, "names": names}
    if near is not None:
        if radius is not None:
            raise InvalidParameter(
                "radius is a distance from zip; around near, give near.radius", param="radius"
            )
        where.update(lat=near.lat, lng=near.lng, radius=near.radius)
        names["radius"] = "near.radius"
    if boxes:
        where["bbox"] = None if bbox is None else [bbox.west, bbox.south, bbox.east, bbox.north]
    return where


def _value(member: Enum | None) -> str | None:
    return None if member is None else str(member.value)


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
) -> DispensaryFilters:
    """Query.dispensaries' and Strain.dispensaries' arguments as the service's filters."""
    any_of = AnyOf()
    state_or_states = any_of.pick("state", state, "states", states)
    type_or_types = any_of.pick("type", type, "types", types)
    with any_of.naming():
        return DispensaryFilters.create(
            state=state_or_states,
            city=city,
            type=enum_values(type_or_types),
            delivery=delivery,
            open_now=open_now,
            open_at=open_at,
            sort=_value(sort),
            **_where(zip, radius, near, bbox),
        )


def deal_filters(
    *,
    state: str | None,
    states: list[str] | None,
    city: str | None,
    category: str | None,
    categories: list[str] | None,
    zip: str | None,
    radius: float | None,
    near: NearInput | None,
    open_now: bool | None,
    open_at: datetime | None,
    sort: Enum | None,
) -> DealFilters:
    """Query.deals' arguments as the service's filters (deals take no bbox)."""
    any_of = AnyOf()
    state_or_states = any_of.pick("state", state, "states", states)
    category_or_categories = any_of.pick("category", category, "categories", categories)
    with any_of.naming():
        return DealFilters.create(
            state=state_or_states,
            city=city,
            category=category_or_categories,
            open_now=open_now,
            open_at=open_at,
            sort=_value(sort),
            **_where(zip, radius, near, None, boxes=False),
        )


def doctor_filters(
    *,
    state: str | None,
    states: list[str] | None,
    city: str | None,
    telehealth: bool | None,
    zip: str | None,
    radius: float | None,
    near: NearInput | None,
    bbox: BBoxInput | None,
    sort: Enum | None,
) -> DoctorFilters:
    """Query.doctors' arguments as the service's filters."""
    any_of = AnyOf()
    state_or_states = any_of.pick("state", state, "states", states)
    with any_of.naming():
        return DoctorFilters.create(
            state=state_or_states,
            city=city,
            telehealth=telehealth,
            sort=_value(sort),
            **_where(zip, radius, near, bbox),
        )

"""Query.doctors: doctors by place and telehealth, near a point or in a map box."""

from strawberry import Info

from service import bounds, doctors
from service.filters import PLACE_SORTS, DoctorFilters
from service.paging import PageRequest

from . import places
from .arguments import (
    City,
    DoctorsLimit,
    MapBox,
    NearPoint,
    Offset,
    PlaceOrder,
    Radius,
    State,
    States,
    Telehealth,
    UpdatedSince,
    Zip,
)
from .context import Context
from .plurals import AnyOf
from .types import Doctor, Page


def doctors_page(
    info: Info[Context, None],
    state: State = None,
    states: States = None,
    city: City = None,
    telehealth: Telehealth = None,
    zip: Zip = None,
    radius: Radius = None,
    near: NearPoint = None,
    bbox: MapBox = None,
    sort: PlaceOrder = None,
    limit: DoctorsLimit = bounds.DOCTORS.default,
    offset: Offset = 0,
    updated_since: UpdatedSince = None,
) -> Page[Doctor] | None:
    """Query.doctors."""
    any_of = AnyOf()
    state_or_states = any_of.pick("state", state, "states", states)
    where = places.where(zip, radius, near, bbox)
    with any_of.naming():
        filters = DoctorFilters.create(
            state=state_or_states,
            city=city,
            telehealth=telehealth,
            where=where,
            sort=places.place_order(sort, PLACE_SORTS),
            updated_since=places.updated_since(updated_since, info.context.instant),
        )
    page = doctors.list_doctors(
        info.context.db, filters, PageRequest.within(bounds.DOCTORS, limit, offset)
    )
    return Page.of(page, [Doctor.from_model(d, info) for d in page.items])

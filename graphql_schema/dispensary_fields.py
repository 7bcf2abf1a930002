"""Query.dispensaries: dispensaries by place, type and delivery, near a point or in a map box,
open now or at an instant (its filters shared with Strain.dispensaries)."""

from strawberry import Info

from service import bounds, dispensary_lists
from service.paging import PageRequest

from . import places
from .arguments import (
    City,
    Delivery,
    DispensariesLimit,
    DispensaryTypeFilter,
    DispensaryTypes,
    MapBox,
    NearPoint,
    Offset,
    OpenAt,
    OpenNow,
    PlaceOrder,
    Radius,
    State,
    States,
    UpdatedSince,
    Zip,
)
from .context import Context
from .dispensary_filters import dispensary_filters
from .dispensary_type import Dispensary
from .types import Page


def dispensaries_page(
    info: Info[Context, None],
    state: State = None,
    states: States = None,
    city: City = None,
    zip: Zip = None,
    radius: Radius = None,
    near: NearPoint = None,
    bbox: MapBox = None,
    type: DispensaryTypeFilter = None,
    types: DispensaryTypes = None,
    delivery: Delivery = None,
    open_now: OpenNow = None,
    open_at: OpenAt = None,
    sort: PlaceOrder = None,
    limit: DispensariesLimit = bounds.DISPENSARIES.default,
    offset: Offset = 0,
    updated_since: UpdatedSince = None,
) -> Page[Dispensary] | None:
    """Query.dispensaries."""
    filters = dispensary_filters(
        state=state,
        states=states,
        city=city,
        zip=zip,
        radius=radius,
        near=near,
        bbox=bbox,
        type=type,
        types=types,
        delivery=delivery,
        open_now=open_now,
        open_at=open_at,
        sort=sort,
        updated_since=places.updated_since(updated_since, info.context.instant),
    )
    ctx = info.context
    page = dispensary_lists.list_dispensaries(
        ctx.db, filters, PageRequest.within(bounds.DISPENSARIES, limit, offset), now=ctx.now
    )
    return Page.of(page, [Dispensary.from_model(row, info, row.distance) for row in page.items])

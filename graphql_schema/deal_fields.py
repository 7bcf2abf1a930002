"""Query.deals: active deals by place and category, near a point, open now or at an instant."""

from strawberry import Info

from service import bounds, deals
from service.filters import DealFilters
from service.paging import PageRequest

from . import places
from .arguments import (
    Categories,
    Category,
    City,
    DealOrder,
    DealsLimit,
    NearPoint,
    Offset,
    OpenAt,
    OpenNow,
    Radius,
    State,
    States,
    UpdatedSince,
    Zip,
)
from .context import Context
from .deal_type import Deal
from .plurals import AnyOf
from .types import Page


def deals_page(
    info: Info[Context, None],
    state: State = None,
    states: States = None,
    city: City = None,
    category: Category = None,
    categories: Categories = None,
    zip: Zip = None,
    radius: Radius = None,
    near: NearPoint = None,
    open_now: OpenNow = None,
    open_at: OpenAt = None,
    sort: DealOrder = None,
    limit: DealsLimit = bounds.DEALS.default,
    offset: Offset = 0,
    updated_since: UpdatedSince = None,
) -> Page[Deal] | None:
    """Query.deals (deals take no bbox)."""
    any_of = AnyOf()
    state_or_states = any_of.pick("state", state, "states", states)
    category_or_categories = any_of.pick("category", category, "categories", categories)
    where, when = places.where(zip, radius, near, None), places.when(open_now, open_at)
    with any_of.naming():
        filters = DealFilters.create(
            state=state_or_states,
            city=city,
            category=category_or_categories,
            where=where,
            when=when,
            sort=places.value(sort),
            updated_since=places.updated_since(updated_since, info.context.instant),
        )
    ctx = info.context
    page = deals.list_deals(
        ctx.db,
        filters,
        PageRequest.within(bounds.DEALS, limit, offset),
        today=ctx.today,
        now=ctx.now,
    )
    return Page.of(page, [Deal.from_model(d, info) for d in page.items])

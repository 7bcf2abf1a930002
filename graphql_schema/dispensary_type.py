"""The GraphQL dispensary: its fields, open state, deals, menu, reviews and law.

Its deals and its menu's strains are types of modules that refer back to it: they are named
through graphql_schema.lazy and reached through their modules when built.
"""

from collections.abc import Iterable, Mapping
from dataclasses import field
from datetime import datetime
from typing import TYPE_CHECKING

import strawberry
from strawberry import Info

from service import bounds, deals, dispensaries, strains
from service.deals import DealRow
from service.dispensary_rows import DispensaryRow, StockedRow
from service.filters import DispensaryFilters
from service.hours import OpenState, open_state
from service.offers import Offer, OfferChoice, offers_by_pair
from service.stamps import as_utc

from . import deal_type, strain_type
from .arguments import (
    DispensaryDealsLimit,
    DispensaryMenuLimit,
    DispensaryReviewsLimit,
    NestedOffset,
)
from .context import Context
from .enums import DispensaryType
from .lab_type import LAB, PRICE_PER_GRAM, LabBatch
from .lazy import LazyDeal
from .menu_item import MenuItem, menu_selects_strain
from .node import Node
from .types import (
    MENU_UPDATED_AT,
    NEVER,
    UPDATED_AT,
    Hours,
    Law,
    Location,
    Review,
    law_for,
    nested_window,
)

if TYPE_CHECKING:
    from .strain_type import Strain


def seen_dispensaries(ctx: Context, rows: Iterable[DispensaryRow]) -> None:
    """Register fetched dispensaries (and their states) for their own relations' batches."""
    rows = list(rows)
    ctx.batch.register("dispensary", [d.id for d in rows])
    ctx.batch.register("state", [d.state for d in rows])


def _offer(root: "Dispensary", info: Info[Context, None]) -> Offer | None:
    """The strain's menu item at a dispensary of Strain.dispensaries: from the service's page,
    or on the batched path looked up for every such dispensary of the request at once."""
    if root._offer is not None or root._stocking is None:
        return root._offer
    ctx = info.context
    chosen = root._stocked_by
    # Which item counts depends on the list's total THC and order (service.offers).
    relation = ("offer", None if chosen is None else (OfferChoice.of(chosen), chosen.total_thc_min))
    return ctx.batch.load(
        relation,
        "stocking",
        (root._stocking, root._pk),
        lambda pairs: offers_by_pair(ctx.db, pairs, chosen),
    )


def _price(root: "Dispensary", info: Info[Context, None]) -> float | None:
    offer = _offer(root, info)
    return None if offer is None else offer[0]


def _unit(root: "Dispensary", info: Info[Context, None]) -> str | None:
    offer = _offer(root, info)
    return None if offer is None else offer[1]


_STOCKED = (
    "The price (USD) and unit of the strain's menu item; only under Strain.dispensaries "
    "(null elsewhere)."
)
_STOCKED_ONLY = "Of the strain's menu item; only under Strain.dispensaries (null elsewhere)."


def _review_count(root: "Dispensary", info: Info[Context, None]) -> int:
    """Counted, not the stored reviewCount column (REST's): that may count more reviews than are
    kept, and then paging through ``reviews`` would never reach it."""
    ctx = info.context
    return ctx.batch.load(
        "review-count",
        "dispensary",
        root._pk,
        lambda ids: dispensaries.review_counts_by_dispensary(ctx.db, ids),
    )


@strawberry.type(description="A licensed dispensary.")
class Dispensary(Node):
    name: str
    address: str
    type: DispensaryType
    rating: float
    delivery: bool
    hours: Hours
    phone: str
    website: str
    location: Location
    timezone: str = strawberry.field(
        description="IANA time zone of the hours, such as America/Denver."
    )
    review_count: int = strawberry.field(
        resolver=_review_count,
        description="How many reviews the dispensary has: exactly the ones reviews pages through.",
    )
    distance: float | None = strawberry.field(
        default=None,
        description="Miles from the point searched (zip or near), one decimal; null otherwise.",
    )
    price: float | None = strawberry.field(resolver=_price, description=_STOCKED)
    unit: str | None = strawberry.field(resolver=_unit, description=_STOCKED)
    _pk: strawberry.Private[int] = 0
    _state: strawberry.Private[str] = ""
    _hours: strawberry.Private[Mapping[str, str]] = field(default_factory=dict)
    # Open or not at the list's instant (openNow, openAt), else worked out when first asked.
    _open: strawberry.Private[OpenState | None] = None
    # Under Strain.dispensaries: the strain's menu item there (the service's page), or else the
    # strain's id, to look that item up when asked (the batched path).
    _offer: strawberry.Private[Offer | None] = None
    _stocking: strawberry.Private[int | None] = None
    _stocked_by: strawberry.Private[DispensaryFilters | None] = None  # that list's filters
    _updated_at: strawberry.Private[datetime] = NEVER
    _menu_updated_at: strawberry.Private[datetime] = NEVER

    @classmethod
    def from_model(
        cls,
        d: DispensaryRow,
        info: Info[Context, None],
        distance: float | None = None,
        *,
        stocking: int | None = None,
        stocked_by: DispensaryFilters | None = None,
    ) -> "Dispensary":
        """``stocking``: under Strain.dispensaries, that strain's id (a StockedRow carries its
        menu item itself), and ``stocked_by`` that list's filters (which item counts)."""
        batch = info.context.batch
        batch.register_one("dispensary", d.id)
        batch.register_one("state", d.state)
        timed = (
            OpenState(is_open=d.is_open, next_change=d.next_change)
            if d.is_open is not None
            else None
        )
        return cls(
            id=strawberry.ID(d.public_id),
            name=d.name,
            address=d.address,
            type=DispensaryType(d.type),
            rating=d.rating,
            delivery=d.delivery,
            hours=Hours(**d.hours),
            phone=d.phone,
            website=d.website,
            location=Location(lat=d.lat, lng=d.lng),
            timezone=d.timezone,
            distance=distance,
            _pk=d.id,
            _state=d.state,
            _hours=d.hours,
            _open=timed,
            _offer=(
                Offer(d.price, d.unit, d.price_per_gram, d.lab)
                if isinstance(d, StockedRow)
                else None
            ),
            _stocking=stocking,
            _stocked_by=stocked_by,
            _updated_at=as_utc(d.updated_at),
            _menu_updated_at=as_utc(d.menu_updated_at),
        )

    def _open_state(self, info: Info[Context, None]) -> OpenState:
        if self._open is None:
            self._open = open_state(self._hours, self.timezone, info.context.now())
        return self._open

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="Whether it is open: in a list asked with openNow or openAt, at that "
        "instant; anywhere else now (the request's minute)."
    )
    def is_open(self, info: Info[Context, None]) -> bool:
        return self._open_state(info).is_open

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="When it next opens or closes after the instant isOpen is for: ISO 8601 "
        "with the dispensary's UTC offset; null when that never changes (no hours, or open round "
        "the clock)."
    )
    def next_change(self, info: Info[Context, None]) -> datetime | None:
        return self._open_state(info).next_change

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="Active deals, soonest expiry first "
        f"(limit at most {bounds.DISPENSARY_DEALS.maximum})."
    )
    def deals(
        self,
        info: Info[Context, None],
        limit: DispensaryDealsLimit = bounds.DISPENSARY_DEALS.default,
        offset: NestedOffset = 0,
    ) -> list[LazyDeal]:
        window = nested_window(limit, offset, bounds.DISPENSARY_DEALS)
        ctx = info.context

        def fetch(ids: list[int]) -> dict[int, list[DealRow]]:
            found = deals.deals_by_dispensary(
                ctx.db, ids, today=ctx.today, limit=window.limit, offset=window.offset
            )
            owners = [deal.dispensary_id for rows in found.values() for deal in rows]
            ctx.batch.register("deal-dispensary", owners)
            return found

        rows = ctx.batch.load(("deals", window), "dispensary", self._pk, fetch)
        return [deal_type.Deal.from_model(deal, info, dispensary_name=self.name) for deal in rows]

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description=f"Menu in menu order (limit at most {bounds.DISPENSARY_MENU.maximum})."
    )
    def menu(
        self,
        info: Info[Context, None],
        limit: DispensaryMenuLimit = bounds.DISPENSARY_MENU.default,
        offset: NestedOffset = 0,
    ) -> list[MenuItem]:
        window = nested_window(limit, offset, bounds.DISPENSARY_MENU)
        ctx = info.context
        # Each item's strain comes with the menu, in one batched statement, when the query
        # asks for it: cheaper than a resolver per item.
        with_strains = menu_selects_strain(info)

        def fetch(ids: list[int]) -> dict[int, list[MenuItem]]:
            found = dispensaries.menus_by_dispensary(
                ctx.db, ids, limit=window.limit, offset=window.offset
            )
            linked: dict[int | None, Strain] = {}
            if with_strains:
                listed = {e.strain_id for items in found.values() for e in items if e.strain_id}
                for pk, row in strains.strains_by_ids(ctx.db, listed).items():
                    linked[pk] = strain_type.Strain.from_model(row, info)
            return {
                owner: [MenuItem.from_entry(e, linked.get(e.strain_id)) for e in entries]
                for owner, entries in found.items()
            }

        return ctx.batch.load(("menu", window, with_strains), "dispensary", self._pk, fetch)

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description=f"Newest reviews first (limit at most {bounds.DISPENSARY_REVIEWS.maximum})."
    )
    def reviews(
        self,
        info: Info[Context, None],
        limit: DispensaryReviewsLimit = bounds.DISPENSARY_REVIEWS.default,
        offset: NestedOffset = 0,
    ) -> list[Review]:
        window = nested_window(limit, offset, bounds.DISPENSARY_REVIEWS)
        ctx = info.context
        rows = ctx.batch.load(
            ("reviews", window),
            "dispensary",
            self._pk,
            lambda ids: dispensaries.reviews_by_dispensary(
                ctx.db, ids, limit=window.limit, offset=window.offset
            ),
        )
        return [Review.from_model(review) for review in rows]

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="The law record of the dispensary's state or territory."
    )
    def law(self, info: Info[Context, None]) -> Law | None:
        return law_for(info, self._state)

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description=f"{PRICE_PER_GRAM} {_STOCKED_ONLY}"
    )
    def price_per_gram(self, info: Info[Context, None]) -> float | None:
        offer = _offer(self, info)
        return None if offer is None else offer.price_per_gram

    @strawberry.field(description=f"{LAB} {_STOCKED_ONLY}")  # type: ignore[untyped-decorator]
    def lab(self, info: Info[Context, None]) -> LabBatch | None:
        offer = _offer(self, info)
        return None if offer is None else LabBatch.of(offer.lab)

    @strawberry.field(description=UPDATED_AT)  # type: ignore[untyped-decorator]  # typed Any
    def updated_at(self) -> datetime:
        return self._updated_at

    @strawberry.field(description=MENU_UPDATED_AT)  # type: ignore[untyped-decorator]  # typed Any
    def menu_updated_at(self) -> datetime:
        return self._menu_updated_at

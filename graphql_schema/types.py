"""Output types built from models by ``from_model``; relations resolve through the batch cache.

graphql-core resolves depth-first, so a grandchild asks for its relation before its cousins have
been built. Each relation therefore registers the children it fetched (for every parent at once)
as soon as it fetches them, so the grandchildren's relation is again one statement for all.
"""

from collections.abc import Iterable, Mapping
from dataclasses import field
from datetime import date
from typing import Annotated, Any, Generic, TypeVar

import strawberry
from strawberry import Info
from strawberry.types.nodes import SelectedField, Selection

from models import Deal as DealModel
from models import Doctor as DoctorModel
from service import bounds, deals, dispensaries, dispensary_lists, dispensary_rows, laws, strains
from service.bounds import ListBound
from service.deals import DealRow
from service.dispensaries import MenuEntry, ReviewEntry
from service.dispensary_rows import DispensaryRow, StockedRow
from service.doctors import DoctorRow
from service.hours import OpenState, open_state
from service.laws import LawRecord
from service.paging import Page as ServicePage
from service.paging import PageRequest
from service.strains import StrainDetail, StrainRow

from .accel.nodes import per_field_nodes
from .arguments import (
    DispensaryDealsLimit,
    DispensaryMenuLimit,
    DispensaryReviewsLimit,
    MapBox,
    NearPoint,
    NestedOffset,
    OpenAt,
    OpenNow,
    PlaceOrder,
    Radius,
    States,
    StrainDispensariesLimit,
    StrainDispensariesState,
    Zip,
)
from .context import Context
from .enums import DispensaryType, StrainType
from .places import dispensary_filters
from .stockists import Offer, by_name_suffices, offers_by_pair

T = TypeVar("T")


def nested_window(limit: int, offset: int, bound: ListBound) -> PageRequest:
    """Validate a nested list's limit and offset exactly as a page's: clamp a high limit,
    reject one below 1 and an offset outside 0 to MAX_OFFSET."""
    return PageRequest.within(bound, limit, offset)


def _iso(day: date) -> str:
    return day.isoformat()


def _seen_dispensaries(ctx: Context, rows: Iterable[DispensaryRow]) -> None:
    rows = list(rows)
    ctx.batch.register("dispensary", [d.id for d in rows])
    ctx.batch.register("state", [d.state for d in rows])


@strawberry.type(description="Cannabis law record of one state or territory.")
class Law:
    state: str
    state_code: str
    recreational: bool
    medical: bool
    possession_limit_oz: float
    home_grow: bool
    home_grow_plants: int
    delivery_legal: bool
    updated: str

    @classmethod
    def from_model(cls, law: LawRecord) -> "Law":
        return cls(
            state=law.state,
            state_code=law.state_code,
            recreational=law.recreational,
            medical=law.medical,
            possession_limit_oz=law.possession_limit_oz,
            home_grow=law.home_grow,
            home_grow_plants=law.home_grow_plants,
            delivery_legal=law.delivery_legal,
            updated=_iso(law.updated),
        )


def _law_for(info: Info[Context, None], code: str) -> Law | None:
    """The law of ``code``, built once per request and shared by everything in that state."""
    ctx = info.context

    def fetch(codes: list[str]) -> dict[str, Law | None]:
        found = laws.laws_by_codes(ctx.db, codes)
        return {code: Law.from_model(law) for code, law in found.items()}

    return ctx.batch.load("law", "state", code, fetch)


@strawberry.type(description="A point in WGS84 decimal degrees.")
class Location:
    lat: float
    lng: float


@strawberry.type(
    description="Opening hours per weekday, H:MM-HH:MM in 24-hour time; null = closed."
)
class Hours:
    mon: str | None = None
    tue: str | None = None
    wed: str | None = None
    thu: str | None = None
    fri: str | None = None
    sat: str | None = None
    sun: str | None = None


@strawberry.type
class Review:
    rating: int
    text: str
    author: str
    date: str

    @classmethod
    def from_model(cls, review: ReviewEntry) -> "Review":
        return cls(
            rating=review.rating, text=review.text, author=review.author, date=_iso(review.date)
        )


@strawberry.type(description="One item of a dispensary's menu; price in US dollars.")
class MenuItem:
    name: str
    category: str
    price: float
    unit: str
    strain_slug: str | None
    # Set by Dispensary.menu when the query selects it (see _selects_strain), else never read.
    strain: "Strain | None" = strawberry.field(
        default=None, description="The strain, when the item is a strain's flower."
    )

    @classmethod
    def from_entry(cls, entry: MenuEntry, strain: "Strain | None" = None) -> "MenuItem":
        return cls(
            name=entry.name,
            category=entry.category,
            price=entry.price,
            unit=entry.unit,
            strain_slug=entry.strain,
            strain=strain,
        )


def _menu_selects_strain(info: Info[Context, None]) -> bool:
    """``_selects_strain`` of this ``menu`` field, shared by all the dispensaries that resolve
    it (``per_field_nodes``)."""
    return per_field_nodes(info, lambda: _selects_strain(info.selected_fields))


def _selects_strain(menu_fields: Iterable[Selection]) -> bool:
    """Whether the query asks for the ``strain`` of a menu's items: in any of the field nodes
    merged into this ``menu`` field, directly, under an alias or in any fragment, whatever its
    directives. It over-approximates (a skipped ``strain`` still counts), so an item's strain is
    never left out when the field is resolved."""
    return any(_item_selects_strain(field.selections) for field in menu_fields)


def _item_selects_strain(selections: Iterable[Selection]) -> bool:
    for selection in selections:
        if isinstance(selection, SelectedField):
            if selection.name == "strain":
                return True
        elif _item_selects_strain(selection.selections):  # inline fragment or fragment spread
            return True
    return False


def _offer(root: "Dispensary", info: Info[Context, None]) -> Offer | None:
    """The strain's menu item at a dispensary of Strain.dispensaries: from the service's page,
    or on the batched path looked up for every such dispensary of the request at once."""
    if root._offer is not None or root._stocking is None:
        return root._offer
    ctx = info.context
    return ctx.batch.load(
        "offer",
        "stocking",
        (root._stocking, root._pk),
        lambda pairs: offers_by_pair(ctx.db, pairs),
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
class Dispensary:
    id: str
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

    @classmethod
    def from_model(
        cls,
        d: DispensaryRow,
        info: Info[Context, None],
        distance: float | None = None,
        *,
        stocking: int | None = None,
    ) -> "Dispensary":
        """``stocking``: under Strain.dispensaries, that strain's id (a StockedRow carries its
        menu item itself)."""
        batch = info.context.batch
        batch.register_one("dispensary", d.id)
        batch.register_one("state", d.state)
        timed = (
            OpenState(is_open=d.is_open, next_change=d.next_change)
            if d.is_open is not None
            else None
        )
        return cls(
            id=d.public_id,
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
            _offer=(d.price, d.unit) if isinstance(d, StockedRow) else None,
            _stocking=stocking,
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
    def next_change(self, info: Info[Context, None]) -> str | None:
        change = self._open_state(info).next_change
        return None if change is None else change.isoformat()

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="Active deals, soonest expiry first "
        f"(limit at most {bounds.DISPENSARY_DEALS.maximum})."
    )
    def deals(
        self,
        info: Info[Context, None],
        limit: DispensaryDealsLimit = bounds.DISPENSARY_DEALS.default,
        offset: NestedOffset = 0,
    ) -> list["Deal"]:
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
        return [Deal.from_model(deal, info, dispensary_name=self.name) for deal in rows]

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
        with_strains = _menu_selects_strain(info)

        def fetch(ids: list[int]) -> dict[int, list[MenuItem]]:
            found = dispensaries.menus_by_dispensary(
                ctx.db, ids, limit=window.limit, offset=window.offset
            )
            linked: dict[int | None, Strain] = {}
            if with_strains:
                listed = {e.strain_id for items in found.values() for e in items if e.strain_id}
                for pk, row in strains.strains_by_ids(ctx.db, listed).items():
                    linked[pk] = Strain.from_model(row, info)
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
        return _law_for(info, self._state)


@strawberry.type(description="An active promotion at one dispensary.")
class Deal:
    id: str
    title: str
    dispensary_name: str
    category: str
    discount: str
    expires: str
    distance: float | None = strawberry.field(
        default=None,
        description="Miles from the point searched (zip or near) to the dispensary, one "
        "decimal; null otherwise.",
    )
    _dispensary_pk: strawberry.Private[int] = 0

    @classmethod
    def from_model(
        cls,
        deal: DealModel | DealRow,
        info: Info[Context, None],
        dispensary_name: str | None = None,
    ) -> "Deal":
        info.context.batch.register_one("deal-dispensary", deal.dispensary_id)
        name = dispensary_name if dispensary_name is not None else deal.dispensary_name
        return cls(
            id=deal.public_id,
            title=deal.title,
            dispensary_name=name,
            category=deal.category,
            discount=deal.discount,
            expires=_iso(deal.expires),
            distance=deal.distance if isinstance(deal, DealRow) else None,
            _dispensary_pk=deal.dispensary_id,
        )

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="The dispensary offering the deal."
    )
    def dispensary(self, info: Info[Context, None]) -> Dispensary:
        ctx = info.context

        def fetch(ids: list[int]) -> dict[int, DispensaryRow]:
            found = dispensary_rows.dispensary_rows_by_ids(ctx.db, ids)
            _seen_dispensaries(ctx, found.values())
            return found

        row = ctx.batch.load("dispensary", "deal-dispensary", self._dispensary_pk, fetch)
        return Dispensary.from_model(row, info)


@strawberry.type(description="A medical marijuana physician; price is the fee in US dollars.")
class Doctor:
    id: str
    name: str
    city: str
    state: str
    telehealth: bool
    rating: float
    price: float
    location: Location
    timezone: str = strawberry.field(description="IANA time zone, such as America/Denver.")
    distance: float | None = strawberry.field(
        default=None,
        description="Miles from the point searched (zip or near), one decimal; null otherwise.",
    )

    @classmethod
    def from_model(cls, doctor: DoctorModel | DoctorRow, info: Info[Context, None]) -> "Doctor":
        info.context.batch.register_one("state", doctor.state)
        return cls(
            id=doctor.public_id,
            name=doctor.name,
            city=doctor.city,
            state=doctor.state,
            telehealth=doctor.telehealth,
            rating=doctor.rating,
            price=doctor.price,
            location=Location(lat=doctor.lat, lng=doctor.lng),
            timezone=doctor.timezone,
            distance=doctor.distance if isinstance(doctor, DoctorRow) else None,
        )

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="The law record of the doctor's state or territory."
    )
    def law(self, info: Info[Context, None]) -> Law | None:
        return _law_for(info, self.state)


@strawberry.type(description="A cannabis strain.")
class Strain:
    slug: str
    name: str
    type: StrainType
    thc: float
    cbd: float
    effects: list[str]
    flavors: list[str]
    description: str
    rating: float
    review_count: int
    _pk: strawberry.Private[int] = 0

    @classmethod
    def from_model(cls, s: StrainRow | StrainDetail, info: Info[Context, None]) -> "Strain":
        info.context.batch.register_one("strain", s.id)
        return cls(
            slug=s.slug,
            name=s.name,
            type=StrainType(s.type),
            thc=s.thc,
            cbd=s.cbd,
            effects=list(s.effects),
            flavors=list(s.flavors),
            description=s.description,
            rating=s.rating,
            review_count=s.review_count,
            _pk=s.id,
        )

    @strawberry.field
    def terpenes(self, info: Info[Context, None]) -> list[str]:
        ctx = info.context
        return ctx.batch.load(
            "terpenes",
            "strain",
            self._pk,
            lambda ids: strains.terpenes_by_strain(ctx.db, ids),
        )

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="Dispensaries whose menu lists the strain, each with the item's price and "
        "unit; by name unless sort says otherwise (nearest first around a point). Every filter "
        "of Query.dispensaries that fits one strain."
    )
    def dispensaries(
        self,
        info: Info[Context, None],
        state: StrainDispensariesState = None,
        states: States = None,
        zip: Zip = None,
        radius: Radius = None,
        near: NearPoint = None,
        bbox: MapBox = None,
        open_now: OpenNow = None,
        open_at: OpenAt = None,
        sort: PlaceOrder = None,
        limit: StrainDispensariesLimit = bounds.STRAIN_DISPENSARIES.default,
        offset: NestedOffset = 0,
    ) -> list[Dispensary]:
        window = nested_window(limit, offset, bounds.STRAIN_DISPENSARIES)
        filters = dispensary_filters(
            state=state,
            states=states,
            zip=zip,
            radius=radius,
            near=near,
            bbox=bbox,
            open_now=open_now,
            open_at=open_at,
            sort=sort,
        )
        if by_name_suffices(filters):
            return self._by_name(info, filters.state[0] if filters.state else None, window)
        ctx = info.context
        page = dispensary_lists.list_dispensaries(
            ctx.db, filters, window, now=ctx.now, strain_id=self._pk
        )
        return [Dispensary.from_model(row, info, row.distance) for row in page.items]

    def _by_name(
        self, info: Info[Context, None], state: str | None, window: PageRequest
    ) -> list[Dispensary]:
        """The old field's arguments: the page of every strain of the request in one
        statement, and each item's price and unit in one more when the query reads them."""
        ctx = info.context

        def fetch(ids: list[int]) -> dict[int, list[DispensaryRow]]:
            found = dispensaries.dispensaries_by_strain(
                ctx.db, ids, state=state, limit=window.limit, offset=window.offset
            )
            _seen_dispensaries(ctx, (d for rows in found.values() for d in rows))
            ctx.batch.register("stocking", ((pk, d.id) for pk, rows in found.items() for d in rows))
            return found

        rows = ctx.batch.load(("dispensaries", state, window), "strain", self._pk, fetch)
        return [Dispensary.from_model(d, info, stocking=self._pk) for d in rows]


SearchResult = Annotated[
    Strain | Dispensary | Doctor | Deal,
    strawberry.union("SearchResult", description="A strain, dispensary, doctor or deal."),
]


@strawberry.type(description="One page of results; total/limit/offset mirror REST's meta.")
class Page(Generic[T]):
    items: list[T]
    total: int
    limit: int
    offset: int

    @classmethod
    def of(cls, page: ServicePage[Any], items: list[T]) -> "Page[T]":
        """``items`` (built from ``page.items``) with the service page's total, limit, offset."""
        return cls(items=items, total=page.total, limit=page.limit, offset=page.offset)

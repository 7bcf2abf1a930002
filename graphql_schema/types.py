"""The GraphQL output types that refer to no listed type of another module: laws, places, hours,
reviews, doctors and the page, with the helpers every output type shares.

Output types are built from service rows by ``from_model``; relations resolve through the
request's batch cache. graphql-core resolves depth-first, so a grandchild asks for its relation
before its cousins have been built. Each relation therefore registers the children it fetched
(for every parent at once) as soon as it fetches them, so the grandchildren's relation is again
one statement for all. The types that refer to one another (dispensaries, deals, menu items,
strains) live in their own modules and name each other lazily.
"""

from datetime import UTC, date, datetime
from typing import Any, Generic, TypeVar

import strawberry
from strawberry import Info

from models import Doctor as DoctorModel
from service import laws
from service.bounds import ListBound
from service.dispensaries import ReviewEntry
from service.doctors import DoctorRow
from service.laws import LawRecord
from service.paging import Page as ServicePage
from service.paging import PageRequest
from service.stamps import as_utc

from .context import Context
from .node import Node

T = TypeVar("T")

# The change stamps (service.stamps), the last fields of each type: resolvers declared after
# every other field, so that the schema lists them last.
UPDATED_AT = (
    "When anything the record shows last changed: RFC 3339 in UTC with milliseconds and Z, "
    "as REST's updated_at."
)
MENU_UPDATED_AT = (
    "When the dispensary's menu (items, prices, stock) last changed: RFC 3339 in UTC with "
    "milliseconds and Z, as REST's menu_updated_at."
)
NEVER = datetime(1970, 1, 1, tzinfo=UTC)  # the stamp fields' default; from_model sets them


def nested_window(limit: int, offset: int, bound: ListBound) -> PageRequest:
    """Validate a nested list's limit and offset exactly as a page's: clamp a high limit,
    reject one below 1 and an offset outside 0 to MAX_OFFSET."""
    return PageRequest.within(bound, limit, offset)


@strawberry.type(description="Cannabis law record of one state or territory.")
class Law(Node):
    state: str
    state_code: str
    recreational: bool
    medical: bool
    possession_limit_oz: float
    home_grow: bool
    home_grow_plants: int
    delivery_legal: bool
    updated: date
    _updated_at: strawberry.Private[datetime] = NEVER

    @classmethod
    def from_model(cls, law: LawRecord) -> "Law":
        return cls(
            id=strawberry.ID(law.state_code),
            state=law.state,
            state_code=law.state_code,
            recreational=law.recreational,
            medical=law.medical,
            possession_limit_oz=law.possession_limit_oz,
            home_grow=law.home_grow,
            home_grow_plants=law.home_grow_plants,
            delivery_legal=law.delivery_legal,
            updated=law.updated,
            _updated_at=as_utc(law.updated_at),
        )

    @strawberry.field(description=UPDATED_AT)  # type: ignore[untyped-decorator]  # typed Any
    def updated_at(self) -> datetime:
        return self._updated_at


def law_for(info: Info[Context, None], code: str) -> Law | None:
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
    date: date

    @classmethod
    def from_model(cls, review: ReviewEntry) -> "Review":
        return cls(rating=review.rating, text=review.text, author=review.author, date=review.date)


@strawberry.type(description="A medical marijuana physician; price is the fee in US dollars.")
class Doctor(Node):
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
    _updated_at: strawberry.Private[datetime] = NEVER

    @classmethod
    def from_model(cls, doctor: DoctorModel | DoctorRow, info: Info[Context, None]) -> "Doctor":
        info.context.batch.register_one("state", doctor.state)
        return cls(
            id=strawberry.ID(doctor.public_id),
            name=doctor.name,
            city=doctor.city,
            state=doctor.state,
            telehealth=doctor.telehealth,
            rating=doctor.rating,
            price=doctor.price,
            location=Location(lat=doctor.lat, lng=doctor.lng),
            timezone=doctor.timezone,
            distance=doctor.distance if isinstance(doctor, DoctorRow) else None,
            _updated_at=as_utc(doctor.updated_at),
        )

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="The law record of the doctor's state or territory."
    )
    def law(self, info: Info[Context, None]) -> Law | None:
        return law_for(info, self.state)

    @strawberry.field(description=UPDATED_AT)  # type: ignore[untyped-decorator]  # typed Any
    def updated_at(self) -> datetime:
        return self._updated_at


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

"""A dispensary as every list, detail and GraphQL loader reads it: the listed columns (no ORM
object), with a distance and whether it is open when the request asked; and the lookups of such
rows by primary key or public id."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, select

from models import Dispensary
from models.db import AnySelect, Reader

from .hours import open_state
from .ids import DISPENSARY_ID
from .paging import rows, rows_by_public_ids

# What a dispensary in a list shows in either edge (GraphQL's type has the detail fields too),
# and the keys that batching follows (id, state).
LISTED = (
    Dispensary.id,
    Dispensary.public_id,
    Dispensary.name,
    Dispensary.address.label("address"),
    Dispensary.type,
    Dispensary.rating,
    Dispensary.delivery,
    Dispensary.hours,
    Dispensary.phone,
    Dispensary.website,
    Dispensary.review_count,
    Dispensary.state,
    Dispensary.lat,
    Dispensary.lng,
    Dispensary.timezone,
)
# Where a listed row's hours and zone sit, to tell whether it is open as the row is built.
_HOURS_AT, _ZONE_AT = (
    tuple(column.key for column in LISTED).index(k) for k in ("hours", "timezone")
)


@dataclass(frozen=True, slots=True)
class DispensaryRow:
    """A dispensary in a list: the LISTED columns; ``distance`` (miles from the point, one
    decimal) with a point, ``is_open`` and ``next_change`` when the request asked about time."""

    id: int
    public_id: str
    name: str
    address: str
    type: str
    rating: float
    delivery: bool
    hours: dict[str, str]
    phone: str
    website: str
    review_count: int
    state: str
    lat: float
    lng: float
    timezone: str
    distance: float | None = None
    is_open: bool | None = None
    next_change: datetime | None = None

    @property
    def next_change_text(self) -> str | None:
        """``next_change`` in ISO 8601 (None when it never changes). Absent (AttributeError)
        when the request did not ask about time, so that an edge leaves the field out."""
        if self.is_open is None:
            raise AttributeError("next_change_text")
        return self.next_change.isoformat() if self.next_change is not None else None


@dataclass(frozen=True, slots=True)
class StockedRow(DispensaryRow):
    """A dispensary whose menu has a strain, with that menu item's price (USD) and unit."""

    price: float = 0.0
    unit: str = ""


def listed_row(
    columns: Sequence[Any], distance: float | None, at: datetime | None = None
) -> DispensaryRow:
    """A listed row; with ``at``, whether it is open then and until when."""
    state = open_state(columns[_HOURS_AT], columns[_ZONE_AT], at) if at is not None else None
    return DispensaryRow(
        *columns,
        distance=round(distance, 1) if distance is not None else None,  # type: ignore[misc]
        is_open=state.is_open if state is not None else None,
        next_change=state.next_change if state is not None else None,
    )


@lru_cache(maxsize=1)
def listed_by_ids() -> AnySelect:
    """The listed columns of the dispensaries whose primary keys are in ``:ids``."""
    return select(*LISTED).where(Dispensary.id.in_(bindparam("ids", expanding=True)))


@lru_cache(maxsize=1)
def _by_public_ids_statement() -> AnySelect:
    return select(*LISTED).where(Dispensary.public_id.in_(bindparam("public_ids", expanding=True)))


def dispensary_rows_by_ids(db: Reader, ids: Iterable[int]) -> dict[int, DispensaryRow]:
    """The dispensaries with the given primary keys as list rows (no ORM objects), keyed by id."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    return {row.id: listed_row(row, None) for row in rows(db, listed_by_ids(), {"ids": wanted})}


def dispensary_rows_by_public_ids(
    db: Reader, public_ids: Iterable[str]
) -> dict[str, DispensaryRow]:
    """The dispensaries with the given ``disp_<n>`` ids as list rows (no ORM objects), keyed by
    that id; ids of another shape find nothing."""
    return rows_by_public_ids(
        db,
        _by_public_ids_statement(),
        DISPENSARY_ID,
        public_ids,
        lambda columns: listed_row(columns, None),
    )

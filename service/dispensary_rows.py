"""A dispensary as every list, detail and GraphQL loader reads it: the listed columns (no ORM
object), with a distance and whether it is open when the request asked; and the lookups of such
rows by primary key or public id."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from functools import lru_cache

from sqlalchemy import bindparam, select

from models import Dispensary
from models.db import AnyRow, AnySelect, Reader

from .hours import open_state
from .ids import DISPENSARY_ID
from .lab import LabBatch
from .paging import column_getter, rows, rows_by_public_ids

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
    Dispensary.updated_at,
    Dispensary.menu_updated_at,
)


@dataclass(slots=True)
class DispensaryRow:
    """A dispensary in a list: the LISTED columns; ``distance`` (miles from the point, one
    decimal) with a point, ``is_open`` and ``next_change`` when the request asked about time
    (filled in by :func:`with_opening`). Read-only once a service function returns it; not
    frozen, since a frozen dataclass is several times slower to build, and lists build many."""

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
    updated_at: datetime  # naive on SQLite (UTC): service.stamps reads either
    menu_updated_at: datetime
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


@dataclass(slots=True)
class StockedRow(DispensaryRow):
    """A dispensary whose menu has a strain, with that menu item's price (USD), unit, price per
    gram and batch (service.offers.Offer's fields)."""

    price: float = 0.0
    unit: str = ""
    price_per_gram: float | None = None
    lab: LabBatch | None = None


# LISTED's column names in DispensaryRow's field order; ``distance`` is the field after them.
_LISTED_NAMES = tuple(f.name for f in fields(DispensaryRow) if f.name in {c.key for c in LISTED})


def listed_rows(found: Sequence[AnyRow]) -> list[DispensaryRow]:
    """List rows from a statement's rows of LISTED, read by column name, with their
    ``distance`` column (in miles, to a tenth) if they have one."""
    if not found:
        return []
    columns = found[0]._fields
    if "distance" not in columns:
        values = column_getter(columns, _LISTED_NAMES)
        return [DispensaryRow(*values(row)) for row in found]
    values = column_getter(columns, (*_LISTED_NAMES, "distance"))
    made = [DispensaryRow(*values(row)) for row in found]
    for row in made:
        if row.distance is not None:
            row.distance = round(row.distance, 1)
    return made


def listed_row(row: AnyRow) -> DispensaryRow:
    """One list row (see :func:`listed_rows`)."""
    return listed_rows([row])[0]


def with_opening(found: list[DispensaryRow], at: datetime | None) -> list[DispensaryRow]:
    """``found``, each row told whether it is open at ``at`` and until when (without ``at``,
    left as it is): rows the caller has just built."""
    if at is not None:
        for row in found:
            state = open_state(row.hours, row.timezone, at)
            row.is_open, row.next_change = state.is_open, state.next_change
    return found


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
    return {row.id: row for row in listed_rows(rows(db, listed_by_ids(), {"ids": wanted}))}


def dispensary_rows_by_public_ids(
    db: Reader, public_ids: Iterable[str]
) -> dict[str, DispensaryRow]:
    """The dispensaries with the given ``disp_<n>`` ids as list rows (no ORM objects), keyed by
    that id; ids of another shape find nothing."""
    return rows_by_public_ids(db, _by_public_ids_statement(), DISPENSARY_ID, public_ids, listed_row)

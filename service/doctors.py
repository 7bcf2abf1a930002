"""Doctor queries: list pages (filtered, near a point, in a box; by name, distance or rating)."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import Float, Subquery, bindparam, select

from models import Doctor
from models.db import AnySelect, Reader

from .errors import NotFound
from .filters import DoctorFilters
from .geo import miles_sql
from .ids import DOCTOR_ID
from .paging import (
    Listing,
    Page,
    PageRequest,
    compared_params,
    compared_where,
    fetch_page,
    ranked_listing,
    rows,
    rows_by_public_ids,
)
from .places import Box, Near, box_where, near_where, place_order
from .stamps import SINCE, STAMP_SORTS, since_where, stamp_order


@dataclass(frozen=True)
class DoctorRow:
    """A doctor in a list; ``distance`` (miles, one decimal) when asked around a point."""

    public_id: str
    name: str
    city: str
    state: str
    telehealth: bool
    rating: float
    price: float
    lat: float
    lng: float
    timezone: str
    updated_at: datetime  # naive on SQLite (UTC): service.stamps reads either
    distance: float | None = None


LISTED = (
    Doctor.public_id,
    Doctor.name,
    Doctor.city,
    Doctor.state,
    Doctor.telehealth,
    Doctor.rating,
    Doctor.price,
    Doctor.lat,
    Doctor.lng,
    Doctor.timezone,
    Doctor.updated_at,
)
# The filters, by name (each compared with the bind parameter of its name; "any of" the states).
_COMPARED = {"state": Doctor.state, "city": Doctor.city_key, "telehealth": Doctor.telehealth}
_MANY = ("state",)


@lru_cache(maxsize=64)
def _listing(compared: tuple[str, ...], sort: str = "name", since: bool = False) -> Listing:
    """By name, or by the change stamp through the (updated_at, id) index (from
    ``updated_since`` when given)."""
    where = compared_where(_COMPARED, compared, _MANY)
    if since:
        where.append(since_where(Doctor.updated_at))
    if sort in STAMP_SORTS:
        return Listing.of(LISTED, where, stamp_order(Doctor.updated_at, Doctor.id, sort))
    return Listing.of(LISTED, where, (Doctor.sort_key, Doctor.id))


@lru_cache(maxsize=64)
def _ranked_listing(
    compared: tuple[str, ...], where: str | None, sort: str, since: bool = False
) -> Listing:
    """A page of the matching doctors in ``sort`` order: narrow rows (id, name key, rating,
    distance around a point, the stamp to order by it) ranked first, the listed columns joined
    for the page only."""
    columns: list[Any] = [Doctor.id, Doctor.sort_key, Doctor.rating]
    if sort in STAMP_SORTS:
        columns.append(Doctor.updated_at)
    conditions = compared_where(_COMPARED, compared, _MANY)
    if since:
        conditions.append(since_where(Doctor.updated_at))
    if where == "near":
        columns.append(miles_sql(Doctor.lat, Doctor.lng).label("distance"))
        conditions.append(near_where(Doctor.lat, Doctor.lng))
    elif where == "box":
        conditions.append(box_where(Doctor.lat, Doctor.lng))
    found = select(*columns).where(*conditions).subquery("candidates")
    within = [found.c.distance <= bindparam("radius", type_=Float)] if where == "near" else []

    def listed(ranked: Subquery) -> AnySelect:
        distance = [ranked.c.distance] if where == "near" else []
        return select(*LISTED, *distance).join_from(ranked, Doctor, Doctor.id == ranked.c.id)

    return ranked_listing(found, within, lambda columns: place_order(columns, sort), listed)


def list_doctors(db: Reader, filters: DoctorFilters, page: PageRequest) -> Page[DoctorRow]:
    """Return one page of doctors matching ``filters``: by name (any case) then id unless
    ``filters.sort`` says otherwise (nearest first around a point by default; by rating or by
    the change stamp)."""
    compared = {n: value for n in _COMPARED if (value := getattr(filters, n)) is not None}
    params = compared_params(compared, _MANY)
    since = filters.updated_since is not None
    if since:
        params[SINCE] = filters.updated_since
    where = filters.where
    if where is None and (filters.sort == "name" or filters.sort in STAMP_SORTS):
        found = fetch_page(db, _listing(tuple(compared), filters.sort, since), params, page)
        return replace(found, items=[DoctorRow(*row) for row in found.items])
    if where is not None:
        params.update(where.params())
    kind = "near" if isinstance(where, Near) else "box" if isinstance(where, Box) else None
    listing = _ranked_listing(tuple(compared), kind, filters.sort, since)
    found = fetch_page(db, listing, params, page)
    listed = len(LISTED)
    # misc: mypy cannot tell that row[:listed] (the listed columns) stops short of ``distance``.
    items = [
        DoctorRow(*row[:listed], distance=round(row[listed], 1) if kind == "near" else None)  # type: ignore[misc]
        for row in found.items
    ]
    return replace(found, items=items)


@lru_cache(maxsize=1)
def _by_public_id() -> AnySelect:
    return select(*LISTED).where(Doctor.public_id == bindparam("public_id"))


def get_doctor(db: Reader, public_id: str) -> DoctorRow:
    """Return the doctor ``doc_<n>``; raise NotFound."""
    params = {"public_id": public_id}
    found: Sequence[tuple[Any, ...]] = (
        rows(db, _by_public_id(), params) if DOCTOR_ID.fullmatch(public_id) else []
    )
    if not found:
        raise NotFound(f"no doctor with id {public_id!r}")
    return DoctorRow(*found[0])


@lru_cache(maxsize=1)
def _by_public_ids_statement() -> AnySelect:
    return select(*LISTED).where(Doctor.public_id.in_(bindparam("public_ids", expanding=True)))


def doctor_rows_by_public_ids(db: Reader, public_ids: Iterable[str]) -> dict[str, DoctorRow]:
    """The doctors with the given ``doc_<n>`` ids as list rows (no ORM objects), keyed by that
    id; ids of another shape find nothing."""
    return rows_by_public_ids(
        db, _by_public_ids_statement(), DOCTOR_ID, public_ids, lambda columns: DoctorRow(*columns)
    )

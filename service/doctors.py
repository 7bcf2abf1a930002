"""Doctor queries: filtered list pages."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from models import Doctor
from models.db import AnySelect, Reader

from .errors import NotFound
from .filters import DoctorFilters
from .ids import DOCTOR_ID
from .paging import Listing, Page, PageRequest, fetch_page, rows


@dataclass(frozen=True)
class DoctorRow:
    """A doctor in a list."""

    public_id: str
    name: str
    city: str
    state: str
    telehealth: bool
    rating: float
    price: float


LISTED = (
    Doctor.public_id,
    Doctor.name,
    Doctor.city,
    Doctor.state,
    Doctor.telehealth,
    Doctor.rating,
    Doctor.price,
)
# The filters, by name (each compared with the bind parameter of its name).
_COMPARED = {"state": Doctor.state, "city": Doctor.city_key, "telehealth": Doctor.telehealth}


@lru_cache(maxsize=16)
def _listing(compared: tuple[str, ...]) -> Listing:
    where = [_COMPARED[name] == bindparam(name) for name in compared]
    return Listing.of(LISTED, where, (Doctor.sort_key, Doctor.id))


def list_doctors(db: Reader, filters: DoctorFilters, page: PageRequest) -> Page[DoctorRow]:
    """Return one page of doctors matching ``filters``, by name (any case) then id."""
    compared = {n: value for n in _COMPARED if (value := getattr(filters, n)) is not None}
    result = fetch_page(db, _listing(tuple(compared)), compared, page)
    return replace(result, items=[DoctorRow(*row) for row in result.items])


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


def doctors_by_public_ids(session: Session, public_ids: Iterable[str]) -> dict[str, Doctor]:
    """Return the doctors with the given ``doc_<n>`` ids, keyed by that id."""
    wanted = set(public_ids)
    if not wanted:
        return {}
    rows = session.scalars(select(Doctor).where(Doctor.public_id.in_(wanted)))
    return {doctor.public_id: doctor for doctor in rows}

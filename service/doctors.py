"""Doctor queries: filtered list pages."""

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from models import Doctor

from .filters import DoctorFilters
from .paging import Page, PageRequest, paginate


def _select_doctors(filters: DoctorFilters) -> Select[Any]:
    stmt = select(Doctor)
    if filters.state is not None:
        stmt = stmt.where(Doctor.state == filters.state)
    if filters.city is not None:
        stmt = stmt.where(Doctor.city_key == filters.city)
    if filters.telehealth is not None:
        stmt = stmt.where(Doctor.telehealth == filters.telehealth)
    return stmt.order_by(Doctor.sort_key, Doctor.id)


def list_doctors(session: Session, filters: DoctorFilters, page: PageRequest) -> Page[Doctor]:
    """Return one page of doctors matching ``filters``, by name (any case) then id."""
    return paginate(session, _select_doctors(filters), page)


def doctors_by_public_ids(session: Session, public_ids: Iterable[str]) -> dict[str, Doctor]:
    """Return the doctors with the given ``doc_<n>`` ids, keyed by that id."""
    wanted = set(public_ids)
    if not wanted:
        return {}
    rows = session.scalars(select(Doctor).where(Doctor.public_id.in_(wanted)))
    return {doctor.public_id: doctor for doctor in rows}

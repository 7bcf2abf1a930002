"""Deal queries: active deals only, filtered by their dispensary's place and by category."""

from collections.abc import Iterable
from datetime import date
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session, contains_eager

from models import Deal, Dispensary

from .filters import DealFilters
from .paging import Page, PageRequest, paginate, top_per_parent


def _select_deals(filters: DealFilters, today: date) -> Select[Any]:
    stmt = (
        select(Deal)
        .join(Deal.dispensary)
        .options(contains_eager(Deal.dispensary))
        .where(Deal.expires >= today)
    )
    if filters.state is not None:
        stmt = stmt.where(Dispensary.state == filters.state)
    if filters.city is not None:
        stmt = stmt.where(Dispensary.city_key == filters.city)
    if filters.category is not None:
        stmt = stmt.where(Deal.category == filters.category)
    return stmt.order_by(Deal.expires, Deal.id)


def list_deals(
    session: Session, filters: DealFilters, page: PageRequest, *, today: date
) -> Page[Deal]:
    """Return one page of deals still active on ``today``, soonest expiry first, then by id."""
    return paginate(session, _select_deals(filters, today), page)


def deals_by_dispensary(
    session: Session, ids: Iterable[int], *, today: date, limit: int
) -> dict[int, list[Deal]]:
    """Return up to ``limit`` active deals per dispensary (soonest expiry first), by its id."""
    found: dict[int, list[Deal]] = {id_: [] for id_ in ids}
    if not found:
        return found
    stmt = select(Deal).where(Deal.dispensary_id.in_(found), Deal.expires >= today)
    ranked = top_per_parent(stmt, Deal, Deal.dispensary_id, (Deal.expires, Deal.id), limit)
    for deal in session.scalars(ranked):
        found[deal.dispensary_id].append(deal)
    return found


def deals_by_public_ids(session: Session, public_ids: Iterable[str]) -> dict[str, Deal]:
    """Return the deals with the given ``deal_<n>`` ids (dispensary loaded), keyed by that id."""
    wanted = set(public_ids)
    if not wanted:
        return {}
    rows = session.scalars(
        select(Deal)
        .join(Deal.dispensary)
        .options(contains_eager(Deal.dispensary))
        .where(Deal.public_id.in_(wanted))
    )
    return {deal.public_id: deal for deal in rows}

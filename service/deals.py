"""Deal queries: active deals only, filtered by their dispensary's place and by category."""

from datetime import date
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session, contains_eager

from models import Deal, Dispensary

from .filters import DealFilters
from .paging import Page, PageRequest, paginate


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

"""Deal queries: active deals only, filtered by their dispensary's place and by category."""

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import date
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import Date, Integer, bindparam, select
from sqlalchemy.orm import Session, contains_eager

from models import Deal, Dispensary
from models.db import AnySelect, Reader

from .errors import NotFound
from .filters import DealFilters
from .ids import DEAL_ID
from .paging import Listing, Page, PageRequest, fetch_page, rows, top_per_parent


class DealRow(NamedTuple):
    """An active deal in a list, with its dispensary's name (a named tuple, like every row
    type read by the hundred)."""

    public_id: str
    title: str
    dispensary_name: str
    category: str
    discount: str
    expires: date
    dispensary_id: int
    dispensary_public_id: str


LISTED = (
    Deal.public_id,
    Deal.title,
    Dispensary.name.label("dispensary_name"),
    Deal.category,
    Deal.discount,
    Deal.expires,
    Deal.dispensary_id,
    Dispensary.public_id.label("dispensary_public_id"),
)
# The filters, by name (each compared with the bind parameter of its name).
_COMPARED = {"state": Dispensary.state, "city": Dispensary.city_key, "category": Deal.category}


@lru_cache(maxsize=16)
def _listing(compared: tuple[str, ...]) -> Listing:
    where = [
        Deal.dispensary_id == Dispensary.id,
        Deal.expires >= bindparam("today", type_=Date),
        *(_COMPARED[name] == bindparam(name) for name in compared),
    ]
    return Listing.of(LISTED, where, (Deal.expires, Deal.id))


def list_deals(
    db: Reader, filters: DealFilters, page: PageRequest, *, today: date
) -> Page[DealRow]:
    """Return one page of deals still active on ``today``, soonest expiry first, then by id."""
    compared = {n: value for n in _COMPARED if (value := getattr(filters, n)) is not None}
    result = fetch_page(db, _listing(tuple(compared)), {**compared, "today": today}, page)
    return replace(result, items=[DealRow(*row) for row in result.items])


@lru_cache(maxsize=1)
def _by_public_id() -> AnySelect:
    return select(*LISTED).where(
        Deal.dispensary_id == Dispensary.id,
        Deal.public_id == bindparam("public_id"),
        Deal.expires >= bindparam("today", type_=Date),
    )


def get_deal(db: Reader, public_id: str, *, today: date) -> DealRow:
    """Return the deal ``deal_<n>`` if it is still active on ``today``; raise NotFound (an
    expired deal is not found, as it is in every list)."""
    params = {"public_id": public_id, "today": today}
    found: Sequence[tuple[Any, ...]] = (
        rows(db, _by_public_id(), params) if DEAL_ID.fullmatch(public_id) else []
    )
    if not found:
        raise NotFound(f"no active deal with id {public_id!r}")
    return DealRow(*found[0])


@lru_cache(maxsize=1)
def _by_dispensary_statement() -> AnySelect:
    """``:limit`` deals active on ``:today`` (soonest expiry first) of each dispensary in ``:ids``
    after its first ``:offset``: one statement, built once, of a deal row's columns."""
    active = select(*LISTED).where(
        Deal.dispensary_id == Dispensary.id,
        Deal.dispensary_id.in_(bindparam("ids", expanding=True)),
        Deal.expires >= bindparam("today", type_=Date),
    )
    limit = bindparam("limit", type_=Integer)
    offset = bindparam("offset", type_=Integer)
    return top_per_parent(active, Deal.dispensary_id, (Deal.expires, Deal.id), limit, offset=offset)


def deals_by_dispensary(
    db: Reader, ids: Iterable[int], *, today: date, limit: int, offset: int = 0
) -> dict[int, list[DealRow]]:
    """Return up to ``limit`` active deals per dispensary (soonest expiry first) after its first
    ``offset``, by its id."""
    found: dict[int, list[DealRow]] = {id_: [] for id_ in ids}
    if not found:
        return found
    params = {"ids": list(found), "today": today, "limit": limit, "offset": offset}
    # Typed as plain tuples: mypy unpacks an untyped Row's items as ``object``.
    batch: Sequence[tuple[Any, ...]] = rows(db, _by_dispensary_statement(), params)
    for row in batch:
        deal = DealRow(*row)
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

"""Dispensary queries: filtered and proximity list pages, detail with menu and reviews."""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from models import Dispensary, MenuItem, Review, Strain

from .errors import NotFound
from .filters import DispensaryFilters
from .geo import Point, bounding_box, haversine_miles
from .paging import Page, PageRequest, paginate

REVIEWS_SHOWN = 20
_PUBLIC_ID = re.compile(r"^disp_[0-9]{1,18}$")


@dataclass(frozen=True)
class DispensaryHit:
    """A dispensary in a list; ``distance`` (miles) is set for proximity searches."""

    dispensary: Dispensary
    distance: float | None = None


@dataclass(frozen=True)
class MenuEntry:
    name: str
    category: str
    price: float
    unit: str
    strain: str | None  # the strain's slug when the item is a strain


@dataclass(frozen=True)
class DispensaryDetail:
    dispensary: Dispensary
    menu: list[MenuEntry]
    reviews: list[Review]


def _filtered(stmt: Select[Any], filters: DispensaryFilters) -> Select[Any]:
    if filters.state is not None:
        stmt = stmt.where(Dispensary.state == filters.state)
    if filters.city is not None:
        stmt = stmt.where(Dispensary.city_key == filters.city)
    if filters.type is not None:
        stmt = stmt.where(Dispensary.type == filters.type)
    if filters.delivery is not None:
        stmt = stmt.where(Dispensary.delivery == filters.delivery)
    return stmt


def _select_dispensaries(filters: DispensaryFilters) -> Select[Any]:
    return _filtered(select(Dispensary), filters).order_by(Dispensary.sort_key, Dispensary.id)


def list_dispensaries(
    session: Session, filters: DispensaryFilters, page: PageRequest
) -> Page[DispensaryHit]:
    """Return one page of dispensaries: by name, or nearest first when ``filters.zip`` is set."""
    if filters.origin is not None:
        return _list_nearby(session, filters, filters.origin, page)
    result = paginate(session, _select_dispensaries(filters), page)
    return Page(
        items=[DispensaryHit(d) for d in result.items],
        total=result.total,
        limit=result.limit,
        offset=result.offset,
    )


def _list_nearby(
    session: Session, filters: DispensaryFilters, origin: Point, page: PageRequest
) -> Page[DispensaryHit]:
    # A bounding box in SQL narrows the candidates cheaply (indexed lat/lng); the exact
    # great-circle distance, radius test and ordering run on those few rows in Python.
    radius = filters.radius or 0.0
    min_lat, max_lat, min_lng, max_lng = bounding_box(origin, radius)
    candidates = session.execute(
        _filtered(
            select(Dispensary.id, Dispensary.sort_key, Dispensary.lat, Dispensary.lng), filters
        )
        .where(Dispensary.lat.between(min_lat, max_lat))
        .where(Dispensary.lng.between(min_lng, max_lng))
    ).all()
    ranked = sorted(
        (distance, sort_key, id_)
        for id_, sort_key, lat, lng in candidates
        if (distance := haversine_miles(origin, Point(lat, lng))) <= radius
    )
    window = ranked[page.offset : page.offset + page.limit]
    rows = {
        d.id: d
        for d in session.scalars(
            select(Dispensary).where(Dispensary.id.in_([w[2] for w in window]))
        )
    }
    items = [DispensaryHit(rows[id_], round(distance, 1)) for distance, _name, id_ in window]
    return Page(items=items, total=len(ranked), limit=page.limit, offset=page.offset)


def get_dispensary(session: Session, public_id: str) -> DispensaryDetail:
    """Return the dispensary ``disp_<n>`` with its menu and newest reviews; raise NotFound."""
    dispensary = None
    if _PUBLIC_ID.match(public_id):
        dispensary = session.scalar(select(Dispensary).where(Dispensary.public_id == public_id))
    if dispensary is None:
        raise NotFound(f"no dispensary with id {public_id!r}")
    menu = menus_by_dispensary(session, [dispensary.id])[dispensary.id]
    reviews = reviews_by_dispensary(session, [dispensary.id])[dispensary.id]
    return DispensaryDetail(dispensary=dispensary, menu=menu, reviews=reviews)


def menus_by_dispensary(session: Session, ids: Iterable[int]) -> dict[int, list[MenuEntry]]:
    """Return each dispensary's menu in menu order, keyed by dispensary id (all ids present)."""
    menus: dict[int, list[MenuEntry]] = {id_: [] for id_ in ids}
    if not menus:
        return menus
    rows = session.execute(
        select(MenuItem, Strain.slug)
        .outerjoin(Strain, MenuItem.strain_id == Strain.id)
        .where(MenuItem.dispensary_id.in_(menus))
        .order_by(MenuItem.dispensary_id, MenuItem.position, MenuItem.id)
    )
    for item, slug in rows:
        menus[item.dispensary_id].append(
            MenuEntry(item.name, item.category, item.price, item.unit, slug)
        )
    return menus


def reviews_by_dispensary(
    session: Session, ids: Iterable[int], *, per_dispensary: int = REVIEWS_SHOWN
) -> dict[int, list[Review]]:
    """Return up to ``per_dispensary`` newest reviews per dispensary, keyed by dispensary id."""
    reviews: dict[int, list[Review]] = {id_: [] for id_ in ids}
    if not reviews:
        return reviews
    rows = session.scalars(
        select(Review)
        .where(Review.dispensary_id.in_(reviews))
        .order_by(Review.dispensary_id, Review.date.desc(), Review.id.desc())
    )
    for review in rows:
        bucket = reviews[review.dispensary_id]
        if len(bucket) < per_dispensary:
            bucket.append(review)
    return reviews


def dispensaries_by_ids(session: Session, ids: Iterable[int]) -> dict[int, Dispensary]:
    """Return the dispensaries with the given primary keys, keyed by id."""
    wanted = set(ids)
    if not wanted:
        return {}
    return {d.id: d for d in session.scalars(select(Dispensary).where(Dispensary.id.in_(wanted)))}

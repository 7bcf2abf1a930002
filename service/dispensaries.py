"""Dispensary details (menu, reviews, whether open now) and the batch lookups GraphQL's loaders
use; list pages are in service.dispensary_lists, the rows they share in service.dispensary_rows."""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import Integer, Select, bindparam, func, select

from models import MenuItem, Review, Strain
from models.db import AnySelect, Reader

from .bounds import DISPENSARY_MENU, DISPENSARY_REVIEWS
from .dispensary_rows import DispensaryRow, dispensary_rows_by_public_ids
from .errors import NotFound
from .hours import OpenState, open_state
from .lab import LabBatch, lab_batch
from .paging import rows, top_per_parent
from .when import Clock, current_minute


class MenuEntry(NamedTuple):
    """One menu item as read (a named tuple: hundreds are built for a nested page, and a
    tuple is cheaper to make than a frozen dataclass)."""

    name: str
    category: str
    price: float
    unit: str
    strain: str | None  # the strain's slug when the item is a strain
    strain_id: int | None = None
    lab: LabBatch | None = None  # the lab result of the batch on the shelf
    price_per_gram: float | None = None  # for a weight unit (service.compounds.GRAMS_PER_UNIT)


class ReviewEntry(NamedTuple):
    """One review as read (a named tuple, like MenuEntry)."""

    rating: int
    text: str
    author: str
    date: date


@dataclass(frozen=True)
class DispensaryDetail:
    dispensary: DispensaryRow
    menu: list[MenuEntry]
    reviews: list[ReviewEntry]
    hours_now: OpenState


def get_dispensary(db: Reader, public_id: str, *, now: Clock = current_minute) -> DispensaryDetail:
    """Return the dispensary ``disp_<n>`` with its menu, newest reviews and whether it is open
    at the request's instant ``now()``; raise NotFound.

    The dispensary is read as a list row (its columns, no ORM object), so a plain connection
    serves the whole detail."""
    dispensary = dispensary_rows_by_public_ids(db, [public_id]).get(public_id)
    if dispensary is None:
        raise NotFound(f"no dispensary with id {public_id!r}")
    menu = menus_by_dispensary(db, [dispensary.id])[dispensary.id]
    reviews = reviews_by_dispensary(db, [dispensary.id])[dispensary.id]
    hours_now = open_state(dispensary.hours, dispensary.timezone, now())
    return DispensaryDetail(dispensary=dispensary, menu=menu, reviews=reviews, hours_now=hours_now)


@lru_cache(maxsize=1)
def _menus_statement() -> Select[
    int, str, str, float, str, str, int | None, Any, float | None, float | None, float | None
]:
    """``:limit`` menu items (menu order) of each dispensary in ``:ids`` after its first
    ``:offset``, with the slug of each item's strain: one statement, built once, of the columns
    a menu shows.

    Positions run 0, 1, 2, ... within a dispensary (models.dispensary.MenuItem), so those items
    are the positions from ``:offset`` below ``:offset + :limit``: a range of the
    (dispensary_id, position) index."""
    # The slug looked up per item by primary key: joined, PostgreSQL hashes all strains instead.
    slug = select(Strain.slug).where(Strain.id == MenuItem.strain_id).scalar_subquery()
    offset = bindparam("offset", type_=Integer)
    return (
        select(
            MenuItem.dispensary_id,
            MenuItem.name,
            MenuItem.category,
            MenuItem.price,
            MenuItem.unit,
            slug,
            MenuItem.strain_id,
            MenuItem.lab,
            MenuItem.total_thc,
            MenuItem.total_cbd,
            MenuItem.price_per_gram,
        )
        .where(
            MenuItem.dispensary_id.in_(bindparam("ids", expanding=True)),
            MenuItem.position >= offset,
            MenuItem.position < offset + bindparam("limit", type_=Integer),
        )
        .order_by(MenuItem.dispensary_id, MenuItem.position)
    )


def menus_by_dispensary(
    db: Reader, ids: Iterable[int], *, limit: int = DISPENSARY_MENU.default, offset: int = 0
) -> dict[int, list[MenuEntry]]:
    """Return up to ``limit`` menu items per dispensary in menu order after its first
    ``offset``, keyed by dispensary id."""
    menus: dict[int, list[MenuEntry]] = {id_: [] for id_ in ids}
    if not menus:
        return menus
    params = {"ids": list(menus), "limit": limit, "offset": offset}
    for row in rows(db, _menus_statement(), params):
        # The dispensary's id, the entry's listed columns, then its batch and price per gram.
        owner, name, category, price, unit, slug, strain_id, lab, thc, cbd, per_gram = row
        batch = lab_batch(lab, thc, cbd) if lab is not None else None
        entry = MenuEntry(name, category, price, unit, slug, strain_id, batch, per_gram)
        menus[owner].append(entry)
    return menus


@lru_cache(maxsize=1)
def _reviews_statement() -> AnySelect:
    """``:limit`` reviews of each dispensary in ``:ids`` after its ``:offset`` newest, newest
    first: one statement, built once, of the columns a review shows."""
    stmt = select(
        Review.dispensary_id, Review.rating, Review.text, Review.author, Review.date
    ).where(Review.dispensary_id.in_(bindparam("ids", expanding=True)))
    newest = (Review.date.desc(), Review.id.desc())
    limit = bindparam("limit", type_=Integer)
    return top_per_parent(
        stmt, Review.dispensary_id, newest, limit, offset=bindparam("offset", type_=Integer)
    )


def reviews_by_dispensary(
    db: Reader,
    ids: Iterable[int],
    *,
    limit: int = DISPENSARY_REVIEWS.default,
    offset: int = 0,
) -> dict[int, list[ReviewEntry]]:
    """Return up to ``limit`` reviews per dispensary, newest first after its ``offset`` newest,
    keyed by dispensary id."""
    reviews: dict[int, list[ReviewEntry]] = {id_: [] for id_ in ids}
    if not reviews:
        return reviews
    params = {"ids": list(reviews), "limit": limit, "offset": offset}
    for row in rows(db, _reviews_statement(), params):
        reviews[row[0]].append(ReviewEntry(*row[1:]))  # the dispensary's id, then the review
    return reviews


def review_counts_by_dispensary(db: Reader, ids: Iterable[int]) -> dict[int, int]:
    """Return how many reviews each dispensary has stored (those ``reviews_by_dispensary`` pages
    through), keyed by dispensary id; 0 for one without reviews."""
    counts = dict.fromkeys(ids, 0)
    if not counts:
        return counts
    stmt = (
        select(Review.dispensary_id, func.count())
        .where(Review.dispensary_id.in_(counts))
        .group_by(Review.dispensary_id)
    )
    for dispensary_id, count in rows(db, stmt, {}):
        counts[dispensary_id] = count
    return counts

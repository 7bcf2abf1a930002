"""What GraphQL should answer, read from the database with plain SQLAlchemy selects over the
models (the ``session`` fixture reads the same tiny dataset the app serves), never from the
service functions the resolvers call; and ``_all``, which walks every page of a root list."""

from collections import defaultdict
from datetime import date
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, object_session

from models import (
    Deal,
    Dispensary,
    Doctor,
    Law,
    MenuItem,
    Review,
    Strain,
    StrainEffect,
    StrainFlavor,
)

WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

STRAIN_FIELDS = "slug name type thc cbd effects flavors description rating reviewCount"
DISPENSARY_FIELDS = (
    "id name address type rating delivery phone website reviewCount distance "
    "hours { mon tue wed thu fri sat sun }"
)
DEAL_FIELDS = "id title dispensaryName category discount expires"
DOCTOR_FIELDS = "id name city state telehealth rating price"
LAW_FIELDS = (
    "state stateCode recreational medical possessionLimitOz homeGrow homeGrowPlants "
    "deliveryLegal updated"
)


# --- expectations from the database ------------------------------------------------------------


def _traits(session: Session, model: type) -> dict[int, list[str]]:
    found: dict[int, list[str]] = defaultdict(list)
    for strain_id, name in session.execute(
        select(model.strain_id, model.name).order_by(model.strain_id, model.position)
    ):
        found[strain_id].append(name)
    return found


def _strain_dicts(session: Session) -> dict[str, dict[str, Any]]:
    """Every strain as GraphQL should render STRAIN_FIELDS, keyed by slug."""
    effects, flavors = _traits(session, StrainEffect), _traits(session, StrainFlavor)
    return {
        s.slug: {
            "slug": s.slug,
            "name": s.name,
            "type": s.type.upper(),
            "thc": s.thc,
            "cbd": s.cbd,
            "effects": effects[s.id],
            "flavors": flavors[s.id],
            "description": s.description,
            "rating": s.rating,
            "reviewCount": s.review_count,
        }
        for s in session.scalars(select(Strain))
    }


def _stored_reviews(d: Dispensary) -> int:
    """GraphQL's reviewCount: the reviews kept for ``d`` (not its stored review_count column)."""
    session = object_session(d)
    assert session is not None
    count = session.scalar(select(func.count()).where(Review.dispensary_id == d.id))
    assert count is not None
    return count


def _dispensary_dict(d: Dispensary, distance: float | None = None) -> dict[str, Any]:
    return {
        "id": d.public_id,
        "name": d.name,
        "address": f"{d.street}, {d.city}, {d.state} {d.zip}",
        "type": d.type.upper(),
        "rating": d.rating,
        "delivery": d.delivery,
        "phone": d.phone,
        "website": d.website,
        "reviewCount": _stored_reviews(d),
        "distance": distance,
        "hours": {day: d.hours.get(day) for day in WEEKDAYS},
    }


def _deal_dict(deal: Deal, dispensary_name: str) -> dict[str, Any]:
    return {
        "id": deal.public_id,
        "title": deal.title,
        "dispensaryName": dispensary_name,
        "category": deal.category,
        "discount": deal.discount,
        "expires": deal.expires.isoformat(),
    }


def _doctor_dict(d: Doctor) -> dict[str, Any]:
    return {
        "id": d.public_id,
        "name": d.name,
        "city": d.city,
        "state": d.state,
        "telehealth": d.telehealth,
        "rating": d.rating,
        "price": d.price,
    }


def _law_dict(law: Law) -> dict[str, Any]:
    return {
        "state": law.state,
        "stateCode": law.state_code,
        "recreational": law.recreational,
        "medical": law.medical,
        "possessionLimitOz": law.possession_limit_oz,
        "homeGrow": law.home_grow,
        "homeGrowPlants": law.home_grow_plants,
        "deliveryLegal": law.delivery_legal,
        "updated": law.updated.isoformat(),
    }


def _strain_slugs(session: Session, *where: Any) -> list[str]:
    return list(
        session.scalars(
            select(Strain.slug).where(*where).order_by(func.lower(Strain.name), Strain.id)
        )
    )


def _dispensary_ids(session: Session, *where: Any) -> list[str]:
    return list(
        session.scalars(
            select(Dispensary.public_id)
            .where(*where)
            .order_by(func.lower(Dispensary.name), Dispensary.id)
        )
    )


def _active_deals(session: Session, today: date, *where: Any) -> list[Deal]:
    return list(
        session.scalars(
            select(Deal)
            .join(Dispensary, Deal.dispensary_id == Dispensary.id)
            .where(Deal.expires >= today, *where)
            .order_by(Deal.expires, Deal.id)
        )
    )


def _listing_dispensaries(session: Session, strain_id: int, *where: Any) -> list[str]:
    """Public ids of the distinct dispensaries whose menu lists the strain, by name then id."""
    listed = select(MenuItem.dispensary_id).where(MenuItem.strain_id == strain_id)
    return _dispensary_ids(session, Dispensary.id.in_(listed), *where)


def _cheapest_offers(session: Session, strain_id: int) -> dict[str, tuple[float, str]]:
    """Public id -> (price, unit) of the strain's cheapest menu item at each dispensary listing
    it (the first in menu order on a tie)."""
    found: dict[str, tuple[float, str]] = {}
    offers = session.execute(
        select(Dispensary.public_id, MenuItem.price, MenuItem.unit)
        .join(MenuItem, MenuItem.dispensary_id == Dispensary.id)
        .where(MenuItem.strain_id == strain_id)
        .order_by(MenuItem.price, MenuItem.position)
    )
    for public_id, price, unit in offers:
        found.setdefault(public_id, (price, unit))
    return found


def _all(gql, field: str, selection: str, args: str = "", page: int = 100) -> list[dict]:
    """Every item of a root list field, walking pages of ``page``."""
    items: list[dict] = []
    while True:
        arguments = ", ".join(a for a in (f"limit: {page}, offset: {len(items)}", args) if a)
        data = gql.data(f"{{ {field}({arguments}) {{ total items {{ {selection} }} }} }}")[field]
        items.extend(data["items"])
        if len(items) >= data["total"]:
            assert len(items) == data["total"]
            return items
        assert data["items"], "a page came back empty before the total was reached"


def _rest_all(api, path: str, **params: Any) -> list[dict]:
    """Every item of a REST list, walking pages of 50."""
    items: list[dict] = []
    while True:
        body = api.json(path, limit=50, offset=len(items), **params)
        items.extend(body["data"])
        if len(items) >= body["meta"]["total"]:
            return items

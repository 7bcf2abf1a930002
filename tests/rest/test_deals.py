"""GET /api/v1/deals (SPEC 2.4, 4.5): active deals only, soonest expiry first."""

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models import Deal, Dispensary
from tests.stamps import text

FIELDS = [
    *("id", "title", "dispensary", "category", "discount", "expires", "dispensary_id"),
    "updated_at",  # the change stamp ends every object (tests/rest/test_stamps.py)
]
CATEGORIES = ["flower", "edibles", "concentrates", "vapes", "pre-rolls", "topicals", "tinctures"]


def _all(api, **params: Any) -> list[dict[str, Any]]:
    """Every matching deal, walking pages of 100."""
    items: list[dict[str, Any]] = []
    while True:
        body = api.json("/api/v1/deals", limit=100, offset=len(items), **params)
        items.extend(body["data"])
        if len(items) >= body["meta"]["total"]:
            assert len(items) == body["meta"]["total"]
            return items


def _active(session: Session, today: date, *where: Any) -> list[str]:
    """Public ids of active deals matching ``where`` (Dispensary is joined), by expiry then id."""
    return list(
        session.scalars(
            select(Deal.public_id)
            .join(Dispensary, Deal.dispensary_id == Dispensary.id)
            .where(Deal.expires >= today, *where)
            .order_by(Deal.expires, Deal.id)
        )
    )


def _error(api, **params: Any) -> dict[str, Any]:
    body = api.json("/api/v1/deals", status=400, **params)
    assert body["success"] is False
    assert body["error"]["code"] == 400
    return body["error"]


def test_deal_items_carry_exactly_the_spec_fields_and_the_dispensary_name_and_id(
    api, session: Session
) -> None:
    rows = {
        deal.public_id: (deal, name, shop)
        for deal, name, shop in session.execute(
            select(Deal, Dispensary.name, Dispensary.public_id).join(
                Dispensary, Deal.dispensary_id == Dispensary.id
            )
        )
    }
    for item in _all(api):
        assert list(item) == FIELDS
        deal, dispensary_name, dispensary_id = rows[item["id"]]
        assert item == {
            "id": deal.public_id,
            "title": deal.title,
            "dispensary": dispensary_name,
            "category": deal.category,
            "discount": deal.discount,
            "expires": deal.expires.isoformat(),
            "dispensary_id": dispensary_id,
            "updated_at": text(deal.updated_at),
        }


@pytest.fixture
def boundary_deals(app: Flask, session: Session, reference_day: date) -> Iterator[tuple[str, str]]:
    """Move one deal to expire today and another yesterday (committed), then restore them."""
    first, second = session.scalars(
        select(Deal.id).where(Deal.expires > reference_day).order_by(Deal.id).limit(2)
    ).all()
    with app.extensions["cds.sessions"]() as db:
        today_deal, yesterday_deal = db.get(Deal, first), db.get(Deal, second)
        saved = (today_deal.expires, yesterday_deal.expires)
        today_deal.expires = reference_day
        yesterday_deal.expires = reference_day - timedelta(days=1)
        db.commit()
        try:
            yield today_deal.public_id, yesterday_deal.public_id
        finally:
            today_deal.expires, yesterday_deal.expires = saved
            db.commit()


def test_a_deal_expiring_today_is_active_and_one_that_expired_yesterday_is_not(
    api, reference_day: date, boundary_deals: tuple[str, str]
) -> None:
    today_id, yesterday_id = boundary_deals
    items = _all(api)
    ids = [item["id"] for item in items]
    assert today_id in ids
    assert yesterday_id not in ids
    assert items[0]["expires"] == reference_day.isoformat()
    assert api.json("/api/v1/deals", limit=1)["data"][0]["id"] == today_id


@pytest.mark.parametrize("category", ["flower"])
def test_category_filter_returns_only_active_deals_of_that_category(
    api, session: Session, reference_day: date, category: str
) -> None:
    items = _all(api, category=category)
    assert {item["category"] for item in items} == {category}
    assert [item["id"] for item in items] == _active(
        session, reference_day, Deal.category == category
    )


@pytest.mark.parametrize(
    "value", ["weed", "", "flowers", "pre_rolls", "prerolls", "flower,weed", "%", "cbd"]
)
def test_category_outside_the_seven_is_a_400_naming_category(api, value: str) -> None:
    error = _error(api, category=value)
    assert error["param"] == "category"
    assert all(category in error["message"] for category in CATEGORIES)


@pytest.mark.parametrize(("given", "code"), [("tx", "TX")])
def test_state_filter_uses_the_deals_dispensary_state(
    api, session: Session, reference_day: date, given: str, code: str
) -> None:
    expected = _active(session, reference_day, Dispensary.state == code)
    assert expected, f"the tiny dataset has active deals in {code}"
    names = set(session.scalars(select(Dispensary.name).where(Dispensary.state == code)))
    items = _all(api, state=given)
    assert [item["id"] for item in items] == expected
    assert {item["dispensary"] for item in items} <= names


def test_city_filter_uses_the_deals_dispensary_city_in_any_case(
    api, session: Session, reference_day: date
) -> None:
    city = session.scalar(
        select(Dispensary.city)
        .join(Deal, Deal.dispensary_id == Dispensary.id)
        .where(Deal.expires >= reference_day)
        .group_by(Dispensary.city)
        .order_by(func.count().desc(), Dispensary.city)
    )
    assert city is not None
    expected = _active(session, reference_day, Dispensary.city == city)
    for given in (city, city.upper(), f"  {city.lower()} "):
        assert [item["id"] for item in _all(api, city=given)] == expected


def test_a_known_state_without_deals_gives_an_empty_page(
    api, session: Session, reference_day: date
) -> None:
    assert _active(session, reference_day, Dispensary.state == "WY") == []
    body = api.json("/api/v1/deals", state="WY")
    assert body == {"success": True, "data": [], "meta": {"total": 0, "limit": 20, "offset": 0}}


@pytest.mark.parametrize("value", ["XX", "CAL", "", "1", "California"])
def test_unknown_state_is_a_400_naming_state(api, value: str) -> None:
    assert _error(api, state=value)["param"] == "state"


def test_blank_city_is_a_400_naming_city(api) -> None:
    assert _error(api, city="   ")["param"] == "city"

"""GET /api/v1/dispensaries and /api/v1/dispensaries/{id} (SPEC 2.3, 4.3, 4.4)."""

import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta
from typing import Any

import pytest
import zipcodes
from flask import Flask
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from models import Dispensary, MenuItem, Review, Strain
from tests.distances import haversine_miles
from tests.menus import shown_lab
from tests.stamps import text

LIST_FIELDS = ["id", "name", "address", "type", "rating", "delivery", "hours"]
DETAIL_FIELDS = [*LIST_FIELDS, "phone", "website", "reviewCount", "menu", "reviews"]
# Added after the fields the objects had before (issue 22): where they are, and for the detail
# whether they are open now.
PLACE_FIELDS = ["lat", "lng", "timezone"]
OPEN_FIELDS = ["is_open", "next_change"]
# The change stamps end every dispensary object (tests/rest/test_stamps.py).
STAMP_FIELDS = ["updated_at", "menu_updated_at"]
WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
HOURS = re.compile(r"^([01]?[0-9]|2[0-3]):[0-5][0-9]-([01]?[0-9]|2[0-4]):[0-5][0-9]$")


def _zip_point(code: str) -> tuple[float, float]:
    record = zipcodes.matching(code)[0]
    return float(record["lat"]), float(record["long"])


def _all(api, **params: Any) -> list[dict[str, Any]]:
    """Every matching dispensary, walking pages of 100."""
    items: list[dict[str, Any]] = []
    while True:
        body = api.json("/api/v1/dispensaries", limit=100, offset=len(items), **params)
        items.extend(body["data"])
        if len(items) >= body["meta"]["total"]:
            assert len(items) == body["meta"]["total"]
            return items


def _by_public_id(session: Session) -> dict[str, Dispensary]:
    return {d.public_id: d for d in session.scalars(select(Dispensary))}


def _count(session: Session, *where: Any) -> int:
    return session.scalar(select(func.count()).select_from(Dispensary).where(*where)) or 0


def _error(api, path: str = "/api/v1/dispensaries", status: int = 400, **params: Any) -> dict:
    body = api.json(path, status=status, **params)
    assert body["success"] is False
    assert body["error"]["code"] == status
    return body["error"]


def _within(session: Session, code: str, radius: float, *where: Any) -> dict[str, float]:
    lat, lng = _zip_point(code)
    rows = session.execute(
        select(Dispensary.public_id, Dispensary.lat, Dispensary.lng).where(*where)
    ).all()
    distances = {pid: haversine_miles(lat, lng, dlat, dlng) for pid, dlat, dlng in rows}
    return {pid: d for pid, d in distances.items() if d <= radius}


@contextmanager
def _committed(app: Flask) -> Iterator[Session]:
    """A session on the app's own database whose commits the API sees (clean up afterwards)."""
    with app.extensions["cds.sessions"]() as db:
        yield db


# --- list -------------------------------------------------------------------------------------


def test_list_items_carry_exactly_the_list_fields_with_the_database_values(
    api, session: Session
) -> None:
    rows = _by_public_id(session)
    items = _all(api)
    assert len(items) == len(rows) == 120
    for item in items:
        assert list(item) == [*LIST_FIELDS, *PLACE_FIELDS, *STAMP_FIELDS]
        d = rows[item["id"]]
        assert item == {
            "id": d.public_id,
            "name": d.name,
            "address": f"{d.street}, {d.city}, {d.state} {d.zip}",
            "type": d.type,
            "rating": d.rating,
            "delivery": d.delivery,
            "hours": d.hours,
            "lat": d.lat,
            "lng": d.lng,
            "timezone": d.timezone,
            "updated_at": text(d.updated_at),
            "menu_updated_at": text(d.menu_updated_at),
        }
        assert re.fullmatch(r"disp_[0-9]+", item["id"])
        assert 0 <= item["rating"] <= 5


def test_hours_map_weekday_abbreviations_in_week_order_to_open_close_times(api) -> None:
    for item in _all(api):
        days = list(item["hours"])
        assert days == [day for day in WEEKDAYS if day in days]
        assert days, f"{item['id']} is never open"
        for span in item["hours"].values():
            assert HOURS.match(span), span
            start, end = (int(h) * 60 + int(m) for h, m in (t.split(":") for t in span.split("-")))
            assert start != end, span  # a close before the open runs past midnight


def test_without_zip_there_is_no_distance_key(api) -> None:
    assert all("distance" not in item for item in _all(api))


@pytest.mark.parametrize(
    ("given", "code"),
    [("ca", "CA")],
)
def test_state_filter_is_case_insensitive_and_keeps_only_that_state(
    api, session: Session, given: str, code: str
) -> None:
    rows = _by_public_id(session)
    items = _all(api, state=given)
    assert items
    assert {rows[item["id"]].state for item in items} == {code}
    assert all(re.search(rf", {code} [0-9]{{5}}$", item["address"]) for item in items)
    assert len(items) == _count(session, Dispensary.state == code)


@pytest.mark.parametrize("value", ["XX", "CAL", "C", "1", "", "California", "C\u0391", "ZZ"])
def test_unknown_state_is_a_400_naming_state(api, value: str) -> None:
    assert _error(api, state=value)["param"] == "state"


@pytest.mark.parametrize("given", ["  los   Angeles "])
def test_city_filter_ignores_case_and_extra_spaces(api, session: Session, given: str) -> None:
    rows = _by_public_id(session)
    items = _all(api, city=given)
    assert {rows[item["id"]].city for item in items} == {"Los Angeles"}
    assert len(items) == _count(session, Dispensary.city == "Los Angeles") == 3


@pytest.mark.parametrize(
    ("given", "kind"),
    [("MEDICAL", "medical")],
)
def test_type_filter_is_case_insensitive_and_returns_only_that_type(
    api, session: Session, given: str, kind: str
) -> None:
    items = _all(api, type=given)
    assert items
    assert {item["type"] for item in items} == {kind}
    assert len(items) == _count(session, Dispensary.type == kind)


@pytest.mark.parametrize("value", ["hybrid", "rec", "", "medicinal", "both,shop"])
def test_unknown_dispensary_type_is_a_400_naming_type(api, value: str) -> None:
    assert _error(api, type=value)["param"] == "type"


@pytest.mark.parametrize(
    ("given", "wanted"),
    [("true", True), ("false", False)],
)
def test_delivery_filter_keeps_only_matching_dispensaries(
    api, session: Session, given: str, wanted: bool
) -> None:
    items = _all(api, delivery=given)
    assert items
    assert {item["delivery"] for item in items} == {wanted}
    assert len(items) == _count(session, Dispensary.delivery.is_(wanted))


@pytest.mark.parametrize("value", ["yes", "no", "", "2", "t", "truee"])
def test_delivery_that_is_not_a_boolean_is_a_400_naming_delivery(api, value: str) -> None:
    assert _error(api, delivery=value)["param"] == "delivery"


# --- proximity --------------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["94110"])
def test_zip_search_lists_nearest_first_with_true_distances_within_the_default_50_miles(
    api, session: Session, code: str
) -> None:
    lat, lng = _zip_point(code)
    rows = _by_public_id(session)
    items = _all(api, zip=code)
    expected = _within(session, code, 50.0)
    assert items, f"the tiny dataset has dispensaries near {code}"
    assert {item["id"] for item in items} == set(expected)
    distances = [item["distance"] for item in items]
    assert distances == sorted(distances)
    for item in items:
        d = rows[item["id"]]
        assert list(item) == [*LIST_FIELDS, "distance", *PLACE_FIELDS, *STAMP_FIELDS]
        assert item["distance"] <= 50
        assert abs(item["distance"] - haversine_miles(lat, lng, d.lat, d.lng)) <= 0.1
        assert item["distance"] == round(item["distance"], 1)


@pytest.mark.parametrize(("code", "radius"), [("20001", "100.5")])
def test_radius_bounds_the_zip_search(api, session: Session, code: str, radius: str) -> None:
    items = _all(api, zip=code, radius=radius)
    expected = _within(session, code, float(radius))
    assert items
    assert [item["id"] for item in items] == sorted(expected, key=lambda pid: expected[pid])
    assert all(item["distance"] <= float(radius) for item in items)
    beyond = _within(session, code, math.inf).keys() - expected.keys()
    assert beyond, "something lies outside the radius, so the bound is tested"


@pytest.mark.parametrize("value", ["5", "50", "0.5"])
def test_radius_without_zip_is_a_400_naming_radius(api, value: str) -> None:
    assert _error(api, radius=value)["param"] == "radius"


@pytest.mark.parametrize(
    "value", ["0", "-1", "500.1", "501", "abc", "nan", "inf", "1e3", "5.01e2", "1e-400", "0x1", ""]
)
def test_radius_outside_0_to_500_miles_is_a_400_naming_radius(api, value: str) -> None:
    assert _error(api, zip="94110", radius=value)["param"] == "radius"


def test_radius_in_exponent_form_is_read_like_its_plain_spelling(api) -> None:
    plain = api.json("/api/v1/dispensaries", zip="80202", radius="50", limit="100")
    assert plain["meta"]["total"] > 0
    for spelling in ("5e1", "5E+1", "0.5e2", "50.0", "500e-1"):
        assert api.json("/api/v1/dispensaries", zip="80202", radius=spelling, limit="100") == plain
    # Greater than 0: the least double (what schemathesis sends) is a tiny radius, not a 400.
    tiny = api.json("/api/v1/dispensaries", zip="80202", radius="5e-324")
    assert tiny["meta"]["total"] == 0
    error = _error(api, zip="80202", radius="1e-400")
    assert error["message"] == (
        "radius must be a number of miles greater than 0 and at most 500 (1e-400 is too close to 0)"
    )


@pytest.mark.parametrize(
    "value",
    ["9411", "941100", "abcde", "94110-1234", "", "9411O", "\uff19\uff14\uff11\uff11\uff10"],
)
def test_malformed_zip_is_a_400_naming_zip(api, value: str) -> None:
    assert _error(api, zip=value)["param"] == "zip"


@pytest.mark.parametrize("value", ["00000", "99999", "00001"])
def test_unknown_zip_is_a_400_naming_zip(api, value: str) -> None:
    assert zipcodes.matching(value) == []
    error = _error(api, zip=value)
    assert error["param"] == "zip"
    assert value in error["message"]


# --- detail -----------------------------------------------------------------------------------


def _menu(session: Session, dispensary_id: int) -> list[dict[str, Any]]:
    rows = session.execute(
        select(MenuItem, Strain.slug)
        .outerjoin(Strain, MenuItem.strain_id == Strain.id)
        .where(MenuItem.dispensary_id == dispensary_id)
        .order_by(MenuItem.position, MenuItem.id)
    ).all()
    menu = []
    for item, slug in rows:
        entry: dict[str, Any] = {
            "name": item.name,
            "category": item.category,
            "price": item.price,
            "unit": item.unit,
        }
        if slug is not None:
            entry["strain"] = slug
        entry["lab"] = shown_lab(item)
        entry["price_per_gram"] = item.price_per_gram
        menu.append(entry)
    return menu


def _reviews(session: Session, dispensary_id: int) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(Review)
        .where(Review.dispensary_id == dispensary_id)
        .order_by(Review.date.desc(), Review.id.desc())
        .limit(20)
    )
    return [
        {"rating": r.rating, "text": r.text, "author": r.author, "date": r.date.isoformat()}
        for r in rows
    ]


@pytest.mark.parametrize("public_id", ["disp_1001", "disp_1004", "disp_1014", "disp_1060"])
def test_detail_has_list_fields_contact_menu_and_reviews_from_the_database(
    api, session: Session, public_id: str
) -> None:
    d = session.scalar(select(Dispensary).where(Dispensary.public_id == public_id))
    assert d is not None
    body = api.json(f"/api/v1/dispensaries/{public_id}")
    assert list(body) == ["success", "data"]
    data = body["data"]
    assert list(data) == [*DETAIL_FIELDS, *PLACE_FIELDS, *OPEN_FIELDS, *STAMP_FIELDS]
    assert isinstance(data.pop("is_open"), bool)
    change = data.pop("next_change")
    assert change is None or datetime.fromisoformat(change).utcoffset() is not None
    assert data == {
        "id": d.public_id,
        "name": d.name,
        "address": f"{d.street}, {d.city}, {d.state} {d.zip}",
        "type": d.type,
        "rating": d.rating,
        "delivery": d.delivery,
        "hours": d.hours,
        "phone": d.phone,
        "website": d.website,
        "reviewCount": d.review_count,
        "menu": _menu(session, d.id),
        "reviews": _reviews(session, d.id),
        "lat": d.lat,
        "lng": d.lng,
        "timezone": d.timezone,
        "updated_at": text(d.updated_at),
        "menu_updated_at": text(d.menu_updated_at),
    }


def test_detail_list_fields_equal_the_list_item(api) -> None:
    for item in _all(api)[::10]:
        detail = api.json(f"/api/v1/dispensaries/{item['id']}")["data"]
        assert {key: detail[key] for key in [*LIST_FIELDS, *PLACE_FIELDS, *STAMP_FIELDS]} == item
        assert "distance" not in detail


def test_menu_items_name_their_strain_slug_only_when_they_are_a_strain(
    api, session: Session
) -> None:
    strain_slugs = set(session.scalars(select(Strain.slug)))
    seen_strain = seen_other = False
    for item in _all(api)[:30]:
        for entry in api.json(f"/api/v1/dispensaries/{item['id']}")["data"]["menu"]:
            assert list(entry) in (
                ["name", "category", "price", "unit", "lab", "price_per_gram"],
                ["name", "category", "price", "unit", "strain", "lab", "price_per_gram"],
            )
            assert entry["price"] >= 0
            if "strain" in entry:
                seen_strain = True
                assert entry["strain"] in strain_slugs
            else:
                seen_other = True
    assert seen_strain
    assert seen_other


def test_reviews_are_newest_first_with_iso_dates(api, session: Session) -> None:
    dispensary_id = session.scalar(
        select(Review.dispensary_id).group_by(Review.dispensary_id).order_by(func.count().desc())
    )
    public_id = session.scalar(select(Dispensary.public_id).where(Dispensary.id == dispensary_id))
    reviews = api.json(f"/api/v1/dispensaries/{public_id}")["data"]["reviews"]
    assert len(reviews) >= 2
    dates = [r["date"] for r in reviews]
    assert dates == sorted(dates, reverse=True)
    for review in reviews:
        assert list(review) == ["rating", "text", "author", "date"]
        assert date.fromisoformat(review["date"]).isoformat() == review["date"]
        assert 1 <= review["rating"] <= 5


def test_at_most_the_20_newest_reviews_are_shown(api, app: Flask, session: Session) -> None:
    target = session.scalar(select(Dispensary).where(Dispensary.public_id == "disp_1002"))
    assert target is not None
    start = date(2001, 1, 1)
    with _committed(app) as db:
        added = [
            Review(
                dispensary_id=target.id,
                rating=1 + n % 5,
                text=f"synthetic review {n}",
                author=f"tester{n}",
                date=start + timedelta(days=n),
            )
            for n in range(25)
        ]
        db.add_all(added)
        db.commit()
        try:
            reviews = api.json("/api/v1/dispensaries/disp_1002")["data"]["reviews"]
            all_reviews = list(
                db.scalars(
                    select(Review)
                    .where(Review.dispensary_id == target.id)
                    .order_by(Review.date.desc(), Review.id.desc())
                )
            )
            assert len(all_reviews) > 25
            assert len(reviews) == 20
            assert [(r["author"], r["date"]) for r in reviews] == [
                (r.author, r.date.isoformat()) for r in all_reviews[:20]
            ]
        finally:
            db.execute(delete(Review).where(Review.id.in_([r.id for r in added])))
            db.commit()


@pytest.mark.parametrize(
    "public_id",
    ["disp_999999", "disp_abc", "1042", "1001", "disp_", "disp_1001x", "disp_-1", "disp_01001"],
)
def test_unknown_or_malformed_dispensary_id_is_a_404_envelope(api, public_id: str) -> None:
    error = _error(api, f"/api/v1/dispensaries/{public_id}", status=404)
    assert "data" not in error

"""GET /api/v1/doctors (SPEC 2.5, 4.6): by name then id, page size at most 50."""

from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models import Doctor
from tests.stamps import text

# The SPEC's fields, then where the doctor is (added after them, issue 22).
FIELDS = [
    *("id", "name", "city", "state", "telehealth", "rating", "price", "lat", "lng", "timezone"),
    "updated_at",  # the change stamp ends every object (tests/rest/test_stamps.py)
]


def _all(api, **params: Any) -> list[dict[str, Any]]:
    """Every matching doctor, walking pages of 50."""
    items: list[dict[str, Any]] = []
    while True:
        body = api.json("/api/v1/doctors", limit=50, offset=len(items), **params)
        assert body["meta"]["limit"] == 50
        items.extend(body["data"])
        if len(items) >= body["meta"]["total"]:
            assert len(items) == body["meta"]["total"]
            return items


def _ids(session: Session, *where: Any) -> list[str]:
    rows = session.execute(select(Doctor.public_id, Doctor.name, Doctor.id).where(*where)).all()
    return [pid for pid, _name, _id in sorted(rows, key=lambda r: (r[1].lower(), r[2]))]


def _error(api, **params: Any) -> dict[str, Any]:
    body = api.json("/api/v1/doctors", status=400, **params)
    assert body["success"] is False
    assert body["error"]["code"] == 400
    return body["error"]


def test_doctor_items_carry_exactly_the_spec_fields_with_the_database_values(
    api, session: Session
) -> None:
    rows = {d.public_id: d for d in session.scalars(select(Doctor))}
    items = _all(api)
    assert len(items) == len(rows) == 60
    for item in items:
        assert list(item) == FIELDS
        d = rows[item["id"]]
        assert item == {
            "id": d.public_id,
            "name": d.name,
            "city": d.city,
            "state": d.state,
            "telehealth": d.telehealth,
            "rating": d.rating,
            "price": d.price,
            "lat": d.lat,
            "lng": d.lng,
            "timezone": d.timezone,
            "updated_at": text(d.updated_at),
        }
        assert len(item["state"]) == 2
        assert item["state"].isupper()


@pytest.mark.parametrize(("given", "code"), [("Tx", "TX")])
def test_state_filter_is_case_insensitive_and_keeps_only_that_state(
    api, session: Session, given: str, code: str
) -> None:
    items = _all(api, state=given)
    assert items
    assert {item["state"] for item in items} == {code}
    assert [item["id"] for item in items] == _ids(session, Doctor.state == code)


def test_a_known_state_without_doctors_gives_an_empty_page(api, session: Session) -> None:
    assert _ids(session, Doctor.state == "AS") == []
    body = api.json("/api/v1/doctors", state="as")
    assert body == {"success": True, "data": [], "meta": {"total": 0, "limit": 20, "offset": 0}}


@pytest.mark.parametrize("value", ["XX", "CAL", "", "1", "Texas", "T"])
def test_unknown_state_is_a_400_naming_state(api, value: str) -> None:
    assert _error(api, state=value)["param"] == "state"


def test_city_filter_ignores_case_and_extra_spaces(api, session: Session) -> None:
    city, state = session.execute(
        select(Doctor.city, Doctor.state)
        .group_by(Doctor.city, Doctor.state)
        .order_by(func.count().desc(), Doctor.city)
    ).first()
    expected = _ids(session, Doctor.city == city)
    assert len(expected) >= 2
    for given in (city, city.upper(), f" {city.lower()}  "):
        items = _all(api, city=given)
        assert [item["id"] for item in items] == expected
        assert {item["city"] for item in items} == {city}
    both = _all(api, city=city, state=state.lower())
    assert [item["id"] for item in both] == _ids(
        session, Doctor.city == city, Doctor.state == state
    )


@pytest.mark.parametrize(
    ("given", "wanted"),
    [("true", True), ("false", False)],
)
def test_telehealth_filter_keeps_only_matching_doctors(
    api, session: Session, given: str, wanted: bool
) -> None:
    items = _all(api, telehealth=given)
    assert items
    assert {item["telehealth"] for item in items} == {wanted}
    assert [item["id"] for item in items] == _ids(session, Doctor.telehealth.is_(wanted))


@pytest.mark.parametrize("value", ["yes", "", "2", "on", "telehealth"])
def test_telehealth_that_is_not_a_boolean_is_a_400_naming_telehealth(api, value: str) -> None:
    assert _error(api, telehealth=value)["param"] == "telehealth"

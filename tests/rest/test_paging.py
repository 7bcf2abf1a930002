"""Limit/offset rules (SPEC 8.2 and the clamping decision) on every list endpoint.

Expectations are computed independently from the database (or in Python from all rows), never by
calling the service layer.
"""

from dataclasses import dataclass, field
from datetime import date
from typing import Any

import pytest
import zipcodes
from sqlalchemy import select
from sqlalchemy.orm import Session

from models import Deal, Dispensary, Doctor, Strain
from tests.distances import haversine_miles

MAX_OFFSET = 1_000_000


def _strain_keys(session: Session, today: date) -> set[str]:
    return set(session.scalars(select(Strain.slug)))


def _dispensary_keys(session: Session, today: date) -> set[str]:
    return set(session.scalars(select(Dispensary.public_id)))


def _nearby_keys(session: Session, today: date) -> set[str]:
    origin = zipcodes.matching("20001")[0]
    lat, lng = float(origin["lat"]), float(origin["long"])
    rows = session.execute(select(Dispensary.public_id, Dispensary.lat, Dispensary.lng)).all()
    return {pid for pid, dlat, dlng in rows if haversine_miles(lat, lng, dlat, dlng) <= 500}


def _deal_keys(session: Session, today: date) -> set[str]:
    return set(session.scalars(select(Deal.public_id).where(Deal.expires >= today)))


def _doctor_keys(session: Session, today: date) -> set[str]:
    return set(session.scalars(select(Doctor.public_id)))


def _search_keys(session: Session, today: date) -> set[str]:
    """Everything whose name (deal title) contains "an", any case; active deals only."""
    names = [
        *(("strain", key, name) for key, name in session.execute(select(Strain.slug, Strain.name))),
        *(
            ("dispensary", key, name)
            for key, name in session.execute(select(Dispensary.public_id, Dispensary.name))
        ),
        *(
            ("doctor", key, name)
            for key, name in session.execute(select(Doctor.public_id, Doctor.name))
        ),
        *(
            ("deal", key, name)
            for key, name in session.execute(
                select(Deal.public_id, Deal.title).where(Deal.expires >= today)
            )
        ),
    ]
    return {f"{kind}:{key}" for kind, key, name in names if "an" in name.lower()}


@dataclass(frozen=True)
class Endpoint:
    path: str
    maximum: int
    expected: Any  # (session, today) -> set of item keys
    params: dict[str, str] = field(default_factory=dict)

    def key(self, item: dict[str, Any]) -> str:
        if self.path.endswith("/search"):
            return f"{item['type']}:{item.get('slug') or item['id']}"
        return item.get("slug") or item["id"]


ENDPOINTS = [
    pytest.param(Endpoint("/api/v1/strains", 100, _strain_keys), id="strains"),
    pytest.param(Endpoint("/api/v1/dispensaries", 100, _dispensary_keys), id="dispensaries"),
    pytest.param(
        Endpoint("/api/v1/dispensaries", 100, _nearby_keys, {"zip": "20001", "radius": "500"}),
        id="dispensaries-near-zip",
    ),
    pytest.param(Endpoint("/api/v1/deals", 100, _deal_keys), id="deals"),
    pytest.param(Endpoint("/api/v1/doctors", 50, _doctor_keys), id="doctors"),
    pytest.param(Endpoint("/api/v1/search", 100, _search_keys, {"q": "an"}), id="search"),
]

NOT_INTEGERS = [
    "1_000",
    "\uff11\uff10",  # full-width digits
    "nan",
    "inf",
    "-inf",
    "1e-3",  # not a whole number
    "1.5e0",
    "1.00000000000000000001e1",  # not whole
    " 7",
    "7 ",
    "",
    "1.5",
    "0x10",
    "ten",
    "++5",
    "1,000",
    "\u0667",  # Arabic-Indic digit seven
]


def _page(api, endpoint: Endpoint, **params: Any) -> dict[str, Any]:
    return api.json(endpoint.path, **endpoint.params, **params)


def _keys(endpoint: Endpoint, body: dict[str, Any]) -> list[str]:
    return [endpoint.key(item) for item in body["data"]]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_default_page_is_twenty_items_from_offset_zero_with_the_true_total(
    api, session: Session, reference_day: date, endpoint: Endpoint
) -> None:
    expected = endpoint.expected(session, reference_day)
    assert len(expected) > 40, "the dataset should fill several default pages"
    body = _page(api, endpoint)
    assert list(body) == ["success", "data", "meta"]
    assert body["success"] is True
    assert list(body["meta"]) == ["total", "limit", "offset"]
    assert body["meta"] == {"total": len(expected), "limit": 20, "offset": 0}
    keys = _keys(endpoint, body)
    assert len(keys) == 20
    assert set(keys) <= expected


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("excess", [1, 10**17, 10**40])
def test_limit_above_the_maximum_is_clamped_and_meta_shows_the_effective_limit(
    api, session: Session, reference_day: date, endpoint: Endpoint, excess: int
) -> None:
    total = len(endpoint.expected(session, reference_day))
    body = _page(api, endpoint, limit=str(endpoint.maximum + excess))
    assert body["meta"] == {"total": total, "limit": endpoint.maximum, "offset": 0}
    assert len(body["data"]) == min(total, endpoint.maximum)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("limit", ["07", "7e0", "0.7e1", "7.00", "+7", "70e-1"])
def test_limit_within_range_is_honoured_exactly_in_any_json_number_form(
    api, session: Session, reference_day: date, endpoint: Endpoint, limit: str
) -> None:
    total = len(endpoint.expected(session, reference_day))
    body = _page(api, endpoint, limit=limit)
    assert body["meta"] == {"total": total, "limit": 7, "offset": 0}
    assert len(body["data"]) == 7


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_limit_and_offset_in_exponent_form_give_the_same_page_as_plain_digits(
    api, endpoint: Endpoint
) -> None:
    plain = _page(api, endpoint, limit="10", offset="20")
    assert _page(api, endpoint, limit="1e1", offset="2E+1") == plain
    assert plain["meta"]["limit"] == 10
    assert plain["meta"]["offset"] == 20
    for huge in ("1e17", "1e400", "1e2000000000000000000"):  # any size: reduced
        assert _page(api, endpoint, limit=huge)["meta"]["limit"] == endpoint.maximum
    assert _page(api, endpoint, status=400, offset="1e400")["error"]["param"] == "offset"


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("limit", ["0", "-1", "-100", *NOT_INTEGERS])
def test_limit_below_one_or_not_a_plain_integer_is_a_400_naming_limit(
    api, endpoint: Endpoint, limit: str
) -> None:
    body = _page(api, endpoint, status=400, limit=limit)
    assert body["success"] is False
    assert body["error"]["code"] == 400
    assert body["error"]["param"] == "limit"
    assert "limit" in body["error"]["message"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("offset", ["-1", "-20", str(MAX_OFFSET + 1), "99999999999", *NOT_INTEGERS])
def test_negative_huge_or_malformed_offset_is_a_400_naming_offset(
    api, endpoint: Endpoint, offset: str
) -> None:
    body = _page(api, endpoint, status=400, offset=offset)
    assert body["success"] is False
    assert body["error"]["code"] == 400
    assert body["error"]["param"] == "offset"
    assert "offset" in body["error"]["message"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_offset_at_the_maximum_is_accepted_and_returns_an_empty_page(
    api, session: Session, reference_day: date, endpoint: Endpoint
) -> None:
    total = len(endpoint.expected(session, reference_day))
    body = _page(api, endpoint, offset=str(MAX_OFFSET))
    assert body["data"] == []
    assert body["meta"] == {"total": total, "limit": 20, "offset": MAX_OFFSET}

"""service.dispensary_lists.list_dispensaries on the shared tiny dataset: filters, order, proximity.

Expected rows come from the generated dataset in plain Python. Without a ZIP code dispensaries
are ordered by name in lower case, then id; with one, nearest first (great-circle miles from
the ZIP's coordinates, computed here with the textbook haversine), then name, then id, and only
those within the radius (50 miles unless given) are listed.
"""

import itertools
import math
import re
from collections import Counter
from typing import Any

import pytest
import zipcodes
from sqlalchemy import Connection, select
from sqlalchemy.orm import Session

from models import Dispensary
from seed import Dataset
from service.dispensary_lists import list_dispensaries
from service.dispensary_rows import DispensaryRow
from service.errors import InvalidParameter
from service.filters import DispensaryFilters
from service.paging import PageRequest
from service.places import Near
from tests.distances import EARTH_RADIUS_MILES, haversine_miles
from tests.filters import dispensary_filters
from tests.service.pages import walk, window

# Python and the database compute distances with different roundings at the last bits: an
# expected distance this close to the radius, or to its neighbour, would make a test flaky.
MARGIN = 1e-6


def _matches(shop: dict[str, Any], filters: dict[str, Any]) -> bool:
    keys = {"state": "state", "city": "city_key", "type": "type", "delivery": "delivery"}
    return all(shop[keys[name]] == value for name, value in filters.items())


def _expected(dataset: Dataset, **filters: Any) -> list[str]:
    """Public ids of the dataset's dispensaries matching ``filters`` (normalised), by name."""
    chosen = [shop for shop in dataset.dispensaries if _matches(shop, filters)]
    chosen.sort(key=lambda shop: (shop["name"].lower(), shop["id"]))
    return [shop["public_id"] for shop in chosen]


def _nearby(dataset: Dataset, code: str, radius: float, **filters: Any) -> dict[str, float]:
    """Public id -> miles from ``code`` for matching dispensaries within ``radius``, in order."""
    record = zipcodes.matching(code)[0]
    lat, lng = float(record["lat"]), float(record["long"])
    found = []
    for shop in dataset.dispensaries:
        if _matches(shop, filters):
            miles = haversine_miles(lat, lng, shop["lat"], shop["lng"])
            assert abs(miles - radius) > MARGIN, f"{shop['public_id']} lies on the radius"
            if miles <= radius:
                found.append((miles, shop["name"].lower(), shop["id"], shop["public_id"]))
    found.sort()
    for before, after in itertools.pairwise(found):
        assert before[0] == after[0] or after[0] - before[0] > MARGIN, "distances too close"
    return {public_id: miles for miles, _, _, public_id in found}


def _ids(rows: list[DispensaryRow]) -> list[str]:
    return [row.public_id for row in rows]


def _all(db: Connection, **filters: Any) -> list[DispensaryRow]:
    chosen = dispensary_filters(**filters)
    return walk(lambda page: list_dispensaries(db, chosen, page))


# --- by name ----------------------------------------------------------------------------------


def test_every_dispensary_is_listed_by_lower_case_name_then_id(
    db: Connection, dataset: Dataset
) -> None:
    found = _all(db)
    assert len(found) == 120
    assert _ids(found) == _expected(dataset)


def test_a_listed_dispensary_carries_its_columns_and_no_distance(
    db: Connection, dataset: Dataset
) -> None:
    by_id = {shop["public_id"]: shop for shop in dataset.dispensaries}
    stamped = select(Dispensary.public_id, Dispensary.updated_at, Dispensary.menu_updated_at)
    stamps = {public_id: stamps for public_id, *stamps in db.execute(stamped)}
    for row in _all(db):
        shop = by_id[row.public_id]
        assert row == DispensaryRow(
            id=shop["id"],
            public_id=shop["public_id"],
            name=shop["name"],
            address=f"{shop['street']}, {shop['city']}, {shop['state']} {shop['zip']}",
            type=shop["type"],
            rating=shop["rating"],
            delivery=shop["delivery"],
            hours=shop["hours"],
            phone=shop["phone"],
            website=shop["website"],
            review_count=shop["review_count"],
            state=shop["state"],
            lat=shop["lat"],
            lng=shop["lng"],
            timezone=shop["timezone"],
            updated_at=stamps[row.public_id][0],
            menu_updated_at=stamps[row.public_id][1],
            distance=None,
        )


def test_dispensaries_sharing_a_name_follow_each_other_by_id(
    db: Connection, dataset: Dataset
) -> None:
    twins = sorted(
        shop["id"] for shop in dataset.dispensaries if shop["name"] == "Santa Barbara Dispensary"
    )
    assert len(twins) == 2
    found = [row.id for row in _all(db) if row.name == "Santa Barbara Dispensary"]
    assert found == twins
    positions = [row.id for row in _all(db)]
    assert positions.index(twins[1]) == positions.index(twins[0]) + 1


@pytest.mark.parametrize(
    ("given", "code"),
    [
        ("ca", "CA"),
        ("CA", "CA"),
        (" Tx ", "TX"),
        ("pr", "PR"),
        ("Tx", "TX"),
        ("ny", "NY"),
        ("PR", "PR"),
        ("dc", "DC"),
        (" ny ", "NY"),
    ],
)
def test_state_filter_ignores_case_and_keeps_only_that_state(
    db: Connection, dataset: Dataset, given: str, code: str
) -> None:
    found = _all(db, state=given)
    assert found, f"the tiny dataset has dispensaries in {code}"
    assert _ids(found) == _expected(dataset, state=code)
    assert {row.state for row in found} == {code}
    assert all(re.search(rf", {code} [0-9]{{5}}$", row.address) for row in found)


@pytest.mark.parametrize("code", ["WY", "ks", "AS", "GA"])
def test_a_known_state_without_dispensaries_gives_an_empty_page_with_total_zero(
    db: Connection, dataset: Dataset, code: str
) -> None:
    assert not _expected(dataset, state=code.upper())
    page = list_dispensaries(db, DispensaryFilters.create(state=code), PageRequest.build())
    assert (page.items, page.total) == ([], 0)


@pytest.mark.parametrize("given", ["Los Angeles", "los angeles", "LOS ANGELES", "  los   Angeles "])
def test_city_filter_ignores_case_and_extra_spaces(
    db: Connection, dataset: Dataset, given: str
) -> None:
    found = _all(db, state="CA", city=given)
    assert _ids(found) == _expected(dataset, state="CA", city="los angeles")
    assert len(found) == 3


@pytest.mark.parametrize("given", ["Los Angeles", "los angeles", "LOS ANGELES"])
def test_city_filter_without_a_state_ignores_case(
    db: Connection, dataset: Dataset, given: str
) -> None:
    city_of = {shop["public_id"]: shop["city"] for shop in dataset.dispensaries}
    found = _all(db, city=given)
    assert {city_of[row.public_id] for row in found} == {"Los Angeles"}
    expected = [shop for shop in dataset.dispensaries if shop["city"] == "Los Angeles"]
    assert len(found) == len(expected) == 3


def test_city_and_state_combine(db: Connection, dataset: Dataset) -> None:
    place_of = {shop["public_id"]: (shop["city"], shop["state"]) for shop in dataset.dispensaries}
    counts = Counter(place_of.values())
    (city, state), count = min(counts.items(), key=lambda pair: (-pair[1], pair[0][0]))
    found = _all(db, city=city.upper(), state=state.lower())
    assert found
    assert {place_of[row.public_id] for row in found} == {(city, state)}
    assert len(found) == count
    other = "CA" if state != "CA" else "TX"
    page = list_dispensaries(
        db, DispensaryFilters.create(city=city, state=other), PageRequest.build()
    )
    assert page.total == counts[(city, other)]


@pytest.mark.parametrize("city", ["Greenville", "huntsville"])
def test_a_city_without_a_state_matches_that_city_in_every_state(
    db: Connection, dataset: Dataset, city: str
) -> None:
    found = _all(db, city=city)
    assert _ids(found) == _expected(dataset, city=city.lower())
    assert len({row.state for row in found}) == 2


def test_an_unknown_city_gives_an_empty_page(db: Connection) -> None:
    page = list_dispensaries(db, DispensaryFilters.create(city="Atlantis"), PageRequest.build())
    assert (page.items, page.total) == ([], 0)


@pytest.mark.parametrize(
    ("given", "folded"),
    [
        ("recreational", "recreational"),
        ("MEDICAL", "medical"),
        (" Both ", "both"),
        ("medical", "medical"),
        ("both", "both"),
        ("Recreational", "recreational"),
    ],
)
def test_type_filter_ignores_case_and_keeps_exactly_that_type(
    db: Connection, dataset: Dataset, given: str, folded: str
) -> None:
    found = _all(db, type=given)
    assert found
    assert _ids(found) == _expected(dataset, type=folded)
    assert {row.type for row in found} == {folded}


@pytest.mark.parametrize(("delivery", "count"), [(True, 38), (False, 82)])
def test_delivery_filter_keeps_only_matching_dispensaries(
    db: Connection, dataset: Dataset, delivery: bool, count: int
) -> None:
    found = _all(db, delivery=delivery)
    assert _ids(found) == _expected(dataset, delivery=delivery)
    assert len(found) == count


@pytest.mark.parametrize(
    "filters",
    [
        {"state": "CA", "delivery": True},
        {"state": "TX", "type": "medical"},
        {"type": "both", "delivery": False},
        {"state": "CA", "city": "santa barbara", "type": "both"},
    ],
)
def test_filters_combine_with_and(db: Connection, dataset: Dataset, filters: dict) -> None:
    expected = _expected(dataset, **filters)
    assert expected
    assert _ids(_all(db, **filters)) == expected


# --- by distance ------------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["94110", "10001", "20001", "60601", "90012", "33101"])
def test_a_zip_lists_dispensaries_within_50_miles_nearest_first(
    db: Connection, dataset: Dataset, code: str
) -> None:
    expected = _nearby(dataset, code, 50.0)
    assert expected, f"the tiny dataset has dispensaries near {code}"
    found = _all(db, zip=code)
    assert _ids(found) == list(expected)
    for row in found:
        assert row.distance == round(row.distance, 1)
        assert abs(row.distance - expected[row.public_id]) <= 0.05 + 1e-9


@pytest.mark.parametrize(
    ("code", "radius", "count"),
    [("10001", 5.0, 1), ("20001", 100.5, 7), ("43215", 500.0, 40), ("94110", 0.1, 0)],
)
def test_the_radius_bounds_the_zip_search(
    db: Connection, dataset: Dataset, code: str, radius: float, count: int
) -> None:
    found = _all(db, zip=code, radius=radius)
    assert _ids(found) == list(_nearby(dataset, code, radius))
    assert len(found) == count
    assert all(row.distance <= radius for row in found)
    assert len(_nearby(dataset, code, math.inf)) > len(_nearby(dataset, code, radius))


@pytest.mark.parametrize(
    "filters",
    [
        {"state": "va", "type": "RECREATIONAL"},
        {"state": "pa", "type": "medical"},
        {"delivery": True},
        {"state": "MD", "delivery": False},
        {"city": "washington"},
    ],
)
def test_a_zip_search_combines_with_the_other_filters(
    db: Connection, dataset: Dataset, filters: dict
) -> None:
    normalised = dispensary_filters(**filters)
    # One value each: the filters hold them as one-value tuples ("any of").
    chosen = {
        name: value[0] if isinstance(value := getattr(normalised, name), tuple) else value
        for name in filters
    }
    expected = _nearby(dataset, "20001", 500.0, **chosen)
    assert expected
    assert _ids(_all(db, zip="20001", radius=500.0, **filters)) == list(expected)


def test_a_zip_search_for_medical_dispensaries_in_virginia_lists_what_matches_nearest_first(
    db: Connection, dataset: Dataset
) -> None:
    found = _all(db, zip="20001", radius=500.0, state="va", type="MEDICAL")
    expected = _nearby(dataset, "20001", 500.0, state="VA", type="medical")
    assert set(_ids(found)) == set(expected)
    assert all(row.state == "VA" for row in found)
    assert all(row.type == "medical" for row in found)
    distances = [row.distance for row in found]
    assert distances == sorted(distances)


def test_a_dispensary_just_inside_the_radius_at_the_circles_widest_longitude_is_found(
    session: Session,
) -> None:
    code, radius = "59901", 500.0  # Kalispell, MT
    record = zipcodes.matching(code)[0]
    lat, lng = float(record["lat"]), float(record["long"])
    x = (radius - 0.05) / EARTH_RADIUS_MILES
    far_lat = math.degrees(math.asin(math.sin(math.radians(lat)) / math.cos(x)))
    far_lng = lng + math.degrees(math.asin(math.sin(x) / math.cos(math.radians(lat))))
    assert haversine_miles(lat, lng, far_lat, far_lng) <= radius
    session.add(
        Dispensary(
            public_id="disp_990001",
            name="Edge Of The Circle",
            street="1 Rim Rd",
            city="Edge",
            city_key="edge",
            state="MT",
            zip="59001",
            lat=far_lat,
            lng=far_lng,
            timezone="America/Denver",
            type="both",
            rating=4.0,
            review_count=0,
            delivery=False,
            hours={"mon": "9:00-17:00"},
            phone="(406) 555-0100",
            website="https://edge.example",
        )
    )
    session.flush()
    chosen = dispensary_filters(zip=code, radius=radius)
    found = walk(lambda page: list_dispensaries(session.connection(), chosen, page))
    assert "disp_990001" in {row.public_id for row in found}


def test_a_zip_with_nothing_within_the_radius_gives_an_empty_page(
    db: Connection, dataset: Dataset
) -> None:
    assert not _nearby(dataset, "59901", 5.0)
    filters = dispensary_filters(zip="59901", radius=5.0)
    page = list_dispensaries(db, filters, PageRequest.build())
    assert (page.items, page.total) == ([], 0)


# --- errors -----------------------------------------------------------------------------------

RADIUS_RANGE = "radius must be a number of miles greater than 0 and at most 500"
STATE_CODE = "state must be a two-letter code of a US state, DC or territory (e.g. CA, NY, PR)"
CITY_NAME = "city must be a city name of 1 to 80 characters"


@pytest.mark.parametrize(
    ("values", "param", "message"),
    [
        (
            {"radius": 5.0},
            "radius",
            "radius needs zip or lat/lng (it is a distance from that point)",
        ),
        ({"zip": "10001", "radius": 0.0}, "radius", RADIUS_RANGE),
        ({"zip": "10001", "radius": -1.0}, "radius", RADIUS_RANGE),
        ({"zip": "10001", "radius": 500.1}, "radius", RADIUS_RANGE),
        ({"zip": "10001", "radius": float("nan")}, "radius", RADIUS_RANGE),
        ({"zip": "10001", "radius": float("inf")}, "radius", RADIUS_RANGE),
        ({"zip": "1234"}, "zip", "zip must be a five-digit US ZIP code"),
        ({"zip": "123456"}, "zip", "zip must be a five-digit US ZIP code"),
        ({"zip": "abcde"}, "zip", "zip must be a five-digit US ZIP code"),
        ({"zip": ""}, "zip", "zip must be a five-digit US ZIP code"),
        ({"zip": "00000"}, "zip", "zip 00000 is not a known US ZIP code"),
        ({"zip": "99999"}, "zip", "zip 99999 is not a known US ZIP code"),
        ({"state": "XX"}, "state", STATE_CODE),
        ({"state": "California"}, "state", STATE_CODE),
        ({"state": ""}, "state", STATE_CODE),
        ({"state": "C\u0391"}, "state", STATE_CODE),
        ({"type": "hybrid"}, "type", "type must be one of: recreational, medical, both"),
        ({"type": ""}, "type", "type must be one of: recreational, medical, both"),
        ({"city": ""}, "city", CITY_NAME),
        ({"city": "   "}, "city", CITY_NAME),
        ({"city": "x" * 81}, "city", CITY_NAME),
        ({"city": "los\x00angeles"}, "city", CITY_NAME),
    ],
)
def test_bad_filters_raise_invalid_parameter_naming_it(
    values: dict, param: str, message: str
) -> None:
    with pytest.raises(InvalidParameter) as raised:
        dispensary_filters(**values)
    assert (raised.value.param, raised.value.message, raised.value.code) == (param, message, 400)


def test_a_radius_of_exactly_500_miles_and_a_padded_zip_are_accepted() -> None:
    filters = dispensary_filters(zip=" 20001 ", radius=500.0)
    assert isinstance(filters.where, Near)
    assert (filters.where.zip, filters.radius) == ("20001", 500.0)


def test_the_radius_defaults_to_50_miles_only_with_a_zip() -> None:
    assert dispensary_filters(zip="20001").radius == 50.0
    assert DispensaryFilters.create().radius is None


@pytest.mark.parametrize(("limit", "offset"), [(5, 0), (5, 3), (2, 40), (10, 500)])
def test_every_window_of_a_zip_search_holds_its_slice_and_the_full_total(
    db: Connection, dataset: Dataset, limit: int, offset: int
) -> None:
    expected = list(_nearby(dataset, "20001", 500.0))
    filters = dispensary_filters(zip="20001", radius=500.0)
    page = list_dispensaries(db, filters, PageRequest.build(limit, offset))
    assert _ids(page.items) == window(expected, limit, offset)
    assert page.total == len(expected)

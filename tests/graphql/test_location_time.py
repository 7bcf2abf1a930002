"""Where and when over GraphQL: near, bbox, zip, openNow, openAt, sort, lists of values and
where to buy a strain answer as REST does for the same request; errors name the argument."""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select
from sqlalchemy.orm import Session

import web.today
from graphql_schema.enums import DealSort, PlaceSort
from models import Dispensary
from service.filters import DEAL_SORTS, PLACE_SORTS, STOCKIST_SORTS
from service.hours import open_state
from tests.menus import most_listed_strain

FRIDAY_EVENING = "2026-12-04T19:30:00-07:00"
DENVER = {"lat": 39.7392, "lng": -104.9903}


def _rest_all(api, path: str, **params: Any) -> list[dict]:
    items: list[dict] = []
    while True:
        body = api.json(path, limit=100, offset=len(items), **params)
        items.extend(body["data"])
        if len(items) >= body["meta"]["total"]:
            return items


def _gql_all(gql, field: str, arguments: str, selection: str, page: int = 100) -> list[dict]:
    items: list[dict] = []
    while True:
        args = f"{arguments}, limit: {page}, offset: {len(items)}"
        found = gql.data(f"{{ {field}({args}) {{ total items {{ {selection} }} }} }}")[field]
        items.extend(found["items"])
        if len(items) >= found["total"]:
            return items


# --- where: the same rows, order and distances as REST ------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "params"),
    [
        (
            "near: {lat: 39.7392, lng: -104.9903, radius: 300}",
            {"lat": "39.7392", "lng": "-104.9903", "radius": "300"},
        ),
        ('zip: "80202", radius: 120', {"zip": "80202", "radius": "120"}),
        (
            "bbox: {west: -109.1, south: 36.9, east: -102.0, north: 41.1}",
            {"bbox": "-109.1,36.9,-102.0,41.1"},
        ),
        (
            "near: {lat: 39.7392, lng: -104.9903, radius: 500}, sort: RATING_DESC",
            {"lat": "39.7392", "lng": "-104.9903", "radius": "500", "sort": "-rating"},
        ),
    ],
    ids=["near", "zip", "bbox", "near by rating"],
)
@pytest.mark.parametrize(
    ("field", "path"), [("dispensaries", "/api/v1/dispensaries"), ("doctors", "/api/v1/doctors")]
)
def test_places_near_a_point_or_in_a_box_equal_rests(
    gql, api, field: str, path: str, arguments: str, params: dict[str, str]
) -> None:
    page = 50 if field == "doctors" else 100
    found = _gql_all(gql, field, arguments, "id distance location { lat lng }", page)
    rest = _rest_all(api, path, **params) if field != "doctors" else _doctors(api, params)
    assert len(found) >= 1  # the tiny dataset has few doctors in Colorado
    assert [(i["id"], i["distance"]) for i in found] == [(i["id"], i.get("distance")) for i in rest]
    assert [i["location"] for i in found] == [{"lat": i["lat"], "lng": i["lng"]} for i in rest]


def _doctors(api, params: dict[str, str]) -> list[dict]:
    items: list[dict] = []
    while True:
        body = api.json("/api/v1/doctors", limit=50, offset=len(items), **params)
        items.extend(body["data"])
        if len(items) >= body["meta"]["total"]:
            return items


def test_nearest_first_is_the_default_around_a_point_with_distances_in_order(gql) -> None:
    items = _gql_all(gql, "dispensaries", 'zip: "80202", radius: 200', "distance")
    distances = [i["distance"] for i in items]
    assert distances == sorted(distances)
    assert len(items) > 1
    assert distances[-1] <= 200


def test_deals_near_a_point_sorted_by_distance_equal_rests(gql, api) -> None:
    arguments = "near: {lat: 39.7392, lng: -104.9903, radius: 100}, sort: DISTANCE"
    found = _gql_all(gql, "deals", arguments, "id distance")
    rest = _rest_all(
        api, "/api/v1/deals", lat="39.7392", lng="-104.9903", radius="100", sort="distance"
    )
    assert len(found) > 1
    assert [(i["id"], i["distance"]) for i in found] == [(i["id"], i["distance"]) for i in rest]


def test_outside_a_point_search_distance_is_null(gql) -> None:
    data = gql.data("{ deals(limit: 2) { items { distance } } doctors(limit: 2) { items { "
                    "distance timezone } } }")  # fmt: skip
    assert [i["distance"] for i in data["deals"]["items"]] == [None, None]
    assert [i["distance"] for i in data["doctors"]["items"]] == [None, None]
    assert all(i["timezone"].count("/") >= 1 for i in data["doctors"]["items"])


# --- lists of values and sorts ---------------------------------------------------------------


def test_several_states_and_types_match_any_of_them_as_rests_comma_lists(gql, api) -> None:
    found = _gql_all(gql, "dispensaries", 'states: ["CA", "co"], types: [MEDICAL, BOTH]', "id")
    rest = _rest_all(api, "/api/v1/dispensaries", state="CA,CO", type="medical,both")
    assert [i["id"] for i in found] == [i["id"] for i in rest]
    assert len(found) > 1
    both = _gql_all(gql, "dispensaries", 'states: ["CA", "CO"]', "id")
    only_ca = _gql_all(gql, "dispensaries", 'state: "CA"', "id")
    assert 0 < len(only_ca) < len(both)


def test_strains_take_several_types_effects_and_flavors(gql, api) -> None:
    arguments = (
        'types: [INDICA, HYBRID], effects: ["relaxed", "happy"], flavors: ["earthy", "sweet"]'
    )
    found = _gql_all(gql, "strains", arguments, "slug type")
    rest = _rest_all(
        api, "/api/v1/strains", type="indica,hybrid", effect="relaxed,happy", flavor="earthy,sweet"
    )
    assert [i["slug"] for i in found] == [i["slug"] for i in rest]
    assert {i["type"] for i in found} == {"INDICA", "HYBRID"}


def test_deals_take_several_categories(gql, api) -> None:
    found = _gql_all(gql, "deals", 'categories: ["flower", "EDIBLES"]', "id category")
    rest = _rest_all(api, "/api/v1/deals", category="flower,edibles")
    assert [i["id"] for i in found] == [i["id"] for i in rest]
    assert {i["category"] for i in found} == {"flower", "edibles"}


@pytest.mark.parametrize(("sort", "reverse"), [("RATING", False), ("RATING_DESC", True)])
def test_rating_sorts_order_by_rating_then_name(gql, sort: str, reverse: bool) -> None:
    items = _gql_all(gql, "dispensaries", f'state: "CA", sort: {sort}', "rating")
    ratings = [i["rating"] for i in items]
    assert ratings == sorted(ratings, reverse=reverse)
    assert ratings[0] != ratings[-1]


def test_sort_enums_carry_the_services_values() -> None:
    # PlaceSort also has the order only a strain's dispensaries take (the other lists refuse it).
    assert tuple(s.value for s in PlaceSort) == STOCKIST_SORTS
    assert (*PLACE_SORTS, "price_per_gram") == STOCKIST_SORTS
    assert tuple(s.value for s in DealSort) == DEAL_SORTS


# --- when: openAt, openNow, isOpen and nextChange -------------------------------------------


def test_open_at_keeps_those_open_then_with_their_next_change(gql, session: Session) -> None:
    at = datetime.fromisoformat(FRIDAY_EVENING)
    items = _gql_all(gql, "dispensaries", f'openAt: "{FRIDAY_EVENING}"', "id isOpen nextChange")
    rows = session.scalars(select(Dispensary).order_by(Dispensary.sort_key, Dispensary.id))
    expected = {}
    for row in rows:
        state = open_state(row.hours, row.timezone, at)
        if state.is_open:
            change = state.next_change.isoformat() if state.next_change else None
            expected[row.public_id] = change
    assert 0 < len(items) < session.scalar(select(func.count()).select_from(Dispensary))
    assert [i["id"] for i in items] == list(expected)
    assert all(i["isOpen"] is True for i in items)
    assert {i["id"]: i["nextChange"] for i in items} == expected


def test_open_at_equals_rest_for_deals_and_dispensaries(gql, api) -> None:
    for field, path in (("dispensaries", "/api/v1/dispensaries"), ("deals", "/api/v1/deals")):
        found = _gql_all(gql, field, f'openAt: "{FRIDAY_EVENING}"', "id")
        rest = _rest_all(api, path, open_at=FRIDAY_EVENING)
        assert [i["id"] for i in found] == [i["id"] for i in rest], field


def test_is_open_elsewhere_is_at_the_requests_minute(
    gql, monkeypatch: pytest.MonkeyPatch, session: Session
) -> None:
    instant = datetime(2026, 12, 6, 3, 0, 42, tzinfo=UTC)
    monkeypatch.setattr(web.today, "_read_clock", lambda: instant)
    row = session.scalar(select(Dispensary).order_by(Dispensary.id))
    data = gql.data(
        f'{{ dispensary(id: "{row.public_id}") {{ isOpen nextChange timezone '
        "location { lat lng } } }"
    )["dispensary"]
    state = open_state(row.hours, row.timezone, instant.replace(second=0))
    change = state.next_change.isoformat() if state.next_change else None
    assert data == {
        "isOpen": state.is_open,
        "nextChange": change,
        "timezone": row.timezone,
        "location": {"lat": row.lat, "lng": row.lng},
    }


def test_open_now_false_reports_every_dispensary_with_its_state_now(
    gql, monkeypatch: pytest.MonkeyPatch, session: Session
) -> None:
    instant = datetime(2026, 12, 4, 19, 30, 42, tzinfo=UTC)
    monkeypatch.setattr(web.today, "_read_clock", lambda: instant)
    reported = _gql_all(gql, "dispensaries", "openNow: false", "id isOpen")
    opened = _gql_all(gql, "dispensaries", "openNow: true", "id isOpen")
    assert len(reported) == session.scalar(select(func.count()).select_from(Dispensary))
    assert [i["id"] for i in reported if i["isOpen"]] == [i["id"] for i in opened]
    assert 0 < len(opened) < len(reported)


# --- where to buy a strain ------------------------------------------------------------------


def test_strain_dispensaries_near_a_point_carry_price_and_unit_as_rest(
    gql, api, session: Session
) -> None:
    strain = most_listed_strain(session)
    data = gql.data(
        f'{{ strain(slug: "{strain.slug}") {{ dispensaries(near: {{lat: 39.7392, '
        "lng: -104.9903, radius: 500}, limit: 100) { id distance price unit } } }"
    )["strain"]["dispensaries"]
    rest = api.json(
        f"/api/v1/strains/{strain.slug}/dispensaries",
        lat="39.7392",
        lng="-104.9903",
        radius="500",
        limit=100,
    )
    assert rest["meta"]["total"] > 0
    assert [(i["id"], i["distance"], i["price"], i["unit"]) for i in data] == [
        (i["id"], i["distance"], i["price"], i["unit"]) for i in rest["data"]
    ]


def test_strain_dispensaries_open_at_and_sorted_equal_rest(gql, api, session: Session) -> None:
    strain = most_listed_strain(session)
    data = gql.data(
        f'{{ strain(slug: "{strain.slug}") {{ dispensaries(openAt: "{FRIDAY_EVENING}", '
        "sort: RATING_DESC, limit: 100) { id isOpen price } } }"
    )["strain"]["dispensaries"]
    rest = api.json(
        f"/api/v1/strains/{strain.slug}/dispensaries",
        open_at=FRIDAY_EVENING,
        sort="-rating",
        limit=100,
    )
    assert [(i["id"], i["price"]) for i in data] == [(i["id"], i["price"]) for i in rest["data"]]
    assert len(data) > 0
    assert all(i["isOpen"] is True for i in data)


# --- errors name the GraphQL argument --------------------------------------------------------

ELEVEN_STATES = '["CA", "CO", "NY", "WA", "OR", "NV", "AZ", "MI", "IL", "MA", "NJ"]'


@pytest.mark.parametrize(
    ("field", "arguments", "message", "param"),
    [
        (
            "dispensaries",
            "near: {lat: 91, lng: 0}",
            "near.lat must be a decimal number from -90 to 90 (e.g. 37.7749)",
            "near.lat",
        ),
        (
            "doctors",
            "near: {lat: 10, lng: -180.5}",
            "near.lng must be a decimal number from -180 to 180 (e.g. -122.4194)",
            "near.lng",
        ),
        (
            "dispensaries",
            "near: {lat: 39.7, lng: -105, radius: 501}",
            "near.radius must be a number of miles greater than 0 and at most 500",
            "near.radius",
        ),
        (
            "dispensaries",
            "near: {lat: 39.7, lng: -105}, radius: 10",
            "radius is a distance from zip; around near, give near.radius",
            "radius",
        ),
        (
            "dispensaries",
            "bbox: {west: 170, south: -20, east: -170, north: -10}",
            "bbox crosses the antimeridian (west is greater than east); ask for the two boxes on "
            "either side of longitude 180 separately",
            "bbox",
        ),
        (
            "doctors",
            'zip: "80202", near: {lat: 39.7, lng: -105}',
            "zip and near.lat/near.lng cannot be combined: give one location",
            "near.lat",
        ),
        (
            "dispensaries",
            "near: {lat: 39.7, lng: -105}, bbox: {west: -1, south: -1, east: 1, north: 1}",
            "near.lat/near.lng and bbox cannot be combined: give one location",
            "bbox",
        ),
        ("dispensaries", f"states: {ELEVEN_STATES}", "states takes at most 10 values", "states"),
        ("deals", f"states: {ELEVEN_STATES}", "states takes at most 10 values", "states"),
        (
            "dispensaries",
            "sort: DISTANCE",
            "sort=distance needs a point to measure from: zip or lat/lng",
            "sort",
        ),
        (
            "deals",
            "sort: DISTANCE",
            "sort=distance needs a point to measure from: zip or lat/lng",
            "sort",
        ),
        (
            "dispensaries",
            f'openNow: true, openAt: "{FRIDAY_EVENING}"',
            "openNow and openAt cannot be combined: ask about one instant",
            "openAt",
        ),
        (
            "deals",
            'openAt: "1969-12-31T23:59:00Z"',  # a DateTime before 1970
            "openAt must be an ISO 8601 date and time with a UTC offset, e.g. "
            "2026-12-24T18:30:00-08:00 (years 1970 to 2100)",
            "openAt",
        ),
    ],
)
def test_a_bad_location_time_or_list_argument_names_it(
    gql, field: str, arguments: str, message: str, param: str
) -> None:
    body = gql(f"{{ {field}({arguments}) {{ total }} }}")
    assert body["data"] == {field: None}
    [error] = body["errors"]
    assert error["message"] == message
    assert error["extensions"] == {"code": 400, "param": param}


def test_a_bad_strain_dispensaries_argument_nulls_the_strain(gql, session: Session) -> None:
    strain = most_listed_strain(session)
    body = gql(
        f'{{ strain(slug: "{strain.slug}") {{ slug dispensaries(bbox: {{west: 1, south: 2, '
        "east: 3, north: 1}) { id } } }"
    )
    # The list is non-null, as it always was: the error reaches the (nullable) strain.
    assert body["data"] == {"strain": None}
    [error] = body["errors"]
    assert error["message"] == "bbox south must not be greater than north"
    assert error["extensions"] == {"code": 400, "param": "bbox"}
    assert error["path"] == ["strain", "dispensaries"]


# --- cost and caching ----------------------------------------------------------------------


def test_the_cost_estimate_counts_strain_dispensaries_as_a_list_of_its_limit(
    gql, session: Session, work
) -> None:
    slug = most_listed_strain(session).slug
    body = gql(
        f'{{ strain(slug: "{slug}") {{ dispensaries(limit: 7, near: {{lat: 39.7, lng: -105}}) '
        "{ id price unit } } }"
    )
    # 7 x (the dispensary 1 + id 1 + price 1 + unit 1); strain 1. The work: the strain, its
    # stockists around the point (50 miles), and the price and unit of each of the 7.
    worked = work.field("Query", "strain", slug=slug)
    worked += work.field("Strain", "dispensaries", limit=7, near={"lat": 39.7, "lng": -105})
    worked += work.field("Dispensary", "price", 7) + work.field("Dispensary", "unit", 7)
    assert body["extensions"]["cost"]["requested"] == 1 + 7 * 4 + worked


@pytest.mark.usefixtures("speed_tricks")
def test_a_cached_answer_about_now_is_not_given_after_its_minute(
    make_app, api_keys: dict, monkeypatch: pytest.MonkeyPatch, session: Session
) -> None:
    """The result cache keeps an answer that read the clock only for that minute (the replay
    lane is off here: STATE_TTL_MS=0)."""
    app: Flask = make_app(STATE_TTL_MS=0)
    client = app.test_client()
    row = session.scalar(select(Dispensary).order_by(Dispensary.id))
    first = datetime(2026, 12, 4, 19, 30, 5, tzinfo=UTC)
    change = open_state(row.hours, row.timezone, first).next_change
    assert change is not None
    clock = {"at": first}
    monkeypatch.setattr(web.today, "_read_clock", lambda: clock["at"])
    query = {"query": f'{{ dispensary(id: "{row.public_id}") {{ isOpen }} }}'}
    post: Callable[[], Any] = lambda: client.post(  # noqa: E731
        "/graphql", json=query, headers={"X-API-Key": api_keys["enterprise"]}
    ).get_json()["data"]["dispensary"]["isOpen"]
    was = post()
    clock["at"] = first + timedelta(seconds=50)
    assert post() is was
    clock["at"] = change.astimezone(UTC) + timedelta(seconds=1)
    assert post() is (not was)


@pytest.mark.parametrize(
    ("field", "other"),
    [("dispensaries", 'state: "XX"'), ("deals", 'city: "   "')],
)
def test_with_two_bad_arguments_the_time_is_named_before_the_other_filters(
    gql, field: str, other: str
) -> None:
    """As on REST: the place, then the time, then the other filters (docs/changelog.md)."""
    query = f'{{ {field}({other}, openNow: true, openAt: "{FRIDAY_EVENING}") {{ total }} }}'
    [error] = gql.errors(query)
    assert error["extensions"]["param"] == "openAt"
    assert error["message"].startswith("openNow and openAt cannot be combined")
    [error] = gql.errors(f"{{ {field}({other}) {{ total }} }}")
    assert error["extensions"]["param"] == other.split(":")[0]

"""Near me, open now: lat/lng, bbox, open_now/open_at, sort, multi-value filters and where to
buy a strain, on /dispensaries, /doctors, /deals and /strains/{slug}/dispensaries.

Expected answers are worked out here from the rows themselves: distances by the haversine
formula, opening by zoneinfo from each row's own hours and zone (tests/opening.py).
"""

import itertools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select
from sqlalchemy.orm import Session

import web.accel.replay
import web.today
from models import Dispensary, Doctor, MenuItem
from service.geo import Point, miles_from
from tests.distances import haversine_miles
from tests.menus import most_listed_strain, shown_lab
from tests.opening import is_open_at

LIST_FIELDS = ["id", "name", "address", "type", "rating", "delivery", "hours"]
PLACE_FIELDS = ["lat", "lng", "timezone"]
STAMP_FIELDS = ["updated_at", "menu_updated_at"]  # after every other field
# Instants the tests ask about: a Friday evening and a Sunday morning in the US.
FRIDAY_EVENING = "2026-12-04T19:30:00-08:00"
SUNDAY_MORNING = "2026-12-06T09:15:00-05:00"


def _walk(api, path: str, **params: Any) -> list[dict[str, Any]]:
    """Every item of a list, page by page (100 at a time)."""
    items: list[dict[str, Any]] = []
    while True:
        body = api.json(path, limit=100, offset=len(items), **params)
        items += body["data"]
        if len(items) >= body["meta"]["total"] or not body["data"]:
            assert len(items) == body["meta"]["total"]
            return items


def _error(api, path: str, **params: Any) -> dict[str, Any]:
    body = api.json(path, status=400, **params)
    assert body["success"] is False
    return body["error"]


@pytest.fixture
def busiest(session: Session) -> Dispensary:
    """A dispensary in the state with the most of them (its neighbours make the lists long)."""
    rows = session.scalars(select(Dispensary)).all()
    by_state: dict[str, int] = {}
    for row in rows:
        by_state[row.state] = by_state.get(row.state, 0) + 1
    state = max(by_state, key=lambda code: (by_state[code], code))
    return min((row for row in rows if row.state == state), key=lambda row: row.id)


# --- where ----------------------------------------------------------------------------------


def test_lat_lng_lists_nearest_first_within_the_radius_with_exact_distances(
    api, session: Session, busiest: Dispensary
) -> None:
    lat, lng = round(busiest.lat + 0.05, 4), round(busiest.lng - 0.05, 4)
    items = _walk(api, "/api/v1/dispensaries", lat=lat, lng=lng, radius=120)
    rows = {row.public_id: row for row in session.scalars(select(Dispensary))}
    expected = sorted(
        (
            (haversine_miles(lat, lng, row.lat, row.lng), row.sort_key, row.id, public_id)
            for public_id, row in rows.items()
            if haversine_miles(lat, lng, row.lat, row.lng) <= 120
        ),
    )
    assert [item["id"] for item in items] == [public_id for *_, public_id in expected]
    for item, (miles, *_) in zip(items, expected, strict=True):
        assert item["distance"] == pytest.approx(round(miles, 1), abs=0.051)
        assert list(item) == [*LIST_FIELDS, "distance", *PLACE_FIELDS, *STAMP_FIELDS]
        row = rows[item["id"]]
        assert (item["lat"], item["lng"], item["timezone"]) == (row.lat, row.lng, row.timezone)


def test_a_zip_and_its_own_coordinates_give_the_same_list(api) -> None:
    by_zip = api.json("/api/v1/dispensaries", zip="80202", radius=60, limit=50)
    by_point = api.json("/api/v1/dispensaries", lat="39.7530", lng="-104.9990", radius=60, limit=50)
    # 80202's point in the offline ZIP data; the two points are a mile apart at most.
    assert by_zip["meta"]["total"] > 0
    assert {i["id"] for i in by_zip["data"]} & {i["id"] for i in by_point["data"]}


def test_bbox_keeps_exactly_what_lies_inside_by_name(
    api, session: Session, busiest: Dispensary
) -> None:
    west, south = busiest.lng - 1.5, busiest.lat - 1.0
    east, north = busiest.lng + 1.5, busiest.lat + 1.0
    bbox = f"{west:.4f},{south:.4f},{east:.4f},{north:.4f}"
    w, s, e, n = (float(part) for part in bbox.split(","))
    items = _walk(api, "/api/v1/dispensaries", bbox=bbox)
    inside = sorted(
        (row.sort_key, row.id, row.public_id)
        for row in session.scalars(select(Dispensary))
        if s <= row.lat <= n and w <= row.lng <= e
    )
    assert [item["id"] for item in items] == [public_id for *_, public_id in inside]
    assert inside
    assert all("distance" not in item for item in items)


def test_a_box_as_large_as_the_world_pages_as_usual(api) -> None:
    body = api.json("/api/v1/dispensaries", bbox="-180,-90,180,90", limit=3)
    everything = api.json("/api/v1/dispensaries", limit=3)
    assert body["meta"] == everything["meta"]
    assert [i["id"] for i in body["data"]] == [i["id"] for i in everything["data"]]


@pytest.mark.parametrize("path", ["/api/v1/dispensaries", "/api/v1/doctors"])
def test_a_box_across_the_antimeridian_is_a_400(api, path: str) -> None:
    error = _error(api, path, bbox="170,50,-170,60")
    assert error["param"] == "bbox"
    assert "antimeridian" in error["message"]


@pytest.mark.parametrize(
    ("params", "param", "says"),
    [
        ({"lat": "37.7", "lng": "-122.4", "zip": "94110"}, "lat", "zip and lat/lng"),
        ({"zip": "94110", "bbox": "-123,37,-122,38"}, "bbox", "zip and bbox"),
        ({"lat": "37.7", "lng": "-122.4", "bbox": "-123,37,-122,38"}, "bbox", "lat/lng and bbox"),
        ({"lat": "91", "lng": "0"}, "lat", "from -90 to 90"),
        ({"lat": "NaN", "lng": "0"}, "lat", "from -90 to 90"),
        ({"lat": "1e2", "lng": "0"}, "lat", "from -90 to 90"),
        ({"lat": "1e-400", "lng": "0"}, "lat", "from -90 to 90"),
        ({"lat": "\u0663\u0667", "lng": "0"}, "lat", "from -90 to 90"),
        ({"lat": "10", "lng": "180.5"}, "lng", "from -180 to 180"),
        ({"lat": "10"}, "lat", "lng is missing"),
        ({"radius": "5"}, "radius", "needs zip or lat/lng"),
        ({"sort": "distance"}, "sort", "needs a point"),
        ({"sort": "price"}, "sort", "must be one of"),
        ({"open_now": "true", "open_at": FRIDAY_EVENING}, "open_at", "cannot be combined"),
        ({"open_at": "2026-12-04T19:30:00"}, "open_at", "UTC offset"),
        ({"state": "CA,,CO"}, "state", "empty value"),
        ({"type": ",".join(["medical"] * 11)}, "type", "at most 10"),
    ],
)
def test_bad_location_time_and_choice_parameters_are_400s_naming_them(
    api, params: dict, param: str, says: str
) -> None:
    error = _error(api, "/api/v1/dispensaries", **params)
    assert error["param"] == param
    assert says in error["message"]


def test_deals_near_a_point_come_nearest_first_with_their_dispensary_distance(
    api, session: Session, busiest: Dispensary
) -> None:
    lat, lng = busiest.lat, busiest.lng
    deals = _walk(api, "/api/v1/deals", lat=lat, lng=lng, radius=200)
    assert deals
    where = {row.public_id: row for row in session.scalars(select(Dispensary))}
    distances = [d["distance"] for d in deals]
    assert distances == sorted(distances)
    for deal in deals:
        row = where[deal["dispensary_id"]]
        assert deal["distance"] == pytest.approx(
            round(haversine_miles(lat, lng, row.lat, row.lng), 1), abs=0.051
        )
    by_expiry = _walk(api, "/api/v1/deals", lat=lat, lng=lng, radius=200, sort="expires")
    assert sorted(d["id"] for d in by_expiry) == sorted(d["id"] for d in deals)
    assert [d["expires"] for d in by_expiry] == sorted(d["expires"] for d in by_expiry)
    assert _error(api, "/api/v1/deals", bbox="-1,-1,1,1")["param"] == "bbox"


def test_doctors_near_a_point_and_in_a_box(api, session: Session) -> None:
    doctor = session.scalars(select(Doctor).order_by(Doctor.id)).first()
    assert doctor is not None
    near = _walk(api, "/api/v1/doctors", lat=doctor.lat, lng=doctor.lng, radius=100)
    assert near[0]["distance"] == 0.0
    assert list(near[0]) == [
        "id", "name", "city", "state", "telehealth", "rating", "price",
        *PLACE_FIELDS, "distance", "updated_at",
    ]  # fmt: skip
    expected = sorted(
        (round(haversine_miles(doctor.lat, doctor.lng, d.lat, d.lng), 1), d.sort_key, d.id)
        for d in session.scalars(select(Doctor))
        if haversine_miles(doctor.lat, doctor.lng, d.lat, d.lng) <= 100
    )
    assert [d["distance"] for d in near] == pytest.approx([e[0] for e in expected], abs=0.051)
    bbox = f"{doctor.lng - 1:.4f},{doctor.lat - 1:.4f},{doctor.lng + 1:.4f},{doctor.lat + 1:.4f}"
    boxed = _walk(api, "/api/v1/doctors", bbox=bbox)
    assert doctor.public_id in {d["id"] for d in boxed}
    detail = api.json(f"/api/v1/doctors/{doctor.public_id}")["data"]
    assert (detail["lat"], detail["lng"], detail["timezone"]) == (
        doctor.lat, doctor.lng, doctor.timezone,
    )  # fmt: skip
    assert "distance" not in detail


# --- choice ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/v1/dispensaries", "/api/v1/doctors"])
@pytest.mark.parametrize("sort", ["rating", "-rating", "name"])
def test_sorted_pages_are_stable_and_ties_go_to_the_name(api, path: str, sort: str) -> None:
    everything = _walk(api, path, sort=sort)
    paged: list[dict[str, Any]] = []
    for offset in range(0, len(everything), 7):
        paged += api.json(path, sort=sort, limit=7, offset=offset)["data"]
    assert [i["id"] for i in paged] == [i["id"] for i in everything]
    ratings = [i["rating"] for i in everything]
    if sort == "rating":
        assert ratings == sorted(ratings)
    elif sort == "-rating":
        assert ratings == sorted(ratings, reverse=True)
    names = {i["id"]: i["name"].casefold() for i in everything}
    for a, b in itertools.pairwise(everything):
        if sort == "name" or a["rating"] == b["rating"]:
            assert names[a["id"]] <= names[b["id"]]


@pytest.mark.parametrize(
    ("path", "param", "values"),
    [
        ("/api/v1/dispensaries", "state", ("CA", "CO")),
        ("/api/v1/dispensaries", "type", ("medical", "both")),
        ("/api/v1/doctors", "state", ("CA", "NY")),
        ("/api/v1/deals", "state", ("CA", "CO")),
        ("/api/v1/deals", "category", ("flower", "edibles")),
        ("/api/v1/strains", "type", ("indica", "sativa")),
        ("/api/v1/strains", "effect", ("relaxed", "focused")),
        ("/api/v1/strains", "flavor", ("earthy", "citrus")),
    ],
)
def test_comma_separated_values_match_any_of_them(
    api, path: str, param: str, values: tuple[str, str]
) -> None:
    apart = [
        {i["id"] if "id" in i else i["slug"] for i in _walk(api, path, **{param: v})}
        for v in values
    ]
    together = _walk(api, path, **{param: ",".join(values)})
    keys = [i["id"] if "id" in i else i["slug"] for i in together]
    assert set(keys) == apart[0] | apart[1]
    assert len(keys) == len(set(keys))  # an item matching both is listed once
    assert apart[0]
    assert apart[1]


def test_effect_and_flavor_lists_combine_with_the_other_filters(api) -> None:
    both = _walk(api, "/api/v1/strains", effect="relaxed,happy", flavor="earthy,sweet")
    for strain in both:
        assert {"relaxed", "happy"} & set(strain["effects"])
        assert {"earthy", "sweet"} & set(strain["flavors"])
    typed = _walk(api, "/api/v1/strains", effect="relaxed,happy", type="hybrid,indica")
    assert all(s["type"] in ("hybrid", "indica") for s in typed)


# --- when -----------------------------------------------------------------------------------


def _expected_open(session: Session, at: datetime) -> list[str]:
    return [
        row.public_id
        for row in session.scalars(select(Dispensary).order_by(Dispensary.sort_key, Dispensary.id))
        if is_open_at(row.hours, row.timezone, at)
    ]


@pytest.mark.parametrize("at", [FRIDAY_EVENING, SUNDAY_MORNING, "2026-12-05T08:30:00Z"])
def test_open_at_keeps_exactly_those_open_then_in_their_own_zones(
    api, session: Session, at: str
) -> None:
    items = _walk(api, "/api/v1/dispensaries", open_at=at)
    instant = datetime.fromisoformat(at)
    assert [i["id"] for i in items] == _expected_open(session, instant)
    for item in items:
        assert item["is_open"] is True
        change = datetime.fromisoformat(item["next_change"])
        assert change > instant
        assert not is_open_at(item["hours"], item["timezone"], change)
        assert is_open_at(item["hours"], item["timezone"], change - timedelta(minutes=1))
        assert list(item)[-4:] == ["is_open", "next_change", *STAMP_FIELDS]


def test_open_now_uses_the_requests_minute(
    api, monkeypatch: pytest.MonkeyPatch, session: Session
) -> None:
    instant = datetime(2026, 12, 4, 19, 30, 42, tzinfo=UTC)
    monkeypatch.setattr(web.today, "_read_clock", lambda: instant)
    now = _walk(api, "/api/v1/dispensaries", open_now="true")
    minute = instant.replace(second=0)
    assert [i["id"] for i in now] == _expected_open(session, minute)
    reported = _walk(api, "/api/v1/dispensaries", open_now="false")
    assert len(reported) == session.query(Dispensary).count()
    assert [i["id"] for i in reported if i["is_open"]] == [i["id"] for i in now]


@pytest.mark.parametrize(
    "place",
    [
        {"bbox": "-120.0,31.0,-102.0,45.0"},  # the Mountain West: a box its index narrows
        {"bbox": "-125.0,24.0,-66.0,50.0"},  # the continental US: rows tested one by one
        {"lat": "39.7392", "lng": "-104.9903", "radius": "500"},
    ],
)
def test_open_now_false_says_of_every_row_in_a_place_whether_it_is_open(
    api, monkeypatch: pytest.MonkeyPatch, place: dict[str, str]
) -> None:
    instant = datetime(2026, 12, 5, 4, 30, tzinfo=UTC)  # Friday evening in the US: some closed
    monkeypatch.setattr(web.today, "_read_clock", lambda: instant)
    now = _walk(api, "/api/v1/dispensaries", open_now="true", **place)
    reported = _walk(api, "/api/v1/dispensaries", open_now="false", **place)
    assert now
    assert len(reported) > len(now)
    assert [i["id"] for i in reported if i["is_open"]] == [i["id"] for i in now]
    assert all(i["is_open"] is False for i in reported if i["id"] not in {n["id"] for n in now})


def test_the_detail_always_says_whether_it_is_open_now(
    api, monkeypatch: pytest.MonkeyPatch, busiest: Dispensary
) -> None:
    instant = datetime(2026, 12, 6, 3, 0, tzinfo=UTC)
    monkeypatch.setattr(web.today, "_read_clock", lambda: instant)
    detail = api.json(f"/api/v1/dispensaries/{busiest.public_id}")["data"]
    assert list(detail)[-7:] == [*PLACE_FIELDS, "is_open", "next_change", *STAMP_FIELDS]
    assert detail["is_open"] is is_open_at(busiest.hours, busiest.timezone, instant)
    assert detail["timezone"] == busiest.timezone


def test_deals_open_now_keep_those_whose_dispensary_is_open(api, session: Session) -> None:
    at = datetime.fromisoformat(FRIDAY_EVENING)
    deals = _walk(api, "/api/v1/deals", open_at=FRIDAY_EVENING)
    every = _walk(api, "/api/v1/deals")
    where = {row.public_id: row for row in session.scalars(select(Dispensary))}
    expected = [
        d["id"] for d in every
        if is_open_at(where[d["dispensary_id"]].hours, where[d["dispensary_id"]].timezone, at)
    ]  # fmt: skip
    assert [d["id"] for d in deals] == expected
    assert 0 < len(deals) < len(every)


# --- clock-dependent answers are tagged and replayed only within their minute ---------------


def _etag(client, path: str, key: str) -> str:
    response = client.get(path, headers={"X-API-Key": key})
    assert response.status_code == 200
    return response.headers["ETag"]


@pytest.mark.parametrize(
    "path", ["/api/v1/dispensaries?open_now=true&limit=3", "/api/v1/dispensaries/disp_1001"]
)
def test_an_answer_about_now_is_tagged_with_its_minute(
    make_app, api_keys: dict, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    app: Flask = make_app(PAGE_CACHE_MB=0)
    client = app.test_client()
    clock = {"at": datetime(2026, 11, 1, 8, 59, 5, tzinfo=UTC)}
    monkeypatch.setattr(web.today, "_read_clock", lambda: clock["at"])
    first = _etag(client, path, api_keys["pro"])
    clock["at"] += timedelta(seconds=50)
    assert _etag(client, path, api_keys["pro"]) == first  # the same minute
    clock["at"] += timedelta(seconds=10)
    assert _etag(client, path, api_keys["pro"]) != first  # the next minute


def test_an_answer_about_a_fixed_instant_keeps_its_tag(
    make_app, api_keys: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    app: Flask = make_app(PAGE_CACHE_MB=0)
    client = app.test_client()
    clock = {"at": datetime(2026, 11, 1, 8, 59, 5, tzinfo=UTC)}
    monkeypatch.setattr(web.today, "_read_clock", lambda: clock["at"])
    path = f"/api/v1/dispensaries?open_at={FRIDAY_EVENING.replace('+', '%2B')}&limit=3"
    first = _etag(client, path, api_keys["pro"])
    clock["at"] += timedelta(minutes=5)
    assert _etag(client, path, api_keys["pro"]) == first


@pytest.mark.usefixtures("speed_tricks")
def test_a_stored_answer_about_now_is_not_replayed_after_its_minute(
    make_app, api_keys: dict, monkeypatch: pytest.MonkeyPatch, count_statements: Callable
) -> None:
    # STATE_TTL_MS: a slow first request must not make the repeat read the key and version.
    app: Flask = make_app(STATE_TTL_MS=60_000)
    client = app.test_client()
    headers = {"X-API-Key": api_keys["pro"]}
    path = "/api/v1/dispensaries?open_now=true&limit=3"
    minute = datetime.now(UTC).replace(second=0, microsecond=0)
    monkeypatch.setattr(web.today, "_read_clock", lambda: minute)
    assert client.get(path, headers=headers).status_code == 200
    monkeypatch.setattr(web.accel.replay.time, "time", lambda: minute.timestamp() + 30)
    with count_statements(app) as seen:
        assert client.get(path, headers=headers).status_code == 200
    assert seen == []  # replayed within its minute
    monkeypatch.setattr(web.accel.replay.time, "time", lambda: minute.timestamp() + 60)
    with count_statements(app) as seen:
        assert client.get(path, headers=headers).status_code == 200
    assert seen  # past it: answered afresh


# --- where to buy ---------------------------------------------------------------------------


def test_where_to_buy_lists_the_dispensaries_stocking_the_strain_with_price_and_unit(
    api, session: Session
) -> None:
    strain = most_listed_strain(session)
    items = _walk(api, f"/api/v1/strains/{strain.slug}/dispensaries")
    offers: dict[int, list[MenuItem]] = {}
    for item in session.scalars(select(MenuItem).where(MenuItem.strain_id == strain.id)):
        offers.setdefault(item.dispensary_id, []).append(item)
    stocking = sorted(
        (session.get(Dispensary, id_) for id_ in offers), key=lambda d: (d.sort_key, d.id)
    )
    assert [i["id"] for i in items] == [d.public_id for d in stocking]
    for item, dispensary in zip(items, stocking, strict=True):
        cheapest = min(offers[dispensary.id], key=lambda m: (m.price, m.position))
        assert (item["price"], item["unit"]) == (cheapest.price, cheapest.unit)
        assert item["price_per_gram"] == cheapest.price_per_gram
        assert item["lab"] == shown_lab(cheapest)
        assert list(item)[-6:] == ["price", "unit", "lab", "price_per_gram", *STAMP_FIELDS]


def test_where_to_buy_near_a_point_open_at_an_instant(api, session: Session) -> None:
    strain = most_listed_strain(session)
    everywhere = _walk(api, f"/api/v1/strains/{strain.slug}/dispensaries")
    first = session.scalars(
        select(Dispensary).where(Dispensary.public_id == everywhere[0]["id"])
    ).one()
    near = _walk(
        api, f"/api/v1/strains/{strain.slug}/dispensaries", lat=first.lat, lng=first.lng,
        radius=500, open_at=FRIDAY_EVENING,
    )  # fmt: skip
    at = datetime.fromisoformat(FRIDAY_EVENING)
    assert [i["distance"] for i in near] == sorted(i["distance"] for i in near)
    assert all(i["is_open"] and is_open_at(i["hours"], i["timezone"], at) for i in near)
    assert {i["id"] for i in near} <= {i["id"] for i in everywhere}


@pytest.mark.parametrize("radius", [5, 60, 500])
@pytest.mark.parametrize("open_now", [None, "false"])
def test_where_to_buy_near_a_point_is_every_stockist_within_the_radius_nearest_first(
    api, session: Session, radius: int, open_now: str | None
) -> None:
    strain = most_listed_strain(session)
    stockists = set(
        session.scalars(select(MenuItem.dispensary_id).where(MenuItem.strain_id == strain.id))
    )
    shops = session.scalars(select(Dispensary).where(Dispensary.id.in_(stockists))).all()
    origin = min(shops, key=lambda shop: shop.id)
    miles = miles_from(Point(origin.lat, origin.lng))
    expected = sorted(
        (miles(shop.lat, shop.lng), shop.sort_key, shop.id, shop.public_id)
        for shop in shops
        if miles(shop.lat, shop.lng) <= radius
    )
    extra = {} if open_now is None else {"open_now": open_now}
    found = _walk(
        api, f"/api/v1/strains/{strain.slug}/dispensaries", lat=origin.lat, lng=origin.lng,
        radius=radius, **extra,
    )  # fmt: skip
    assert [item["id"] for item in found] == [public_id for *_, public_id in expected]
    assert [item["distance"] for item in found] == [round(d, 1) for d, *_ in expected]


def test_where_to_buy_an_unknown_strain_is_a_404(api) -> None:
    body = api.json("/api/v1/strains/no-such-strain/dispensaries", status=404)
    assert "no strain" in body["error"]["message"]
    assert (
        _error(api, "/api/v1/strains/no-such-strain/dispensaries", lat="95", lng="0")["param"]
        == "lat"
    )


@pytest.mark.parametrize(
    ("path", "other"),
    [
        ("/api/v1/dispensaries", {"state": "XX"}),
        ("/api/v1/dispensaries", {"type": "bakery"}),
        ("/api/v1/deals", {"category": "cars"}),
        ("/api/v1/deals", {"city": "   "}),
    ],
)
def test_with_two_bad_parameters_the_place_then_the_time_are_named_first(
    api, path: str, other: dict[str, str]
) -> None:
    """The place is read first, then the time, then the other filters (docs/changelog.md)."""
    bad_time = {"open_at": "tonight"}
    assert api.json(path, status=400, **other, **bad_time)["error"]["param"] == "open_at"
    both = {"zip": "94110", "lat": "37.7", "lng": "-122.4"}
    assert api.json(path, status=400, **other, **bad_time, **both)["error"]["param"] == "lat"
    assert api.json(path, status=400, **other)["error"]["param"] == next(iter(other))

"""Change stamps over REST: updated_at (and a dispensary's menu_updated_at) on every object,
the updated_since filter and the sort by stamp on every list."""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask

from tests.stamps import BASE, STAMP, Stamps, ms, restamp, text

# Each list: its path, the kind of its items, the key each item carries and its page size.
LISTS = [
    ("/api/v1/strains", "strains", "slug"),
    ("/api/v1/dispensaries", "dispensaries", "id"),
    ("/api/v1/deals", "deals", "id"),
    ("/api/v1/doctors", "doctors", "id"),
    ("/api/v1/laws", "laws", "stateCode"),
]
PAGED = [entry for entry in LISTS if entry[1] != "laws"]  # laws come in one page


@pytest.fixture
def stamps(app: Flask) -> Iterator[Stamps]:
    with restamp(app) as written:
        yield written


def _all(api, path: str, **params: Any) -> list[dict[str, Any]]:
    """Every item of a list, in pages of 7 (laws: its one page)."""
    if path.endswith("/laws"):
        return api.json(path, **params)["data"]
    items: list[dict[str, Any]] = []
    while True:
        body = api.json(path, limit=7, offset=len(items), **params)
        items.extend(body["data"])
        if len(items) >= body["meta"]["total"] or not body["data"]:
            assert len(items) == body["meta"]["total"]
            return items


def _error(api, path: str, **params: Any) -> dict[str, Any]:
    body = api.json(path, status=400, **params)
    assert body["success"] is False
    return body["error"]


# --- the fields ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "kind", "key"), LISTS)
def test_list_items_end_with_their_stamp_as_rfc_3339_utc_milliseconds(
    api, stamps: Stamps, path: str, kind: str, key: str
) -> None:
    items = _all(api, path)
    written = getattr(stamps, kind)
    assert len(items) == len(written) or kind == "deals"  # expired deals are not listed
    for item in items:
        last = ["updated_at", "menu_updated_at"] if kind == "dispensaries" else ["updated_at"]
        assert list(item)[-len(last) :] == last
        assert STAMP.fullmatch(item["updated_at"])
        assert item["updated_at"] == text(written[item[key]])
        if kind == "dispensaries":
            assert item["menu_updated_at"] == text(stamps.menus[item["id"]])


def test_details_and_near_me_hits_end_with_their_stamps(api, stamps: Stamps) -> None:
    strain = api.json("/api/v1/strains/" + next(iter(stamps.strains)))["data"]
    assert list(strain)[-3:] == ["chemistry", "lineage", "updated_at"]
    assert strain["updated_at"] == text(stamps.strains[strain["slug"]])
    place = next(iter(stamps.dispensaries))
    detail = api.json(f"/api/v1/dispensaries/{place}")["data"]
    assert list(detail)[-3:] == ["next_change", "updated_at", "menu_updated_at"]
    assert detail["updated_at"] == text(stamps.dispensaries[place])
    assert detail["menu_updated_at"] == text(stamps.menus[place])
    near = api.json("/api/v1/dispensaries", **_around(api), open_now="false")
    hit = near["data"][0]
    assert list(hit)[-5:] == ["timezone", "is_open", "next_change", "updated_at", "menu_updated_at"]
    assert hit["menu_updated_at"] == text(stamps.menus[hit["id"]])
    law = api.json("/api/v1/laws/CO")["data"]
    assert list(law)[-2:] == ["updated", "updated_at"]
    assert law["updated_at"] == text(stamps.laws["CO"])
    doctor = api.json("/api/v1/doctors/" + next(iter(stamps.doctors)))["data"]
    assert list(doctor)[-1] == "updated_at"
    deal = _all(api, "/api/v1/deals")[0]
    assert api.json(f"/api/v1/deals/{deal['id']}")["data"] == deal


def test_a_strains_stockists_end_with_price_unit_and_the_stamps(api, stamps: Stamps) -> None:
    slug = _stocked_slug(api)
    stockists = api.json(f"/api/v1/strains/{slug}/dispensaries")["data"]
    assert stockists
    for hit in stockists:
        last = ["price", "unit", "lab", "price_per_gram", "updated_at", "menu_updated_at"]
        assert list(hit)[-6:] == last
        assert hit["updated_at"] == text(stamps.dispensaries[hit["id"]])


def _around(api) -> dict[str, Any]:
    """A circle of 500 miles around the first dispensary."""
    first = api.json("/api/v1/dispensaries", limit=1)["data"][0]
    return {"lat": first["lat"], "lng": first["lng"], "radius": 500}


def _stocked_slug(api) -> str:
    """A strain some menu lists (the one on most menus is not needed: any will do)."""
    for strain in _all(api, "/api/v1/strains"):
        found = api.json(f"/api/v1/strains/{strain['slug']}/dispensaries")
        if found["meta"]["total"] >= 3:
            return strain["slug"]
    raise AssertionError("no strain is on three menus")


# --- updated_since -------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "kind", "key"), LISTS)
def test_updated_since_keeps_what_changed_at_or_after_it(
    api, stamps: Stamps, path: str, kind: str, key: str
) -> None:
    boundary = BASE + ms(5)
    listed = {item[key] for item in _all(api, path)}  # deals: only the active ones
    expected = stamps.since(kind, boundary) & listed
    assert 0 < len(expected) < len(listed)
    found = _all(api, path, updated_since=text(boundary))
    assert {item[key] for item in found} == expected
    assert all(item["updated_at"] >= text(boundary) for item in found)
    # The same instant with an offset, and 1 ms later: the items stamped exactly then go.
    assert {
        item[key] for item in _all(api, path, updated_since="2025-06-01T14:00:00.005+02:00")
    } == (expected)
    at_boundary = {k for k in expected if getattr(stamps, kind)[k] == boundary}
    assert at_boundary
    later = {item[key] for item in _all(api, path, updated_since=text(boundary + ms(1)))}
    assert later == expected - at_boundary


def test_updated_since_combines_with_the_other_filters_and_totals_count_them(
    api, stamps: Stamps
) -> None:
    since = text(BASE + ms(3))
    for path, key, filters in (
        ("/api/v1/strains", "slug", {"type": "hybrid"}),
        ("/api/v1/dispensaries", "id", {"delivery": "true"}),
        ("/api/v1/deals", "id", {"category": "flower"}),
        ("/api/v1/doctors", "id", {"telehealth": "true"}),
        ("/api/v1/laws", "stateCode", {"recreational": "true"}),
    ):
        filtered = {item[key]: item for item in _all(api, path, **filters)}
        stamped = {k for k, item in filtered.items() if item["updated_at"] >= since}
        assert 0 < len(stamped) < len(filtered), path
        body = (
            api.json(path, updated_since=since, limit=2, **filters)
            if key != "stateCode"
            else (api.json(path, updated_since=since, **filters))
        )
        assert body["meta"]["total"] == len(stamped), path
        assert {item[key] for item in _all(api, path, updated_since=since, **filters)} == stamped


def test_updated_since_combines_with_a_place_and_an_order(api, stamps: Stamps) -> None:
    since = text(BASE + ms(4))
    near = _around(api)
    everywhere = _all(api, "/api/v1/dispensaries", **near)
    expected = [item["id"] for item in everywhere if item["updated_at"] >= since]
    found = _all(api, "/api/v1/dispensaries", updated_since=since, **near)
    assert [item["id"] for item in found] == expected  # nearest first, as without it
    slug = _stocked_slug(api)
    stockists = _all(api, f"/api/v1/strains/{slug}/dispensaries")
    stamped = [item["id"] for item in stockists if item["updated_at"] >= since]
    path = f"/api/v1/strains/{slug}/dispensaries"
    assert [item["id"] for item in _all(api, path, updated_since=since)] == stamped
    keys = stamps.keys["dispensaries"]
    oldest = sorted(stockists, key=lambda i: (stamps.dispensaries[i["id"]], keys[i["id"]]))
    by_stamp = _all(api, path, sort="updated_at")
    assert [item["id"] for item in by_stamp] == [item["id"] for item in oldest]
    assert [i["id"] for i in _all(api, path, sort="-updated_at")] == [i["id"] for i in oldest][::-1]


@pytest.mark.parametrize(("path", "kind", "key"), LISTS)
def test_updated_since_matching_nothing_is_an_empty_page(
    api, stamps: Stamps, path: str, kind: str, key: str
) -> None:
    body = api.json(path, updated_since=text(BASE + ms(11)))
    assert body["data"] == []
    assert body["meta"]["total"] == 0


@pytest.mark.parametrize("path", [entry[0] for entry in LISTS] + ["/api/v1/strains/x/dispensaries"])
@pytest.mark.parametrize(
    "value",
    [
        "2026-11-27",
        "2026-11-27T10:04Z",  # RFC 3339 needs the seconds
        "2026-11-27T10:04:11.123",  # and an offset
        "2026-11-27 10:04:11Z",
        "2026-13-01T00:00:00Z",
        "yesterday",
        "",
    ],
)
def test_updated_since_not_rfc_3339_is_a_400_naming_it(api, path: str, value: str) -> None:
    error = _error(api, path, updated_since=value)
    assert error["param"] == "updated_since"
    assert "RFC 3339" in error["message"]
    assert "2026-11-27T10:04:11.123Z" in error["message"]


@pytest.mark.parametrize("path", [entry[0] for entry in LISTS])
def test_updated_since_in_the_future_is_a_400_naming_it(api, path: str) -> None:
    soon = datetime.now(UTC) + timedelta(minutes=2)
    error = _error(api, path, updated_since=text(soon))
    assert error["param"] == "updated_since"
    assert "future" in error["message"]


def test_updated_since_takes_lower_case_t_and_z_and_nanoseconds(api, stamps: Stamps) -> None:
    boundary = BASE + ms(5)
    expected = stamps.since("strains", boundary)
    for written in ("2025-06-01t12:00:00.005z", "2025-06-01T12:00:00.005000000Z"):
        assert {item["slug"] for item in _all(api, "/api/v1/strains", updated_since=written)} == (
            expected
        )
    # A nanosecond after the boundary already leaves the strains stamped at it out.
    late = {
        i["slug"]
        for i in _all(api, "/api/v1/strains", updated_since="2025-06-01T12:00:00.005000001Z")
    }
    assert late == stamps.since("strains", boundary + ms(1))


# --- sort ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "kind", "key"), LISTS)
def test_sort_by_stamp_orders_oldest_first_ties_by_key_and_the_reverse(
    api, stamps: Stamps, path: str, kind: str, key: str
) -> None:
    listed = {item[key] for item in _all(api, path)}
    written = getattr(stamps, kind)
    oldest = sorted(listed, key=lambda k: (written[k], stamps.keys[kind][k]))
    assert [item[key] for item in _all(api, path, sort="updated_at")] == oldest
    assert [item[key] for item in _all(api, path, sort="-updated_at")] == oldest[::-1]
    since = text(BASE + ms(6))
    stamped = [k for k in oldest if written[k] >= BASE + ms(6)]
    assert [item[key] for item in _all(api, path, sort="UPDATED_AT ", updated_since=since)] == (
        stamped
    )


@pytest.mark.parametrize(("path", "kind", "key"), PAGED)
def test_pages_by_stamp_are_stable_across_every_page_size(
    api, stamps: Stamps, path: str, kind: str, key: str
) -> None:
    whole = [item[key] for item in _all(api, path, sort="updated_at")]
    for size in (1, 4, 9):
        paged: list[str] = []
        while len(paged) < len(whole):
            page = api.json(path, sort="updated_at", limit=size, offset=len(paged))["data"]
            assert page
            paged.extend(item[key] for item in page)
        assert paged == whole


def test_strains_and_laws_take_a_sort_whose_default_is_todays_order(api) -> None:
    strains = _all(api, "/api/v1/strains")
    assert [s["slug"] for s in _all(api, "/api/v1/strains", sort="name")] == [
        s["slug"] for s in strains
    ]
    laws = api.json("/api/v1/laws")["data"]
    codes = [law["stateCode"] for law in laws]
    assert codes == sorted(codes)
    assert api.json("/api/v1/laws", sort="state_code")["data"] == laws


@pytest.mark.parametrize(("path", "kind", "key"), LISTS)
def test_an_unknown_sort_names_the_stamp_orders(api, path: str, kind: str, key: str) -> None:
    error = _error(api, path, sort="updated")
    assert error["param"] == "sort"
    assert "updated_at, -updated_at" in error["message"]


@pytest.mark.parametrize("path", [entry[0] for entry in LISTS])
def test_updated_since_at_the_ends_of_the_calendar_is_a_page_or_a_400(api, path: str) -> None:
    everything = api.json(path)["meta"]["total"]
    assert api.json(path, updated_since="0001-01-01T00:00:00+01:00")["meta"]["total"] == everything
    error = _error(api, path, updated_since="9999-12-31T23:59:59-01:00")
    assert error["param"] == "updated_since"

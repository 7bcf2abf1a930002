"""GraphQL dispensaries and dispensary: rendering of every field (hours, distance), lookups,
and the nested deals, menu, reviews and law of each dispensary."""

from collections import defaultdict
from datetime import date
from typing import Any

import pytest
import zipcodes
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models import Deal, Dispensary, Law, MenuItem, Review, Strain, StrainTerpene
from tests.distances import haversine_miles
from tests.graphql.expected import (
    DEAL_FIELDS,
    DISPENSARY_FIELDS,
    LAW_FIELDS,
    STRAIN_FIELDS,
    WEEKDAYS,
    _active_deals,
    _all,
    _deal_dict,
    _dispensary_dict,
    _dispensary_ids,
    _law_dict,
    _rest_all,
    _strain_dicts,
    _traits,
)


def test_every_dispensary_field_equals_its_row_ordered_by_name_then_id(
    gql, session: Session
) -> None:
    items = _all(gql, "dispensaries", DISPENSARY_FIELDS)
    rows = {d.public_id: d for d in session.scalars(select(Dispensary))}
    assert [i["id"] for i in items] == _dispensary_ids(session)
    assert len(items) == 120
    for item in items:
        assert item == _dispensary_dict(rows[item["id"]])


def test_hours_are_null_exactly_on_closed_days(gql, session: Session) -> None:
    partial = session.scalars(select(Dispensary).order_by(Dispensary.id)).all()
    closed_some_day = next(d for d in partial if len(d.hours) < 7)
    data = gql.data(
        f'{{ dispensary(id: "{closed_some_day.public_id}") '
        "{ hours { mon tue wed thu fri sat sun } } }"
    )
    hours = data["dispensary"]["hours"]
    closed = [day for day in WEEKDAYS if day not in closed_some_day.hours]
    assert closed
    assert [day for day, span in hours.items() if span is None] == closed
    assert {day: span for day, span in hours.items() if span is not None} == closed_some_day.hours


def test_zip_search_gives_nearest_first_with_distance_in_miles(gql, session: Session) -> None:
    origin = session.scalar(
        select(Dispensary).where(Dispensary.state == "CA").order_by(Dispensary.id)
    )
    record = zipcodes.matching(origin.zip)[0]
    lat, lng = float(record["lat"]), float(record["long"])
    radius = 150
    rows = session.scalars(select(Dispensary)).all()
    within = sorted(
        (haversine_miles(lat, lng, d.lat, d.lng), d.name.lower(), d.id, d.public_id)
        for d in rows
        if haversine_miles(lat, lng, d.lat, d.lng) <= radius
    )
    items = _all(gql, "dispensaries", "id distance", f'zip: "{origin.zip}", radius: {radius}')
    assert len(within) >= 3
    assert [i["id"] for i in items] == [w[3] for w in within]
    for item, (miles, *_rest) in zip(items, within, strict=True):
        assert item["distance"] == pytest.approx(round(miles, 1), abs=0.051)
    assert items[0]["distance"] == 0.0
    distances = [i["distance"] for i in items]
    assert distances == sorted(distances)


def test_distance_is_null_without_zip(gql) -> None:
    items = _all(gql, "dispensaries", "distance")
    assert {i["distance"] for i in items} == {None}


def test_dispensary_by_id_has_every_field(gql, session: Session) -> None:
    d = session.scalar(select(Dispensary).order_by(Dispensary.id.desc()))
    data = gql.data(f'{{ dispensary(id: "{d.public_id}") {{ {DISPENSARY_FIELDS} }} }}')
    assert data == {"dispensary": _dispensary_dict(d)}


@pytest.mark.parametrize("unknown", ["disp_999999", "disp_0", "nope", "", "DISP_1006"])
def test_unknown_dispensary_id_is_null_without_errors(gql, unknown: str) -> None:
    body = gql(f'{{ dispensary(id: "{unknown}") {{ id }} }}')
    assert body["data"] == {"dispensary": None}
    assert "errors" not in body


# --- dispensary relations ----------------------------------------------------------------------


def _dispensary_with_expired_and_active_deals(session: Session, today: date) -> Dispensary:
    expired = select(Deal.dispensary_id).where(Deal.expires < today)
    active = (
        select(Deal.dispensary_id)
        .where(Deal.expires >= today)
        .group_by(Deal.dispensary_id)
        .having(func.count() >= 2)
    )
    found = session.scalar(
        select(Dispensary)
        .where(Dispensary.id.in_(expired), Dispensary.id.in_(active))
        .order_by(Dispensary.id)
    )
    assert found is not None, "the tiny dataset has a dispensary with expired and active deals"
    return found


@pytest.mark.parametrize("limit", [1, 2, 20])
def test_dispensary_deals_are_its_active_deals_by_expiry_then_id_limited(
    gql, session: Session, reference_day: date, limit: int
) -> None:
    d = _dispensary_with_expired_and_active_deals(session, reference_day)
    data = gql.data(
        f'{{ dispensary(id: "{d.public_id}") {{ deals(limit: {limit}) {{ {DEAL_FIELDS} }} }} }}'
    )
    active = _active_deals(session, reference_day, Deal.dispensary_id == d.id)
    assert [x["id"] for x in data["dispensary"]["deals"]] == [x.public_id for x in active][:limit]
    assert data["dispensary"]["deals"] == [_deal_dict(x, d.name) for x in active][:limit]
    expired = session.scalars(
        select(Deal.public_id).where(Deal.dispensary_id == d.id, Deal.expires < reference_day)
    ).all()
    assert expired
    assert not set(expired) & {x["id"] for x in data["dispensary"]["deals"]}


def test_deals_of_every_dispensary_on_a_page_are_its_own(
    gql, session: Session, reference_day: date
) -> None:
    items = _all(gql, "dispensaries", f"id name deals {{ {DEAL_FIELDS} }}")
    by_dispensary: dict[int, list[Deal]] = defaultdict(list)
    for deal in _active_deals(session, reference_day):
        by_dispensary[deal.dispensary_id].append(deal)
    rows = {d.public_id: d for d in session.scalars(select(Dispensary))}
    for item in items:
        d = rows[item["id"]]
        assert item["deals"] == [_deal_dict(x, d.name) for x in by_dispensary[d.id]], d.public_id
    assert sum(len(i["deals"]) for i in items) == len(_active_deals(session, reference_day))


def test_aliased_deal_lists_with_different_limits_each_keep_their_limit(
    gql, session: Session, reference_day: date
) -> None:
    d = _dispensary_with_expired_and_active_deals(session, reference_day)
    data = gql.data(
        f'{{ dispensary(id: "{d.public_id}") '
        "{ one: deals(limit: 1) { id } all: deals(limit: 100) { id } } }"
    )
    active = [
        x.public_id for x in _active_deals(session, reference_day, Deal.dispensary_id == d.id)
    ]
    assert [x["id"] for x in data["dispensary"]["one"]] == active[:1]
    assert [x["id"] for x in data["dispensary"]["all"]] == active
    assert len(active) >= 2


def _menu(session: Session, dispensary_id: int) -> list[dict[str, Any]]:
    rows = session.execute(
        select(MenuItem, Strain.slug, Strain.name)
        .outerjoin(Strain, MenuItem.strain_id == Strain.id)
        .where(MenuItem.dispensary_id == dispensary_id)
        .order_by(MenuItem.position, MenuItem.id)
    )
    return [
        {
            "name": item.name,
            "category": item.category,
            "price": item.price,
            "unit": item.unit,
            "strainSlug": slug,
            "strain": None if slug is None else {"slug": slug, "name": strain_name},
        }
        for item, slug, strain_name in rows
    ]


MENU_FIELDS = "name category price unit strainSlug strain { slug name }"


def _dispensary_with_mixed_menu(session: Session) -> Dispensary:
    flower = select(MenuItem.dispensary_id).where(MenuItem.strain_id.is_not(None))
    other = select(MenuItem.dispensary_id).where(MenuItem.strain_id.is_(None))
    return session.scalars(
        select(Dispensary)
        .where(Dispensary.id.in_(flower), Dispensary.id.in_(other))
        .order_by(Dispensary.id)
    ).first()


@pytest.mark.parametrize("limit", [None, 1, 4])
def test_menu_is_in_menu_order_and_strain_resolves_only_for_strain_items(
    gql, session: Session, limit: int | None
) -> None:
    d = _dispensary_with_mixed_menu(session)
    args = "" if limit is None else f"(limit: {limit})"
    data = gql.data(f'{{ dispensary(id: "{d.public_id}") {{ menu{args} {{ {MENU_FIELDS} }} }} }}')
    expected = _menu(session, d.id)
    assert len(expected) > 4
    assert {e["strain"] is None for e in expected} == {True, False}
    assert data["dispensary"]["menu"] == expected[:limit]


def test_menus_of_every_dispensary_on_a_page_are_their_own(gql, session: Session) -> None:
    # Pages of 20: 100 dispensaries with full menus are over the default cost budget.
    items = _all(gql, "dispensaries", f"id menu {{ {MENU_FIELDS} }}", page=20)
    rows = {d.public_id: d.id for d in session.scalars(select(Dispensary))}
    for item in items:
        assert item["menu"] == _menu(session, rows[item["id"]]), item["id"]
    for item in items:
        for entry in item["menu"]:
            if entry["strain"] is not None:
                assert entry["strain"]["slug"] == entry["strainSlug"]
            else:
                assert entry["strainSlug"] is None
                assert entry["category"] != "flower"


def test_menu_strain_resolves_nested_strain_fields(gql, session: Session) -> None:
    d = _dispensary_with_mixed_menu(session)
    data = gql.data(
        f'{{ dispensary(id: "{d.public_id}") '
        f"{{ menu {{ strainSlug strain {{ {STRAIN_FIELDS} terpenes }} }} }} }}"
    )
    strains = _strain_dicts(session)
    terpenes = _traits(session, StrainTerpene)
    ids = {s.slug: s.id for s in session.scalars(select(Strain))}
    resolved = [e for e in data["dispensary"]["menu"] if e["strain"] is not None]
    assert resolved
    for entry in resolved:
        slug = entry["strainSlug"]
        assert entry["strain"] == {**strains[slug], "terpenes": terpenes[ids[slug]]}


def _reviews(session: Session, dispensary_id: int) -> list[dict[str, Any]]:
    return [
        {"rating": r.rating, "text": r.text, "author": r.author, "date": r.date.isoformat()}
        for r in session.scalars(
            select(Review)
            .where(Review.dispensary_id == dispensary_id)
            .order_by(Review.date.desc(), Review.id.desc())
        )
    ]


@pytest.mark.parametrize("limit", [None, 1, 3])
def test_reviews_are_newest_first_up_to_the_limit(gql, session: Session, limit: int | None) -> None:
    dispensary_id = session.scalar(
        select(Review.dispensary_id)
        .group_by(Review.dispensary_id)
        .order_by(func.count().desc(), Review.dispensary_id)
    )
    d = session.get_one(Dispensary, dispensary_id)
    args = "" if limit is None else f"(limit: {limit})"
    data = gql.data(
        f'{{ dispensary(id: "{d.public_id}") {{ reviews{args} {{ rating text author date }} }} }}'
    )
    expected = _reviews(session, d.id)
    assert len(expected) > 3
    assert data["dispensary"]["reviews"] == expected[:limit]
    dates = [r["date"] for r in data["dispensary"]["reviews"]]
    assert dates == sorted(dates, reverse=True)


def test_reviews_of_every_dispensary_on_a_page_are_their_own(gql, session: Session) -> None:
    items = _all(gql, "dispensaries", "id reviews(limit: 2) { rating text author date }")
    rows = {d.public_id: d.id for d in session.scalars(select(Dispensary))}
    for item in items:
        assert item["reviews"] == _reviews(session, rows[item["id"]])[:2], item["id"]


def test_dispensary_law_is_the_law_row_of_its_state(gql, session: Session) -> None:
    items = _all(gql, "dispensaries", f"id law {{ {LAW_FIELDS} }}")
    laws = {law.state_code: law for law in session.scalars(select(Law))}
    rows = {d.public_id: d.state for d in session.scalars(select(Dispensary))}
    for item in items:
        assert item["law"] == _law_dict(laws[rows[item["id"]]]), item["id"]
    assert len({i["law"]["stateCode"] for i in items}) > 10


@pytest.mark.parametrize(
    ("arguments", "params"),
    [
        ('state: "ca"', {"state": "CA"}),
        ('city: "LOS ANGELES", state: "CA"', {"city": "Los Angeles", "state": "CA"}),
        ("type: RECREATIONAL", {"type": "recreational"}),
        ("type: MEDICAL", {"type": "medical"}),
        ("type: BOTH", {"type": "both"}),
        ("delivery: true", {"delivery": "true"}),
        ("delivery: false", {"delivery": "false"}),
    ],
)
def test_each_filter_argument_reaches_the_service_as_rests_parameter_does(
    gql, api, arguments: str, params: dict
) -> None:
    # Which dispensaries match is tests/service/test_dispensaries.py's; here each argument,
    # enum value and spelling must select the same dispensaries as REST's parameter.
    found = [i["id"] for i in _all(gql, "dispensaries", "id", arguments)]
    assert found == [i["id"] for i in _rest_all(api, "/api/v1/dispensaries", **params)]
    assert 0 < len(found) < 120

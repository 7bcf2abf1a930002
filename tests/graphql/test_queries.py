"""GraphQL root fields and relations, checked value by value against the database.

Expectations come from plain SQLAlchemy selects over the models (the ``session`` fixture reads
the same tiny dataset the app serves), never from the service functions the resolvers call.
"""

from collections import defaultdict
from datetime import date, timedelta
from typing import Any

import pytest
import zipcodes
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
    StrainTerpene,
)
from service.search import WORD_SEPARATORS
from tests.distances import haversine_miles
from tests.menus import most_listed_strain

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


# --- strains -----------------------------------------------------------------------------------


def test_strains_page_is_ordered_by_name_case_insensitively_then_id_with_its_window(
    gql, session: Session
) -> None:
    page = gql.data("{ strains(limit: 7, offset: 3) { total limit offset items { slug } } }")
    expected = _strain_slugs(session)
    assert page["strains"]["total"] == len(expected) == 150
    assert (page["strains"]["limit"], page["strains"]["offset"]) == (7, 3)
    assert [i["slug"] for i in page["strains"]["items"]] == expected[3:10]


def test_strains_default_page_is_the_first_twenty(gql, session: Session) -> None:
    page = gql.data("{ strains { total limit offset items { slug } } }")["strains"]
    assert (page["total"], page["limit"], page["offset"]) == (150, 20, 0)
    assert [i["slug"] for i in page["items"]] == _strain_slugs(session)[:20]


def test_every_strain_field_equals_its_row_with_traits_in_position_order(
    gql, session: Session
) -> None:
    items = _all(gql, "strains", STRAIN_FIELDS)
    expected = _strain_dicts(session)
    assert [i["slug"] for i in items] == _strain_slugs(session)
    for item in items:
        assert item == expected[item["slug"]]


@pytest.mark.parametrize("kind", ["INDICA", "SATIVA", "HYBRID"])
def test_strain_type_argument_keeps_only_that_type(gql, session: Session, kind: str) -> None:
    items = _all(gql, "strains", "slug type", f"type: {kind}")
    assert items
    assert {i["type"] for i in items} == {kind}
    assert [i["slug"] for i in items] == _strain_slugs(session, Strain.type == kind.lower())


def test_thc_and_cbd_bounds_are_inclusive(gql, session: Session) -> None:
    thcs = session.scalars(select(Strain.thc).order_by(Strain.thc)).all()
    low, high = thcs[40], thcs[90]
    items = _all(gql, "strains", "slug thc", f"thcMin: {low}, thcMax: {high}")
    expected = _strain_slugs(session, Strain.thc >= low, Strain.thc <= high)
    assert [i["slug"] for i in items] == expected
    assert min(i["thc"] for i in items) == low
    assert max(i["thc"] for i in items) == high
    cbd_items = _all(gql, "strains", "slug cbd", "cbdMin: 1")
    assert [i["slug"] for i in cbd_items] == _strain_slugs(session, Strain.cbd >= 1)
    assert 0 < len(cbd_items) < 150


@pytest.mark.parametrize(
    ("argument", "model"), [("effect", StrainEffect), ("flavor", StrainFlavor)]
)
def test_effect_and_flavor_arguments_keep_strains_having_that_trait(
    gql, session: Session, argument: str, model: type
) -> None:
    name = session.scalar(
        select(model.name).group_by(model.name).order_by(func.count().desc(), model.name)
    )
    having = select(model.strain_id).where(model.name == name)
    items = _all(gql, "strains", f"slug {argument}s", f'{argument}: "{name.upper()}"')
    assert [i["slug"] for i in items] == _strain_slugs(session, Strain.id.in_(having))
    assert all(name in i[f"{argument}s"] for i in items)


def test_strain_by_slug_has_every_field_and_terpenes_in_position_order(
    gql, session: Session
) -> None:
    strain = most_listed_strain(session)
    data = gql.data(f'{{ strain(slug: "{strain.slug}") {{ {STRAIN_FIELDS} terpenes }} }}')["strain"]
    terpenes = list(
        session.scalars(
            select(StrainTerpene.name)
            .where(StrainTerpene.strain_id == strain.id)
            .order_by(StrainTerpene.position)
        )
    )
    assert terpenes
    assert data == {**_strain_dicts(session)[strain.slug], "terpenes": terpenes}


def test_strain_slug_lookup_ignores_case(gql, session: Session) -> None:
    slug = _strain_slugs(session)[0]
    data = gql.data(f'{{ strain(slug: "{slug.upper()}") {{ slug }} }}')
    assert data == {"strain": {"slug": slug}}


@pytest.mark.parametrize("slug", ["no-such-strain", "", "blue dream!"])
def test_unknown_strain_slug_is_null_without_errors(gql, slug: str) -> None:
    body = gql(f'{{ strain(slug: "{slug}") {{ slug }} }}')
    assert body["data"] == {"strain": None}
    assert "errors" not in body


def test_terpenes_of_every_strain_on_a_page_are_its_own_in_position_order(
    gql, session: Session
) -> None:
    items = _all(gql, "strains", "slug terpenes")
    by_slug = {s.id: s.slug for s in session.scalars(select(Strain))}
    expected = {by_slug[k]: v for k, v in _traits(session, StrainTerpene).items()}
    assert {i["slug"]: i["terpenes"] for i in items} == {
        slug: expected.get(slug, []) for slug in by_slug.values()
    }


# --- strain -> dispensaries --------------------------------------------------------------------


@pytest.mark.parametrize("limit", [1, 5, 100])
def test_strain_dispensaries_are_the_distinct_listing_dispensaries_by_name_limited(
    gql, session: Session, limit: int
) -> None:
    strain = most_listed_strain(session)
    data = gql.data(
        f'{{ strain(slug: "{strain.slug}") {{ dispensaries(limit: {limit}) {{ id name }} }} }}'
    )
    expected = _listing_dispensaries(session, strain.id)
    assert len(expected) > 5
    assert [d["id"] for d in data["strain"]["dispensaries"]] == expected[:limit]


def test_strain_dispensaries_default_to_twenty(gql, session: Session) -> None:
    strain = most_listed_strain(session)
    data = gql.data(f'{{ strain(slug: "{strain.slug}") {{ dispensaries {{ id }} }} }}')
    expected = _listing_dispensaries(session, strain.id)
    assert [d["id"] for d in data["strain"]["dispensaries"]] == expected[:20]


@pytest.mark.parametrize("spelling", [str.upper, str.lower])
def test_strain_dispensaries_state_argument_scopes_to_that_state(
    gql, session: Session, spelling
) -> None:
    strain = most_listed_strain(session)
    listed = select(MenuItem.dispensary_id).where(MenuItem.strain_id == strain.id)
    state = session.scalar(
        select(Dispensary.state)
        .where(Dispensary.id.in_(listed))
        .group_by(Dispensary.state)
        .order_by(func.count().desc(), Dispensary.state)
    )
    data = gql.data(
        f'{{ strain(slug: "{strain.slug}") {{ all: dispensaries(limit: 100) {{ id }} '
        f'scoped: dispensaries(state: "{spelling(state)}", limit: 100) {{ id address }} }} }}'
    )["strain"]
    expected = _listing_dispensaries(session, strain.id, Dispensary.state == state)
    assert len(expected) >= 2
    assert len(data["all"]) > len(expected)
    assert [d["id"] for d in data["scoped"]] == expected
    assert all(d["address"].endswith(f", {state} " + d["address"][-5:]) for d in data["scoped"])


def test_strain_dispensaries_in_a_state_without_listings_are_empty(gql, session: Session) -> None:
    strain = most_listed_strain(session)
    data = gql.data(f'{{ strain(slug: "{strain.slug}") {{ dispensaries(state: "WY") {{ id }} }} }}')
    assert _listing_dispensaries(session, strain.id, Dispensary.state == "WY") == []
    assert data == {"strain": {"dispensaries": []}}


def test_a_strain_no_menu_lists_has_no_dispensaries(gql, session: Session) -> None:
    listed = select(MenuItem.strain_id).where(MenuItem.strain_id.is_not(None))
    slug = session.scalar(select(Strain.slug).where(Strain.id.not_in(listed)).order_by(Strain.id))
    assert slug is not None
    data = gql.data(f'{{ strain(slug: "{slug}") {{ dispensaries(limit: 100) {{ id }} }} }}')
    assert data == {"strain": {"dispensaries": []}}


def test_dispensaries_of_every_strain_on_a_page_are_its_own(gql, session: Session) -> None:
    items = _all(gql, "strains", "slug dispensaries(limit: 3) { id }")
    ids = {s.slug: s.id for s in session.scalars(select(Strain))}
    for item in items:
        expected = _listing_dispensaries(session, ids[item["slug"]])[:3]
        assert [d["id"] for d in item["dispensaries"]] == expected, item["slug"]


def test_strain_dispensaries_list_a_dispensary_once_and_sort_names_ignoring_case(
    gql, session: Session, commit_rows
) -> None:
    strain = most_listed_strain(session)
    listed = _listing_dispensaries(session, strain.id)
    twice = session.scalar(select(Dispensary).where(Dispensary.public_id == listed[-1]))
    lowercase = Dispensary(
        public_id="disp_990101",
        name="aardvark cannabis co",  # byte order would put it after every capitalised name
        street="1 Test St",
        city="Fresno",
        city_key="fresno",
        state="CA",
        zip="93650",
        lat=36.84,
        lng=-119.80,
        timezone="America/Los_Angeles",
        type="both",
        rating=4.0,
        review_count=0,
        delivery=False,
        hours={"mon": "9:00-17:00"},
        phone="(559) 555-0100",
        website="https://aardvark.example",
    )
    commit_rows(lowercase)
    commit_rows(
        MenuItem(
            dispensary_id=twice.id,
            position=session.scalar(  # after its last item: positions run 0, 1, 2, ...
                select(func.count()).where(MenuItem.dispensary_id == twice.id)
            ),
            name=f"{strain.name} (second listing)",
            category="flower",
            price=0.5,  # cheaper than any first listing: this is the price shown
            unit="g",
            strain_id=strain.id,
        ),
        MenuItem(
            dispensary_id=lowercase.id,
            position=0,
            name=strain.name,
            category="flower",
            price=12.0,
            unit="g",
            strain_id=strain.id,
        ),
    )
    # The batched relation (the old arguments), and the service's page (openNow: false).
    data = gql.data(
        f'{{ strain(slug: "{strain.slug}") {{ batched: dispensaries(limit: 100) {{ id price '
        "unit } paged: dispensaries(limit: 100, openNow: false) { id price unit } } }"
    )["strain"]
    for found in (data["batched"], data["paged"]):
        ids = [d["id"] for d in found]
        assert ids == ["disp_990101", *listed]
        assert ids.count(twice.public_id) == 1
        prices = {d["id"]: (d["price"], d["unit"]) for d in found}
        assert prices[twice.public_id] == (0.5, "g")
        assert prices["disp_990101"] == (12.0, "g")


@pytest.mark.parametrize("limit", [1, 5, 100])
def test_strain_dispensaries_carry_the_cheapest_items_price_and_unit_on_either_path(
    gql, session: Session, limit: int
) -> None:
    strain = most_listed_strain(session)
    # The old arguments take the batched relation; a time argument the service's page.
    data = gql.data(
        f'{{ strain(slug: "{strain.slug}") {{ batched: dispensaries(limit: {limit}) {{ id price '
        f"unit }} paged: dispensaries(limit: {limit}, openNow: false) {{ id price unit }} }} }}"
    )["strain"]
    expected = _listing_dispensaries(session, strain.id)[:limit]
    offers = _cheapest_offers(session, strain.id)
    assert len(expected) == min(limit, len(offers))
    for found in (data["batched"], data["paged"]):
        assert [(d["id"], d["price"], d["unit"]) for d in found] == [
            (public_id, *offers[public_id]) for public_id in expected
        ]


def test_prices_of_every_strain_on_a_page_are_its_own(gql, session: Session) -> None:
    items = _all(gql, "strains", "slug dispensaries(limit: 3) { id price unit }", page=50)
    ids = {s.slug: s.id for s in session.scalars(select(Strain))}
    for item in items:
        offers = _cheapest_offers(session, ids[item["slug"]])
        found = {d["id"]: (d["price"], d["unit"]) for d in item["dispensaries"]}
        assert found == {public_id: offers[public_id] for public_id in found}, item["slug"]


def test_price_and_unit_are_null_outside_strain_dispensaries(gql, session: Session) -> None:
    strain = most_listed_strain(session)
    data = gql.data(
        "{ dispensaries(limit: 3) { items { id price unit } } "
        "deals(limit: 3) { items { dispensary { price unit } } } "
        f'strain(slug: "{strain.slug}") {{ dispensaries(limit: 1) {{ id price unit '
        "menu { strain { slug dispensaries(limit: 1) { id price } } } } } }"
    )
    assert [(d["price"], d["unit"]) for d in data["dispensaries"]["items"]] == [(None, None)] * 3
    assert [i["dispensary"] for i in data["deals"]["items"]] == [{"price": None, "unit": None}] * 3
    [stocking] = data["strain"]["dispensaries"]
    assert (stocking["price"], stocking["unit"]) == _cheapest_offers(session, strain.id)[
        stocking["id"]
    ]
    # A strain reached again through the menu prices its own dispensaries.
    nested = [m["strain"] for m in stocking["menu"] if m["strain"] is not None]
    assert nested, "the most listed strain's first dispensary should list strains"
    ids = {s.slug: s.id for s in session.scalars(select(Strain))}
    for found in nested:
        [first] = found["dispensaries"]
        assert first["price"] == _cheapest_offers(session, ids[found["slug"]])[first["id"]][0]


# --- dispensaries ------------------------------------------------------------------------------


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


@pytest.mark.parametrize(("given", "code"), [("ca", "CA")])
def test_dispensaries_state_argument_keeps_only_that_state(
    gql, session: Session, given: str, code: str
) -> None:
    items = _all(gql, "dispensaries", "id", f'state: "{given}"')
    assert [i["id"] for i in items] == _dispensary_ids(session, Dispensary.state == code)
    assert items


def test_dispensaries_city_argument_ignores_case(gql, session: Session) -> None:
    city, state = session.execute(
        select(Dispensary.city, Dispensary.state)
        .group_by(Dispensary.city, Dispensary.state)
        .order_by(func.count().desc(), Dispensary.city)
    ).first()
    items = _all(gql, "dispensaries", "id", f'city: "{city.upper()}", state: "{state}"')
    expected = _dispensary_ids(session, Dispensary.city == city, Dispensary.state == state)
    assert [i["id"] for i in items] == expected
    assert len(expected) >= 2


@pytest.mark.parametrize("kind", ["RECREATIONAL", "MEDICAL", "BOTH"])
def test_dispensary_type_argument_keeps_only_that_type(gql, session: Session, kind: str) -> None:
    items = _all(gql, "dispensaries", "id type", f"type: {kind}")
    assert items
    assert {i["type"] for i in items} == {kind}
    assert [i["id"] for i in items] == _dispensary_ids(session, Dispensary.type == kind.lower())


@pytest.mark.parametrize("delivery", [True, False])
def test_delivery_argument_keeps_dispensaries_with_that_delivery(
    gql, session: Session, delivery: bool
) -> None:
    items = _all(gql, "dispensaries", "id delivery", f"delivery: {str(delivery).lower()}")
    assert {i["delivery"] for i in items} == {delivery}
    assert [i["id"] for i in items] == _dispensary_ids(session, Dispensary.delivery == delivery)


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


# --- deals -------------------------------------------------------------------------------------


def test_deals_are_the_active_deals_by_expiry_then_id(
    gql, session: Session, reference_day: date
) -> None:
    items = _all(gql, "deals", DEAL_FIELDS)
    active = _active_deals(session, reference_day)
    names = {id_: name for id_, name in session.execute(select(Dispensary.id, Dispensary.name))}
    assert items == [_deal_dict(x, names[x.dispensary_id]) for x in active]
    expired = session.scalar(
        select(func.count()).select_from(Deal).where(Deal.expires < reference_day)
    )
    assert expired
    assert all(date.fromisoformat(i["expires"]) >= reference_day for i in items)


def test_deal_dispensary_is_the_dispensary_offering_it(
    gql, session: Session, reference_day: date
) -> None:
    items = _all(gql, "deals", f"id dispensaryName dispensary {{ {DISPENSARY_FIELDS} }}")
    rows = {d.id: d for d in session.scalars(select(Dispensary))}
    deals = {x.public_id: rows[x.dispensary_id] for x in _active_deals(session, reference_day)}
    assert {i["id"] for i in items} == set(deals)
    for item in items:
        d = deals[item["id"]]
        assert item["dispensary"] == _dispensary_dict(d)
        assert item["dispensaryName"] == d.name


@pytest.mark.parametrize("category", ["EDIBLES"])
def test_deals_category_argument_keeps_that_category(
    gql, session: Session, reference_day: date, category: str
) -> None:
    items = _all(gql, "deals", "id category", f'category: "{category}"')
    expected = _active_deals(session, reference_day, Deal.category == category.lower())
    assert [i["id"] for i in items] == [x.public_id for x in expected]
    assert {i["category"] for i in items} == {category.lower()}


def test_deals_state_and_city_arguments_scope_by_the_dispensary(
    gql, session: Session, reference_day: date
) -> None:
    items = _all(gql, "deals", "id dispensary { address }", 'state: "ca"')
    expected = _active_deals(session, reference_day, Dispensary.state == "CA")
    assert [i["id"] for i in items] == [x.public_id for x in expected]
    assert all(", CA " in i["dispensary"]["address"] for i in items)
    city = session.scalar(
        select(Dispensary.city)
        .join(Deal, Deal.dispensary_id == Dispensary.id)
        .where(Deal.expires >= reference_day, Dispensary.state == "CA")
        .order_by(Dispensary.id)
    )
    in_city = _all(gql, "deals", "id", f'state: "CA", city: "{city.lower()}"')
    expected_city = _active_deals(
        session, reference_day, Dispensary.state == "CA", Dispensary.city == city
    )
    assert [i["id"] for i in in_city] == [x.public_id for x in expected_city]
    assert 0 < len(in_city) < len(items)


# --- doctors -----------------------------------------------------------------------------------


def _doctor_ids(session: Session, *where: Any) -> list[str]:
    return list(
        session.scalars(
            select(Doctor.public_id).where(*where).order_by(func.lower(Doctor.name), Doctor.id)
        )
    )


def test_every_doctor_field_equals_its_row_ordered_by_name_then_id(gql, session: Session) -> None:
    items = _all(gql, "doctors", DOCTOR_FIELDS, page=50)
    rows = {d.public_id: d for d in session.scalars(select(Doctor))}
    assert [i["id"] for i in items] == _doctor_ids(session)
    assert len(items) == 60
    for item in items:
        assert item == _doctor_dict(rows[item["id"]])


def test_doctors_page_limit_is_capped_at_fifty(gql, session: Session) -> None:
    page = gql.data("{ doctors(limit: 100) { total limit offset items { id } } }")["doctors"]
    assert (page["total"], page["limit"], page["offset"]) == (60, 50, 0)
    assert [i["id"] for i in page["items"]] == _doctor_ids(session)[:50]


@pytest.mark.parametrize("telehealth", [True, False])
def test_doctors_telehealth_and_state_arguments_filter(
    gql, session: Session, telehealth: bool
) -> None:
    items = _all(gql, "doctors", "id telehealth", f"telehealth: {str(telehealth).lower()}", 50)
    assert [i["id"] for i in items] == _doctor_ids(session, Doctor.telehealth == telehealth)
    scoped = _all(gql, "doctors", "id state", 'state: "ca"', 50)
    assert [i["id"] for i in scoped] == _doctor_ids(session, Doctor.state == "CA")
    assert {i["state"] for i in scoped} == {"CA"}


def test_doctor_law_is_the_law_row_of_the_doctors_state(gql, session: Session) -> None:
    items = _all(gql, "doctors", f"id state law {{ {LAW_FIELDS} }}", page=50)
    laws = {law.state_code: law for law in session.scalars(select(Law))}
    for item in items:
        assert item["law"] == _law_dict(laws[item["state"]])
    assert len({i["state"] for i in items}) > 5


# --- laws --------------------------------------------------------------------------------------


def test_laws_are_all_56_records_sorted_by_code(gql, session: Session) -> None:
    data = gql.data(f"{{ laws {{ {LAW_FIELDS} }} }}")
    rows = session.scalars(select(Law).order_by(Law.state_code)).all()
    assert len(data["laws"]) == 56
    assert data["laws"] == [_law_dict(law) for law in rows]
    codes = [law["stateCode"] for law in data["laws"]]
    assert codes == sorted(codes)


@pytest.mark.parametrize("given", ["ny", "NY", "Ny"])
def test_law_by_state_code_ignores_case(gql, session: Session, given: str) -> None:
    data = gql.data(f'{{ law(state: "{given}") {{ {LAW_FIELDS} }} }}')
    assert data == {"law": _law_dict(session.get_one(Law, "NY"))}


@pytest.mark.parametrize("unknown", ["ZZ", "", "New York", "N", "NYC"])
def test_unknown_law_state_is_null_without_errors(gql, unknown: str) -> None:
    body = gql(f'{{ law(state: "{unknown}") {{ stateCode }} }}')
    assert body["data"] == {"law": None}
    assert "errors" not in body


# --- search ------------------------------------------------------------------------------------

TYPENAMES = {"strain": "Strain", "dispensary": "Dispensary", "doctor": "Doctor", "deal": "Deal"}
SEARCH_ITEM = (
    "__typename ... on Strain { slug } ... on Dispensary { id } "
    "... on Doctor { id } ... on Deal { id }"
)


def _words(text: str) -> str:
    for separator in WORD_SEPARATORS:
        text = text.replace(separator, " ")
    return text


def _rank(q: str, name: str) -> int:
    q, name = q.lower(), name.lower()
    if name == q:
        return 0
    if name.startswith(q):
        return 1
    if f" {_words(q).strip()} " in f" {_words(name)} ":
        return 2
    return 3


def _search_oracle(
    session: Session, today: date, q: str, kinds: set[str], state: str | None = None
) -> list[tuple[str, str]]:
    """(typename, key) of every match in rank order: an independent model of the ranking."""
    rows: list[tuple[str, str, str, str | None]] = []
    rows += [("strain", k, n, None) for k, n in session.execute(select(Strain.slug, Strain.name))]
    rows += [
        ("dispensary", *r)
        for r in session.execute(select(Dispensary.public_id, Dispensary.name, Dispensary.state))
    ]
    rows += [
        ("doctor", *r) for r in session.execute(select(Doctor.public_id, Doctor.name, Doctor.state))
    ]
    rows += [
        ("deal", *r)
        for r in session.execute(
            select(Deal.public_id, Deal.title, Dispensary.state)
            .join(Dispensary, Deal.dispensary_id == Dispensary.id)
            .where(Deal.expires >= today)
        )
    ]
    hits = [
        (_rank(q, name), name.lower(), name, kind, key)
        for kind, key, name, where in rows
        if kind in kinds
        and q.lower() in name.lower()
        and (state is None or kind == "strain" or where == state)
    ]
    return [(TYPENAMES[kind], key) for *_order, kind, key in sorted(hits)]


def _keys(items: list[dict]) -> list[tuple[str, str]]:
    return [(i["__typename"], i.get("slug") or i["id"]) for i in items]


@pytest.mark.parametrize("q", ["kush"])
def test_search_returns_every_match_in_rank_order_across_kinds(
    gql, session: Session, reference_day: date, q: str
) -> None:
    items = _all(gql, "search", SEARCH_ITEM, f'q: "{q}"')
    expected = _search_oracle(session, reference_day, q, set(TYPENAMES))
    assert expected
    assert _keys(items) == expected


@pytest.mark.parametrize(
    ("search_type", "kind", "q"),
    [
        ("STRAINS", "strain", "an"),
        ("DISPENSARIES", "dispensary", "an"),
        ("DOCTORS", "doctor", "an"),
        ("DEALS", "deal", "off"),
    ],
)
def test_search_type_argument_restricts_results_to_one_kind(
    gql, session: Session, reference_day: date, search_type: str, kind: str, q: str
) -> None:
    items = _all(gql, "search", SEARCH_ITEM, f'q: "{q}", type: {search_type}')
    assert {i["__typename"] for i in items} == {TYPENAMES[kind]}
    assert _keys(items) == _search_oracle(session, reference_day, q, {kind})


def test_search_state_scopes_dispensaries_doctors_and_deals_but_not_strains(
    gql, session: Session, reference_day: date
) -> None:
    items = _all(gql, "search", SEARCH_ITEM, 'q: "an", state: "ca"')
    expected = _search_oracle(session, reference_day, "an", set(TYPENAMES), state="CA")
    assert _keys(items) == expected
    assert {i["__typename"] for i in items} == {"Strain", "Dispensary", "Doctor", "Deal"}


def test_search_items_resolve_their_own_fields_and_relations(
    gql, session: Session, reference_day: date
) -> None:
    strain = most_listed_strain(session)
    doctor = session.scalar(select(Doctor).order_by(Doctor.id))
    dispensary = session.scalar(select(Dispensary).order_by(Dispensary.id.desc()))
    deal = _active_deals(session, reference_day)[0]
    laws = {law.state_code: law for law in session.scalars(select(Law))}
    fragments = {
        "s": f"... on Strain {{ {STRAIN_FIELDS} terpenes dispensaries(limit: 2) {{ id }} }}",
        "di": f"... on Dispensary {{ {DISPENSARY_FIELDS} law {{ stateCode }} }}",
        "do": f"... on Doctor {{ {DOCTOR_FIELDS} law {{ {LAW_FIELDS} }} }}",
        "de": f"... on Deal {{ {DEAL_FIELDS} dispensary {{ id }} }}",
    }
    kinds = {"s": "STRAINS", "di": "DISPENSARIES", "do": "DOCTORS", "de": "DEALS"}
    query = (
        "query($s: String!, $di: String!, $do: String!, $de: String!) { "
        + " ".join(
            f"{alias}: search(q: ${alias}, type: {kind}, limit: 1) "
            f"{{ items {{ __typename {fragments[alias]} }} }}"
            for alias, kind in kinds.items()
        )
        + " }"
    )
    variables = {"s": strain.name, "di": dispensary.name, "do": doctor.name, "de": deal.title}
    data = gql.data(query, variables)
    terpenes = _traits(session, StrainTerpene)[strain.id]
    assert data["s"]["items"] == [
        {
            "__typename": "Strain",
            **_strain_dicts(session)[strain.slug],
            "terpenes": terpenes,
            "dispensaries": [{"id": i} for i in _listing_dispensaries(session, strain.id)[:2]],
        }
    ]
    [found_dispensary] = data["di"]["items"]
    same_name = _dispensary_ids(session, Dispensary.name == dispensary.name)
    assert found_dispensary["id"] == same_name[0]
    found_row = session.scalar(select(Dispensary).where(Dispensary.public_id == same_name[0]))
    assert found_dispensary == {
        "__typename": "Dispensary",
        **_dispensary_dict(found_row),
        "law": {"stateCode": found_row.state},
    }
    [found_doctor] = data["do"]["items"]
    assert found_doctor["__typename"] == "Doctor"
    assert found_doctor["name"] == doctor.name
    found_doctor_row = session.scalar(select(Doctor).where(Doctor.public_id == found_doctor["id"]))
    assert found_doctor == {
        "__typename": "Doctor",
        **_doctor_dict(found_doctor_row),
        "law": _law_dict(laws[found_doctor_row.state]),
    }
    [found_deal] = data["de"]["items"]
    deal_row = session.scalar(select(Deal).where(Deal.public_id == found_deal["id"]))
    assert found_deal["title"] == deal.title
    owner = session.get_one(Dispensary, deal_row.dispensary_id)
    assert found_deal == {
        "__typename": "Deal",
        **_deal_dict(deal_row, owner.name),
        "dispensary": {"id": owner.public_id},
    }


def test_search_page_reports_total_limit_and_offset(
    gql, session: Session, reference_day: date
) -> None:
    expected = _search_oracle(session, reference_day, "an", set(TYPENAMES))
    page = gql.data(
        '{ search(q: "an", limit: 5, offset: 7) { total limit offset items { '
        + SEARCH_ITEM
        + " } } }"
    )
    assert (page["search"]["total"], page["search"]["limit"], page["search"]["offset"]) == (
        len(expected),
        5,
        7,
    )
    assert _keys(page["search"]["items"]) == expected[7:12]


def test_search_never_returns_expired_deals(gql, session: Session, reference_day: date) -> None:
    expired = session.scalar(
        select(Deal).where(Deal.expires < reference_day).order_by(Deal.expires, Deal.id)
    )
    assert expired is not None
    assert expired.expires <= reference_day - timedelta(days=1)
    items = _all(gql, "search", SEARCH_ITEM, f'q: "{expired.title}", type: DEALS')
    assert expired.public_id not in {i["id"] for i in items}
    expected = _search_oracle(session, reference_day, expired.title, {"deal"})
    # No active title contains it: the typo fallback answers with similar active deals.
    assert _keys(items) == (expected or _similar_deals(session, reference_day, expired.title))


def _trigrams(text: str) -> set[str]:
    """pg_trgm's trigram set: lower-case letter/digit runs, padded "  word ", cut in threes."""
    words = "".join(c if c.isalnum() else " " for c in text.lower()).split()
    return {f"  {w} "[i : i + 3] for w in words for i in range(len(w) + 1)}


def _similar_deals(session: Session, today: date, q: str) -> list[tuple[str, str]]:
    """Active deals whose trigram similarity to q is at least 0.3, most similar first."""
    wanted = _trigrams(q)
    scored = []
    for key, title in session.execute(
        select(Deal.public_id, Deal.title).where(Deal.expires >= today)
    ):
        found = _trigrams(title)
        shared, union = len(wanted & found), len(wanted | found)
        if 10 * shared >= 3 * union:
            scored.append((-shared / union, title.lower(), title, key))
    assert scored, "the fallback should find similar active deals"
    return [("Deal", key) for *_order, key in sorted(scored)]

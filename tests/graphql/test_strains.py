"""GraphQL strains and strain: rendering of every field, paging, lookups, and the strain's
dispensaries with their prices (nested, batched per page of strains)."""

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models import Dispensary, MenuItem, Strain, StrainTerpene
from tests.graphql.expected import (
    STRAIN_FIELDS,
    _all,
    _cheapest_offers,
    _listing_dispensaries,
    _rest_all,
    _strain_dicts,
    _strain_slugs,
    _traits,
)
from tests.menus import most_listed_strain


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


@pytest.mark.parametrize(
    ("arguments", "params"),
    [
        ("type: INDICA", {"type": "indica"}),
        ("type: SATIVA", {"type": "sativa"}),
        ("type: HYBRID", {"type": "hybrid"}),
        ('effect: "RELAXED"', {"effect": "relaxed"}),
        ('flavor: "EARTHY"', {"flavor": "earthy"}),
        ("thcMin: 15.5, thcMax: 22", {"thc_min": "15.5", "thc_max": "22"}),
        ("cbdMin: 1", {"cbd_min": "1"}),
    ],
)
def test_each_filter_argument_reaches_the_service_as_rests_parameter_does(
    gql, api, arguments: str, params: dict
) -> None:
    # Which strains match is tests/service/test_strains.py's; here each argument, enum value
    # and spelling must select the same strains as REST's parameter.
    found = [i["slug"] for i in _all(gql, "strains", "slug", arguments)]
    assert found == [i["slug"] for i in _rest_all(api, "/api/v1/strains", **params)]
    assert 0 < len(found) < 150

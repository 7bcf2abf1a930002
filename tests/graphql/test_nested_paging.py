"""Nested lists take ``offset`` as well as ``limit``: each parent's list is paged on its own, to
its end, and a dispensary's ``reviewCount`` is the number of reviews paging reaches."""

from datetime import date
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models import Dispensary, MenuItem, Review
from tests.graphql.expected import _active_deals, _listing_dispensaries
from tests.menus import most_listed_strain

OFFSET = "offset must be an integer from 0 to 1000000"


def _reviews(session: Session, dispensary_id: int) -> list[tuple[str, str]]:
    """(author, date) of a dispensary's reviews, newest first (then by id, newest first)."""
    found = session.execute(
        select(Review.author, Review.date)
        .where(Review.dispensary_id == dispensary_id)
        .order_by(Review.date.desc(), Review.id.desc())
    )
    return [(author, day.isoformat()) for author, day in found]


def test_paging_through_reviews_with_offset_reaches_exactly_review_count(
    gql, committed: Session, crowded: dict[str, Any]
) -> None:
    d: Dispensary = crowded["dispensary"]
    expected = _reviews(committed, d.id)
    assert len(expected) > 20  # more than one page of the maximum, 20
    seen: list[tuple[str, str]] = []
    while True:
        data = gql.data(
            f'{{ dispensary(id: "{d.public_id}") {{ reviewCount '
            f"reviews(limit: 20, offset: {len(seen)}) {{ author date }} }} }}"
        )["dispensary"]
        page = [(r["author"], r["date"]) for r in data["reviews"]]
        if not page:
            break
        seen.extend(page)
    assert seen == expected
    assert data["reviewCount"] == len(seen) == len(expected)


def test_review_count_of_every_dispensary_on_a_page_is_its_stored_reviews(
    gql, session: Session
) -> None:
    data = gql.data("{ dispensaries(limit: 100) { items { id reviewCount } } }")
    counts = dict(
        session.execute(
            select(Dispensary.public_id, func.count(Review.id))
            .outerjoin(Review, Review.dispensary_id == Dispensary.id)
            .group_by(Dispensary.public_id)
        ).all()
    )
    items = data["dispensaries"]["items"]
    assert len(items) == 100
    assert {i["id"]: i["reviewCount"] for i in items} == {i["id"]: counts[i["id"]] for i in items}


def test_each_dispensary_on_a_page_gets_its_own_reviews_window(gql, session: Session) -> None:
    data = gql.data(
        '{ dispensaries(state: "CA", limit: 10) { items { id '
        "reviews(limit: 2, offset: 1) { author date } } } }"
    )
    ids = {d.public_id: d.id for d in session.scalars(select(Dispensary))}
    items = data["dispensaries"]["items"]
    assert len(items) == 10
    for item in items:
        expected = _reviews(session, ids[item["id"]])[1:3]
        assert [(r["author"], r["date"]) for r in item["reviews"]] == expected, item["id"]


def test_a_menu_is_reachable_past_its_maximum_of_100_items(
    gql, committed: Session, crowded: dict[str, Any]
) -> None:
    d: Dispensary = crowded["dispensary"]
    names = committed.scalars(
        select(MenuItem.name).where(MenuItem.dispensary_id == d.id).order_by(MenuItem.position)
    ).all()
    assert len(names) > 100
    data = gql.data(
        f'{{ dispensary(id: "{d.public_id}") {{ first: menu(limit: 100) {{ name }} '
        "rest: menu(limit: 100, offset: 100) { name } middle: menu(limit: 3, offset: 98) "
        "{ name } } }"
    )["dispensary"]
    assert [i["name"] for i in data["first"]] == names[:100]
    assert [i["name"] for i in data["rest"]] == names[100:200]
    assert [i["name"] for i in data["middle"]] == names[98:101]


def test_dispensary_deals_take_an_offset_in_expiry_order(
    gql, committed: Session, crowded: dict[str, Any], reference_day: date
) -> None:
    d: Dispensary = crowded["dispensary"]
    active = [x.public_id for x in _active_deals(committed, reference_day, Dispensary.id == d.id)]
    assert len(active) > 100
    data = gql.data(
        f'{{ dispensary(id: "{d.public_id}") {{ a: deals(limit: 100, offset: 5) {{ id }} '
        "b: deals(limit: 100, offset: 100) { id } } }"
    )["dispensary"]
    assert [x["id"] for x in data["a"]] == active[5:105]
    assert [x["id"] for x in data["b"]] == active[100:200]


def test_strain_dispensaries_take_an_offset_by_name(gql, session: Session) -> None:
    strain = most_listed_strain(session)
    expected = _listing_dispensaries(session, strain.id)
    assert len(expected) > 8
    # The batched relation, and the service's page (a time argument takes that path).
    data = gql.data(
        f'{{ strain(slug: "{strain.slug}") {{ dispensaries(limit: 4, offset: 5) {{ id }} '
        "paged: dispensaries(limit: 4, offset: 5, openNow: false) { id } } }"
    )
    assert [x["id"] for x in data["strain"]["dispensaries"]] == expected[5:9]
    assert [x["id"] for x in data["strain"]["paged"]] == expected[5:9]


@pytest.mark.parametrize(
    "selection",
    [
        "deals(offset: 1000000) { id }",
        "menu(offset: 1000000) { name }",
        "reviews(offset: 500) { date }",
    ],
)
def test_an_offset_past_the_end_gives_an_empty_list(gql, selection: str) -> None:
    data = gql.data(f'{{ dispensary(id: "disp_1006") {{ id {selection} }} }}')
    assert data["dispensary"] == {"id": "disp_1006", selection.split("(")[0]: []}


@pytest.mark.parametrize("offset", [-1, 1000001])
@pytest.mark.parametrize(
    ("selection", "path"),
    [
        ('dispensary(id: "disp_1006") { deals(offset: %d) { id } }', ["dispensary", "deals"]),
        ('dispensary(id: "disp_1006") { menu(offset: %d) { name } }', ["dispensary", "menu"]),
        ('dispensary(id: "disp_1006") { reviews(offset: %d) { date } }', ["dispensary", "reviews"]),
        ('strain(slug: "%%s") { dispensaries(offset: %d) { id } }', ["strain", "dispensaries"]),
    ],
    ids=["deals", "menu", "reviews", "strain dispensaries"],
)
def test_a_bad_nested_offset_is_a_400_with_rests_message(
    gql, session: Session, selection: str, path: list[str], offset: int
) -> None:
    query = selection % offset
    if "%s" in query:
        query = query % most_listed_strain(session).slug
    body = gql(f"{{ {query} }}")
    assert body["data"] == {path[0]: None}
    [error] = body["errors"]
    assert error["message"] == OFFSET
    assert error["extensions"] == {"code": 400, "param": "offset"}
    assert error["path"] == path


def test_the_cost_estimate_does_not_change_with_offset(gql, work) -> None:
    query = (
        "{ dispensaries(limit: 3) { items { reviews(limit: 5%s) { date } "
        "menu(limit: 4%s) { name } deals(limit: 2%s) { id } } } }"
    )
    plain = gql(query % ("", "", ""))
    paged = gql(query % ((", offset: 10",) * 3))
    assert "errors" not in plain
    assert "errors" not in paged
    assert paged["extensions"]["cost"] == plain["extensions"]["cost"]
    # 1 + 3 items x (1 + reviews 5 x 2 + menu 4 x 2 + deals 2 x 2), and the work: the list,
    # and each relation called for its 3 dispensaries.
    worked = work.field("Query", "dispensaries", limit=3)
    worked += sum(work.field("Dispensary", name, 3) for name in ("reviews", "menu", "deals"))
    assert plain["extensions"]["cost"]["requested"] == 1 + 3 * (1 + 10 + 8 + 4) + worked

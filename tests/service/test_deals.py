"""service.deals.list_deals on the shared tiny dataset: active deals, filters, order, "today".

Expected rows come from the generated dataset in plain Python: a deal is listed while it has
not expired (``expires >= today``, so a deal expiring today still is), its dispensary's state
and city and its own category match the filters, soonest expiry first, then by id.
"""

from collections import Counter
from datetime import date, timedelta
from typing import Any

import pytest
from sqlalchemy import Connection, select

from models import Deal
from seed import Dataset
from service.deals import DealRow, list_deals
from service.errors import InvalidParameter
from service.filters import DealFilters
from service.paging import PageRequest
from tests.filters import deal_filters
from tests.service.pages import walk

CATEGORIES = ["flower", "edibles", "concentrates", "vapes", "pre-rolls", "topicals", "tinctures"]


def _expected(dataset: Dataset, today: date, **filters: Any) -> list[str]:
    """Public ids of the deals active on ``today`` matching ``filters`` (normalised), in order."""
    shops = {shop["id"]: shop for shop in dataset.dispensaries}
    chosen = []
    for deal in dataset.deals:
        shop = shops[deal["dispensary_id"]]
        place = {"state": shop["state"], "city": shop["city_key"], "category": deal["category"]}
        if deal["expires"] >= today and all(place[n] == v for n, v in filters.items()):
            chosen.append(deal)
    chosen.sort(key=lambda deal: (deal["expires"], deal["id"]))
    return [deal["public_id"] for deal in chosen]


def _ids(rows: list[DealRow]) -> list[str]:
    return [row.public_id for row in rows]


def _all(db: Connection, today: date, **filters: Any) -> list[DealRow]:
    chosen = deal_filters(**filters)
    return walk(lambda page: list_deals(db, chosen, page, today=today))


def test_only_deals_active_today_are_listed_soonest_expiry_first_then_by_id(
    db: Connection, dataset: Dataset, reference_day: date
) -> None:
    expired = [deal for deal in dataset.deals if deal["expires"] < reference_day]
    assert len(expired) == 19, "the tiny dataset has expired deals"
    found = _all(db, reference_day)
    assert len(found) == 131
    assert _ids(found) == _expected(dataset, reference_day)


def test_deals_expiring_on_the_same_day_follow_each_other_by_id(
    db: Connection, dataset: Dataset, reference_day: date
) -> None:
    day, count = Counter(deal["expires"] for deal in dataset.deals).most_common(1)[0]
    assert count >= 3
    found = _all(db, reference_day)
    same_day = [row for row in found if row.expires == day]
    id_of = {deal["public_id"]: deal["id"] for deal in dataset.deals}
    ids = [id_of[row.public_id] for row in same_day]
    assert len(ids) == count
    assert ids == sorted(ids)
    first = found.index(same_day[0])
    assert found[first : first + count] == same_day


def test_a_listed_deal_carries_its_columns_and_its_dispensarys_name(
    db: Connection, dataset: Dataset, reference_day: date
) -> None:
    shops = {shop["id"]: shop for shop in dataset.dispensaries}
    deals = {deal["public_id"]: deal for deal in dataset.deals}
    stamps = dict(db.execute(select(Deal.public_id, Deal.updated_at)).all())
    for row in _all(db, reference_day):
        deal = deals[row.public_id]
        assert row == DealRow(
            public_id=deal["public_id"],
            title=deal["title"],
            dispensary_name=shops[deal["dispensary_id"]]["name"],
            category=deal["category"],
            discount=deal["discount"],
            expires=deal["expires"],
            dispensary_id=deal["dispensary_id"],
            dispensary_public_id=shops[deal["dispensary_id"]]["public_id"],
            updated_at=stamps[row.public_id],
        )


def test_a_deal_expiring_today_is_listed_and_the_next_day_it_is_not(
    db: Connection, dataset: Dataset
) -> None:
    day, count = Counter(deal["expires"] for deal in dataset.deals).most_common(1)[0]
    on_the_day = _all(db, day)
    after = _all(db, day + timedelta(days=1))
    assert _ids(on_the_day) == _expected(dataset, day)
    assert _ids(after) == _expected(dataset, day + timedelta(days=1))
    assert len(on_the_day) - len(after) == count
    assert [row.expires for row in on_the_day[:count]] == [day] * count


def test_on_a_day_before_every_expiry_all_deals_are_active(
    db: Connection, dataset: Dataset
) -> None:
    first = min(deal["expires"] for deal in dataset.deals)
    assert _ids(_all(db, first)) == _expected(dataset, first)
    assert len(_all(db, first - timedelta(days=365))) == 150


def test_after_the_last_expiry_no_deal_is_active(db: Connection, dataset: Dataset) -> None:
    last = max(deal["expires"] for deal in dataset.deals)
    page = list_deals(db, DealFilters.create(), PageRequest.build(), today=last + timedelta(1))
    assert (page.items, page.total) == ([], 0)
    on_the_last_day = _expected(dataset, last)
    assert on_the_last_day
    assert _ids(_all(db, last)) == on_the_last_day


@pytest.mark.parametrize("category", CATEGORIES)
def test_category_filter_keeps_only_active_deals_of_that_category(
    db: Connection, dataset: Dataset, reference_day: date, category: str
) -> None:
    found = _all(db, reference_day, category=category)
    assert found
    assert _ids(found) == _expected(dataset, reference_day, category=category)
    assert {row.category for row in found} == {category}


@pytest.mark.parametrize(
    ("given", "folded"),
    [
        ("EDIBLES", "edibles"),
        (" Pre-Rolls ", "pre-rolls"),
        ("FLOWER", "flower"),
        ("Edibles", "edibles"),
        ("PRE-ROLLS", "pre-rolls"),
    ],
)
def test_category_filter_ignores_case(
    db: Connection, dataset: Dataset, reference_day: date, given: str, folded: str
) -> None:
    expected = _expected(dataset, reference_day, category=folded)
    found = _all(db, reference_day, category=given)
    assert found
    assert _ids(found) == expected


@pytest.mark.parametrize(
    ("given", "code"), [("fl", "FL"), ("CA", "CA"), (" nj ", "NJ"), ("Fl", "FL"), ("ny", "NY")]
)
def test_state_filter_uses_the_state_of_the_deals_dispensary(
    db: Connection, dataset: Dataset, reference_day: date, given: str, code: str
) -> None:
    found = _all(db, reference_day, state=given)
    assert found
    assert _ids(found) == _expected(dataset, reference_day, state=code)
    names = {shop["name"] for shop in dataset.dispensaries if shop["state"] == code}
    assert {row.dispensary_name for row in found} <= names


@pytest.mark.parametrize("given", ["Miami", "MIAMI", "  miami "])
def test_city_filter_uses_the_city_of_the_deals_dispensary_in_any_case(
    db: Connection, dataset: Dataset, reference_day: date, given: str
) -> None:
    found = _all(db, reference_day, state="FL", city=given)
    assert found
    assert _ids(found) == _expected(dataset, reference_day, state="FL", city="miami")
    assert _ids(_all(db, reference_day, city=given)) == _ids(found)


def test_state_city_and_category_combine(
    db: Connection, dataset: Dataset, reference_day: date
) -> None:
    in_miami = set(_expected(dataset, reference_day, state="FL", city="miami"))
    counts = Counter(deal["category"] for deal in dataset.deals if deal["public_id"] in in_miami)
    category, count = counts.most_common(1)[0]
    assert 1 <= count < len(in_miami), "the category narrows the city's deals"
    chosen = {"state": "FL", "city": "miami", "category": category}
    expected = _expected(dataset, reference_day, **chosen)
    assert len(expected) == count
    assert _ids(_all(db, reference_day, state="fl", city="Miami", category=category)) == expected


def test_state_and_category_combine(db: Connection, dataset: Dataset, reference_day: date) -> None:
    found = _all(db, reference_day, state="ca", category="Flower")
    expected = _expected(dataset, reference_day, state="CA", category="flower")
    assert _ids(found) == expected
    assert all(row.category == "flower" for row in found)


@pytest.mark.parametrize(("limit", "offset"), [(1, 0), (3, 2), (5, 7), (100, 0), (4, 1_000)])
@pytest.mark.parametrize("states", ["FL", "CA,FL", "NJ,NY,CA"])
def test_a_window_of_a_state_filtered_list_is_the_slice_of_the_full_order_and_total(
    db: Connection, dataset: Dataset, reference_day: date, states: str, limit: int, offset: int
) -> None:
    codes = states.split(",")
    wanted = {i for code in codes for i in _expected(dataset, reference_day, state=code)}
    expected = [public_id for public_id in _expected(dataset, reference_day) if public_id in wanted]
    assert len(expected) > 3, "the states hold several active deals"
    chosen = DealFilters.create(state=states)
    page = list_deals(db, chosen, PageRequest.build(limit, offset), today=reference_day)
    assert _ids(page.items) == expected[offset : offset + limit]
    assert page.total == len(expected)


@pytest.mark.parametrize(("limit", "offset"), [(1, 0), (3, 2), (5, 7), (100, 0), (4, 1_000)])
@pytest.mark.parametrize("categories", [None, "flower", "vapes,Edibles"])
def test_a_window_without_a_place_filter_counts_the_active_deals_of_its_categories(
    db: Connection,
    dataset: Dataset,
    reference_day: date,
    categories: str | None,
    limit: int,
    offset: int,
) -> None:
    # Counted from the deals table alone (no dispensary filter): the same total as the join.
    wanted = (categories or ",".join(CATEGORIES)).lower().split(",")
    expected = [
        public_id
        for category in wanted
        for public_id in _expected(dataset, reference_day, category=category)
    ]
    expected.sort(key=_expected(dataset, reference_day).index)
    assert len(expected) > 3, "several active deals in these categories"
    chosen = DealFilters.create(category=categories)
    page = list_deals(db, chosen, PageRequest.build(limit, offset), today=reference_day)
    assert _ids(page.items) == expected[offset : offset + limit]
    assert page.total == len(expected)


@pytest.mark.parametrize("code", ["WY", "ks", "GA"])
def test_a_known_state_without_deals_gives_an_empty_page(
    db: Connection, reference_day: date, code: str
) -> None:
    page = list_deals(db, DealFilters.create(state=code), PageRequest.build(), today=reference_day)
    assert (page.items, page.total) == ([], 0)


STATE_CODE = "state must be a two-letter code of a US state, DC or territory (e.g. CA, NY, PR)"
CATEGORY = (
    "category must be one of: flower, edibles, concentrates, vapes, pre-rolls, topicals, tinctures"
)


@pytest.mark.parametrize(
    ("values", "param", "message"),
    [
        ({"category": "food"}, "category", CATEGORY),
        ({"category": ""}, "category", CATEGORY),
        ({"category": "pre_rolls"}, "category", CATEGORY),
        ({"category": "flower,weed"}, "category", CATEGORY),
        ({"state": "XX"}, "state", STATE_CODE),
        ({"state": "CAL"}, "state", STATE_CODE),
        ({"state": ""}, "state", STATE_CODE),
        ({"city": ""}, "city", "city must be a city name of 1 to 80 characters"),
        ({"city": "y" * 81}, "city", "city must be a city name of 1 to 80 characters"),
    ],
)
def test_bad_filters_raise_invalid_parameter_naming_it(
    values: dict, param: str, message: str
) -> None:
    with pytest.raises(InvalidParameter) as raised:
        deal_filters(**values)
    assert (raised.value.param, raised.value.message, raised.value.code) == (param, message, 400)

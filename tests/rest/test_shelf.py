"""GET /api/v1/strains/{slug}/dispensaries by price per gram and by the batch's total THC: the
order and items against the menu rows, and every bad value a 400 naming its parameter."""

from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from models import Dispensary, MenuItem, Strain
from tests.menus import most_listed_strain, shown_lab

STOCKISTS = "/api/v1/strains/{slug}/dispensaries"


def _walk(api, path: str, **params: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    while True:
        body = api.json(path, limit=7, offset=len(items), **params)
        items += body["data"]
        if len(items) >= body["meta"]["total"] or not body["data"]:
            assert len(items) == body["meta"]["total"]
            return items


def _expected(session: Session, strain: Strain, total_thc_min: float | None, by_ppg: bool):
    """(dispensary, item shown) in the list's order, from the strain's menu rows."""
    counted: dict[int, list[MenuItem]] = {}
    for item in session.scalars(select(MenuItem).where(MenuItem.strain_id == strain.id)):
        if total_thc_min is None or (item.total_thc or -1.0) >= total_thc_min:
            counted.setdefault(item.dispensary_id, []).append(item)

    def item_key(item: MenuItem) -> tuple:
        per_gram = (item.price_per_gram is None, item.price_per_gram or 0.0) if by_ppg else ()
        return (*per_gram, item.price, item.position)

    rows = [
        (session.get_one(Dispensary, place), min(items, key=item_key))
        for place, items in counted.items()
    ]

    def order(row: tuple[Dispensary, MenuItem]) -> tuple:
        place, item = row
        per_gram = (item.price_per_gram is None, item.price_per_gram or 0.0) if by_ppg else ()
        return (*per_gram, place.sort_key, place.id)

    return sorted(rows, key=order)


@pytest.mark.parametrize(
    ("params", "total_thc_min", "by_ppg"),
    [
        ({"sort": "price_per_gram"}, None, True),
        ({"sort": "PRICE_PER_GRAM "}, None, True),
        ({"total_thc_min": "20"}, 20.0, False),
        ({"total_thc_min": "1.85e1", "sort": "price_per_gram"}, 18.5, True),
    ],
)
def test_a_strains_dispensaries_by_price_per_gram_and_batch_thc(
    api, session: Session, params: dict, total_thc_min: float | None, by_ppg: bool
) -> None:
    strain = most_listed_strain(session)
    items = _walk(api, STOCKISTS.format(slug=strain.slug), **params)
    expected = _expected(session, strain, total_thc_min, by_ppg)
    assert [i["id"] for i in items] == [place.public_id for place, _ in expected]
    for shown, (_, item) in zip(items, expected, strict=True):
        assert (shown["price"], shown["unit"], shown["price_per_gram"]) == (
            item.price,
            item.unit,
            item.price_per_gram,
        )
        assert shown["lab"] == shown_lab(item)
        if total_thc_min is not None:
            assert shown["lab"]["total_thc"] >= total_thc_min
    assert len(items) > 3


def test_a_total_thc_min_above_every_batch_lists_nothing(api, session: Session) -> None:
    strain = most_listed_strain(session)
    body = api.json(STOCKISTS.format(slug=strain.slug), total_thc_min="100")
    assert (body["data"], body["meta"]["total"]) == ([], 0)


@pytest.mark.parametrize(
    ("params", "param", "message"),
    [
        ({"total_thc_min": "NaN"}, "total_thc_min", "total_thc_min must be a number from 0 to 100"),
        ({"total_thc_min": "inf"}, "total_thc_min", "total_thc_min must be a number from 0 to 100"),
        ({"total_thc_min": "-1"}, "total_thc_min", "total_thc_min must be a number from 0 to 100"),
        ({"total_thc_min": "101"}, "total_thc_min", "total_thc_min must be a number from 0 to 100"),
        ({"total_thc_min": "1e9"}, "total_thc_min", "total_thc_min must be a number from 0 to 100"),
        ({"total_thc_min": "abc"}, "total_thc_min", "total_thc_min must be a number from 0 to 100"),
        ({"total_thc_min": ""}, "total_thc_min", "total_thc_min must be a number from 0 to 100"),
        (
            {"sort": "cheapest"},
            "sort",
            "sort must be one of: name, distance, rating, -rating, updated_at, -updated_at, "
            "price_per_gram",
        ),
    ],
)
def test_a_bad_shelf_parameter_is_a_400_naming_it(
    api, params: dict, param: str, message: str
) -> None:
    error = api.json(STOCKISTS.format(slug="og-kush"), status=400, **params)["error"]
    assert (error["param"], error["message"]) == (param, message)


def test_the_dispensary_list_takes_neither_the_order_nor_the_filter(api) -> None:
    sort = api.json("/api/v1/dispensaries", status=400, sort="price_per_gram")["error"]
    assert sort["param"] == "sort"
    assert "price_per_gram" not in sort["message"]
    thc = api.json("/api/v1/dispensaries", status=400, total_thc_min="10")["error"]
    assert thc["param"] == "total_thc_min"
    assert thc["message"].startswith("unknown parameter 'total_thc_min'")

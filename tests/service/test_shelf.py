"""The batch on the shelf at the service boundary: a menu item's lab and price per gram, and a
strain's dispensaries by price per gram and by the batch's total THC (service.offers), on the
REST path (list_dispensaries) and GraphQL's batched one (stockists_by_strain, offers_by_pair).

Expected orders and items are worked out here from the menu rows: a dispensary's counted items
are those of the strain reaching total_thc_min (none without a batch); the one shown is the
cheapest (then menu order), or by price per gram the lowest price per gram (nulls last), then
the cheapest; dispensaries by price per gram order by that item's, nulls last, then name, id.
"""

from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models import Dispensary, MenuItem, Strain
from service.compounds import grams_of
from service.dispensaries import menus_by_dispensary
from service.dispensary_lists import list_dispensaries
from service.errors import InvalidParameter
from service.filters import STOCKIST_SORTS, DispensaryFilters
from service.lab import MAX_LAB_RESULTS, LabResult, lab_batch
from service.offers import offers_by_pair
from service.paging import PageRequest
from service.stockist_lists import stockists_by_strain
from tests.menus import most_listed_strain

WHOLE = PageRequest(100, 0)


def _filters(**given: Any) -> DispensaryFilters:
    return DispensaryFilters.create(sorts=STOCKIST_SORTS, **given)


def _items(session: Session, strain: Strain) -> dict[int, list[MenuItem]]:
    found: dict[int, list[MenuItem]] = {}
    for item in session.scalars(select(MenuItem).where(MenuItem.strain_id == strain.id)):
        found.setdefault(item.dispensary_id, []).append(item)
    return found


def _counted(items: list[MenuItem], total_thc_min: float | None) -> list[MenuItem]:
    if total_thc_min is None:
        return items
    return [i for i in items if i.total_thc is not None and i.total_thc >= total_thc_min]


def _shown(items: list[MenuItem], by_price_per_gram: bool) -> MenuItem:
    def key(item: MenuItem) -> tuple:
        per_gram = (item.price_per_gram is None, item.price_per_gram or 0.0)
        return (*(per_gram if by_price_per_gram else ()), item.price, item.position)

    return min(items, key=key)


def _expected(
    session: Session, strain: Strain, *, total_thc_min: float | None = None, by_ppg: bool = False
) -> list[tuple[str, MenuItem]]:
    """(public id, shown item) of the strain's dispensaries, in the list's order."""
    rows = []
    for place_id, items in _items(session, strain).items():
        counted = _counted(items, total_thc_min)
        if counted:
            rows.append((session.get_one(Dispensary, place_id), _shown(counted, by_ppg)))

    def order(row: tuple[Dispensary, MenuItem]) -> tuple:
        place, item = row
        name = (place.sort_key, place.id)
        if not by_ppg:
            return name
        return (item.price_per_gram is None, item.price_per_gram or 0.0, *name)

    return [(place.public_id, item) for place, item in sorted(rows, key=order)]


def _listed(session: Session, strain: Strain, filters: DispensaryFilters) -> list[tuple]:
    page = list_dispensaries(session, filters, WHOLE, strain_id=strain.id)
    assert page.total == len(page.items)
    return [(r.public_id, r.price, r.unit, r.price_per_gram, r.lab) for r in page.items]


def _as_listed(expected: list[tuple[str, MenuItem]]) -> list[tuple]:
    return [
        (pid, i.price, i.unit, i.price_per_gram, lab_batch(i.lab, i.total_thc, i.total_cbd))
        for pid, i in expected
    ]


@pytest.fixture
def strain(session: Session) -> Strain:
    return most_listed_strain(session)


def _add_item(session: Session, strain: Strain, place: Dispensary, **fields: Any) -> MenuItem:
    """A menu item of ``strain`` at the end of ``place``'s menu (rolled back after the test)."""
    last = session.scalar(
        select(func.max(MenuItem.position)).where(MenuItem.dispensary_id == place.id)
    )
    item = MenuItem(
        dispensary_id=place.id,
        position=(last or 0) + 1,
        name=strain.name,
        category="flower",
        strain_id=strain.id,
        **{"lab": None, "total_thc": None, "total_cbd": None, **fields},
    )
    session.add(item)
    session.flush()
    return item


def _not_stocking(session: Session, strain: Strain, count: int) -> list[Dispensary]:
    stocking = select(MenuItem.dispensary_id).where(MenuItem.strain_id == strain.id)
    return list(
        session.scalars(
            select(Dispensary).where(Dispensary.id.not_in(stocking)).order_by(Dispensary.id)
        )
    )[:count]


# --- a menu item's lab and price per gram ------------------------------------------------------


def test_every_menu_item_shows_its_batch_and_price_per_gram(session: Session) -> None:
    ids = list(session.scalars(select(Dispensary.id)))
    menus = menus_by_dispensary(session, ids)
    items = {(i.dispensary_id, i.position): i for i in session.scalars(select(MenuItem))}
    units: set[str] = set()
    batches = 0
    for place_id, menu in menus.items():
        for position, entry in enumerate(menu):
            row = items[(place_id, position)]
            grams = grams_of(row.unit)
            assert entry.price_per_gram == (round(row.price / grams, 2) if grams else None)
            assert entry.lab == lab_batch(row.lab, row.total_thc, row.total_cbd)
            if grams:
                units.add(row.unit)
            batches += entry.lab is not None
    # Every weight unit of the demo menus: flower by the gram to 28g, a balm by the ounce
    # (service.compounds.grams_of reads "1 oz" as 1oz, 28 grams); other units have none.
    assert units == {"1g", "3.5g", "7g", "14g", "28g", "1 oz"}
    assert {grams_of(unit) for unit in ("10 pack", "30 ml", "100mg", "0.5g")} == {None}
    assert batches > 500


def test_a_batch_shows_its_results_with_a_qualifier_only_where_there_is_no_value() -> None:
    stored = {
        "batch_id": "B-1",
        "tested_at": "2026-11-02",
        "lab": "Name Labs",
        "coa_url": "https://name-labs.example/coa/B-1.pdf",
        "results": [
            {"key": "thca", "value": 22.1034, "unit": "percent"},
            {"key": "cbn", "value": None, "unit": "percent", "qualifier": "nd"},
            {"key": "cbg", "value": None, "qualifier": "lt_loq"},
            {"key": "cbc", "value": 0.2, "unit": "percent", "qualifier": "nd"},
        ],
    }
    batch = lab_batch(stored, 19.4, 0.0)
    assert batch is not None
    assert (batch.batch_id, batch.tested_at, batch.total_thc, batch.total_cbd) == (
        "B-1",
        "2026-11-02",
        19.4,
        0.0,
    )
    assert batch.results == [
        LabResult("thca", 22.1034, "percent", None),
        LabResult("cbn", None, "percent", "nd"),
        LabResult("cbg", None, "percent", "lt_loq"),
        LabResult("cbc", 0.2, "percent", None),  # a value: no qualifier shown
    ]
    assert lab_batch(None, None, None) is None
    many = {**stored, "results": [{"key": "thca", "value": 1.0}] * (MAX_LAB_RESULTS + 5)}
    assert len(lab_batch(many, 1.0, 0.0).results) == MAX_LAB_RESULTS  # type: ignore[union-attr]


# --- a strain's dispensaries by price per gram and total THC ---------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, {}),
        ({"sort": "price_per_gram"}, {"by_ppg": True}),
        ({"total_thc_min": 20.0}, {"total_thc_min": 20.0}),
        (
            {"total_thc_min": 18.5, "sort": "price_per_gram"},
            {"total_thc_min": 18.5, "by_ppg": True},
        ),
        ({"total_thc_min": 0.0}, {"total_thc_min": 0.0}),
        ({"total_thc_min": 100.0}, {"total_thc_min": 100.0}),
    ],
)
def test_a_strains_dispensaries_follow_the_item_that_counts(
    session: Session, strain: Strain, given: dict, expected: dict
) -> None:
    wanted = _as_listed(_expected(session, strain, **expected))
    assert _listed(session, strain, _filters(**given)) == wanted
    if given.get("total_thc_min") != 100.0:
        assert len(wanted) > 1


def test_items_without_a_batch_never_reach_total_thc_min_and_price_per_gram_nulls_go_last(
    session: Session, strain: Strain
) -> None:
    untested, by_the_pack = _not_stocking(session, strain, 2)
    _add_item(session, strain, untested, price=1.0, unit="1g", price_per_gram=1.0)
    _add_item(session, strain, by_the_pack, price=0.5, unit="10 pack", price_per_gram=None)
    everything = _listed(session, strain, _filters(sort="price_per_gram"))
    assert everything[0][:4] == (untested.public_id, 1.0, "1g", 1.0)  # cheapest per gram
    assert everything[-1][:4] == (by_the_pack.public_id, 0.5, "10 pack", None)  # nulls last
    tested = {row[0] for row in _listed(session, strain, _filters(total_thc_min=0.0))}
    assert untested.public_id not in tested
    assert by_the_pack.public_id not in tested
    assert len(tested) == len(everything) - 2


def test_a_menu_listing_the_strain_twice_shows_the_item_the_order_or_filter_counts(
    session: Session, strain: Strain
) -> None:
    (place,) = _not_stocking(session, strain, 1)
    _add_item(session, strain, place, price=12.0, unit="1g", price_per_gram=12.0, total_thc=25.0)
    _add_item(session, strain, place, price=196.0, unit="28g", price_per_gram=7.0, total_thc=15.0)

    def shown(**given: Any) -> tuple:
        rows = _listed(session, strain, _filters(**given))
        return next(row[1:4] for row in rows if row[0] == place.public_id)

    assert shown() == (12.0, "1g", 12.0)  # the cheapest
    assert shown(sort="price_per_gram") == (196.0, "28g", 7.0)  # the cheapest per gram
    assert shown(sort="price_per_gram", total_thc_min=20.0) == (12.0, "1g", 12.0)
    ranked = _listed(session, strain, _filters(sort="price_per_gram"))
    per_gram = [row[3] for row in ranked]
    assert per_gram == sorted(per_gram)  # the demo's items all have one
    assert ranked.index(next(r for r in ranked if r[0] == place.public_id)) == per_gram.index(7.0)


@pytest.mark.parametrize(
    "given",
    [
        {"sort": "price_per_gram"},
        {"total_thc_min": 19.0},
        {"total_thc_min": 19.0, "sort": "price_per_gram"},
        {"sort": "price_per_gram", "state": "NY,OH,PA"},
    ],
)
def test_graphqls_batched_path_lists_and_prices_as_rest_does(
    session: Session, given: dict[str, Any]
) -> None:
    strains = list(session.scalars(select(Strain).order_by(Strain.id).limit(40)))
    filters = _filters(**given)
    pages = stockists_by_strain(session, [s.id for s in strains], filters, PageRequest(5, 1))
    pairs = [(s.id, row.id) for s in strains for row in pages[s.id]]
    offers = offers_by_pair(session, pairs, filters)
    compared = 0
    for strain in strains:
        rest = list_dispensaries(session, filters, PageRequest(5, 1), strain_id=strain.id)
        assert [r.id for r in pages[strain.id]] == [r.id for r in rest.items], strain.slug
        for row in rest.items:
            offer = offers[(strain.id, row.id)]
            assert (offer.price, offer.unit, offer.price_per_gram, offer.lab) == (
                row.price,  # type: ignore[attr-defined]
                row.unit,  # type: ignore[attr-defined]
                row.price_per_gram,  # type: ignore[attr-defined]
                row.lab,  # type: ignore[attr-defined]
            )
            compared += 1
    assert compared > 10


@pytest.mark.parametrize(
    ("given", "param", "message"),
    [
        ({"total_thc_min": float("nan")}, "total_thc_min", "total_thc_min must be a number"),
        ({"total_thc_min": float("inf")}, "total_thc_min", "total_thc_min must be a number"),
        ({"total_thc_min": -1.0}, "total_thc_min", "total_thc_min must be a number from 0"),
        ({"total_thc_min": 100.5}, "total_thc_min", "total_thc_min must be a number from 0"),
        ({"sort": "cheapest"}, "sort", "sort must be one of: name, distance"),
    ],
)
def test_bad_shelf_filters_name_their_parameter(given: dict, param: str, message: str) -> None:
    with pytest.raises(InvalidParameter) as raised:
        _filters(**given)
    assert raised.value.param == param
    assert raised.value.message.startswith(message)
    if param == "sort":
        assert raised.value.message.endswith("price_per_gram")


def test_other_place_lists_do_not_take_the_price_per_gram_order() -> None:
    with pytest.raises(InvalidParameter) as raised:
        DispensaryFilters.create(sort="price_per_gram")
    assert raised.value.param == "sort"
    assert "price_per_gram" not in raised.value.message

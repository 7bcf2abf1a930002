"""Limit/offset windows of every list operation, called at the service boundary.

Each operation runs through the bounds service.bounds defines for it (the ones both edges use)
on the shared tiny dataset; the expected keys, in order, are computed here in plain Python from
the generated rows, never by calling the service.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest
import zipcodes
from sqlalchemy import Connection

from seed import Dataset
from service import bounds
from service.bounds import ListBound
from service.deals import list_deals
from service.dispensary_lists import list_dispensaries
from service.doctors import list_doctors
from service.errors import InvalidParameter
from service.filters import (
    DealFilters,
    DispensaryFilters,
    DoctorFilters,
    SearchQuery,
    StrainFilters,
)
from service.paging import Page, PageRequest
from service.search import search
from service.strains import list_strains
from tests.distances import haversine_miles
from tests.filters import dispensary_filters

MAX_OFFSET = 1_000_000


def _by_name(rows: list[dict[str, Any]], key: str) -> list[str]:
    return [row[key] for row in sorted(rows, key=lambda row: (row["name"].lower(), row["id"]))]


def _strains(dataset: Dataset, today: date) -> list[str]:
    return _by_name(dataset.strains, "slug")


def _relaxed_strains(dataset: Dataset, today: date) -> list[str]:
    relaxed = {row["strain_id"] for row in dataset.strain_effects if row["name"] == "relaxed"}
    return _by_name([s for s in dataset.strains if s["id"] in relaxed], "slug")


def _dispensaries(dataset: Dataset, today: date) -> list[str]:
    return _by_name(dataset.dispensaries, "public_id")


def _near_20001(dataset: Dataset, today: date) -> list[str]:
    record = zipcodes.matching("20001")[0]
    lat, lng = float(record["lat"]), float(record["long"])
    found = []
    for shop in dataset.dispensaries:
        miles = haversine_miles(lat, lng, shop["lat"], shop["lng"])
        if miles <= 500:
            found.append((miles, shop["name"].lower(), shop["id"], shop["public_id"]))
    return [public_id for *_, public_id in sorted(found)]


def _deals(dataset: Dataset, today: date) -> list[str]:
    active = [deal for deal in dataset.deals if deal["expires"] >= today]
    return [deal["public_id"] for deal in sorted(active, key=lambda d: (d["expires"], d["id"]))]


def _doctors(dataset: Dataset, today: date) -> list[str]:
    return _by_name(dataset.doctors, "public_id")


def _search_an(dataset: Dataset, today: date) -> list[str]:
    """Every name containing "an" (all rank 1 or 3 here: none is "an" or has it as a word)."""
    shops = {shop["id"]: shop for shop in dataset.dispensaries}
    names = [
        *(("strain", s["slug"], s["name"]) for s in dataset.strains),
        *(("dispensary", s["public_id"], s["name"]) for s in shops.values()),
        *(("doctor", d["public_id"], d["name"]) for d in dataset.doctors),
        *(("deal", d["public_id"], d["title"]) for d in dataset.deals if d["expires"] >= today),
    ]
    hits = [(kind, key, name) for kind, key, name in names if "an" in name.lower()]

    def rank(name: str) -> int:
        words = "".join(" " if c in ",.;:!?'\"()[]/&+-" else c for c in name.lower()).split()
        assert "an" not in words, "no exact or whole-word match"
        return 1 if name.lower().startswith("an") else 3

    hits.sort(key=lambda hit: (rank(hit[2]), hit[2].lower(), hit[2], hit[0], hit[1]))
    return [f"{kind}:{key}" for kind, key, _ in hits]


@dataclass(frozen=True)
class Operation:
    bound: ListBound
    fetch: Callable[[Connection, PageRequest, date], Page[Any]]
    expected: Callable[[Dataset, date], list[str]]
    key: Callable[[Any], str]


OPERATIONS = [
    pytest.param(
        Operation(
            bounds.STRAINS,
            lambda db, page, today: list_strains(db, StrainFilters.create(), page),
            _strains,
            lambda row: row.slug,
        ),
        id="strains",
    ),
    pytest.param(
        Operation(
            bounds.STRAINS,
            lambda db, page, today: list_strains(db, StrainFilters.create(effect="relaxed"), page),
            _relaxed_strains,
            lambda row: row.slug,
        ),
        id="strains-by-effect",
    ),
    pytest.param(
        Operation(
            bounds.DISPENSARIES,
            lambda db, page, today: list_dispensaries(db, DispensaryFilters.create(), page),
            _dispensaries,
            lambda row: row.public_id,
        ),
        id="dispensaries",
    ),
    pytest.param(
        Operation(
            bounds.DISPENSARIES,
            lambda db, page, today: list_dispensaries(
                db, dispensary_filters(zip="20001", radius=500.0), page
            ),
            _near_20001,
            lambda row: row.public_id,
        ),
        id="dispensaries-near-zip",
    ),
    pytest.param(
        Operation(
            bounds.DEALS,
            lambda db, page, today: list_deals(db, DealFilters.create(), page, today=today),
            _deals,
            lambda row: row.public_id,
        ),
        id="deals",
    ),
    pytest.param(
        Operation(
            bounds.DOCTORS,
            lambda db, page, today: list_doctors(db, DoctorFilters.create(), page),
            _doctors,
            lambda row: row.public_id,
        ),
        id="doctors",
    ),
    pytest.param(
        Operation(
            bounds.SEARCH,
            lambda db, page, today: search(db, SearchQuery.create(q="an"), page, today=today),
            _search_an,
            lambda hit: f"{hit.type}:{hit.key}",
        ),
        id="search",
    ),
]


def _run(
    op: Operation, db: Connection, today: date, limit: int | None, offset: int | None
) -> tuple[list[str], Page[Any]]:
    page = op.fetch(db, PageRequest.within(op.bound, limit, offset), today)
    return [op.key(item) for item in page.items], page


@pytest.mark.parametrize(
    ("bound", "default", "maximum"),
    [
        (bounds.STRAINS, 20, 100),
        (bounds.DISPENSARIES, 20, 100),
        (bounds.DEALS, 20, 100),
        (bounds.DOCTORS, 20, 50),
        (bounds.SEARCH, 20, 100),
    ],
    ids=["strains", "dispensaries", "deals", "doctors", "search"],
)
def test_each_list_operation_has_the_spec_page_sizes(
    bound: ListBound, default: int, maximum: int
) -> None:
    assert (bound.default, bound.maximum) == (default, maximum)


@pytest.mark.parametrize("op", OPERATIONS)
def test_without_a_window_the_first_default_sized_page_and_the_true_total_come_back(
    db: Connection, dataset: Dataset, reference_day: date, op: Operation
) -> None:
    expected = op.expected(dataset, reference_day)
    assert len(expected) > op.bound.default
    keys, page = _run(op, db, reference_day, None, None)
    assert keys == expected[: op.bound.default]
    assert (page.total, page.limit, page.offset) == (len(expected), op.bound.default, 0)


@pytest.mark.parametrize("op", OPERATIONS)
@pytest.mark.parametrize("excess", [0, 1, 1_000, 10**17])
def test_a_limit_at_or_above_the_maximum_gives_the_maximum(
    db: Connection, dataset: Dataset, reference_day: date, op: Operation, excess: int
) -> None:
    expected = op.expected(dataset, reference_day)
    keys, page = _run(op, db, reference_day, op.bound.maximum + excess, 0)
    assert page.limit == op.bound.maximum
    assert keys == expected[: op.bound.maximum]
    assert page.total == len(expected)


# Windows as (limit, offset), the offset counted from the start or (negative) from the total.
WINDOWS = [
    pytest.param(1, 0, id="first-item"),
    pytest.param(13, 0, id="first-page"),
    pytest.param(7, 7, id="second-page"),
    pytest.param(13, 5, id="arbitrary-offset"),
    pytest.param(10, -3, id="short-last-page"),
    pytest.param(3, -3, id="exact-last-page"),
    pytest.param(5, -1, id="last-item"),
]


@pytest.mark.parametrize("op", OPERATIONS)
@pytest.mark.parametrize(("limit", "back"), WINDOWS)
def test_a_window_holds_exactly_its_slice_and_the_true_total(
    db: Connection, dataset: Dataset, reference_day: date, op: Operation, limit: int, back: int
) -> None:
    expected = op.expected(dataset, reference_day)
    offset = back if back >= 0 else len(expected) + back
    keys, page = _run(op, db, reference_day, limit, offset)
    assert keys == expected[offset : offset + limit]
    assert (page.total, page.limit, page.offset) == (len(expected), limit, offset)


@pytest.mark.parametrize("op", OPERATIONS)
@pytest.mark.parametrize("past", [0, 1, 500])
def test_a_window_past_the_end_is_empty_and_keeps_the_true_total(
    db: Connection, dataset: Dataset, reference_day: date, op: Operation, past: int
) -> None:
    expected = op.expected(dataset, reference_day)
    keys, page = _run(op, db, reference_day, 5, len(expected) + past)
    assert (keys, page.total) == ([], len(expected))
    assert (page.limit, page.offset) == (5, len(expected) + past)


@pytest.mark.parametrize("op", OPERATIONS)
def test_the_largest_offset_is_accepted_and_gives_an_empty_page(
    db: Connection, dataset: Dataset, reference_day: date, op: Operation
) -> None:
    keys, page = _run(op, db, reference_day, None, MAX_OFFSET)
    assert (keys, page.total, page.offset) == (
        [],
        len(op.expected(dataset, reference_day)),
        MAX_OFFSET,
    )


@pytest.mark.parametrize("op", OPERATIONS)
@pytest.mark.parametrize("size", [1, 7, 13])
def test_consecutive_pages_line_up_with_one_page_of_their_joint_size(
    db: Connection, reference_day: date, op: Operation, size: int
) -> None:
    joined: list[str] = []
    for number in range(3):
        keys, _ = _run(op, db, reference_day, size, number * size)
        joined.extend(keys)
    whole, _ = _run(op, db, reference_day, 3 * size, 0)
    assert joined == whole
    assert len(set(joined)) == 3 * size


@pytest.mark.parametrize("op", OPERATIONS)
@pytest.mark.parametrize("size", [1, 7, 20])
def test_two_consecutive_pages_equal_one_page_of_double_size_without_overlap(
    db: Connection, reference_day: date, op: Operation, size: int
) -> None:
    first, _ = _run(op, db, reference_day, size, 0)
    second, _ = _run(op, db, reference_day, size, size)
    both, _ = _run(op, db, reference_day, 2 * size, 0)
    assert len(first) == len(second) == size
    assert not set(first) & set(second)
    assert first + second == both


@pytest.mark.parametrize("op", OPERATIONS)
def test_pages_from_an_arbitrary_offset_line_up_with_one_larger_page(
    db: Connection, reference_day: date, op: Operation
) -> None:
    whole, _ = _run(op, db, reference_day, 30, 11)
    parts = [_run(op, db, reference_day, 10, offset)[0] for offset in (11, 21, 31)]
    assert parts[0] + parts[1] + parts[2] == whole


@pytest.mark.parametrize("op", OPERATIONS)
@pytest.mark.parametrize("size", [9, 17])
def test_walking_every_page_visits_each_result_once_in_order(
    db: Connection, dataset: Dataset, reference_day: date, op: Operation, size: int
) -> None:
    expected = op.expected(dataset, reference_day)
    visited: list[str] = []
    totals = set()
    while True:
        keys, page = _run(op, db, reference_day, size, len(visited))
        assert page.offset == len(visited)
        totals.add(page.total)
        if not keys:
            break
        visited.extend(keys)
    assert visited == expected
    assert totals == {len(expected)}


# Lists whose total the page counts apart from its rows in some windows only.
TOTALS = [
    pytest.param(lambda db, page: list_strains(db, StrainFilters.create(), page), id="strains"),
    pytest.param(
        lambda db, page: list_strains(db, StrainFilters.create(type="indica"), page),
        id="indica-strains",
    ),
    pytest.param(
        lambda db, page: list_strains(
            db, StrainFilters.create(effect="relaxed", thc_min=15.0), page
        ),
        id="relaxed-strains-over-15-thc",
    ),
    pytest.param(
        lambda db, page: list_dispensaries(db, DispensaryFilters.create(state="CA"), page),
        id="dispensaries-in-ca",
    ),
]


@pytest.mark.parametrize("fetch", TOTALS)
def test_every_window_reports_the_same_total(
    db: Connection, fetch: Callable[[Connection, PageRequest], Page[Any]]
) -> None:
    total = fetch(db, PageRequest.build(1, 0)).total
    assert total > 4
    middle = fetch(db, PageRequest.build(2, total // 2))
    last = fetch(db, PageRequest.build(3, total - 1))
    past = fetch(db, PageRequest.build(5, total + 10))
    assert [len(middle.items), len(last.items), past.items] == [2, 1, []]
    assert middle.total == last.total == past.total == total


@pytest.mark.parametrize("op", OPERATIONS)
@pytest.mark.parametrize("limit", [0, -1, -(10**18)])
def test_a_limit_below_one_raises_naming_limit_and_the_operations_maximum(
    op: Operation, limit: int
) -> None:
    with pytest.raises(InvalidParameter) as raised:
        PageRequest.within(op.bound, limit, 0)
    maximum = op.bound.maximum
    assert raised.value.param == "limit"
    assert raised.value.message == (
        f"limit must be an integer from 1 to {maximum} (larger values are reduced to {maximum})"
    )


@pytest.mark.parametrize("op", OPERATIONS)
@pytest.mark.parametrize("offset", [-1, -20, MAX_OFFSET + 1, 10**18])
def test_an_offset_outside_0_to_a_million_raises_naming_offset(op: Operation, offset: int) -> None:
    with pytest.raises(InvalidParameter) as raised:
        PageRequest.within(op.bound, 5, offset)
    assert (raised.value.param, raised.value.message) == (
        "offset",
        "offset must be an integer from 0 to 1000000",
    )


def test_build_and_within_agree_on_the_doctors_window() -> None:
    assert PageRequest.within(bounds.DOCTORS, 500, 3) == PageRequest.build(500, 3, maximum=50)
    assert PageRequest.within(bounds.DOCTORS) == PageRequest(limit=20, offset=0)

"""service.stockist_lists.stockists_by_strain: every strain's page of stockists in one statement
equals that strain's own page from service.dispensary_lists.list_dispensaries (which REST's
GET /strains/{slug}/dispensaries serves), under every filter, order and window."""

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import Connection, select

from models import Strain
from service.dispensary_lists import list_dispensaries
from service.dispensary_rows import DispensaryRow
from service.filters import DispensaryFilters
from service.paging import PageRequest
from service.stockist_lists import stockists_by_strain
from tests.conftest import recorded_statements
from tests.filters import dispensary_filters

NOON = datetime(2026, 12, 4, 19, 0, tzinfo=UTC)
FILTERS: list[dict[str, Any]] = [
    {},
    {"state": "NY"},
    {"state": ["NY", "OH", "CA"]},
    {"type": "medical"},
    {"delivery": True},
    {"zip": "15222", "radius": 500},
    {"lat": 40.4406, "lng": -79.9959, "radius": 400, "sort": "name"},
    {"lat": 34.05, "lng": -118.24, "radius": 300, "sort": "-rating"},
    {"bbox": [-125, 24, -66, 50]},
    {"bbox": [-80, 38, -70, 45], "sort": "rating"},
    {"open_now": True},
    {"open_now": False},
    {"open_at": "2026-12-04T18:00:00-07:00"},
    # Within days of a change of UTC offset (both 2026 changes in the US zones).
    {"open_at": "2026-03-08T09:15:00-08:00", "sort": "-rating"},
    {"open_at": "2026-11-01T20:30:00-05:00", "lat": 40.4406, "lng": -79.9959, "radius": 500},
    {"open_at": "2026-12-05T20:30:00-05:00", "lat": 40.4406, "lng": -79.9959, "radius": 500},
    {"sort": "-rating", "state": ["CA", "TX", "FL"]},
]
WINDOWS = [PageRequest(limit=3, offset=0), PageRequest(limit=2, offset=1), PageRequest(100, 0)]


def _shown(row: DispensaryRow) -> tuple[Any, ...]:
    return (row.public_id, row.distance, row.is_open, row.next_change)


@pytest.fixture(scope="module")
def strain_ids(db: Connection) -> list[int]:
    return list(db.scalars(select(Strain.id).order_by(Strain.sort_key, Strain.id).limit(12)))


@pytest.mark.parametrize("given", FILTERS, ids=[str(f) for f in FILTERS])
@pytest.mark.parametrize("window", WINDOWS, ids=["3 from 0", "2 from 1", "100"])
def test_each_strains_page_is_its_own_list_page(
    db: Connection, strain_ids: list[int], given: dict[str, Any], window: PageRequest
) -> None:
    filters = dispensary_filters(**given)
    clock = lambda: NOON  # noqa: E731
    found = stockists_by_strain(db, strain_ids, filters, window, now=clock)
    assert list(found) == strain_ids
    for strain_id in strain_ids:
        alone = list_dispensaries(db, filters, window, now=clock, strain_id=strain_id)
        assert [_shown(row) for row in found[strain_id]] == [_shown(row) for row in alone.items]


def test_the_pages_are_not_all_empty(db: Connection, strain_ids: list[int]) -> None:
    # The comparisons above mean something only if stockists are found under the filters.
    for given in FILTERS:
        filters = dispensary_filters(**given)
        found = stockists_by_strain(db, strain_ids, filters, WINDOWS[2], now=lambda: NOON)
        assert sum(len(rows) for rows in found.values()) > 0, given


def test_one_statement_answers_every_strain(db: Connection, strain_ids: list[int]) -> None:
    filters = dispensary_filters(lat=40.4406, lng=-79.9959, radius=500, sort="-rating")
    with recorded_statements(db) as seen:
        stockists_by_strain(db, strain_ids, filters, WINDOWS[0])
    assert len(seen) == 1


def test_no_strains_asks_nothing(db: Connection) -> None:
    with recorded_statements(db) as seen:
        assert stockists_by_strain(db, [], DispensaryFilters.create(), WINDOWS[0]) == {}
    assert seen == []

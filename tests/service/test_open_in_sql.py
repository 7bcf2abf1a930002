"""Open at an instant, kept by SQL away from changes of UTC offset (service.open_sql), answers
as the hours tested one by one do (tests/opening.py, sharing nothing with service.hours): over
a year of instants, so both ways are taken (near a change of offset the lists test each row in
Python), for dispensaries by name, in a state, around a point, and for deals."""

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection

from models.db import make_engine
from seed import Dataset, load_dataset
from service import open_sql
from service.deals import list_deals
from service.dispensary_lists import list_dispensaries
from service.filters import DealFilters, DispensaryFilters
from service.paging import Page
from tests.distances import cosine_law_miles
from tests.opening import DAYS, is_open_at
from tests.service.pages import walk

# Every 53 hours through 2026 from 00:17 UTC: every hour of the day and day of the week comes
# up, and so do the days around both changes of offset.
INSTANTS = [datetime(2026, 1, 1, 0, 17, tzinfo=UTC) + timedelta(hours=53 * n) for n in range(166)]
# Around the point: a circle wide enough to hold several states' shops.
POINT = (39.7392, -104.9903, 500.0)


def _in_sql(db: Connection, at: datetime) -> tuple[str, ...] | None:
    """The zones the database keeps open rows for at ``at``, or None where Python tests them."""
    seen: list[tuple[str, ...]] = []

    def run(zones: tuple[str, ...], moments: dict[str, int]) -> Page[str]:
        assert len(moments) == len(zones)
        seen.append(zones)
        return Page(items=["a row"], total=1, limit=1, offset=0)

    return seen[0] if open_sql.kept_open(db, at, run) is not None else None


def _open_shops(dataset: Dataset, at: datetime) -> Iterator[dict[str, Any]]:
    return (s for s in dataset.dispensaries if is_open_at(s["hours"], s["timezone"], at))


@pytest.fixture(scope="module")
def ways(db: Connection) -> dict[str, int]:
    """How many instants each way answers (both must be taken for the tests to mean much)."""
    in_sql = sum(_in_sql(db, at) is not None for at in INSTANTS)
    return {"sql": in_sql, "python": len(INSTANTS) - in_sql}


def test_both_ways_are_taken_over_the_year(ways: dict[str, int]) -> None:
    # Four days either side of each change (service.hours._REACH: 8 days) at least.
    assert ways["python"] >= 5
    assert ways["sql"] >= 120


def test_near_a_change_of_offset_the_hours_are_tested_in_python(db: Connection) -> None:
    assert _in_sql(db, datetime(2026, 11, 1, 9, 30, tzinfo=UTC)) is None
    zones = _in_sql(db, datetime(2026, 12, 4, 1, 0, tzinfo=UTC))
    assert zones is not None
    assert "America/Los_Angeles" in zones


@pytest.mark.parametrize("at", INSTANTS, ids=lambda at: at.strftime("%m-%d %H:%M"))
def test_open_dispensaries_by_name_are_those_open_then(
    db: Connection, dataset: Dataset, at: datetime
) -> None:
    filters = DispensaryFilters.create(open_at=at)
    items = walk(lambda page: list_dispensaries(db, filters, page))
    expected = sorted(_open_shops(dataset, at), key=lambda s: (s["name"].casefold(), s["id"]))
    assert [row.public_id for row in items] == [s["public_id"] for s in expected]
    assert len(items) == len(expected)  # walk checks every page's total against it
    assert all(row.is_open and row.next_change is not None for row in items)


@pytest.mark.parametrize("at", INSTANTS[::5], ids=lambda at: at.strftime("%m-%d %H:%M"))
def test_open_dispensaries_in_a_state_and_around_a_point_are_those_open_then(
    db: Connection, dataset: Dataset, at: datetime
) -> None:
    in_state = DispensaryFilters.create(open_at=at, state="CA,CO")
    items = walk(lambda page: list_dispensaries(db, in_state, page))
    expected = {s["public_id"] for s in _open_shops(dataset, at) if s["state"] in ("CA", "CO")}
    assert {row.public_id for row in items} == expected
    assert len(items) == len(expected)  # walk checks every page's total against it
    lat, lng, radius = POINT
    near = DispensaryFilters.create(open_at=at, lat=lat, lng=lng, radius=radius)
    items = walk(lambda page: list_dispensaries(db, near, page))
    distances = {
        s["public_id"]: cosine_law_miles(lat, lng, s["lat"], s["lng"])
        for s in _open_shops(dataset, at)
    }
    expected = {key for key, miles in distances.items() if miles <= radius}
    assert {row.public_id for row in items} == expected
    assert len(items) == len(expected)  # walk checks every page's total against it
    assert [row.distance for row in items] == sorted(row.distance for row in items)


@pytest.mark.parametrize("at", INSTANTS[::3], ids=lambda at: at.strftime("%m-%d %H:%M"))
def test_deals_of_open_dispensaries_are_those_open_then(
    db: Connection, dataset: Dataset, reference_day: date, at: datetime
) -> None:
    filters = DealFilters.create(open_at=at)
    items = walk(lambda page: list_deals(db, filters, page, today=reference_day))
    shops = {s["id"] for s in _open_shops(dataset, at)}
    active = [d for d in dataset.deals if d["expires"] >= reference_day]
    expected = sorted(
        (d for d in active if d["dispensary_id"] in shops), key=lambda d: (d["expires"], d["id"])
    )
    assert [row.public_id for row in items] == [d["public_id"] for d in expected]
    assert len(items) == len(expected)  # walk checks every page's total against it


def test_a_sunday_opening_past_midnight_is_open_early_on_monday_in_sql(
    tmp_path: Path, dataset: Dataset
) -> None:
    """The seed has no such shop: one is given hours that wrap past the week's end (the span
    the database keeps is cut there, service.hours.weekly_spans) and one is open round the
    clock."""
    shops = [dict(shop) for shop in dataset.dispensaries]
    late, always = shops[0], shops[1]
    late.update(hours={"sun": "18:00-02:00"}, timezone="America/Los_Angeles")
    always.update(hours=dict.fromkeys(DAYS, "0:00-24:00"), timezone="Pacific/Guam")
    engine = make_engine(f"sqlite:///{tmp_path / 'wrap.db'}")
    try:
        load_dataset(engine, replace(dataset, dispensaries=shops))
        with engine.connect() as conn:
            for local, wanted in (("01:59", True), ("02:00", False), ("17:59", False)):
                at = datetime.fromisoformat(f"2026-12-07T{local}:00-08:00")  # a Monday
                assert _in_sql(conn, at) is not None
                filters = DispensaryFilters.create(open_at=at)
                items = walk(partial(list_dispensaries, conn, filters))
                opened = {row.public_id for row in items}
                assert (late["public_id"] in opened) is wanted, local
                assert always["public_id"] in opened
    finally:
        engine.dispose()


def test_a_load_that_brings_a_new_zone_is_answered_for_once_the_zones_are_stale(
    tmp_path: Path, dataset: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The zones are read once per database; a load in between that lists a zone they lack
    empties the answers (each statement checks the zones: service.open_sql) until an empty
    answer finds them older than RECHECK_AFTER_S and rereads them."""
    engine = make_engine(f"sqlite:///{tmp_path / 'zones.db'}")
    at = datetime(2026, 12, 4, 1, 0, tzinfo=UTC)
    filters = DispensaryFilters.create(open_at=at)
    shops = [dict(shop) for shop in dataset.dispensaries]
    moved = shops[0]
    moved.update(hours=dict.fromkeys(DAYS, "0:00-24:00"), timezone="America/Halifax")
    monkeypatch.setattr(open_sql, "RECHECK_AFTER_S", 3600.0)
    try:
        load_dataset(engine, dataset)
        with engine.connect() as conn:
            before = walk(partial(list_dispensaries, conn, filters))
            assert "America/Halifax" not in (_in_sql(conn, at) or ())
        load_dataset(engine, replace(dataset, dispensaries=shops))
        with engine.connect() as conn:
            # Zones read within the hour: the empty answer is trusted, not run again.
            assert walk(partial(list_dispensaries, conn, filters)) == []
            monkeypatch.setattr(open_sql, "RECHECK_AFTER_S", 0.0)
            after = walk(partial(list_dispensaries, conn, filters))
            deals = walk(
                partial(
                    list_deals, conn, DealFilters.create(open_at=at), today=dataset.reference_day
                )
            )
        assert moved["public_id"] in {row.public_id for row in after}
        expected = {s["public_id"] for s in shops if is_open_at(s["hours"], s["timezone"], at)}
        assert {row.public_id for row in after} == expected
        assert len(after) == len(expected)  # walk checks every page's total against it
        moved_deals = {d["public_id"] for d in dataset.deals if d["dispensary_id"] == moved["id"]}
        live = {d["public_id"] for d in dataset.deals if d["expires"] >= dataset.reference_day}
        assert moved_deals & live <= {row.public_id for row in deals}
        assert before  # the first answer was read with the zones of the first load
    finally:
        engine.dispose()

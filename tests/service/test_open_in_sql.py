"""Open at an instant, kept by SQL (service.open_sql), answers as the hours tested one by one do
(tests/opening.py, sharing nothing with service.hours): over a year of instants on the tiny
dataset, and densely across each change of offset of 2026 (and a few odder ones elsewhere) on
a copy whose hours run through the change, for dispensaries and deals."""

import os
import struct
import sys
import zoneinfo
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from functools import partial
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, event

import service.hours
from models import DispensaryOpenSpan, DispensaryTimeZone
from models.db import make_engine
from seed import Dataset, load_dataset
from service import open_sql
from service.deals import DealRow, list_deals
from service.dispensary_lists import list_dispensaries
from service.dispensary_rows import DispensaryRow
from service.filters import DispensaryFilters
from service.paging import PageRequest
from tests.conftest import postgres_scratch
from tests.distances import cosine_law_miles
from tests.filters import deal_filters, dispensary_filters
from tests.opening import DAYS, is_open_at, next_change_at
from tests.service.pages import walk

# Every 53 hours through 2026 from 00:17 UTC: every hour of the day and day of the week comes
# up, and so do the days around both changes of offset.
INSTANTS = [datetime(2026, 1, 1, 0, 17, tzinfo=UTC) + timedelta(hours=53 * n) for n in range(166)]
# Around the point: a circle wide enough to hold several states' shops.
POINT = (39.7392, -104.9903, 500.0)
Shop = dict[str, Any]


def _key(db: Connection, at: datetime) -> open_sql.OpenKey:
    """The key of the condition the database keeps open rows with at ``at``."""
    return open_sql.open_at(db, at).condition.key


def _open_shops(shops: Sequence[Shop], at: datetime) -> list[Shop]:
    return [s for s in shops if is_open_at(s["hours"], s["timezone"], at)]


def _by_name(shops: Sequence[Shop]) -> list[str]:
    return [s["public_id"] for s in sorted(shops, key=lambda s: (s["name"].casefold(), s["id"]))]


def _by_rating(shops: Sequence[Shop]) -> list[str]:
    return [
        s["public_id"]
        for s in sorted(shops, key=lambda s: (-s["rating"], s["name"].casefold(), s["id"]))
    ]


def _assert_open_until_the_next_change(
    rows: Sequence[DispensaryRow], shops: Sequence[Shop], at: datetime
) -> None:
    """Each row is open, until when the oracle says it closes (with the zone's offset then)."""
    by_id = {s["public_id"]: s for s in shops}
    for row in rows:
        shop = by_id[row.public_id]
        expected = next_change_at(shop["hours"], shop["timezone"], at)
        assert row.is_open is True
        assert row.next_change == expected, (row.public_id, shop["hours"], shop["timezone"])
        if expected is not None:
            assert row.next_change is not None
            assert row.next_change.utcoffset() == expected.utcoffset()


# -- over a year, on the tiny dataset -----------------------------------------------------------


@pytest.fixture(scope="module")
def ways(db: Connection) -> dict[bool, int]:
    """How many instants each condition answers (near a change of offset or not)."""
    shifted = sum(bool(_key(db, at).weeks) for at in INSTANTS)
    return {True: shifted, False: len(INSTANTS) - shifted}


def test_instants_near_a_change_of_offset_answer_in_sql_too(ways: dict[bool, int]) -> None:
    # Four days either side of each change (service.hours._REACH: 8 days) at least.
    assert ways[True] >= 5
    assert ways[False] >= 120


def test_near_a_change_of_offset_the_condition_maps_each_span_end_on_its_own(
    db: Connection,
) -> None:
    near = _key(db, datetime(2026, 11, 1, 9, 30, tzinfo=UTC))
    away = _key(db, datetime(2026, 12, 4, 1, 0, tzinfo=UTC))
    assert (near.weeks, away.weeks) == ((0,), ())
    assert near.zones == away.zones
    assert "America/Los_Angeles" in near.zones


@pytest.mark.parametrize("at", INSTANTS, ids=lambda at: at.strftime("%m-%d %H:%M"))
def test_open_dispensaries_by_name_are_those_open_then(
    db: Connection, dataset: Dataset, at: datetime
) -> None:
    filters = dispensary_filters(open_at=at)
    items = walk(lambda page: list_dispensaries(db, filters, page))
    expected = _by_name(_open_shops(dataset.dispensaries, at))
    assert [row.public_id for row in items] == expected
    assert len(items) == len(expected)  # walk checks every page's total against it
    assert all(row.is_open and row.next_change is not None for row in items)


@pytest.mark.parametrize("at", INSTANTS[::5], ids=lambda at: at.strftime("%m-%d %H:%M"))
def test_open_dispensaries_in_a_state_and_around_a_point_are_those_open_then(
    db: Connection, dataset: Dataset, at: datetime
) -> None:
    in_state = dispensary_filters(open_at=at, state="CA,CO")
    items = walk(lambda page: list_dispensaries(db, in_state, page))
    expected = {
        s["public_id"] for s in _open_shops(dataset.dispensaries, at) if s["state"] in ("CA", "CO")
    }
    assert {row.public_id for row in items} == expected
    assert len(items) == len(expected)  # walk checks every page's total against it
    lat, lng, radius = POINT
    near = dispensary_filters(open_at=at, lat=lat, lng=lng, radius=radius)
    items = walk(lambda page: list_dispensaries(db, near, page))
    distances = {
        s["public_id"]: cosine_law_miles(lat, lng, s["lat"], s["lng"])
        for s in _open_shops(dataset.dispensaries, at)
    }
    expected = {key for key, miles in distances.items() if miles <= radius}
    assert {row.public_id for row in items} == expected
    assert len(items) == len(expected)  # walk checks every page's total against it
    assert [row.distance for row in items] == sorted(row.distance for row in items)


def _expected_deals(
    dataset: Dataset, shops: Sequence[Shop], at: datetime, keep: Callable[[Shop], bool]
) -> list[str]:
    opened = {s["id"] for s in _open_shops(shops, at) if keep(s)}
    active = [d for d in dataset.deals if d["expires"] >= dataset.reference_day]
    chosen = (d for d in active if d["dispensary_id"] in opened)
    return [d["public_id"] for d in sorted(chosen, key=lambda d: (d["expires"], d["id"]))]


@pytest.mark.parametrize("at", INSTANTS[::3], ids=lambda at: at.strftime("%m-%d %H:%M"))
def test_deals_of_open_dispensaries_are_those_open_then(
    db: Connection, dataset: Dataset, reference_day: date, at: datetime
) -> None:
    filters = deal_filters(open_at=at)
    items = walk(lambda page: list_deals(db, filters, page, today=reference_day))
    expected = _expected_deals(dataset, dataset.dispensaries, at, lambda shop: True)
    assert [row.public_id for row in items] == expected
    assert len(items) == len(expected)  # walk checks every page's total against it


def _calls_counted(monkeypatch: pytest.MonkeyPatch, name: str, module: Any) -> list[int]:
    """Count the calls of ``module.name`` through every module that imported it."""
    original = getattr(module, name)
    calls: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    for loaded in list(sys.modules.values()):
        if getattr(loaded, name, None) is original:
            monkeypatch.setattr(loaded, name, counted)
    return calls


@pytest.fixture
def statements(db: Connection) -> Iterator[list[str]]:
    """The SQL statements run on ``db`` during the test."""
    seen: list[str] = []

    def record(*args: Any) -> None:
        seen.append(args[2])

    event.listen(db, "before_cursor_execute", record)
    yield seen
    event.remove(db, "before_cursor_execute", record)


@pytest.mark.parametrize("at", ["2026-03-07T18:00:00-08:00", "2026-11-01T12:00:00-08:00"])
def test_near_a_change_a_list_tests_hours_in_python_for_its_page_rows_only(
    db: Connection,
    dataset: Dataset,
    monkeypatch: pytest.MonkeyPatch,
    statements: list[str],
    at: str,
) -> None:
    instant = datetime.fromisoformat(at)
    assert _key(db, instant).weeks
    calls = _calls_counted(monkeypatch, "open_state", service.hours)
    open_count = len(_open_shops(dataset.dispensaries, instant))
    assert open_count > 10  # enough rows that testing each one would show
    del statements[:]
    for sort in ("name", "-rating"):
        filters = dispensary_filters(open_at=instant, sort=sort)
        page = list_dispensaries(db, filters, PageRequest.build(3, 2))
        assert (len(page.items), page.total) == (3, open_count)
    deals = list_deals(
        db,
        deal_filters(open_at=instant),
        PageRequest.build(3, 0),
        today=dataset.reference_day,
    )
    every = _expected_deals(dataset, dataset.dispensaries, instant, lambda shop: True)
    assert deals.total == len(every)
    assert len(calls) == 6  # the two dispensary pages' rows, none for deals
    assert len(statements) <= 3  # one per list: the zones were read before


# -- densely across changes of offset, on hours that run through them --------------------------

# Hours that a change of offset at 02:00 cuts through, given to shops of every US zone present.
THROUGH: tuple[dict[str, str], ...] = (
    {"sun": "1:00-03:30"},
    {"sat": "18:00-02:30", "sun": "18:00-02:30"},  # closes in the gap, or in the hour after
    dict.fromkeys(DAYS, "0:00-24:00"),
    {"sat": "18:00-24:00", "sun": "0:00-03:00"},  # Saturday to midnight, then on into Sunday
    {"sun": "2:00-03:00"},  # the spring gap itself: never open that night
    {"sun": "2:30-10:00", "mon": "9:00-17:00"},  # opens in the gap
    {"sun": "1:30-02:15"},  # closes in the gap, or an hour later in the fall
    dict.fromkeys(DAYS, "22:00-03:00"),
    {"sat": "23:00-01:30", "sun": "1:00-05:00"},  # overlapping spans, one opening
)
US_ZONES = (
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Anchorage",
    "America/Detroit",
    "America/Phoenix",  # no change: steady among changing zones
)
# Changes elsewhere that a US zone has not: a day skipped (Samoa), half an hour (Lord Howe),
# Monday 00:00 (Tehran, both ways), midnight (Sao Paulo), two changes two weeks apart (Gaza),
# 01:00 UTC (London), a gap that ends at Monday 00:00 (Algiers: a Sunday span ending in it
# is open on Monday, the week before's span). Each zone is given the EXOTIC hours, on shops of
# New York not in THROUGH.
EXOTIC_CHANGES = (
    ("Africa/Algiers", datetime(1971, 4, 25, 23, tzinfo=UTC)),
    ("Pacific/Apia", datetime(2011, 12, 30, 10, tzinfo=UTC)),
    ("Australia/Lord_Howe", datetime(2026, 4, 4, 15, tzinfo=UTC)),
    ("Asia/Tehran", datetime(2021, 3, 21, 20, 30, tzinfo=UTC)),
    ("Asia/Tehran", datetime(2014, 9, 21, 19, 30, tzinfo=UTC)),
    ("America/Sao_Paulo", datetime(2018, 11, 4, 3, tzinfo=UTC)),
    ("Asia/Gaza", datetime(2053, 3, 29, tzinfo=UTC)),
    ("Asia/Gaza", datetime(2053, 4, 5, 12, tzinfo=UTC)),  # between the two
    ("Europe/London", datetime(2026, 10, 25, 1, tzinfo=UTC)),
)
EXOTIC: tuple[dict[str, str], ...] = (
    dict.fromkeys(DAYS, "22:00-03:00"),
    dict.fromkeys(DAYS, "0:00-24:00"),
    dict.fromkeys(DAYS, "23:30-00:30"),
    {"sun": "20:00-02:00", "mon": "0:30-01:30", "thu": "12:00-24:00", "fri": "0:00-12:00"},
    {"sun": "18:00-23:30", "wed": "9:00-17:00"},
)


def _across(middle: datetime, hours: int, minutes: int) -> list[datetime]:
    """Every ``minutes`` from ``hours`` before ``middle`` to as many after."""
    steps = hours * 60 // minutes
    return [middle + timedelta(minutes=minutes * n) for n in range(-steps, steps + 1)]


# The US changes of 2026 fall on Sunday from 06:00 UTC (New York) to 11:00 UTC (Alaska): a day
# either side of Sunday 09:00 UTC holds each zone's Saturday night and Sunday.
CHANGE_DAYS = (datetime(2026, 3, 8, 9, tzinfo=UTC), datetime(2026, 11, 1, 9, tzinfo=UTC))
EVERY_15 = [at for day in CHANGE_DAYS for at in _across(day, 24, 15)]
EVERY_30 = [at for day in CHANGE_DAYS for at in _across(day, 24, 30)]
ODD = [(zone, at) for zone, day in EXOTIC_CHANGES for at in _across(day, 12, 30)]
# Around the points: a circle over the Rockies and one over California; a box over the West.
NEAR_DENVER = (39.7392, -104.9903, 500.0)
NEAR_LOS_ANGELES = (34.05, -118.24, 400.0)
WEST = (-125.0, 24.0, -100.0, 50.0)


def _through_shops(dataset: Dataset) -> list[Shop]:
    shops = [dict(shop) for shop in dataset.dispensaries]
    by_zone: dict[str, list[Shop]] = {}
    for shop in shops:
        by_zone.setdefault(shop["timezone"], []).append(shop)
    for zone in US_ZONES:
        for shop, hours in zip(by_zone[zone], THROUGH, strict=False):
            shop["hours"] = hours
    spare = by_zone["America/New_York"][len(THROUGH) :]
    zones = sorted({zone for zone, _ in EXOTIC_CHANGES})
    odd = list(product(zones, EXOTIC))
    assert len(spare) >= len(odd)  # the tiny dataset has these shops
    for shop, (zone, hours) in zip(spare, odd, strict=False):
        shop.update(hours=hours, timezone=zone)
    return shops


@pytest.fixture(scope="module")
def through_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An empty database on the backend the suite runs against."""
    server = os.environ.get("TEST_DATABASE_URL", "").strip()
    if not server:
        yield f"sqlite:///{tmp_path_factory.mktemp('through') / 'through.db'}"
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TEST_POSTGRES_URL", server)
        with postgres_scratch() as url:
            yield url


@pytest.fixture(scope="module")
def through(dataset: Dataset, through_url: str) -> Iterator[tuple[Connection, list[Shop]]]:
    """The tiny dataset with THROUGH and EXOTIC hours given to some shops, loaded."""
    shops = _through_shops(dataset)
    engine = make_engine(through_url)
    try:
        load_dataset(engine, replace(dataset, dispensaries=shops))
        with engine.connect() as conn:
            yield conn, shops
    finally:
        engine.dispose()


def test_the_shops_with_hours_through_a_change_are_open_then_in_some_zone(
    through: tuple[Connection, list[Shop]],
) -> None:
    """The dense tests below mean something: the changed hours are open through 02:00 on the
    night of each change, and in each odd zone some shop opens or closes near its change."""
    _db, shops = through
    spring = datetime.fromisoformat("2026-03-08T01:59:00-08:00")
    fall = datetime.fromisoformat("2026-11-01T01:30:00-08:00")  # the repeated hour, second time
    for at in (spring, fall, spring + timedelta(minutes=2)):
        opened = [s for s in _open_shops(shops, at) if s["hours"] in THROUGH]
        assert len(opened) >= 6, at
    for zone, day in EXOTIC_CHANGES:
        local = [s for s in shops if s["timezone"] == zone]
        answers = {
            frozenset(s["id"] for s in _open_shops(local, at)) for at in _across(day, 12, 30)
        }
        assert len(answers) >= 3, zone


@pytest.mark.parametrize("at", EVERY_15, ids=lambda at: at.strftime("%m-%d %H:%M"))
def test_across_a_change_open_dispensaries_by_name_are_those_open_then(
    through: tuple[Connection, list[Shop]], at: datetime
) -> None:
    db, shops = through
    assert _key(db, at).weeks
    items = walk(partial(list_dispensaries, db, dispensary_filters(open_at=at)))
    assert [row.public_id for row in items] == _by_name(_open_shops(shops, at))
    _assert_open_until_the_next_change(items, shops, at)


def _inside(shop: Shop, box: tuple[float, float, float, float]) -> bool:
    west, south, east, north = box
    return south <= shop["lat"] <= north and west <= shop["lng"] <= east


def _within(shop: Shop, point: tuple[float, float, float]) -> bool:
    lat, lng, radius = point
    return cosine_law_miles(lat, lng, shop["lat"], shop["lng"]) <= radius


@pytest.mark.parametrize("at", EVERY_30, ids=lambda at: at.strftime("%m-%d %H:%M"))
def test_across_a_change_open_dispensaries_by_place_rating_and_distance_are_those_open_then(
    through: tuple[Connection, list[Shop]], at: datetime
) -> None:
    db, shops = through
    opened = _open_shops(shops, at)

    def listed(**filters: Any) -> list[DispensaryRow]:
        rows = walk(partial(list_dispensaries, db, dispensary_filters(open_at=at, **filters)))
        _assert_open_until_the_next_change(rows, shops, at)
        return rows

    in_states = [s for s in opened if s["state"] in ("CA", "NY", "TX")]
    assert [r.public_id for r in listed(state="CA,NY,TX", sort="-rating")] == _by_rating(in_states)
    west = [s for s in opened if _inside(s, WEST)]
    assert [r.public_id for r in listed(bbox=",".join(map(str, WEST)))] == _by_name(west)
    assert [r.public_id for r in listed(bbox=WEST, sort="-rating")] == _by_rating(west)
    for point in (NEAR_DENVER, NEAR_LOS_ANGELES):
        lat, lng, radius = point
        around = [s for s in opened if _within(s, point)]
        nearest = listed(lat=lat, lng=lng, radius=radius)
        assert {r.public_id for r in nearest} == {s["public_id"] for s in around}
        assert [r.distance for r in nearest] == sorted(r.distance for r in nearest)
        rated = listed(lat=lat, lng=lng, radius=radius, sort="-rating")
        assert [r.public_id for r in rated] == _by_rating(around)


@pytest.mark.parametrize("at", EVERY_30, ids=lambda at: at.strftime("%m-%d %H:%M"))
def test_across_a_change_deals_of_open_dispensaries_are_those_open_then(
    through: tuple[Connection, list[Shop]], dataset: Dataset, at: datetime
) -> None:
    db, shops = through
    today = dataset.reference_day

    def listed(**filters: Any) -> list[DealRow]:
        return walk(partial(list_deals, db, deal_filters(open_at=at, **filters), today=today))

    everywhere = _expected_deals(dataset, shops, at, lambda shop: True)
    assert [row.public_id for row in listed()] == everywhere
    in_state = _expected_deals(dataset, shops, at, lambda shop: shop["state"] == "CA")
    assert [row.public_id for row in listed(state="CA")] == in_state
    lat, lng, radius = NEAR_LOS_ANGELES
    around = _expected_deals(dataset, shops, at, lambda shop: _within(shop, NEAR_LOS_ANGELES))
    nearest = listed(lat=lat, lng=lng, radius=radius)
    assert {row.public_id for row in nearest} == set(around)
    assert [row.distance for row in nearest] == sorted(row.distance for row in nearest)


@pytest.mark.parametrize(
    ("zone", "at"), ODD, ids=[f"{zone}-{at:%Y-%m-%d %H:%M}" for zone, at in ODD]
)
def test_across_odder_changes_elsewhere_open_dispensaries_are_those_open_then(
    through: tuple[Connection, list[Shop]], zone: str, at: datetime
) -> None:
    db, shops = through
    assert _key(db, at).weeks
    items = walk(partial(list_dispensaries, db, dispensary_filters(open_at=at)))
    assert [row.public_id for row in items] == _by_name(_open_shops(shops, at))
    _assert_open_until_the_next_change(items, shops, at)


@pytest.fixture
def scratch_url(tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """An empty database for this test alone, on the backend the suite runs against."""
    server = os.environ.get("TEST_DATABASE_URL", "").strip()
    if not server:
        return f"sqlite:///{tmp_path / 'scratch.db'}"
    monkeypatch = request.getfixturevalue("monkeypatch")
    monkeypatch.setenv("TEST_POSTGRES_URL", server)
    url: str = request.getfixturevalue("postgres_scratch_url")
    return url


# No zone of the tz database (1970-2100) repeats an hour across Monday 00:00, where a span of
# the week after is open before the week's end on the clock: this one does (POSIX rule, UTC+0,
# summer time ends at 00:30 on the first Monday of November: 2026-11-01 23:30 UTC).
MONDAY_FOLD = ("Test/Monday_Fold", "XST0XDT,M3.2.0/2,M11.1.1/0:30")


def _posix_zone(root: Path, name: str, rule: str) -> None:
    """A TZif file (version 2) with no transitions of its own: zoneinfo follows ``rule``."""
    counts = struct.pack(">6l", 0, 0, 0, 0, 1, 4)  # one local time type, four abbreviation bytes
    block = b"TZif2" + bytes(15) + counts + struct.pack(">lbB", 0, 0, 0) + b"XST\0"
    path = root / name
    path.parent.mkdir(parents=True)
    path.write_bytes(block + block + b"\n" + rule.encode() + b"\n")


def test_a_span_of_the_next_week_begun_in_an_hour_repeated_across_monday_is_open(
    tmp_path: Path, dataset: Dataset, scratch_url: str
) -> None:
    name, rule = MONDAY_FOLD
    _posix_zone(tmp_path / "zones", name, rule)
    search = zoneinfo.TZPATH
    zoneinfo.reset_tzpath(to=[str(tmp_path / "zones"), *search])
    shops = [dict(shop) for shop in dataset.dispensaries]
    hours = ({"mon": "0:00-01:00"}, {"sun": "22:00-24:00"}, {"sun": "23:45-00:15"})
    for shop, opening in zip(shops, hours, strict=False):
        shop.update(hours=opening, timezone=name)
    engine = make_engine(scratch_url)
    try:
        change = datetime(2026, 11, 1, 23, 30, tzinfo=UTC)
        second = (change + timedelta(minutes=10)).astimezone(zoneinfo.ZoneInfo(name))
        assert (second.isoformat(), second.weekday()) == ("2026-11-01T23:40:00+00:00", 6)
        load_dataset(engine, replace(dataset, dispensaries=shops))
        with engine.connect() as conn:
            for at in _across(change, 2, 10):
                items = walk(partial(list_dispensaries, conn, dispensary_filters(open_at=at)))
                assert [row.public_id for row in items] == _by_name(_open_shops(shops, at)), at
                _assert_open_until_the_next_change(items, shops, at)
            items = walk(partial(list_dispensaries, conn, dispensary_filters(open_at=second)))
            assert shops[0]["public_id"] in {row.public_id for row in items}  # Monday's, begun
    finally:
        engine.dispose()
        zoneinfo.reset_tzpath(to=search)


# -- zones and spans the lists rely on ----------------------------------------------------------


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
                assert _key(conn, at).weeks == ()
                filters = dispensary_filters(open_at=at)
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
    filters = dispensary_filters(open_at=at)
    shops = [dict(shop) for shop in dataset.dispensaries]
    moved = shops[0]
    moved.update(hours=dict.fromkeys(DAYS, "0:00-24:00"), timezone="America/Halifax")
    monkeypatch.setattr(open_sql, "RECHECK_AFTER_S", 3600.0)
    try:
        load_dataset(engine, dataset)
        with engine.connect() as conn:
            before = walk(partial(list_dispensaries, conn, filters))
            assert "America/Halifax" not in _key(conn, at).zones
        load_dataset(engine, replace(dataset, dispensaries=shops))
        with engine.connect() as conn:
            # Zones read within the hour: the empty answer is trusted, not run again.
            assert walk(partial(list_dispensaries, conn, filters)) == []
            monkeypatch.setattr(open_sql, "RECHECK_AFTER_S", 0.0)
            after = walk(partial(list_dispensaries, conn, filters))
            deals = walk(
                partial(list_deals, conn, deal_filters(open_at=at), today=dataset.reference_day)
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


def test_with_no_zones_listed_open_at_answers_an_empty_page(
    tmp_path: Path, dataset: Dataset
) -> None:
    """A database migrated without running Python (``alembic upgrade --sql``) has neither
    spans nor zones until its next load."""
    engine = make_engine(f"sqlite:///{tmp_path / 'bare.db'}")
    at = datetime(2026, 12, 4, 20, 0, tzinfo=UTC)  # an evening: most shops are open
    try:
        load_dataset(engine, dataset)
        with engine.begin() as conn:
            conn.execute(DispensaryOpenSpan.__table__.delete())
            conn.execute(DispensaryTimeZone.__table__.delete())
        with engine.connect() as conn:
            assert _key(conn, at) == open_sql.OpenKey(())
            page = list_dispensaries(conn, dispensary_filters(open_at=at), PageRequest())
            deals = list_deals(
                conn, deal_filters(open_at=at), PageRequest(), today=dataset.reference_day
            )
            everyone = list_dispensaries(conn, DispensaryFilters.create(), PageRequest())
        assert (page.items, page.total, deals.items, deals.total) == ([], 0, [], 0)
        assert everyone.total == len(dataset.dispensaries)
    finally:
        engine.dispose()

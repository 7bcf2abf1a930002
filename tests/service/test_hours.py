"""Opening hours: open or closed at an instant in the shop's own zone, and when that changes."""

import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.hours import (
    DAY,
    OpenState,
    hours_from_text,
    open_state,
    parse_span,
    week_clocks,
    weekly_spans,
)
from service.vocab import WEEKDAYS

LA = "America/Los_Angeles"
LATE_WEEKEND = {"fri": "18:00-02:00", "sat": "18:00-02:00"}


def _utc(*fields: int) -> datetime:
    return datetime(*fields, tzinfo=UTC)


def _local(zone: str, *fields: int, fold: int = 0) -> datetime:
    return datetime(*fields, tzinfo=ZoneInfo(zone), fold=fold)


def _iso(state: OpenState) -> str | None:
    return state.next_change.isoformat() if state.next_change is not None else None


# -- parse_span ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("9:00-21:00", (540, 1260)),
        ("10:30-24:00", (630, 1440)),
        ("0:00-24:00", (0, 1440)),
        ("18:00-02:00", (1080, 1560)),
        ("20:00-00:00", (1200, 1440)),
        ("23:30-23:00", (1410, 2820)),
    ],
)
def test_a_span_reads_as_minutes_after_the_opening_days_midnight(
    text: str, minutes: tuple[int, int]
) -> None:
    assert parse_span(text) == minutes


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("9-5", "must look like 9:00-21:00 (H:MM-HH:MM, 24-hour time; a close before the open"),
        ("09:00-21:00", "must look like 9:00-21:00"),
        ("9:00-21:60", "must look like 9:00-21:00"),
        ("24:00-02:00", "must look like 9:00-21:00"),
        ("10:00-10:00", "must not open and close at the same time"),
        ("0:00-00:00", "must not open and close at the same time"),
        ("9:00-24:30", "must close by 24:00 at the latest"),
    ],
)
def test_a_malformed_or_empty_span_is_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        parse_span(text)


# -- open_state at frozen instants --------------------------------------------------------------


def test_one_second_before_opening_it_is_closed_until_the_opening_minute() -> None:
    state = open_state({"mon": "9:00-21:00"}, LA, _local(LA, 2026, 6, 1, 8, 59, 59))
    assert (state.is_open, _iso(state)) == (False, "2026-06-01T09:00:00-07:00")


def test_at_the_opening_minute_it_is_open_until_the_close() -> None:
    state = open_state({"mon": "9:00-21:00"}, LA, _local(LA, 2026, 6, 1, 9, 0))
    assert (state.is_open, _iso(state)) == (True, "2026-06-01T21:00:00-07:00")


def test_at_the_closing_minute_it_is_closed_until_next_weeks_opening() -> None:
    state = open_state({"mon": "9:00-21:00"}, LA, _local(LA, 2026, 6, 1, 21, 0))
    assert (state.is_open, _iso(state)) == (False, "2026-06-08T09:00:00-07:00")


def test_a_friday_span_past_midnight_is_open_early_on_saturday() -> None:
    state = open_state({"fri": "18:00-02:00"}, LA, _local(LA, 2026, 6, 6, 1, 30))
    assert (state.is_open, _iso(state)) == (True, "2026-06-06T02:00:00-07:00")


def test_a_friday_span_past_midnight_is_closed_at_two_exactly() -> None:
    state = open_state({"fri": "18:00-02:00"}, LA, _local(LA, 2026, 6, 6, 2, 0))
    assert (state.is_open, _iso(state)) == (False, "2026-06-12T18:00:00-07:00")


def test_a_span_to_midnight_and_the_next_days_from_midnight_are_one_opening() -> None:
    hours = {"mon": "18:00-24:00", "tue": "0:00-02:00"}
    state = open_state(hours, LA, _local(LA, 2026, 6, 1, 23, 0))
    assert (state.is_open, _iso(state)) == (True, "2026-06-02T02:00:00-07:00")


def test_a_span_past_midnight_overlapping_the_next_days_merges_with_it() -> None:
    hours = {"sat": "20:00-03:00", "sun": "2:00-12:00"}
    state = open_state(hours, LA, _local(LA, 2026, 6, 7, 1, 0))
    assert (state.is_open, _iso(state)) == (True, "2026-06-07T12:00:00-07:00")


def test_sunday_past_midnight_wraps_into_monday() -> None:
    state = open_state({"sun": "20:00-01:00"}, LA, _local(LA, 2026, 6, 8, 0, 30))
    assert (state.is_open, _iso(state)) == (True, "2026-06-08T01:00:00-07:00")


@pytest.mark.parametrize("fold", [0, 1])
def test_both_one_thirties_of_the_fall_back_night_are_open_until_two_standard_time(
    fold: int,
) -> None:
    at = _local(LA, 2026, 11, 1, 1, 30, fold=fold)  # 01:30 PDT (fold 0), 01:30 PST (fold 1)
    state = open_state(LATE_WEEKEND, LA, at)
    assert at.astimezone(UTC) == _utc(2026, 11, 1, 8 + fold, 30)
    assert (state.is_open, _iso(state)) == (True, "2026-11-01T02:00:00-08:00")
    assert state.next_change is not None
    assert state.next_change.astimezone(UTC) == _utc(2026, 11, 1, 10, 0)


def test_a_close_in_the_repeated_hour_is_its_first_occurrence() -> None:
    at = _local(LA, 2026, 11, 1, 1, 15)  # PDT
    state = open_state({"sat": "20:00-01:30"}, LA, at)
    assert (state.is_open, _iso(state)) == (True, "2026-11-01T01:30:00-07:00")
    again = open_state({"sat": "20:00-01:30"}, LA, _local(LA, 2026, 11, 1, 1, 15, fold=1))
    assert again.is_open is False


def test_a_span_through_the_spring_forward_gap_closes_by_daylight_time() -> None:
    at = _local(LA, 2026, 3, 8, 1, 59)  # PST, a minute before the clocks jump to 03:00 PDT
    state = open_state({"sat": "18:00-03:00"}, LA, at)
    assert (state.is_open, _iso(state)) == (True, "2026-03-08T03:00:00-07:00")
    assert state.next_change is not None
    assert state.next_change.astimezone(UTC) == _utc(2026, 3, 8, 10, 0)


def test_a_close_in_the_spring_forward_gap_takes_the_offset_before_it() -> None:
    # 02:30 does not exist on 2026-03-08; fold=0 reads it as 02:30 PST, which is 03:30 PDT.
    at = _local(LA, 2026, 3, 8, 3, 15)
    state = open_state({"sat": "20:00-02:30"}, LA, at)
    assert (state.is_open, _iso(state)) == (True, "2026-03-08T03:30:00-07:00")


def test_an_opening_in_the_spring_forward_gap_takes_the_offset_before_it() -> None:
    state = open_state({"sun": "2:30-10:00"}, LA, _utc(2026, 3, 8, 10, 0))  # 03:00 PDT
    assert (state.is_open, _iso(state)) == (False, "2026-03-08T03:30:00-07:00")


def test_the_day_after_spring_forward_runs_on_daylight_time() -> None:
    state = open_state({"mon": "9:00-21:00"}, LA, _utc(2026, 3, 7, 12, 0))  # Saturday, PST
    assert (state.is_open, _iso(state)) == (False, "2026-03-09T09:00:00-07:00")


def test_a_guam_shop_answers_in_chamorro_time() -> None:
    state = open_state({"mon": "9:00-21:00"}, "Pacific/Guam", _utc(2026, 6, 1, 0, 0))
    assert (state.is_open, _iso(state)) == (True, "2026-06-01T21:00:00+10:00")


def test_a_puerto_rico_shop_answers_in_atlantic_time_all_year() -> None:
    for month in (1, 7, 11):
        at = _utc(2026, month, 2, 16, 0)  # noon in San Juan
        state = open_state({day: "9:00-21:00" for day in WEEKDAYS}, "America/Puerto_Rico", at)
        assert (state.is_open, _iso(state)) == (True, f"2026-{month:02d}-02T21:00:00-04:00")


def test_no_hours_is_never_open_and_never_changes() -> None:
    assert open_state({}, LA, _utc(2026, 6, 1, 12)) == OpenState(False, None)


def test_round_the_clock_every_day_is_always_open_and_never_changes() -> None:
    hours = {day: "0:00-24:00" for day in WEEKDAYS}
    assert open_state(hours, LA, _utc(2026, 11, 1, 9)) == OpenState(True, None)
    assert open_state(hours, LA, _utc(2026, 3, 8, 10)) == OpenState(True, None)


def test_hours_read_from_json_text_answer_as_the_dict_does() -> None:
    text = '{"mon": "9:00-21:00", "fri": "18:00-02:00"}'
    compiled = hours_from_text(text)
    at = _utc(2026, 6, 6, 8, 0)  # Saturday 01:00 PDT
    assert dict(compiled) == {"mon": "9:00-21:00", "fri": "18:00-02:00"}
    assert hours_from_text(text) is compiled
    assert open_state(compiled, LA, at) == open_state(dict(compiled), LA, at)
    assert open_state(compiled, LA, at).is_open is True


def test_a_naive_instant_is_refused() -> None:
    with pytest.raises(ValueError, match="aware datetime"):
        open_state({"mon": "9:00-21:00"}, LA, datetime(2026, 6, 1, 12))


# -- the fast answer against a brute-force one --------------------------------------------------

ZONES = (
    "America/Los_Angeles",
    "America/New_York",
    "America/Phoenix",
    "Pacific/Guam",
    "America/Puerto_Rico",
    "Pacific/Honolulu",
    "America/Anchorage",
)
NEVER = (False, None)


def _clock(minute: int) -> str:
    return f"{minute // 60}:{minute % 60:02d}"


def _wall_openings(hours: dict[str, str], first: date, days: int) -> list[list[datetime]]:
    """Each day's span as naive local datetimes, merged where they touch or overlap."""
    spans = []
    for offset in range(days):
        day = first + timedelta(days=offset)
        text = hours.get(WEEKDAYS[day.weekday()])
        if text is None:
            continue
        opening, closing = text.split("-")
        oh, om = map(int, opening.split(":"))
        ch, cm = map(int, closing.split(":"))
        start = datetime.combine(day, time()) + timedelta(hours=oh, minutes=om)
        close_day = day if (ch, cm) > (oh, om) else day + timedelta(days=1)
        spans.append([start, datetime.combine(close_day, time()) + timedelta(hours=ch, minutes=cm)])
    merged: list[list[datetime]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def _brute_force(hours: dict[str, str], zone: str, at: datetime) -> tuple[bool, float | None]:
    """Opening spans laid out day by day over five weeks around ``at``, their ends made aware
    with zoneinfo (fold=0), then searched for ``at``."""
    tz = ZoneInfo(zone)
    first = at.astimezone(tz).date() - timedelta(days=14)
    openings = _wall_openings(hours, first, 35)
    instants: list[list[float]] = []
    for start, end in sorted(
        (s.replace(tzinfo=tz).timestamp(), e.replace(tzinfo=tz).timestamp()) for s, e in openings
    ):
        if start >= end:
            continue
        if instants and start <= instants[-1][1]:
            instants[-1][1] = max(instants[-1][1], end)
        else:
            instants.append([start, end])
    now = at.timestamp()
    for start, end in instants:
        if end <= now:
            continue
        if start > now:
            return False, start
        # An opening reaching past the laid-out weeks never closes: round the clock.
        return True, None if end - now > 14 * 86_400 else end
    return NEVER


_quarter_hours = st.integers(0, 95).map(lambda q: q * 15)
_spans = st.tuples(_quarter_hours, st.integers(0, 96).map(lambda q: q * 15)).filter(
    lambda span: span[1] % 1440 != span[0]
)
_hours = st.dictionaries(
    st.sampled_from(WEEKDAYS),
    _spans.map(lambda span: f"{_clock(span[0])}-{span[1] // 60:02d}:{span[1] % 60:02d}"),
)


def _seconds_around(day: datetime, reach_days: int) -> st.SearchStrategy[datetime]:
    middle = int(day.timestamp())
    reach = reach_days * 86_400
    return st.integers(middle - reach, middle + reach).map(lambda s: datetime.fromtimestamp(s, UTC))


_instants = st.one_of(
    _seconds_around(_utc(2026, 7, 2), 182),
    _seconds_around(_utc(2026, 3, 8, 10), 3),
    _seconds_around(_utc(2026, 11, 1, 9), 3),
    _seconds_around(_utc(2026, 3, 8, 10), 9),
    _seconds_around(_utc(2026, 11, 1, 9), 9),
)


@settings(max_examples=600, deadline=None)
@given(hours=_hours, zone=st.sampled_from(ZONES), at=_instants, micro=st.integers(0, 999_999))
def test_the_open_state_matches_a_brute_force_search(
    hours: dict[str, str], zone: str, at: datetime, micro: int
) -> None:
    at = at.replace(microsecond=micro)
    state = open_state(hours, zone, at)
    expected_open, expected_change = _brute_force(hours, zone, at)
    change = state.next_change
    assert (state.is_open, change.timestamp() if change else None) == (
        expected_open,
        expected_change,
    )
    if change is not None:
        assert change > at
        assert change.utcoffset() == change.astimezone(ZoneInfo(zone)).utcoffset()
        assert str(change.tzinfo) == zone


HOUR = 3600


def test_the_weeks_openings_are_cut_at_its_end_for_the_database() -> None:
    assert weekly_spans({"sun": "18:00-02:00", "mon": "9:00-17:00"}) == (
        (0, 2 * HOUR),
        (9 * HOUR, 17 * HOUR),
        (6 * DAY + 18 * HOUR, 7 * DAY),
    )
    # Sunday to midnight and Monday from midnight are one opening, cut at the week's end.
    assert weekly_spans({"sun": "20:00-24:00", "mon": "0:00-03:00"}) == (
        (0, 3 * HOUR),
        (6 * DAY + 20 * HOUR, 7 * DAY),
    )
    assert weekly_spans(dict.fromkeys(WEEKDAYS, "0:00-24:00")) == ((0, 7 * DAY),)
    assert weekly_spans({}) == ()


# -- week_clocks: when a wall time has come, for the database ----------------------------------


@pytest.mark.parametrize(
    ("zone", "change"),
    [
        (LA, _utc(2026, 3, 8, 10)),
        (LA, _utc(2026, 11, 1, 9)),
        ("Australia/Lord_Howe", _utc(2026, 4, 4, 15)),  # half an hour back
        ("Pacific/Apia", _utc(2011, 12, 30, 10)),  # a day skipped
        ("Asia/Gaza", _utc(2053, 4, 5, 12)),  # between two changes a fortnight apart
    ],
)
def test_a_week_clock_says_a_wall_time_has_come_as_zoneinfo_maps_it(
    zone: str, change: datetime
) -> None:
    tz = ZoneInfo(zone)
    for step in range(-36, 37):
        at = change + timedelta(minutes=40 * step)
        early, late, split = week_clocks([zone], at)[zone]
        wall = at.astimezone(tz).replace(tzinfo=None)
        monday = datetime.combine(wall.date() - timedelta(days=wall.weekday()), time(0))
        for quarter in range(-4 * 60, 4 * 60):  # 60 hours either side of the wall time
            local = wall.replace(minute=0) + timedelta(minutes=15 * quarter)
            seconds = int((local - monday).total_seconds())
            came = seconds <= (early if seconds < split else late)
            assert came is (local.replace(tzinfo=tz) <= at), (at, local)

"""Opening hours: one parser for a day's span, and whether a place is open at an instant.

Hours are ``{"mon": "9:00-21:00", ...}`` (service.vocab.WEEKDAYS) in the place's own zone. How
spans past midnight and changes of UTC offset are read, and why hours are compiled per distinct
dict: docs/performance.md ("Opening hours in Python").
"""

import json
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

from .vocab import WEEKDAYS

DAY = 86_400  # seconds
WEEK = 7 * DAY
MINUTES_PER_DAY = 24 * 60
SPAN_EXAMPLE = "9:00-21:00"
SPAN_HINT = (
    f"must look like {SPAN_EXAMPLE} (H:MM-HH:MM, 24-hour time; a close before the open runs "
    "past midnight)"
)
# H:MM-HH:MM: the opening hour 0 to 23 without a leading zero, the closing hour 00 to 24.
_SPAN = re.compile(r"^(1?[0-9]|2[0-3]):([0-5][0-9])-([01][0-9]|2[0-4]):([0-5][0-9])$")
# 1970-01-01 was a Thursday: wall seconds since the epoch plus this many is a Monday 00:00 count.
_MONDAY_SHIFT = 3 * DAY
# Openings whose ends a change of offset may move are looked at within this reach of the instant.
_REACH = WEEK + DAY
_EPOCH = datetime(1970, 1, 1)  # naive: wall seconds are counted from it


def parse_span(text: object) -> tuple[int, int]:
    """(opening, closing) minutes after the opening day's midnight; the closing minute is past
    1440 when the span runs past midnight. Raise ValueError with a message that reads after the
    day's name."""
    match = _SPAN.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(SPAN_HINT)
    opens = int(match[1]) * 60 + int(match[2])
    closes = int(match[3]) * 60 + int(match[4])
    if closes > MINUTES_PER_DAY:
        raise ValueError(
            "must close by 24:00 at the latest (a close before the open, as in 18:00-02:00, "
            "runs past midnight)"
        )
    if closes == opens:
        raise ValueError("must not open and close at the same time (0:00-24:00 is all day)")
    if closes <= opens:
        closes += MINUTES_PER_DAY
    return opens, closes


@dataclass(frozen=True)
class OpenState:
    """Whether a place is open, and the instant that changes (in the place's zone); None
    when it never does (no hours, or open round the clock)."""

    is_open: bool
    next_change: datetime | None


_NEVER_OPEN = OpenState(False, None)
_ALWAYS_OPEN = OpenState(True, None)


@dataclass(frozen=True, eq=False)  # compared by identity: each hours dict compiles once
class _Week:
    """Merged openings as seconds after Monday 00:00: ``cycle`` one per opening of the week
    (start within the week, end maybe past it), ``opens``/``closes`` the same over three weeks
    from the week before, for a bisection from any moment of the week."""

    cycle: tuple[tuple[int, int], ...]
    starts: tuple[int, ...]
    opens: tuple[int, ...]
    closes: tuple[int, ...]
    always: bool


class WeeklyHours(Mapping[str, str]):
    """Opening hours as read from the database, compiled once (see :func:`hours_from_text`)."""

    __slots__ = ("_days", "week")

    def __init__(self, days: Mapping[str, str]) -> None:
        self._days = dict(days)
        self.week = _compile(tuple(self._days.items()))

    def __getitem__(self, day: str) -> str:
        return self._days[day]

    def __iter__(self) -> Iterator[str]:
        return iter(self._days)

    def __len__(self) -> int:
        return len(self._days)


@lru_cache(maxsize=4096)
def hours_from_text(text: str) -> WeeklyHours:
    """The hours stored as JSON text (the hours column cast to text), compiled; raise
    ValueError for text that is not valid hours."""
    days: Any = json.loads(text)
    if not isinstance(days, dict):
        raise ValueError("opening hours must be a JSON object")
    return WeeklyHours(days)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


@lru_cache(maxsize=4096)
def _compile(days: tuple[tuple[str, str], ...]) -> _Week:
    spans = []
    for day, text in days:
        if day not in WEEKDAYS:
            raise ValueError(f"opening hours have unknown day {day!r}")
        opens, closes = parse_span(text)
        midnight = WEEKDAYS.index(day) * DAY
        spans.append((midnight + opens * 60, midnight + closes * 60))
    merged = _merge([(s + shift, e + shift) for shift in (-WEEK, 0, WEEK) for s, e in spans])
    cycle = tuple((s, e) for s, e in merged if 0 <= s < WEEK)
    return _Week(
        cycle=cycle,
        starts=tuple(s for s, _ in cycle),
        opens=tuple(s for s, _ in merged),
        closes=tuple(e for _, e in merged),
        always=any(e - s >= WEEK for s, e in merged),
    )


def _offset(zone: ZoneInfo, instant: int) -> int:
    offset = datetime.fromtimestamp(instant, zone).utcoffset()
    return int(offset.total_seconds()) if offset is not None else 0


def _first_offset_change(zone: ZoneInfo, low: int, high: int) -> int:
    """The first second in (low, high] whose offset differs from low's (one change assumed)."""
    before = _offset(zone, low)
    while high - low > 1:
        middle = (low + high) // 2
        if _offset(zone, middle) == before:
            low = middle
        else:
            high = middle
    return high


_SAMPLE = 6 * 3600


@lru_cache(maxsize=512)
def _offset_changes(name: str, year: int) -> tuple[int, ...]:
    """The instants in ``year`` (UTC) where the zone's offset changes; changes closer together
    than six hours (none in the tz database's US zones) could be missed."""
    zone = ZoneInfo(name)
    start = int(datetime(year, 1, 1, tzinfo=UTC).timestamp())
    end = int(datetime(year + 1, 1, 1, tzinfo=UTC).timestamp())
    changes = []
    previous = _offset(zone, start)
    for sample in range(start + _SAMPLE, end + _SAMPLE, _SAMPLE):
        current = _offset(zone, sample)
        if current != previous:
            change = _first_offset_change(zone, sample - _SAMPLE, sample)
            if change < end:
                changes.append(change)
        previous = current
    return tuple(changes)


def _nearest_change(name: str, instant: int) -> int | None:
    """The change of the zone's offset nearest ``instant`` within 8 days either side, if any."""
    first, last = (datetime.fromtimestamp(instant + d, UTC).year for d in (-_REACH, _REACH))
    near = [
        change
        for year in range(first, last + 1)
        for change in _offset_changes(name, year)
        if abs(change - instant) <= _REACH
    ]
    return min(near, key=lambda change: abs(change - instant)) if near else None


@lru_cache(maxsize=1024)
def _moment(name: str, instant: int) -> tuple[int, int, bool]:
    """(wall seconds since the epoch, seconds since the local Monday 00:00, whether the zone's
    offset stays the same within 8 days either side) for ``instant`` in zone ``name``."""
    wall = instant + _offset(ZoneInfo(name), instant)
    steady = _nearest_change(name, instant) is None
    return wall, (wall + _MONDAY_SHIFT) % WEEK, steady


@lru_cache(maxsize=8192)
def _state(name: str, is_open: bool, change: int) -> OpenState:
    return OpenState(is_open, datetime.fromtimestamp(change, ZoneInfo(name)))


@lru_cache(maxsize=8192)
def _wall_instant(name: str, wall: int) -> int:
    """The instant of a wall time (seconds since the naive epoch) as zoneinfo maps fold=0."""
    local = (_EPOCH + timedelta(seconds=wall)).replace(tzinfo=ZoneInfo(name))
    return int(local.timestamp())


@lru_cache(maxsize=8192)
def _near_offset_change(week: _Week, name: str, instant: int) -> tuple[bool, int]:
    """(open?, next change) mapping each opening's ends on their own, for an instant near a
    change of offset: openings from a few before the instant's to two weeks on."""
    wall, into_week, _ = _moment(name, instant)
    monday = wall - into_week
    count = len(week.cycle)
    first = bisect_right(week.starts, into_week) - 1 - 3  # three openings back: over a day
    spans = []
    index = first
    while True:
        start, end = week.cycle[index % count]
        shift = monday + (index // count) * WEEK
        if shift + start > wall + 2 * WEEK:
            break
        opens, closes = _wall_instant(name, shift + start), _wall_instant(name, shift + end)
        if opens < closes:
            spans.append((opens, closes))
        index += 1
    for opens, closes in _merge(spans):
        if closes <= instant:
            continue
        return (True, closes) if opens <= instant else (False, opens)
    raise ValueError("no opening within two weeks of a change of offset")  # not with real zones


def open_state(hours: Mapping[str, str], timezone: str, at: datetime) -> OpenState:
    """Whether ``hours`` (wall-clock times in IANA zone ``timezone``) are open at the aware
    instant ``at``, and when that next changes (strictly after ``at``)."""
    if at.tzinfo is None:
        raise ValueError("open_state needs an aware datetime (one with a UTC offset)")
    week = hours.week if isinstance(hours, WeeklyHours) else _compile(tuple(hours.items()))
    if week.always:
        return _ALWAYS_OPEN
    if not week.cycle:
        return _NEVER_OPEN
    instant = int(at.timestamp() // 1)
    _wall, into_week, steady = _moment(timezone, instant)
    if not steady:
        return _state(timezone, *_near_offset_change(week, timezone, instant))
    index = bisect_right(week.opens, into_week) - 1
    if into_week < week.closes[index]:
        return _state(timezone, True, instant - into_week + week.closes[index])
    return _state(timezone, False, instant - into_week + week.opens[index + 1])


def weekly_spans(hours: Mapping[str, str]) -> tuple[tuple[int, int], ...]:
    """The week's openings as (start, end) seconds after Monday 00:00 wall time, cut at the
    week's end (an opening running past Sunday midnight gives a second span from 0), for a
    database to test a moment of the week against; raise ValueError for invalid hours."""
    week = hours.week if isinstance(hours, WeeklyHours) else _compile(tuple(hours.items()))
    if week.always:
        return ((0, WEEK),)
    spans = []
    for start, end in week.cycle:
        spans.append((start, min(end, WEEK)))
        if end > WEEK:
            spans.append((0, end - WEEK))
    return tuple(sorted(spans))


class WeekClock(NamedTuple):
    """A zone's wall clock at an instant, against the wall times of its week (seconds after the
    Monday 00:00 of the instant's week): a wall time ``w`` has come by then when ``w <= early``
    if ``w < split``, else when ``w <= late``. Away from a change of offset ``early == late``,
    the moment of the week; near one they are the instant read with the offsets before and
    after the change, and ``split`` the first wall time zoneinfo maps with the offset after it."""

    early: int
    late: int
    split: int


@lru_cache(maxsize=1024)
def _clock(name: str, instant: int) -> WeekClock:
    wall, into_week, steady = _moment(name, instant)
    change = None if steady else _nearest_change(name, instant)
    if change is None:
        return WeekClock(into_week, into_week, 0)
    zone = ZoneInfo(name)
    before, after = _offset(zone, change - 1), _offset(zone, change)
    monday = wall - into_week
    # A wall time w maps to w - before up to the change's later wall reading, then to w - after
    # (both the spring gap and the repeated fall hour; see _wall_instant); w has come when its
    # instant is at most ``instant``, that is w <= instant - monday + its offset.
    return WeekClock(
        instant - monday + before, instant - monday + after, change + max(before, after) - monday
    )


def week_clocks(zones: Iterable[str], at: datetime) -> dict[str, WeekClock]:
    """Each zone's clock at the aware instant ``at`` (WeekClock): a place is open when one of
    its openings has come and its end has not (service.open_sql tests :func:`weekly_spans`).
    Only the nearest change counts: the tz database has no two within 7 days (1970-2100), too
    far apart for the other to move a wall time near the instant across it."""
    instant = int(at.timestamp() // 1)
    return {zone: _clock(zone, instant) for zone in zones}

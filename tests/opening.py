"""An independent answer to "is this dispensary open at that instant, and until when", for the
tests.

It shares nothing with service.hours: each day's span becomes two real instants through
zoneinfo (a close before the open runs into the next day), and the instant is compared with
them in UTC. The two days before and the day after are checked too: a span may run past
midnight, a zone may skip a whole day while it runs (Pacific/Apia on 2011-12-30), and a
repeated hour that crosses midnight may have begun tomorrow's span already.
"""

from collections.abc import Iterator, Mapping
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def _spans(
    hours: Mapping[str, str], tz: ZoneInfo, first: date, days: int
) -> Iterator[tuple[datetime, datetime]]:
    """(start, end) in UTC of the spans of ``days`` days from ``first``, in that order."""
    for back in range(days):
        day = first + timedelta(days=back)
        span = hours.get(DAYS[day.weekday()])
        if not span:
            continue
        opens, closes = (_minutes(part) for part in span.split("-"))
        if closes <= opens:
            closes += 24 * 60
        midnight = datetime.combine(day, time(0))
        start = (midnight + timedelta(minutes=opens)).replace(tzinfo=tz).astimezone(UTC)
        end = (midnight + timedelta(minutes=closes)).replace(tzinfo=tz).astimezone(UTC)
        yield start, end


def is_open_at(hours: Mapping[str, str], zone: str, at: datetime) -> bool:
    """Whether ``hours`` (local wall-clock spans per weekday) cover the aware instant ``at``."""
    tz = ZoneInfo(zone)
    moment = at.astimezone(UTC)
    first = at.astimezone(tz).date() - timedelta(days=2)
    return any(start <= moment < end for start, end in _spans(hours, tz, first, 4))


def next_change_at(hours: Mapping[str, str], zone: str, at: datetime) -> datetime | None:
    """The first instant after ``at`` (within two weeks) at which :func:`is_open_at` turns,
    in the zone; None when it never does. Such an instant is an end of some day's span."""
    tz = ZoneInfo(zone)
    now = is_open_at(hours, zone, at)
    first = at.astimezone(tz).date() - timedelta(days=2)
    ends = {end for span in _spans(hours, tz, first, 17) for end in span}
    for end in sorted(end for end in ends if end > at):
        if is_open_at(hours, zone, end) != now:
            return end.astimezone(tz)
    return None

"""An independent answer to "is this dispensary open at that instant", for the tests.

It shares nothing with service.hours: each day's span becomes two real instants through
zoneinfo (a close before the open runs into the next day), and the instant is compared with
them in UTC. Yesterday's span is checked too, since it may run past midnight.
"""

from collections.abc import Mapping
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def is_open_at(hours: Mapping[str, str], zone: str, at: datetime) -> bool:
    """Whether ``hours`` (local wall-clock spans per weekday) cover the aware instant ``at``."""
    tz = ZoneInfo(zone)
    moment = at.astimezone(UTC)
    local_day = at.astimezone(tz).date()
    for back in (0, 1):
        day = local_day - timedelta(days=back)
        span = hours.get(DAYS[day.weekday()])
        if not span:
            continue
        opens, closes = (_minutes(part) for part in span.split("-"))
        if closes <= opens:
            closes += 24 * 60
        midnight = datetime.combine(day, time(0))
        start = (midnight + timedelta(minutes=opens)).replace(tzinfo=tz).astimezone(UTC)
        end = (midnight + timedelta(minutes=closes)).replace(tzinfo=tz).astimezone(UTC)
        if start <= moment < end:
            return True
    return False

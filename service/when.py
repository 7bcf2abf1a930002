"""When a list is asked about: now (``open_now``) or another instant (``open_at``).

"Now" is not read here: the edge passes a clock that gives the same instant for the whole
request (web.today.request_now), and it is only called when a request asks about time.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from .errors import InvalidParameter

# ISO 8601 date and time with a UTC offset (or Z); seconds and a fraction are optional.
_INSTANT = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,6})?)?"
    r"(?:Z|[+-][0-9]{2}:[0-9]{2})$"
)
OPEN_AT_EXAMPLE = "2026-12-24T18:30:00-08:00"
# RFC 3339 (section 5.6): seconds required, any fraction, Z or an offset; T and Z in any case.
_RFC3339 = re.compile(
    r"^([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{2}:[0-9]{2}:[0-9]{2})(?:\.([0-9]{1,9}))?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})$"
)
SINCE_EXAMPLE = "2026-11-27T10:04:11.123Z"
# Opening hours repeat weekly; instants far outside this window say nothing useful.
FIRST_YEAR, LAST_YEAR = 1970, 2100

Clock = Callable[[], datetime]


def current_minute() -> datetime:
    """The clock of callers outside a request (the CLI, scripts): the current minute, UTC. A
    request passes its own (web.today.request_now), read once for the whole request."""
    return datetime.now(UTC).replace(second=0, microsecond=0)


def instant(value: str | datetime, param: str = "open_at") -> datetime:
    """An aware datetime from ISO 8601 text with an offset; raise InvalidParameter naming
    ``param`` otherwise."""
    message = (
        f"{param} must be an ISO 8601 date and time with a UTC offset, e.g. {OPEN_AT_EXAMPLE} "
        f"(years {FIRST_YEAR} to {LAST_YEAR})"
    )
    if isinstance(value, datetime):
        parsed: datetime | None = value
    else:
        parsed = None
        text = value.strip() if value.isascii() else ""
        if _INSTANT.fullmatch(text):
            try:
                parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
            except ValueError:
                parsed = None
    if parsed is None or parsed.tzinfo is None or parsed.utcoffset() is None:
        raise InvalidParameter(message, param=param)
    try:
        year = parsed.astimezone(UTC).year
    except OverflowError:  # year 1 or 9999 moved past what a datetime holds
        raise InvalidParameter(message, param=param) from None
    if not FIRST_YEAR <= year <= LAST_YEAR:
        raise InvalidParameter(message, param=param)
    return parsed


@dataclass(frozen=True)
class When:
    """``open_now``: true keeps the dispensaries open now, false only reports it; ``open_at``
    keeps those open at that instant. At most one of the two."""

    open_now: bool | None = None
    open_at: datetime | None = None

    @classmethod
    def create(
        cls,
        *,
        open_now: bool | None = None,
        open_at: str | datetime | None = None,
    ) -> "When | None":
        """None when the request does not ask about time; raise InvalidParameter if bad."""
        if open_now is not None and open_at is not None:
            raise InvalidParameter(
                "open_now and open_at cannot be combined: ask about one instant", param="open_at"
            )
        if open_now is None and open_at is None:
            return None
        return cls(open_now, instant(open_at) if open_at is not None else None)

    @property
    def only_open(self) -> bool:
        """Whether the list keeps only the open ones."""
        return self.open_at is not None or bool(self.open_now)

    def instant(self, now: Clock) -> datetime:
        """The instant asked about: ``open_at``, or the request's now."""
        return self.open_at if self.open_at is not None else now()


def since(value: str | datetime, now: Clock, param: str = "updated_since") -> datetime:
    """The instant of an ``updated_since`` filter, in UTC: RFC 3339 text (or an aware datetime,
    as GraphQL gives it) not later than ``now()``; raise InvalidParameter naming ``param``."""
    parsed = value if isinstance(value, datetime) else _rfc3339(value)
    if parsed is None or parsed.tzinfo is None or parsed.utcoffset() is None:
        raise InvalidParameter(
            f"{param} must be an RFC 3339 date and time with seconds and a UTC offset or Z, "
            f"e.g. {SINCE_EXAMPLE}",
            param=param,
        )
    try:
        instant_ = parsed.astimezone(UTC)
    except OverflowError:  # in UTC, before year 1 (older than every stamp) or after 9999
        edge = datetime.min if parsed.year == 1 else datetime.max
        instant_ = edge.replace(tzinfo=UTC)
    if instant_ > now():
        raise InvalidParameter(
            f"{param} must not be in the future: give an instant no later than now, such as a "
            "stamp read from an earlier answer",
            param=param,
        )
    return instant_


def _rfc3339(text: str) -> datetime | None:
    """An aware datetime from RFC 3339 text, or None. A fraction finer than a microsecond is
    rounded up, so that ``>=`` against stored stamps keeps its meaning."""
    found = _RFC3339.fullmatch(text) if text.isascii() else None
    if found is None:
        return None
    day, clock, fraction, offset = found.groups()
    digits = fraction or ""
    micro = (digits + "000000")[:6]
    offset = "+00:00" if offset in ("Z", "z") else offset
    try:
        parsed = datetime.fromisoformat(f"{day}T{clock}.{micro}{offset}")
    except ValueError:
        return None
    if digits[6:].strip("0"):
        parsed += timedelta(microseconds=1)
    return parsed

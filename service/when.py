"""When a list is asked about: now (``open_now``) or another instant (``open_at``).

"Now" is not read here: the edge passes a clock that gives the same instant for the whole
request (web.today.request_now), and it is only called when a request asks about time.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from .errors import InvalidParameter

# ISO 8601 date and time with a UTC offset (or Z); seconds and a fraction are optional.
_INSTANT = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,6})?)?"
    r"(?:Z|[+-][0-9]{2}:[0-9]{2})$"
)
OPEN_AT_EXAMPLE = "2026-12-24T18:30:00-08:00"
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
    if not FIRST_YEAR <= parsed.astimezone(UTC).year <= LAST_YEAR:
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

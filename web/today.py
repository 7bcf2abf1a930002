"""One "today" and one "now" per request: the day and the minute every answer to a request is
computed for.

Read from the clock once, on first use, and kept on ``g``, so that near midnight an ETag, a
replay key and the body they describe all use the same day (deals expire by day), and an answer
about opening hours uses one instant throughout. "Now" is the current minute (seconds dropped):
an answer that read it describes that minute, and is replayed or revalidated only within it
(``g.clock_read`` tells web.conditional and the replay store).
"""

from datetime import UTC, date, datetime

from .context import current_g


def _read_clock() -> datetime:
    return datetime.now(UTC)


def _clock() -> datetime:
    """The instant the current request is answered at: the clock read once, on first use."""
    globals_ = current_g()
    read: datetime | None = globals_.get("clock")
    if read is None:
        read = globals_.clock = _read_clock()
    return read


def request_now() -> datetime:
    """The minute the current request is answered for (UTC), from the request's one clock
    reading; marks the answer as one that describes that minute."""
    current_g().clock_read = True
    return current_minute()


def request_instant() -> datetime:
    """The instant the current request is answered at (UTC, to the microsecond), without
    marking the answer as one for its minute: what an ``updated_since`` must not be later than.
    An answer it accepts stays right later on; only the refusal of a future instant depends on
    the clock, and refusals are neither replayed nor tagged."""
    return _clock()


def current_minute() -> datetime:
    """The request's minute, as request_now gives it, without marking the answer as one that
    depends on it (to name a tag the answer may turn out to need)."""
    return _clock().replace(second=0, microsecond=0)


def request_today() -> date:
    """The day the current request is answered for: the server's local date at the request's
    one clock reading (as ``date.today()`` would give)."""
    globals_ = current_g()
    today: date | None = globals_.get("today")
    if today is None:
        today = globals_.today = _clock().astimezone().date()
    return today

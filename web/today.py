"""One "today" per request: the day every answer to a request is computed for.

Read from the clock once, on first use, and kept on ``g``, so that near midnight an ETag, a
replay key and the body they describe all use the same day (deals expire by day).
"""

from datetime import date

from flask import g


def request_today() -> date:
    """The day the current request is answered for (the clock is read once per request)."""
    today: date | None = g.get("today")
    if today is None:
        today = g.today = date.today()
    return today

"""Which responses may be replayed: the edges mark a request whose 200 depends only on the data
version, the day and the request itself (REST reads with an ETag, GraphQL results without
errors). With speed tricks on, web.accel.replay stores marked responses and answers repeats of
them in front of Flask; off, a mark is simply not read.
"""

from dataclasses import dataclass
from datetime import date

from flask import g


@dataclass(frozen=True)
class ReplayMark:
    """Set on ``g`` by an edge: this request's 200 may be stored under ``version`` and ``day``.

    ``quota_in_body``: the quota the body reports, which a replay replaces with the current one;
    ``units``: what the request was charged, and a replay of it is charged again.
    """

    version: int
    day: date
    quota_in_body: dict[str, int] | None = None
    units: int = 1


def mark_replayable(
    version: int, day: date, *, quota_in_body: dict[str, int] | None = None, units: int = 1
) -> None:
    """Let the current request's 200 response be stored for replay (see :class:`ReplayMark`)."""
    g.replay_mark = ReplayMark(version, day, quota_in_body, units)

"""Which responses may be replayed: the edges mark a request whose 200 depends only on the data
version, the day and the request itself (REST reads with an ETag, GraphQL results without
errors). With speed tricks on, web.accel.replay stores marked responses and answers repeats of
them in front of Flask (off, a mark is not read), doing for each stage what web.pipeline declares.
"""

from dataclasses import dataclass
from datetime import date
from enum import Enum

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


class Replay(Enum):
    """What the replay lane does about a pipeline stage (or a WSGI layer) for what it replays."""

    MIRRORED = "mirrored"  # the lane re-does its effect (web.accel.replay.MIRRORS names the step)
    NOT_NEEDED = "not needed"  # its effect is in the stored response, or cannot apply to it
    DECLINED = "declined"  # the requests it matters for are left to Flask, never replayed


@dataclass(frozen=True)
class ReplayTreatment:
    """A stage's :class:`Replay`, with why it is not needed or how the lane declines."""

    replay: Replay
    reason: str = ""

    def __post_init__(self) -> None:
        if (self.replay is Replay.MIRRORED) == bool(self.reason):
            raise ValueError("a reason is given for a stage not needed or declined, and only then")


MIRRORED = ReplayTreatment(Replay.MIRRORED)


def not_needed(why: str) -> ReplayTreatment:
    """The lane need not re-do the stage, because ``why``."""
    return ReplayTreatment(Replay.NOT_NEEDED, why)


def declined(how: str) -> ReplayTreatment:
    """The requests the stage matters for are not replayed; ``how`` the lane declines them."""
    return ReplayTreatment(Replay.DECLINED, how)

"""Framework-free error hierarchy; the edges render these into the envelope or GraphQL errors."""

import re
from collections.abc import Mapping

from sqlalchemy import exc as sa_exc


class ServiceError(Exception):
    """Base of every error the service raises on purpose; ``code`` equals the HTTP status."""

    code = 500
    # A word naming the condition, for errors a client must tell apart from others of the same
    # status (the envelope's error.reason, GraphQL's extensions.reason); None for most.
    reason: str | None = None

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


class InvalidParameter(ServiceError):
    code = 400

    def spelled(self, names: Mapping[str, str]) -> "InvalidParameter":
        """This error as an edge spelling some parameters otherwise (``names``: the service's
        name -> the edge's): ``param`` and each whole name in the message, not one already
        qualified (the ``radius`` of ``near.radius``)."""
        pattern = r"(?<![\w.])(?:" + "|".join(map(re.escape, names)) + r")(?!\w)"
        message = re.sub(pattern, lambda match: names[match[0]], self.message)
        param = names.get(self.param, self.param) if self.param is not None else None
        return InvalidParameter(message, param=param)


class Unauthorized(ServiceError):
    code = 401


class NotFound(ServiceError):
    code = 404


class CursorExpired(ServiceError):
    """A change feed cursor from before what the feed still holds (another log, or deletions
    dropped after the retention period): the client must read the feed again from the start."""

    code = 410
    reason = "cursor_expired"


class TooManyRequests(ServiceError):
    """Refused for now (quota or work in flight); the client may retry in ``retry_after`` s."""

    code = 429

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class TimeBudgetExceeded(ServiceError):
    """A GraphQL operation ran past its time budget and was stopped (the worker is free)."""

    code = 503


RETRY_AFTER_SECONDS = 5
UNAVAILABLE_MESSAGE = "the database is unavailable; retry in a few seconds"


def is_database_unavailable(error: BaseException) -> bool:
    """True for database failures a client can only wait out: down, unreachable, timed out."""
    if type(error) is sa_exc.DatabaseError:  # e.g. SQLite: "file is not a database"
        return True
    return isinstance(error, (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.TimeoutError))

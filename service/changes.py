"""The change feed (``GET /changes``, GraphQL ``changes``): pages of the change log in commit
order, and the opaque cursors that say where a reader is.

The log holds one row per object, its latest change (models.change); loads are serialized, so
sequence numbers become visible in order. A page reads the feed state first and then only rows at
or below its ``last_seq``: every such row has committed, so a cursor at or below it never skips
one, whatever commits meanwhile. A cursor names the log's epoch and a sequence number; it has
expired when the log started again (another epoch) or when a deletion after it was dropped at the
end of the retention period (below the horizon).
"""

import base64
import binascii
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import NamedTuple, cast

from sqlalchemy import Select, bindparam, select

from models import Change
from models import FeedState as FeedStateModel
from models.db import Reader
from models.expressions import instant_text as text_of

from .bounds import CHANGES
from .errors import CursorExpired, InvalidParameter
from .filters import MAX_VALUES
from .paging import PageRequest, rows
from .vocab import CHANGE_TYPES

# The cursor's text before base64url: a format version, the epoch (hex) and the sequence number.
_CURSOR_VERSION = "1"
_CURSOR = re.compile(r"1\.([0-9a-f]{0,16})\.(0|[1-9][0-9]{0,17})")
# The epoch of a database with no log yet: no load gives it (epochs are 8 hex digits), so a
# cursor taken before the first load has expired after it.
NO_EPOCH = ""
SINCE = "since"
TYPES = "types"
BAD_CURSOR = (
    "since must be a cursor from meta.next of an earlier answer of this feed; leave it out to "
    "read the feed from the beginning"
)
EXPIRED = (
    "this cursor has expired: the feed no longer holds every change after it (the log was "
    "started again, or deletions older than {days} days were dropped); start again without "
    "since to read the feed from the beginning"
)


class ChangeEntry(NamedTuple):
    """One object's latest change: its kind and public id, upsert or delete, and when (RFC 3339
    text in UTC with milliseconds and Z, as the feed shows it). A page's entries are the rows of
    its statement, which have these attributes."""

    seq: int
    kind: str
    key: str
    op: str
    at: str


@dataclass(frozen=True)
class ChangePage:
    """A page of the feed: the entries, the cursor to continue from, whether more entries
    follow it now, when the data last changed (None before the first load) and the retention."""

    items: Sequence[ChangeEntry]
    next: str
    has_more: bool
    as_of: str | None  # RFC 3339, as ChangeEntry.at
    retention_days: int


@dataclass(frozen=True)
class ChangeQuery:
    """A validated request for a page: where to start (epoch and position, None: from the
    beginning), the kinds wanted (None: all) and the page size."""

    cursor: tuple[str, int] | None
    kinds: tuple[str, ...] | None
    limit: int

    @classmethod
    def create(
        cls,
        *,
        since: str | None = None,
        types: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> "ChangeQuery":
        """Check the arguments; raise InvalidParameter naming since, types or limit."""
        cursor = read_cursor(since) if since is not None else None
        kinds = _kinds(types) if types is not None else None
        return cls(cursor, kinds, PageRequest.within(CHANGES, limit).limit)


def _kinds(types: Sequence[str]) -> tuple[str, ...]:
    if len(types) > MAX_VALUES:  # as every filter of several values
        raise InvalidParameter(f"types takes at most {MAX_VALUES} values", param=TYPES)
    wanted = [value.strip().lower() for value in types]
    unknown = [value for value in wanted if value not in CHANGE_TYPES]
    if not wanted or unknown or "" in wanted:
        shown = f"{unknown[0]!r} is not one" if unknown else "none was given"
        raise InvalidParameter(
            f"types must be one or more of {', '.join(CHANGE_TYPES)}, separated by commas; {shown}",
            param=TYPES,
        )
    return tuple(kind for kind in CHANGE_TYPES if kind in wanted)


def make_cursor(epoch: str, seq: int) -> str:
    """The opaque text of the position after ``seq`` in the log of ``epoch``."""
    text = f"{_CURSOR_VERSION}.{epoch}.{seq}".encode("ascii")
    return base64.urlsafe_b64encode(text).rstrip(b"=").decode("ascii")


def read_cursor(text: str) -> tuple[str, int]:
    """(epoch, sequence number) of a cursor; raise InvalidParameter naming since otherwise."""
    found = None
    if text.isascii() and 0 < len(text) <= 64:
        try:
            decoded = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            found = _CURSOR.fullmatch(decoded.decode("ascii"))
        except (binascii.Error, ValueError):
            found = None
    if found is None or make_cursor(found[1], int(found[2])) != text:
        raise InvalidParameter(BAD_CURSOR, param=SINCE)
    return found[1], int(found[2])


class FeedState(NamedTuple):
    """Where the log stands: its epoch, last sequence number, horizon and when the data last
    changed (RFC 3339; None before the first load)."""

    epoch: str
    last_seq: int
    horizon: int
    as_of: str | None

    @property
    def position(self) -> tuple[str, int, int]:
        """What a cached answer of the feed must be validated against."""
        return (self.epoch, self.last_seq, self.horizon)


NO_STATE = FeedState(NO_EPOCH, 0, 0, None)


@lru_cache(maxsize=1)
def _state() -> Select[str, int, int, str]:
    state = FeedStateModel.__table__.c
    return select(state.epoch, state.last_seq, state.horizon, text_of(state.as_of)).where(
        state.id == 1
    )


def feed_state(db: Reader) -> FeedState:
    """Where the log stands (NO_STATE before the first load)."""
    found = rows(db, _state(), {})
    return FeedState(*found[0]) if found else NO_STATE


@lru_cache(maxsize=2)
def _page(filtered: bool) -> Select[int, str, str, str, str]:
    """The entries after ``after`` up to ``upto`` (of ``kinds``): a range of the primary key."""
    c = Change.__table__.c
    where = [c.seq > bindparam("after"), c.seq <= bindparam("upto")]
    if filtered:
        where.append(c.kind.in_(bindparam("kinds", expanding=True)))
    stmt = select(c.seq, c.kind, c.key, c.op, text_of(c.at).label("at")).where(*where)
    return stmt.order_by(c.seq).limit(bindparam("rows"))


def _utc(value: datetime) -> datetime:
    # SQLite gives the stored UTC instants back without their zone; PostgreSQL in its own.
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def list_changes(
    db: Reader, query: ChangeQuery, *, retention_days: int, state: FeedState | None = None
) -> ChangePage:
    """The page of the feed after ``query``'s cursor (or from the beginning) as of ``state``
    (read here unless given: the state an ETag was made from); raise CursorExpired for a cursor
    of another log or from before the horizon, InvalidParameter (since) for one past the end of
    the log."""
    if state is None:
        state = feed_state(db)
    after = _position(query.cursor, state, retention_days)
    params: dict[str, object] = {"after": after, "upto": state.last_seq, "rows": query.limit + 1}
    if query.kinds is not None and len(query.kinds) < len(CHANGE_TYPES):
        params["kinds"] = list(query.kinds)
    fetched = rows(db, _page("kinds" in params), params) if state.last_seq > after else []
    has_more = len(fetched) > query.limit
    # The rows themselves: no object made per entry (a page is up to 1,000 of them).
    items = cast(Sequence[ChangeEntry], fetched[: query.limit] if has_more else fetched)
    # Without more, every entry up to last_seq has been read: continue after it.
    position = items[-1].seq if has_more else state.last_seq
    cursor = make_cursor(state.epoch, position)
    return ChangePage(items, cursor, has_more, state.as_of, retention_days)


def _position(cursor: tuple[str, int] | None, state: FeedState, retention_days: int) -> int:
    """The sequence number a page starts after."""
    if cursor is None:
        return 0
    epoch, seq = cursor
    if epoch != state.epoch or seq < state.horizon:
        raise CursorExpired(EXPIRED.format(days=retention_days), param=SINCE)
    if seq > state.last_seq:
        raise InvalidParameter(
            f"since is past the end of this feed (a cursor of another server?); {BAD_CURSOR}",
            param=SINCE,
        )
    return seq


def instant_text(value: datetime) -> str:
    """An instant as the feed writes it: RFC 3339 in UTC with milliseconds and Z (what
    models.expressions.instant_text has the database write)."""
    return _utc(value).replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


def instant_of(text: str) -> datetime:
    """The instant (UTC) of a feed's RFC 3339 text."""
    return datetime.fromisoformat(text)

"""GET /api/v1/changes: the change feed, what changed since a cursor (docs/sync.md).

Its ETag also names the log's position, read fresh for every request (the data version is read
through a cache that may not show a load yet), and its answers are never replayed: a 304 never
hides a committed change.
"""

from collections.abc import Hashable, Iterable
from typing import Any

from flask import current_app
from marshmallow import EXCLUDE, Schema, fields, post_load

from service import changes
from service.bounds import CHANGES
from service.changes import ChangeEntry, ChangeQuery, FeedState
from service.vocab import CHANGE_OPS, CHANGE_TYPES
from web.context import current_g
from web.db import request_connection
from web.routes import route_policy

from . import parameters as param
from .blueprint import bp
from .envelope import ok_feed
from .fields import OptionalString, Rendered
from .openapi import SUCCESS_HEADERS, errors, not_modified, operation_id
from .schemas import Output

# Where an object of each kind is read (its id appended).
HREFS = {
    "strain": "/api/v1/strains/",
    "dispensary": "/api/v1/dispensaries/",
    "deal": "/api/v1/deals/",
    "doctor": "/api/v1/doctors/",
    "law": "/api/v1/laws/",
}
_INSTANT = {"format": "date-time", "example": "2026-11-27T10:04:11.123Z"}


class ChangeArgs(Schema):
    class Meta:
        unknown = EXCLUDE

    since = fields.String(
        metadata={
            "description": "The cursor to continue from: meta.next of the previous page, as it "
            "was given (opaque). Left out: from the beginning, every current object once "
            "(an upsert) and the deletions still kept.",
            # The text a cursor is written in (base64url); only the feed's own cursors read.
            param.ACCEPTS: "^[A-Za-z0-9_-]{1,64}$",
        }
    )
    types = param.any_of(param.choice(CHANGE_TYPES, "Only changes of "), "types")
    limit = param.limit(CHANGES)

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> ChangeQuery:
        return ChangeQuery.create(**data)


class ChangeSchema(Output):
    """One object's latest change (dumped from the dicts of :func:`rendered`)."""

    type = fields.String(required=True, metadata={"enum": list(CHANGE_TYPES)})
    id = fields.String(
        required=True,
        metadata={
            "description": "The object's id: a strain's slug, disp_/deal_/doc_ ids, a law's "
            "state code.",
            "example": "disp_2479",
        },
    )
    op = fields.String(
        required=True,
        metadata={
            "enum": list(CHANGE_OPS),
            "description": "upsert: the object is new or changed (read it at href); delete: "
            "it is gone.",
        },
    )
    at = fields.String(
        required=True,
        metadata={
            "description": "The object's updated_at (an upsert) or when it was deleted: RFC "
            "3339, UTC, milliseconds.",
            **_INSTANT,
        },
    )
    href = OptionalString(
        metadata={
            "description": "Where the object is read; upserts only.",
            "example": "/api/v1/dispensaries/disp_2479",
        }
    )


def rendered(entries: Iterable[ChangeEntry]) -> list[dict[str, str]]:
    """The page's entries as ChangeSchema dumps them, written here in one pass: a page holds up
    to 1,000 of them, and a dump per item would cost more than the rest of the request."""
    return [
        {"type": kind, "id": key, "op": op, "at": at, "href": HREFS[kind] + key}
        if op == "upsert"
        else {"type": kind, "id": key, "op": op, "at": at}
        for _seq, kind, key, op, at in entries
    ]


class ChangeMetaSchema(Output):
    next = fields.String(
        required=True,
        metadata={
            "description": "The cursor to send as since for the next page (also when this one "
            "is the last: what changes later follows it)."
        },
    )
    has_more = fields.Boolean(
        required=True,
        metadata={"description": "More changes follow next now: ask again without waiting."},
    )
    as_of = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "When the data last changed (RFC 3339, UTC, milliseconds); null "
            "before the first load.",
            **_INSTANT,
        },
    )
    retention_days = fields.Integer(
        required=True,
        metadata={
            "description": "Days deletions are kept; a cursor older than that may have expired "
            "(410, error.reason cursor_expired)."
        },
    )


ChangePageSchema = Output.from_dict(
    {
        "success": fields.Boolean(required=True, metadata={"enum": [True]}),
        "data": Rendered(fields.Nested(ChangeSchema), required=True),
        "meta": fields.Nested(ChangeMetaSchema, required=True),
    },
    name="ChangePage",
)


def feed_position() -> Hashable:
    """The log's position, read fresh: what the feed's ETag names besides the data version."""
    return _request_state().position


def _request_state() -> FeedState:
    """The feed's state, read once per request: the ETag and the page are made from the same."""
    globals_ = current_g()
    state: FeedState | None = globals_.get("feed_state")
    if state is None:
        state = globals_.feed_state = changes.feed_state(request_connection())
    return state


@bp.get("/changes", tags=["changes"])
@route_policy(keyed=True, metered=True, conditional=True, validator=feed_position)
@bp.arguments(ChangeArgs(), location="query", as_kwargs=False)
@bp.response(200, ChangePageSchema, headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 405, 410, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "listChanges")
def list_changes(query: ChangeQuery) -> dict[str, Any]:
    """What changed since a cursor, in commit order: per object its latest change.

    Without since, reading to the end (has_more false) gives every current object once, as an
    upsert, and the deletions kept for retention_days; from then on, following meta.next gives
    every later change exactly once. A cursor from before the retention period answers 410 with
    error.reason cursor_expired: start again without since."""
    days = current_app.config["CHANGE_RETENTION_DAYS"]
    page = changes.list_changes(
        request_connection(), query, retention_days=days, state=_request_state()
    )
    return ok_feed(page, rendered(page.items))

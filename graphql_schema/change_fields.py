"""Query.changes: the change feed (REST's GET /api/v1/changes), each change with its object.

The objects of a page are read on the first ``object`` asked for, one statement per kind for the
whole page (the request's batch cache), and built as the detail fields build them. An answer
that read the feed is never cached, replayed or tagged (web.conditional.live_answer): the data
version those use may not show a load yet.
"""

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry import Info

from service import bounds, changes
from service.changes import ChangeEntry, ChangeQuery, instant_of
from service.nodes import records_by_kind
from service.vocab import ChangeOp, ChangeType
from web.conditional import live_answer

from .context import Context
from .deal_type import Deal
from .dispensary_type import Dispensary
from .node import Node
from .strain_type import Strain
from .types import Doctor, Law

strawberry.enum(ChangeType, description="The kind of object a change is about.")
strawberry.enum(
    ChangeOp,
    description="What a change did: UPSERT, the object is new or changed; DELETE, it is gone.",
)

OBJECTS = "change_object"  # the batch cache's kind and relation for a change's object
Key = tuple[str, str]  # (kind, public id)

Since = Annotated[
    str | None,
    strawberry.argument(
        description="The cursor to continue from: next of the previous page, as it was given "
        "(opaque). Null: from the beginning, every current object once (an upsert) and the "
        "deletions still kept."
    ),
]
Types = Annotated[
    list[ChangeType] | None,
    strawberry.argument(description="Only changes of these kinds (at least one)."),
]
ChangesLimit = Annotated[
    int,
    strawberry.argument(
        description=f"Changes per page, 1 to {bounds.CHANGES.maximum} (default "
        f"{bounds.CHANGES.default}); larger values are reduced to {bounds.CHANGES.maximum}."
    ),
]


@strawberry.type(name="Change", description="One object's latest change.")
class ChangeItem:
    type: ChangeType
    id: strawberry.ID = strawberry.field(
        description="The object's id: a strain's slug, disp_/deal_/doc_ ids, a law's state code."
    )
    op: ChangeOp
    at: datetime = strawberry.field(
        description="The object's updatedAt (an upsert) or when it was deleted (UTC)."
    )

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="The object as it is now; null for a deletion (and for a deal that has "
        "expired since)."
    )
    def object(self, info: Info[Context, None]) -> Node | None:
        if self.op is ChangeOp.DELETE:
            return None
        key = (self.type.value, str(self.id))
        return info.context.batch.load(OBJECTS, OBJECTS, key, lambda keys: _objects(info, keys))

    @classmethod
    def from_entry(cls, entry: ChangeEntry) -> "ChangeItem":
        return cls(
            type=ChangeType(entry.kind),
            id=strawberry.ID(entry.key),
            op=ChangeOp(entry.op),
            at=instant_of(entry.at),
        )


def _objects(info: Info[Context, None], keys: list[tuple[str, str]]) -> dict[Key, Node]:
    """The current objects of ``keys`` ((kind, id) pairs), one statement per kind."""
    wanted: dict[str, list[str]] = {}
    for kind, key in keys:
        wanted.setdefault(kind, []).append(key)
    ctx = info.context
    found = records_by_kind(
        ctx.db,
        strains=wanted.get("strain", ()),
        dispensaries=wanted.get("dispensary", ()),
        deals=wanted.get("deal", ()),
        doctors=wanted.get("doctor", ()),
        laws=wanted.get("law", ()),
        today=ctx.today,
    )
    built: dict[Key, Node] = {}
    built.update((("strain", k), Strain.from_model(r, info)) for k, r in found.strains.items())
    built.update(
        (("dispensary", k), Dispensary.from_model(r, info)) for k, r in found.dispensaries.items()
    )
    built.update((("deal", k), Deal.from_model(r, info)) for k, r in found.deals.items())
    built.update((("doctor", k), Doctor.from_model(r, info)) for k, r in found.doctors.items())
    built.update((("law", k), Law.from_model(r)) for k, r in found.laws.items())
    return built


@strawberry.type(description="One page of the change feed (REST's GET /api/v1/changes).")
class ChangePage:
    items: list[ChangeItem]
    next: str = strawberry.field(
        description="The cursor to pass as since for the next page (also when this one is the "
        "last: what changes later follows it)."
    )
    has_more: bool = strawberry.field(description="More changes follow next now.")
    as_of: datetime | None = strawberry.field(
        description="When the data last changed; null before the first load."
    )
    retention_days: int = strawberry.field(
        description="Days deletions are kept; an older cursor may have expired (an error with "
        "extensions.code 410 and extensions.reason cursor_expired)."
    )


def changes_page(
    info: Info[Context, None],
    since: Since = None,
    types: Types = None,
    limit: ChangesLimit = bounds.CHANGES.default,
) -> ChangePage | None:
    """Query.changes."""
    live_answer()
    query = ChangeQuery.create(
        since=since,
        types=[t.value for t in types] if types is not None else None,
        limit=limit,
    )
    ctx = info.context
    page = changes.list_changes(ctx.db, query, retention_days=ctx.retention_days)
    ctx.batch.register(OBJECTS, ((e.kind, e.key) for e in page.items if e.op == "upsert"))
    return ChangePage(
        items=[ChangeItem.from_entry(entry) for entry in page.items],
        next=page.next,
        has_more=page.has_more,
        as_of=instant_of(page.as_of) if page.as_of is not None else None,
        retention_days=page.retention_days,
    )

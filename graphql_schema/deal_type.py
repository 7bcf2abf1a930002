"""The GraphQL deal, and the dispensary offering it."""

from datetime import date, datetime

import strawberry
from strawberry import Info

from models import Deal as DealModel
from service import dispensary_rows
from service.deals import DealRow
from service.dispensary_rows import DispensaryRow
from service.stamps import as_utc

from . import dispensary_type
from .context import Context
from .lazy import LazyDispensary
from .node import Node
from .types import NEVER, UPDATED_AT


@strawberry.type(description="An active promotion at one dispensary.")
class Deal(Node):
    title: str
    dispensary_name: str
    category: str
    discount: str
    expires: date
    distance: float | None = strawberry.field(
        default=None,
        description="Miles from the point searched (zip or near) to the dispensary, one "
        "decimal; null otherwise.",
    )
    _dispensary_pk: strawberry.Private[int] = 0
    _updated_at: strawberry.Private[datetime] = NEVER

    @classmethod
    def from_model(
        cls,
        deal: DealModel | DealRow,
        info: Info[Context, None],
        dispensary_name: str | None = None,
    ) -> "Deal":
        info.context.batch.register_one("deal-dispensary", deal.dispensary_id)
        name = dispensary_name if dispensary_name is not None else deal.dispensary_name
        return cls(
            id=strawberry.ID(deal.public_id),
            title=deal.title,
            dispensary_name=name,
            category=deal.category,
            discount=deal.discount,
            expires=deal.expires,
            distance=deal.distance if isinstance(deal, DealRow) else None,
            _dispensary_pk=deal.dispensary_id,
            _updated_at=as_utc(deal.updated_at),
        )

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="The dispensary offering the deal."
    )
    def dispensary(self, info: Info[Context, None]) -> LazyDispensary:
        ctx = info.context

        def fetch(ids: list[int]) -> dict[int, DispensaryRow]:
            found = dispensary_rows.dispensary_rows_by_ids(ctx.db, ids)
            dispensary_type.seen_dispensaries(ctx, found.values())
            return found

        row = ctx.batch.load("dispensary", "deal-dispensary", self._dispensary_pk, fetch)
        return dispensary_type.Dispensary.from_model(row, info)

    @strawberry.field(description=UPDATED_AT)  # type: ignore[untyped-decorator]  # typed Any
    def updated_at(self) -> datetime:
        return self._updated_at

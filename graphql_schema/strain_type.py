"""The GraphQL strain, its terpenes and where to buy it."""

from datetime import datetime

import strawberry
from strawberry import Info

from service import bounds, stockist_lists, strains
from service.dispensary_rows import DispensaryRow
from service.filters import STOCKIST_SORTS
from service.stamps import as_utc
from service.strains import StrainDetail, StrainRow

from . import dispensary_type, lineage_fields
from .arguments import (
    MapBox,
    NearPoint,
    NestedOffset,
    OpenAt,
    OpenNow,
    Radius,
    States,
    StockistOrder,
    StrainDispensariesLimit,
    StrainDispensariesState,
    TotalThcMin,
    UpdatedSince,
    Zip,
)
from .chemistry_type import Chemistry, Lineage, chemistry_of, lineage_of, prime_detail
from .chemistry_type import ratio_of as ratio_enum
from .chemistry_type import terpene_of as terpene_enum
from .context import Context
from .dispensary_filters import dispensary_filters
from .enums import Ratio, StrainType, TerpeneKey
from .lazy import LazyDispensary
from .node import Node
from .places import updated_since as since_of
from .types import NEVER, UPDATED_AT, Page, nested_window


@strawberry.type(description="A cannabis strain.")
class Strain(Node):
    slug: str
    name: str
    type: StrainType
    thc: float
    cbd: float
    effects: list[str]
    flavors: list[str]
    description: str
    rating: float
    review_count: int
    dominant_terpene: TerpeneKey | None = strawberry.field(
        description="The terpene with the highest median in its chemistry; null without."
    )
    ratio: Ratio | None = strawberry.field(
        description="How total THC compares with total CBD in its chemistry; null without."
    )
    _pk: strawberry.Private[int] = 0
    _updated_at: strawberry.Private[datetime] = NEVER

    @classmethod
    def from_model(cls, s: StrainRow | StrainDetail, info: Info[Context, None]) -> "Strain":
        info.context.batch.register_one("strain", s.id)
        built = cls(
            id=strawberry.ID(s.slug),
            slug=s.slug,
            name=s.name,
            type=StrainType(s.type),
            thc=s.thc,
            cbd=s.cbd,
            effects=list(s.effects),
            flavors=list(s.flavors),
            description=s.description,
            rating=s.rating,
            review_count=s.review_count,
            dominant_terpene=terpene_enum(s.dominant_terpene),
            ratio=ratio_enum(s.ratio),
            _pk=s.id,
            _updated_at=as_utc(s.updated_at),
        )
        if isinstance(s, StrainDetail):
            prime_detail(info, s)  # its terpenes, chemistry and lineage are read already
        return built

    @strawberry.field
    def terpenes(self, info: Info[Context, None]) -> list[str]:
        ctx = info.context
        return ctx.batch.load(
            "terpenes",
            "strain",
            self._pk,
            lambda ids: strains.terpenes_by_strain(ctx.db, ids),
        )

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="Dispensaries whose menu lists the strain, each with the item's price and "
        "unit; by name unless sort says otherwise (nearest first around a point). Every filter "
        "of Query.dispensaries that fits one strain, and the lab batch's total THC. When a menu "
        "lists the strain more than once, the item that counts is the cheapest of those "
        "reaching totalThcMin (with sort PRICE_PER_GRAM: the lowest price per gram)."
    )
    def dispensaries(
        self,
        info: Info[Context, None],
        state: StrainDispensariesState = None,
        states: States = None,
        zip: Zip = None,
        radius: Radius = None,
        near: NearPoint = None,
        bbox: MapBox = None,
        open_now: OpenNow = None,
        open_at: OpenAt = None,
        sort: StockistOrder = None,
        limit: StrainDispensariesLimit = bounds.STRAIN_DISPENSARIES.default,
        offset: NestedOffset = 0,
        updated_since: UpdatedSince = None,
        total_thc_min: TotalThcMin = None,
    ) -> list[LazyDispensary]:
        window = nested_window(limit, offset, bounds.STRAIN_DISPENSARIES)
        filters = dispensary_filters(
            state=state,
            states=states,
            zip=zip,
            radius=radius,
            near=near,
            bbox=bbox,
            open_now=open_now,
            open_at=open_at,
            sort=sort,
            updated_since=since_of(updated_since, info.context.instant),
            total_thc_min=total_thc_min,
            sorts=STOCKIST_SORTS,
        )
        ctx = info.context

        def fetch(ids: list[int]) -> dict[int, list[DispensaryRow]]:
            found = stockist_lists.stockists_by_strain(ctx.db, ids, filters, window, now=ctx.now)
            dispensary_type.seen_dispensaries(ctx, (d for rows in found.values() for d in rows))
            ctx.batch.register("stocking", ((pk, d.id) for pk, rows in found.items() for d in rows))
            return found

        rows = ctx.batch.load(("stockists", filters, window), "strain", self._pk, fetch)
        return [
            dispensary_type.Dispensary.from_model(
                row, info, row.distance, stocking=self._pk, stocked_by=filters
            )
            for row in rows
        ]

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="The strain's typical chemistry (percentiles over its samples); null when "
        "it has no samples, never zeros."
    )
    def chemistry(self, info: Info[Context, None]) -> Chemistry | None:
        return chemistry_of(info, self._pk)

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="Where the strain comes from: origin, parents and how many children."
    )
    def lineage(self, info: Info[Context, None]) -> Lineage:
        return lineage_of(info, self._pk)

    # The lineage as strains (graphql_schema.lineage_fields), after the fields it had before
    # (the stamp stays last).
    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="The strains it was bred from, first parent first, with their total "
        f"(limit at most {bounds.STRAIN_PARENTS.maximum})."
    )
    def parents(
        self,
        info: Info[Context, None],
        limit: lineage_fields.StrainParentsLimit = bounds.STRAIN_PARENTS.default,
        offset: NestedOffset = 0,
    ) -> Page["Strain"]:
        return lineage_fields.strain_parents(self, info, limit, offset)

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="The strains bred from it, by name (any case), then slug, with their "
        f"total (limit at most {bounds.STRAIN_CHILDREN.maximum})."
    )
    def children(
        self,
        info: Info[Context, None],
        limit: lineage_fields.StrainChildrenLimit = bounds.STRAIN_CHILDREN.default,
        offset: NestedOffset = 0,
    ) -> Page["Strain"]:
        return lineage_fields.strain_children(self, info, limit, offset)

    @strawberry.field(description=UPDATED_AT)  # type: ignore[untyped-decorator]  # typed Any
    def updated_at(self) -> datetime:
        return self._updated_at

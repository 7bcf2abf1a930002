"""The Query root and the schema with its abuse limits."""

import strawberry
from graphql import GraphQLError
from strawberry import Info
from strawberry.extensions import MaxTokensLimiter, ParserCache, ValidationCache
from strawberry.types import ExecutionContext

from service import bounds, deals, doctors, laws, search, strains
from service.dispensary_rows import dispensary_rows_by_public_ids
from service.errors import NotFound
from service.filters import LawFilters, SearchQuery
from service.paging import PageRequest
from web.settings import WebSettings

from .accel.budgets import DeadlineExecution, core_schema
from .accel.direct import install_direct_resolvers
from .accel.execution import plain_field_execution
from .admission import admission
from .arguments import (
    DealId,
    DispensaryId,
    DoctorId,
    LawOrder,
    LawState,
    NodeId,
    NodeIds,
    Offset,
    SearchLimit,
    SearchText,
    SearchTypeFilter,
    State,
    StrainSlug,
    UpdatedSince,
)
from .change_fields import changes_page
from .chemistry_type import Compound, all_compounds
from .context import Context
from .cost import MAX_ALIASES, MAX_DEPTH, DocumentLimits
from .deal_fields import deals_page
from .deal_type import Deal
from .dispensary_fields import dispensaries_page
from .dispensary_type import Dispensary
from .doctor_fields import doctors_page
from .enums import SearchType
from .errors import RejectEmptySelectionSets
from .lineage_fields import lineage_graph
from .node import Node
from .node_lookup import nodes_by_ids
from .places import updated_since as updated_since_of
from .places import value as sort_value
from .scalars import SCALAR_OVERRIDES
from .search_results import SearchResult, search_items
from .strain_fields import strains_page
from .strain_type import Strain
from .types import Doctor, Law, Page

__all__ = ["MAX_ALIASES", "MAX_DEPTH", "MAX_TOKENS", "Query", "make_schema"]

MAX_TOKENS = 2_000


def _value(enum_member: SearchType | None) -> str | None:
    return enum_member.value if enum_member is not None else None


# The lists' resolvers live with their resource (strain_fields.py, dispensary_fields.py, ...);
# a field of one record resolves here.
@strawberry.type
class Query:
    strains = strawberry.field(
        resolver=strains_page,
        description="Strains by type, effect, flavor (each any of several), THC and CBD range, "
        "terpene, dominant terpene and ratio (each any of several), minimum medians of minor "
        "cannabinoids and parent; by name.",
    )

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="One strain by slug, or null."
    )
    def strain(self, info: Info[Context, None], slug: StrainSlug) -> Strain | None:
        try:
            return Strain.from_model(strains.get_strain(info.context.db, slug), info)
        except NotFound:
            return None

    compounds: list[Compound] = strawberry.field(
        resolver=all_compounds,
        description="Every compound the service knows, cannabinoids first: the keys chemistry "
        "shows and the terpene filters take.",
    )

    dispensaries = strawberry.field(
        resolver=dispensaries_page,
        description="Dispensaries by place, type and delivery, near a point or in a map box, "
        "open now or at an instant; by name, distance or rating (nearest first around a point).",
    )

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="One dispensary by id (disp_<n>), or null."
    )
    def dispensary(self, info: Info[Context, None], id: DispensaryId) -> Dispensary | None:
        found = dispensary_rows_by_public_ids(info.context.db, [id])
        return Dispensary.from_model(found[id], info) if id in found else None

    deals = strawberry.field(
        resolver=deals_page,
        description="Active deals by place and category, near a point, at dispensaries open "
        "now or at an instant; soonest expiry first, or nearest first around a point.",
    )

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="One active deal by id (deal_<n>), or null (also once it has expired)."
    )
    def deal(self, info: Info[Context, None], id: DealId) -> Deal | None:
        try:
            return Deal.from_model(
                deals.get_deal(info.context.db, id, today=info.context.today), info
            )
        except NotFound:
            return None

    doctors = strawberry.field(
        resolver=doctors_page,
        description="Doctors by place and telehealth, near a point or in a map box; by name, "
        "distance or rating (nearest first around a point; "
        f"limit at most {bounds.DOCTORS.maximum}).",
    )

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="One doctor by id (doc_<n>), or null."
    )
    def doctor(self, info: Info[Context, None], id: DoctorId) -> Doctor | None:
        try:
            return Doctor.from_model(doctors.get_doctor(info.context.db, id), info)
        except NotFound:
            return None

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="The law record of one state or territory, or null."
    )
    def law(self, info: Info[Context, None], state: LawState) -> Law | None:
        try:
            return Law.from_model(laws.get_law(info.context.db, state))
        except NotFound:
            return None

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="Every law record, by state code unless sort says otherwise."
    )
    def laws(
        self,
        info: Info[Context, None],
        updated_since: UpdatedSince = None,
        sort: LawOrder = None,
    ) -> list[Law]:
        filters = LawFilters.create(
            updated_since=updated_since_of(updated_since, info.context.instant),
            sort=sort_value(sort),
        )
        return [Law.from_model(law) for law in laws.list_laws(info.context.db, filters)]

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="The record with this id (a strain, dispensary, deal, doctor or law), "
        "or null; the same record as its own field (strain, dispensary...) gives."
    )
    def node(self, info: Info[Context, None], id: NodeId) -> Node | None:
        return nodes_by_ids(info, [id])[0]

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="The records with these ids, in the order asked, null for an unknown id; "
        "one statement per kind of record."
    )
    def nodes(self, info: Info[Context, None], ids: NodeIds) -> list[Node | None]:
        return nodes_by_ids(info, ids)

    lineage = strawberry.field(
        resolver=lineage_graph,
        description="A strain's ancestors or descendants to a depth of 1 to 3 (the strains "
        "reached and the parent links between them), or null for an unknown slug.",
    )

    changes = strawberry.field(
        resolver=changes_page,
        description="What changed since a cursor, in commit order: per object its latest "
        "change, with the object as it is now. From the beginning (no since), reading to the "
        "end gives every current object once and the deletions kept; following next from then "
        "on gives every later change exactly once.",
    )

    @strawberry.field(  # type: ignore[untyped-decorator]  # strawberry.field(...) is typed Any
        description="Ranked search across strains, dispensaries, doctors, deals."
    )
    def search(
        self,
        info: Info[Context, None],
        q: SearchText,
        type: SearchTypeFilter = None,
        state: State = None,
        limit: SearchLimit = bounds.SEARCH.default,
        offset: Offset = 0,
    ) -> Page[SearchResult] | None:
        query = SearchQuery.create(q=q, type=_value(type), state=state)
        page = search.search(
            info.context.db,
            query,
            PageRequest.within(bounds.SEARCH, limit, offset),
            today=info.context.today,
        )
        return Page.of(page, search_items(info, page.items))


class ApiSchema(strawberry.Schema):
    # Whether resolvers may use the tricks in accel/ (make_schema sets it).
    speed_tricks: bool = False

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """Log nothing here: the view logs unexpected errors; client errors are not news."""


def make_schema(
    *,
    stock: bool = False,
    cost_budget: int = WebSettings.graphql_cost_budget,
    heavy_cost: int = WebSettings.graphql_heavy_cost,
) -> strawberry.Schema:
    """Build the schema; extensions are classes or factories so no state is shared.

    Documents over the depth, alias, fragment-spread or cost limits (``cost``) are refused before
    graphql-core validates them; an admitted one is charged by its cost and, from ``heavy_cost``
    on, bounded in flight (``admission``) before it runs; an operation stops at its time budget.
    The speed tricks of ``accel`` (plain-field executor, direct resolver calls, work shared by a
    field's siblings) are on unless ``stock=True``, which runs Strawberry's and graphql-core's own
    execution throughout (bar the time budget's executor, ``accel/budgets.py``)."""
    limits = DocumentLimits(cost_budget)
    schema = ApiSchema(
        query=Query,
        scalar_overrides=SCALAR_OVERRIDES,
        extensions=[
            RejectEmptySelectionSets,
            limits.extension,
            admission(heavy_cost),
            lambda: MaxTokensLimiter(max_token_count=MAX_TOKENS),
            ParserCache,
            ValidationCache,
        ],
        execution_context_class=DeadlineExecution if stock else plain_field_execution(),
    )
    limits.attach(core_schema(schema))
    if not stock:
        schema.speed_tricks = True
        install_direct_resolvers(schema)
    return schema

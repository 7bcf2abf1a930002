"""Lineage in GraphQL: Query.lineage (a strain's ancestors or descendants, as REST's
GET /strains/{slug}/lineage) and the resolvers of Strain.parents and Strain.children, pages of
strains batched per request level (one statement for every strain of the level)."""

from typing import TYPE_CHECKING, Annotated

import strawberry
from strawberry import Info

from service import bounds, lineage
from service.compounds import LINEAGE_DEPTH_MAX, LineageDirection
from service.errors import NotFound
from service.lineage import LINEAGE_DEPTH_MIN, LINEAGE_MAX_EDGES, LINEAGE_MAX_NODES, LineageRequest
from service.paging import Page as ServicePage
from service.strains import StrainRow

from . import strain_type
from .arguments import StrainSlug
from .context import Context
from .types import Page, nested_window

if TYPE_CHECKING:
    from .strain_type import Strain

strawberry.enum(LineageDirection, description="Which way a lineage is walked.")

Direction = Annotated[
    LineageDirection,
    strawberry.argument(
        description="ANCESTORS (parents, their parents...) or DESCENDANTS (children, theirs...)."
    ),
]
Depth = Annotated[
    int,
    strawberry.argument(
        description=f"Generations to walk, {LINEAGE_DEPTH_MIN} to {LINEAGE_DEPTH_MAX}."
    ),
]
StrainParentsLimit = Annotated[
    int,
    strawberry.argument(
        description=f"Parents to return, 1 to {bounds.STRAIN_PARENTS.maximum} (default "
        f"{bounds.STRAIN_PARENTS.default}); larger values are reduced to "
        f"{bounds.STRAIN_PARENTS.maximum}."
    ),
]
StrainChildrenLimit = Annotated[
    int,
    strawberry.argument(
        description=f"Children to return, 1 to {bounds.STRAIN_CHILDREN.maximum} (default "
        f"{bounds.STRAIN_CHILDREN.default}); larger values are reduced to "
        f"{bounds.STRAIN_CHILDREN.maximum}."
    ),
]


@strawberry.type(description="A strain of a lineage.")
class LineageNode:
    slug: str
    name: str
    depth: int = strawberry.field(
        description="Generations from the root, 1 to 3 (the smallest, when reached twice)."
    )


@strawberry.type(description="A parent link between two strains of a lineage, by slug.")
class LineageEdge:
    child: str
    parent: str


@strawberry.type(
    description="A strain's ancestors or descendants, as REST's GET /strains/{slug}/lineage."
)
class LineageGraph:
    root: str = strawberry.field(description="The slug asked about.")
    nodes: list[LineageNode] = strawberry.field(
        description="The strains reached, the root left out, each once at its smallest depth; "
        f"by depth, then name (any case), then slug. At most {LINEAGE_MAX_NODES}."
    )
    edges: list[LineageEdge] = strawberry.field(
        description="The parent links walked: from the root and from each node below the depth "
        "asked, to its parents (ANCESTORS) or children (DESCENDANTS); by their nearer end (the "
        f"root first, then as nodes), then their farther end. At most {LINEAGE_MAX_EDGES}."
    )
    truncated: bool = strawberry.field(
        description="true when the walk stopped at its bound: nodes holds the first ones in "
        "their order, edges the links between them."
    )

    @classmethod
    def of(cls, found: lineage.Lineage) -> "LineageGraph":
        return cls(
            root=found.root,
            nodes=[LineageNode(slug=n.slug, name=n.name, depth=n.depth) for n in found.nodes],
            edges=[LineageEdge(child=e.child, parent=e.parent) for e in found.edges],
            truncated=found.truncated,
        )


def lineage_graph(
    info: Info[Context, None],
    slug: StrainSlug,
    direction: Direction = LineageDirection.ANCESTORS,
    depth: Depth = LINEAGE_DEPTH_MIN,
) -> LineageGraph | None:
    """Query.lineage: null for an unknown strain (as Query.strain)."""
    request = LineageRequest.create(direction=direction.value, depth=depth)
    try:
        return LineageGraph.of(lineage.get_lineage(info.context.db, slug, request))
    except NotFound:
        return None


def _pages(
    info: Info[Context, None], found: dict[int, ServicePage[StrainRow]]
) -> dict[int, Page["Strain"]]:
    return {
        pk: Page.of(page, [strain_type.Strain.from_model(row, info) for row in page.items])
        for pk, page in found.items()
    }


def strain_parents(
    strain: "Strain", info: Info[Context, None], limit: int, offset: int
) -> Page["Strain"]:
    """Strain.parents of ``strain``: its page, fetched with every strain of its level's."""
    window = nested_window(limit, offset, bounds.STRAIN_PARENTS)
    ctx = info.context

    def fetch(ids: list[int]) -> dict[int, Page["Strain"]]:
        return _pages(info, lineage.parents_by_strain(ctx.db, ids, window))

    return ctx.batch.load(("parents", window), "strain", strain._pk, fetch)


def strain_children(
    strain: "Strain", info: Info[Context, None], limit: int, offset: int
) -> Page["Strain"]:
    """Strain.children of ``strain``: its page, fetched with every strain of its level's."""
    window = nested_window(limit, offset, bounds.STRAIN_CHILDREN)
    ctx = info.context

    def fetch(ids: list[int]) -> dict[int, Page["Strain"]]:
        return _pages(info, lineage.children_by_strain(ctx.db, ids, window))

    return ctx.batch.load(("children", window), "strain", strain._pk, fetch)

"""A strain's lineage: its ancestors or descendants up to LINEAGE_DEPTH_MAX generations away, and
a strain's parents and children as pages (GraphQL's Strain.parents and Strain.children).

The walk runs one statement per generation (at most three, after the root's own lookup): the
edges from that generation's new strains to their parents (or children), with the far end's
slug and name. Order, the bound on what one answer holds and how a strain met twice is shown are
documented on :func:`get_lineage` (and in docs/api.md).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from sqlalchemy import Integer, Select, bindparam, func, literal_column, select

from models import Strain, StrainParent
from models.db import AnySelect, Reader

from .compounds import LINEAGE_DEPTH_MAX, LINEAGE_DIRECTIONS, LineageDirection
from .errors import InvalidParameter
from .paging import Page, PageRequest, rows, top_per_parent
from .strains import LISTED, StrainRow, find_strain

LINEAGE_DEPTH_MIN = 1
# The most strains one answer lists besides its root, and the most links the walk reads (each
# generation reads at most what is left of it). A strain bred into hundreds of crosses would
# otherwise make its depth-3 descendants a large share of the catalogue; past either bound the
# answer is cut and says ``truncated``. GraphQL's cost analysis sizes the lists by these.
LINEAGE_MAX_NODES = 100
LINEAGE_MAX_EDGES = 3 * LINEAGE_MAX_NODES


@dataclass(frozen=True)
class LineageRequest:
    """Which way to walk and how many generations (1 to LINEAGE_DEPTH_MAX)."""

    direction: str = LineageDirection.ANCESTORS.value
    depth: int = LINEAGE_DEPTH_MIN

    @classmethod
    def create(cls, *, direction: str | None = None, depth: int | None = None) -> "LineageRequest":
        """Validate; raise InvalidParameter naming ``direction`` or ``depth``."""
        walked = LineageDirection.ANCESTORS.value
        if direction is not None:
            walked = direction.strip().lower()
            if walked not in LINEAGE_DIRECTIONS:
                raise InvalidParameter(
                    f"direction must be one of: {', '.join(LINEAGE_DIRECTIONS)}",
                    param="direction",
                )
        if depth is None:
            depth = LINEAGE_DEPTH_MIN
        if isinstance(depth, bool) or not LINEAGE_DEPTH_MIN <= depth <= LINEAGE_DEPTH_MAX:
            raise InvalidParameter(
                f"depth must be an integer from {LINEAGE_DEPTH_MIN} to {LINEAGE_DEPTH_MAX}",
                param="depth",
            )
        return cls(walked, depth)


class LineageNode(NamedTuple):
    """A strain of a lineage, ``depth`` generations from the root (its smallest, if several)."""

    slug: str
    name: str
    depth: int


class LineageEdge(NamedTuple):
    """One parent link between two strains of a lineage (the root included), by slug."""

    child: str
    parent: str


class Lineage(NamedTuple):
    root: str
    direction: str
    depth: int
    nodes: list[LineageNode]
    edges: list[LineageEdge]
    truncated: bool


class _Far(NamedTuple):
    """A row of a generation's walk: the near end's id, the far end's id, slug, name, key."""

    near: int
    far: int
    slug: str
    name: str
    sort_key: str


@lru_cache(maxsize=2)
def _generation_statement(direction: str) -> Select[int, int, str, str, str]:
    """The edges from the strains in ``:ids`` towards ``direction``, with the far end's slug,
    name and sort key, in the far ends' name order: one more than an answer holds at most.
    Ancestors read the primary key (strain_id, parent_id), descendants the (parent_id,
    strain_id) index."""
    up = direction == LineageDirection.ANCESTORS.value
    near, far = (
        (StrainParent.strain_id, StrainParent.parent_id)
        if up
        else (StrainParent.parent_id, StrainParent.strain_id)
    )
    return (
        select(near.label("near"), far.label("far"), Strain.slug, Strain.name, Strain.sort_key)
        .join(Strain, Strain.id == far)
        .where(near.in_(bindparam("ids", expanding=True)))
        .order_by(Strain.sort_key, Strain.slug, near)
        # A bound written into the SQL: PostgreSQL's plan for any values guesses that a LIMIT
        # parameter keeps a tenth of the rows, and walks every strain in name order for them.
        .limit(literal_column(str(LINEAGE_MAX_EDGES + 1), Integer))
    )


def get_lineage(db: Reader, slug: str, request: LineageRequest) -> Lineage:
    """Return the strain's ancestors or descendants to ``request.depth``; raise NotFound.

    ``nodes`` leaves the root out and lists each strain once, at its smallest depth, ordered by
    depth, then name (any case), then slug. ``edges`` are the links the walk followed: from each
    strain below the requested depth (the root is depth 0) to its parents (ancestors) or children
    (descendants), ordered by the position of the nearer end (root first, then as ``nodes``),
    then of the farther end. At most LINEAGE_MAX_NODES nodes and LINEAGE_MAX_EDGES edges: past
    either bound the walk stops, keeps the first nodes in that order (a generation's links are
    read in the order of their farther end) and the edges between the strains kept, and sets
    ``truncated``."""
    root = find_strain(db, slug)
    statement = _generation_statement(request.direction)
    depth_of: dict[int, int] = {root.id: 0}
    shown: dict[int, _Far] = {}
    walked: list[tuple[int, int]] = []  # (near id, far id) in the order read
    frontier = [root.id]
    truncated = False
    for generation in range(1, request.depth + 1):
        if not frontier:
            break
        left = LINEAGE_MAX_EDGES - len(walked)
        found = [_Far(*row) for row in rows(db, statement, {"ids": frontier})]
        if len(found) > left:
            found, truncated = found[:left], True
        frontier = []
        for edge in found:
            if edge.far not in depth_of:
                if len(shown) == LINEAGE_MAX_NODES:
                    truncated = True
                    continue
                depth_of[edge.far] = generation
                shown[edge.far] = edge
                frontier.append(edge.far)
            walked.append((edge.near, edge.far))
        if truncated:
            break
    return _lineage(root, request, depth_of, shown, walked, truncated)


def _lineage(
    root: StrainRow,
    request: LineageRequest,
    depth_of: dict[int, int],
    shown: dict[int, _Far],
    walked: list[tuple[int, int]],
    truncated: bool,
) -> Lineage:
    """The answer from a walk's findings, in the documented orders."""
    ordered = sorted(shown, key=lambda pk: (depth_of[pk], shown[pk].sort_key, shown[pk].slug))
    position = {pk: index for index, pk in enumerate(ordered)}
    position[root.id] = -1
    slug_of = {pk: shown[pk].slug for pk in ordered}
    slug_of[root.id] = root.slug
    kept = sorted(
        ((near, far) for near, far in walked if far in position),
        key=lambda pair: (position[pair[0]], position[pair[1]]),
    )
    up = request.direction == LineageDirection.ANCESTORS.value
    edges = [
        LineageEdge(slug_of[near], slug_of[far]) if up else LineageEdge(slug_of[far], slug_of[near])
        for near, far in kept
    ]
    nodes = [LineageNode(shown[pk].slug, shown[pk].name, depth_of[pk]) for pk in ordered]
    return Lineage(root.slug, request.direction, request.depth, nodes, edges, truncated)


@lru_cache(maxsize=2)
def _related_statement(direction: str) -> AnySelect:
    """``:limit`` parents (or children) of each strain in ``:ids`` after its first ``:offset``,
    as the near end's id, the far end's listed columns and how many the near end has in all:
    parents in their recorded order (position), children by name then slug. A row number per
    strain does the window (service.paging.top_per_parent): one statement for every strain."""
    up = direction == LineageDirection.ANCESTORS.value
    near, far = (
        (StrainParent.strain_id, StrainParent.parent_id)
        if up
        else (StrainParent.parent_id, StrainParent.strain_id)
    )
    order = (StrainParent.position, far) if up else (Strain.sort_key, Strain.slug)
    total = func.count().over(partition_by=near).label("total")
    stmt = (
        select(near, *LISTED, total)
        .join_from(StrainParent, Strain, Strain.id == far)
        .where(near.in_(bindparam("ids", expanding=True)))
    )
    return top_per_parent(
        stmt,
        near,
        order,
        bindparam("limit", type_=Integer),
        offset=bindparam("offset", type_=Integer),
    )


@lru_cache(maxsize=2)
def _counts_statement(direction: str) -> Select[int, int]:
    """How many parents (or children) each strain in ``:ids`` has (those with any)."""
    near = (
        StrainParent.strain_id
        if direction == LineageDirection.ANCESTORS.value
        else StrainParent.parent_id
    )
    return (
        select(near, func.count()).where(near.in_(bindparam("ids", expanding=True))).group_by(near)
    )


def _related(
    db: Reader, ids: Iterable[int], direction: str, window: PageRequest
) -> dict[int, Page[StrainRow]]:
    found: dict[int, list[StrainRow]] = {id_: [] for id_ in ids}
    if not found:
        return {}
    params = {"ids": list(found), "limit": window.limit, "offset": window.offset}
    totals: dict[int, int] = {}
    for row in rows(db, _related_statement(direction), params):
        # The near end's id, the far end's listed columns, the near end's total.
        found[row[0]].append(StrainRow(*row[1:-1]))
        totals[row[0]] = row[-1]
    # A strain with nothing in its window has none at all, or fewer than the offset: counted.
    unknown = [pk for pk, items in found.items() if not items and window.offset > 0]
    if unknown:
        totals.update(rows(db, _counts_statement(direction), {"ids": unknown}))
    return {
        pk: Page(items, totals.get(pk, 0), window.limit, window.offset)
        for pk, items in found.items()
    }


def parents_by_strain(
    db: Reader, ids: Iterable[int], window: PageRequest
) -> dict[int, Page[StrainRow]]:
    """Return each strain's page of parents (first parent first) with their total, keyed by
    strain id (all ids present): one statement for all of them (two when a window starts past
    some strain's last parent)."""
    return _related(db, ids, LineageDirection.ANCESTORS.value, window)


def children_by_strain(
    db: Reader, ids: Iterable[int], window: PageRequest
) -> dict[int, Page[StrainRow]]:
    """Return each strain's page of children by name (any case) then slug with their total,
    keyed by strain id (all ids present): one statement for all of them (two when a window
    starts past some strain's last child)."""
    return _related(db, ids, LineageDirection.DESCENDANTS.value, window)

"""How many items each list returns: one row per list both edges serve (SPEC 8.2).

REST's argument schemas and the OpenAPI document they publish, GraphQL's argument defaults, its
clamping and its cost estimate all read these rows; no edge chooses a page size itself.
tests/unit/test_bounds.py fails when either edge serves a list that has no row here.
"""

from dataclasses import dataclass

from .compounds import MAX_PARENTS

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
DOCTORS_MAX_LIMIT = 50
MAX_OFFSET = 1_000_000


@dataclass(frozen=True)
class ListBound:
    """The size of one list: ``default`` items when no limit is given, at most ``maximum``
    (a larger limit is reduced to it). ``owner`` is the record a nested list belongs to
    (``Dispensary`` for its menu), None for a list operation of its own (``strains``)."""

    owner: str | None
    name: str
    default: int
    maximum: int


# List operations: GET /api/v1/<name> and GraphQL's Query.<name>.
STRAINS = ListBound(None, "strains", DEFAULT_LIMIT, MAX_LIMIT)
DISPENSARIES = ListBound(None, "dispensaries", DEFAULT_LIMIT, MAX_LIMIT)
DEALS = ListBound(None, "deals", DEFAULT_LIMIT, MAX_LIMIT)
DOCTORS = ListBound(None, "doctors", DEFAULT_LIMIT, DOCTORS_MAX_LIMIT)
SEARCH = ListBound(None, "search", DEFAULT_LIMIT, MAX_LIMIT)
# The change feed pages by cursor (no offset), in long pages: a copy catches up in few requests.
CHANGES = ListBound(None, "changes", 100, 1_000)

# Lists inside one record: GraphQL's <Owner>.<name>; REST's dispensary detail shows the menu
# and the reviews at their defaults. No demo menu is longer than 100 items: the cap keeps an
# imported menu from bloating a response.
DISPENSARY_DEALS = ListBound("Dispensary", "deals", DEFAULT_LIMIT, MAX_LIMIT)
DISPENSARY_MENU = ListBound("Dispensary", "menu", 100, 100)
DISPENSARY_REVIEWS = ListBound("Dispensary", "reviews", 20, 20)
STRAIN_DISPENSARIES = ListBound("Strain", "dispensaries", DEFAULT_LIMIT, MAX_LIMIT)
# A strain's parents (a cross has two; a few more are imported at most) and its children (a
# popular parent has many: paged like any list). Nested in each other, their limits multiply in
# GraphQL's cost estimate, which refuses deep nestings.
STRAIN_PARENTS = ListBound("Strain", "parents", MAX_PARENTS, MAX_PARENTS)
STRAIN_CHILDREN = ListBound("Strain", "children", DEFAULT_LIMIT, MAX_LIMIT)

LISTS: tuple[ListBound, ...] = (
    STRAINS,
    DISPENSARIES,
    DEALS,
    DOCTORS,
    SEARCH,
    CHANGES,
    DISPENSARY_DEALS,
    DISPENSARY_MENU,
    DISPENSARY_REVIEWS,
    STRAIN_DISPENSARIES,
    STRAIN_PARENTS,
    STRAIN_CHILDREN,
)

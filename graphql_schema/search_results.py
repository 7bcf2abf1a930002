"""Search hits as GraphQL types: the union of what a search finds, built from list rows."""

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any

import strawberry
from strawberry import Info

from service import deals, strains
from service.dispensary_rows import dispensary_rows_by_public_ids
from service.doctors import doctor_rows_by_public_ids
from service.search import SearchHit

from .context import Context
from .deal_type import Deal
from .dispensary_type import Dispensary
from .strain_type import Strain
from .types import Doctor

SearchResult = Annotated[
    Strain | Dispensary | Doctor | Deal,
    strawberry.union("SearchResult", description="A strain, dispensary, doctor or deal."),
]


def search_items(info: Info[Context, None], hits: Sequence[SearchHit]) -> list[SearchResult]:
    """The page's hits as GraphQL objects, in the page's order."""
    ctx = info.context
    by_kind: dict[str, list[str]] = {}
    for hit in hits:
        by_kind.setdefault(hit.type, []).append(hit.key)
    # Only the kinds on the page are fetched, each in one statement of its listed columns (the
    # rows the list queries give; no ORM objects, no session).
    fetch: dict[str, Callable[[list[str]], Mapping[str, Any]]] = {
        "strain": lambda keys: strains.strains_by_slugs(ctx.db, keys),
        "dispensary": lambda keys: dispensary_rows_by_public_ids(ctx.db, keys),
        "doctor": lambda keys: doctor_rows_by_public_ids(ctx.db, keys),
        "deal": lambda keys: deals.deal_rows_by_public_ids(ctx.db, keys),
    }
    found = {kind: fetch[kind](keys) for kind, keys in by_kind.items()}
    build: dict[str, Callable[[Any, Info[Context, None]], SearchResult]] = {
        "strain": Strain.from_model,
        "dispensary": Dispensary.from_model,
        "doctor": Doctor.from_model,
        "deal": Deal.from_model,
    }
    return [build[hit.type](found[hit.type][hit.key], info) for hit in hits]

"""Argument types with their descriptions, so the SDL and GraphiQL's explorer document each one.

The words match REST's parameter descriptions (rest/args.py) in meaning; every bound comes from
service.bounds, service.filters or service.vocab. tests/graphql/test_arguments.py fails when an
argument of any field has no description.
"""

from typing import Annotated

import strawberry

from service import bounds
from service.bounds import MAX_OFFSET, ListBound
from service.filters import (
    DEFAULT_RADIUS_MILES,
    MAX_CBD,
    MAX_RADIUS_MILES,
    MAX_THC,
    SEARCH_MAX_LENGTH,
    SEARCH_MIN_LENGTH,
    WORD_MAX_LENGTH,
)
from service.vocab import DealCategory

from .enums import DispensaryType, SearchType, StrainType


def _described(description: str) -> object:
    return strawberry.argument(description=description)


def _page_limit(bound: ListBound) -> object:
    top = bound.maximum
    return _described(
        f"Results per page, 1 to {top} (default {bound.default}); larger values are reduced "
        f"to {top} and the page's limit shows the limit in effect."
    )


def _nested_limit(bound: ListBound, things: str) -> object:
    top = bound.maximum
    return _described(
        f"{things} to return, 1 to {top} (default {bound.default}); larger values are reduced "
        f"to {top}."
    )


def _listed(names: list[str]) -> str:
    return f"{', '.join(names[:-1])} or {names[-1]}"


def _word(example: str) -> object:
    return _described(
        f"A word such as {example} (any case): a letter, then letters, digits, spaces or "
        f"hyphens; at most {WORD_MAX_LENGTH} characters. An unknown word matches nothing."
    )


_STATE = "Two-letter code of a US state, DC or territory (any case)."
_CITY = (
    "City name (any case): 1 to 80 printable characters once runs of whitespace are collapsed "
    "to one space."
)

# Page windows of the list operations (Query fields).
StrainsLimit = Annotated[int, _page_limit(bounds.STRAINS)]
DispensariesLimit = Annotated[int, _page_limit(bounds.DISPENSARIES)]
DealsLimit = Annotated[int, _page_limit(bounds.DEALS)]
DoctorsLimit = Annotated[int, _page_limit(bounds.DOCTORS)]
SearchLimit = Annotated[int, _page_limit(bounds.SEARCH)]
Offset = Annotated[int, _described(f"Results to skip, 0 to {MAX_OFFSET}.")]

# Windows of the lists inside one record: each parent's list is paged on its own.
DispensaryDealsLimit = Annotated[int, _nested_limit(bounds.DISPENSARY_DEALS, "Deals")]
DispensaryMenuLimit = Annotated[int, _nested_limit(bounds.DISPENSARY_MENU, "Menu items")]
DispensaryReviewsLimit = Annotated[int, _nested_limit(bounds.DISPENSARY_REVIEWS, "Reviews")]
StrainDispensariesLimit = Annotated[int, _nested_limit(bounds.STRAIN_DISPENSARIES, "Dispensaries")]
NestedOffset = Annotated[
    int,
    _described(
        f"Items of this list to skip, 0 to {MAX_OFFSET}: with limit, pages through the list of "
        "each parent."
    ),
]

# Filters.
State = Annotated[str | None, _described(_STATE)]
City = Annotated[str | None, _described(_CITY)]
StrainTypeFilter = Annotated[
    StrainType | None,
    _described(f"Only strains of this type: {_listed([t.name for t in StrainType])}."),
]
Effect = Annotated[str | None, _word("relaxed")]
Flavor = Annotated[str | None, _word("earthy")]
ThcMin = Annotated[float | None, _described(f"Minimum THC percentage, from 0 to {MAX_THC:g}.")]
ThcMax = Annotated[
    float | None,
    _described(f"Maximum THC percentage, not below thcMin, from 0 to {MAX_THC:g}."),
]
CbdMin = Annotated[float | None, _described(f"Minimum CBD percentage, from 0 to {MAX_CBD:g}.")]
CbdMax = Annotated[
    float | None,
    _described(f"Maximum CBD percentage, not below cbdMin, from 0 to {MAX_CBD:g}."),
]
Zip = Annotated[
    str | None,
    _described("A known five-digit US ZIP code: nearest dispensaries first, with distance."),
]
Radius = Annotated[
    float | None,
    _described(
        f"Miles from zip, greater than 0 and at most {MAX_RADIUS_MILES:g} (default "
        f"{DEFAULT_RADIUS_MILES:g}); only with zip."
    ),
]
DispensaryTypeFilter = Annotated[
    DispensaryType | None,
    _described(
        f"Only dispensaries with this licence: {_listed([t.name for t in DispensaryType])}."
    ),
]
Delivery = Annotated[
    bool | None,
    _described("true: only dispensaries that deliver; false: only those that do not."),
]
Telehealth = Annotated[
    bool | None,
    _described("true: only doctors offering telehealth; false: only those that do not."),
]
Category = Annotated[
    str | None,
    _described(
        f"Only deals of this category: {_listed([c.value for c in DealCategory])} (any case)."
    ),
]
SearchText = Annotated[
    str,
    _described(
        f"Text to find: {SEARCH_MIN_LENGTH} to {SEARCH_MAX_LENGTH} characters once leading and "
        "trailing whitespace is trimmed; no NUL."
    ),
]
SearchTypeFilter = Annotated[
    SearchType | None,
    _described(f"Only results of this kind: {_listed([t.name for t in SearchType])}."),
]

# Keys of the single-record fields.
StrainSlug = Annotated[str, _described("The strain's slug, such as blue-dream.")]
DispensaryId = Annotated[str, _described("The dispensary's id, disp_<n>.")]
DoctorId = Annotated[str, _described("The doctor's id, doc_<n>.")]
DealId = Annotated[str, _described("The deal's id, deal_<n>; an expired deal is not found.")]
LawState = Annotated[str, _described(_STATE)]
StrainDispensariesState = Annotated[
    str | None,
    _described(
        "Only dispensaries in this state: two-letter code of a US state, DC or territory "
        "(any case)."
    ),
]

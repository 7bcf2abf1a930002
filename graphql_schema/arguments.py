"""Argument types with their descriptions, so the SDL and GraphiQL's explorer document each one.

The words match REST's parameter descriptions (rest/parameters.py) in meaning; every bound
comes from service.bounds, service.filters or service.vocab. tests/graphql/test_arguments.py
fails when an argument of any field has no description.
"""

from datetime import datetime
from typing import Annotated

import strawberry

from service import bounds
from service.bounds import MAX_OFFSET, ListBound
from service.filters import (
    MAX_CANNABINOID,
    MAX_CBD,
    MAX_THC,
    MAX_TOTAL_THC,
    MAX_VALUES,
    SEARCH_MAX_LENGTH,
    SEARCH_MIN_LENGTH,
    WORD_MAX_LENGTH,
)
from service.nodes import MAX_NODE_IDS
from service.places import DEFAULT_RADIUS_MILES, LAT_EXAMPLE, LNG_EXAMPLE, MAX_RADIUS_MILES
from service.vocab import DealCategory
from service.when import FIRST_YEAR, LAST_YEAR, OPEN_AT_EXAMPLE, SINCE_EXAMPLE

from .enums import (
    DealSort,
    DispensaryType,
    LawSort,
    PlaceSort,
    Ratio,
    SearchType,
    StrainSort,
    StrainType,
    TerpeneKey,
)


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


def _any_of(several: str, singular: str) -> object:
    """A plural argument: several values of its singular's filter, any of which matches."""
    return _described(
        f"Several {several}, any of which matches (at most {MAX_VALUES}); not with {singular}."
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
States = Annotated[
    list[str] | None,
    _any_of("two-letter codes of US states, DC or territories (any case)", "state"),
]
StrainTypeFilter = Annotated[
    StrainType | None,
    _described(f"Only strains of this type: {_listed([t.name for t in StrainType])}."),
]
StrainTypes = Annotated[
    list[StrainType] | None,
    _any_of(f"strain types ({_listed([t.name for t in StrainType])})", "type"),
]
Effect = Annotated[str | None, _word("relaxed")]
Effects = Annotated[
    list[str] | None, _any_of("words such as relaxed, each as effect takes it", "effect")
]
Flavor = Annotated[str | None, _word("earthy")]
Flavors = Annotated[
    list[str] | None, _any_of("words such as earthy, each as flavor takes it", "flavor")
]
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
_TERPENES = _listed([t.name for t in TerpeneKey])
_RATIOS = _listed([r.name for r in Ratio])
Terpene = Annotated[
    TerpeneKey | None,
    _described(f"Only strains with this terpene among their three leading ones: {_TERPENES}."),
]
Terpenes = Annotated[
    list[TerpeneKey] | None,
    _any_of("terpenes, each as terpene takes it", "terpene"),
]
DominantTerpene = Annotated[
    TerpeneKey | None,
    _described(f"Only strains whose dominant terpene is this one: {_TERPENES}."),
]
DominantTerpenes = Annotated[
    list[TerpeneKey] | None,
    _any_of("terpenes, each as dominantTerpene takes it", "dominantTerpene"),
]
RatioFilter = Annotated[
    Ratio | None,
    _described(
        f"Only strains with this ratio of total THC to total CBD (on the medians): {_RATIOS}."
    ),
]
Ratios = Annotated[list[Ratio] | None, _any_of(f"ratios ({_RATIOS})", "ratio")]


def _median_minimum(compound: str) -> object:
    return _described(
        f"Minimum median {compound} percentage, from 0 to {MAX_CANNABINOID:g}; a strain "
        "without chemistry never matches."
    )


CbgMin = Annotated[float | None, _median_minimum("CBG")]
CbnMin = Annotated[float | None, _median_minimum("CBN")]
ThcvMin = Annotated[float | None, _median_minimum("THCV")]
CbcMin = Annotated[float | None, _median_minimum("CBC")]
Parent = Annotated[
    str | None,
    _described(
        "Only the children of this strain (strains bred from it): its slug such as blue-dream "
        "(any case). An unknown slug matches nothing."
    ),
]


@strawberry.input(description="A point to search around: nearest first, with distance.")
class NearInput:
    lat: float = strawberry.field(
        description=f"Latitude in WGS84 decimal degrees, -90 to 90 (e.g. {LAT_EXAMPLE})."
    )
    lng: float = strawberry.field(
        description=f"Longitude in WGS84 decimal degrees, -180 to 180 (e.g. {LNG_EXAMPLE})."
    )
    radius: float | None = strawberry.field(
        default=None,
        description=f"Miles from the point, greater than 0 and at most {MAX_RADIUS_MILES:g} "
        f"(default {DEFAULT_RADIUS_MILES:g}).",
    )


@strawberry.input(
    description="A map viewport in WGS84 decimal degrees: west <= east (never across the "
    "antimeridian), south <= north."
)
class BBoxInput:
    west: float = strawberry.field(description="Western edge: a longitude, -180 to 180.")
    south: float = strawberry.field(description="Southern edge: a latitude, -90 to 90.")
    east: float = strawberry.field(description="Eastern edge: a longitude, -180 to 180.")
    north: float = strawberry.field(description="Northern edge: a latitude, -90 to 90.")


_ONE_PLACE = "At most one of zip, near and bbox."
Zip = Annotated[
    str | None,
    _described(f"A known five-digit US ZIP code: nearest first, with distance. {_ONE_PLACE}"),
]
Radius = Annotated[
    float | None,
    _described(
        f"Miles from zip, greater than 0 and at most {MAX_RADIUS_MILES:g} (default "
        f"{DEFAULT_RADIUS_MILES:g}); only with zip (around near, give near.radius)."
    ),
]
NearPoint = Annotated[
    NearInput | None,
    _described(f"A point (lat, lng and a radius): nearest first, with distance. {_ONE_PLACE}"),
]
MapBox = Annotated[
    BBoxInput | None,
    _described(
        "A map viewport: only what lies inside, edges included. A box crossing the "
        f"antimeridian (west greater than east) is refused: ask for its two halves. {_ONE_PLACE}"
    ),
]
OpenNow = Annotated[
    bool | None,
    _described(
        "true: only those open now in their own time zone; false: all of them, each still "
        "showing isOpen and nextChange. The answer describes the current minute. Not with "
        "openAt."
    ),
]
OpenAt = Annotated[
    datetime | None,
    _described(
        "Only those open at this instant: ISO 8601 date and time with a UTC offset (e.g. "
        f"{OPEN_AT_EXAMPLE}, or Z), years {FIRST_YEAR} to {LAST_YEAR}; each item shows isOpen "
        "and nextChange at that instant. Not with openNow."
    ),
]
_PLACE_ORDERS = [s.name for s in PlaceSort if s is not PlaceSort.PRICE_PER_GRAM]
PlaceOrder = Annotated[
    PlaceSort | None,
    _described(
        f"Order of the list: {_listed(_PLACE_ORDERS)}. Default NAME, or DISTANCE (which needs "
        "zip or near) around a point."
    ),
]
StockistOrder = Annotated[
    PlaceSort | None,
    _described(
        f"Order of the list: {_listed([s.name for s in PlaceSort])}. Default NAME, or DISTANCE "
        "(which needs zip or near) around a point. PRICE_PER_GRAM: cheapest per gram of the "
        "strain's menu item first (ties by name, then id), those without one last."
    ),
]
TotalThcMin = Annotated[
    float | None,
    _described(
        f"Only dispensaries whose menu item of the strain has a lab batch with a total THC of at "
        f"least this, from 0 to {MAX_TOTAL_THC:g} (an item without a batch never matches)."
    ),
]
DealOrder = Annotated[
    DealSort | None,
    _described(
        f"Order of the list: {_listed([s.name for s in DealSort])}. Default EXPIRES, or "
        "DISTANCE (which needs zip or near) around a point."
    ),
]
StrainOrder = Annotated[
    StrainSort | None,
    _described(f"Order of the list: {_listed([s.name for s in StrainSort])}. Default NAME."),
]
LawOrder = Annotated[
    LawSort | None,
    _described(f"Order of the list: {_listed([s.name for s in LawSort])}. Default STATE_CODE."),
]
UpdatedSince = Annotated[
    datetime | None,
    _described(
        "Only those whose updatedAt is at or after this instant (inclusive): a date and time "
        f"with a UTC offset or Z (e.g. {SINCE_EXAMPLE}), not in the future. Combines with every "
        "other argument."
    ),
]
DispensaryTypeFilter = Annotated[
    DispensaryType | None,
    _described(
        f"Only dispensaries with this licence: {_listed([t.name for t in DispensaryType])}."
    ),
]
DispensaryTypes = Annotated[
    list[DispensaryType] | None,
    _any_of(f"licences ({_listed([t.name for t in DispensaryType])})", "type"),
]
Delivery = Annotated[
    bool | None,
    _described("true: only dispensaries that deliver; false: only those that do not."),
]
Telehealth = Annotated[
    bool | None,
    _described("true: only doctors offering telehealth; false: only those that do not."),
]
_CATEGORIES = _listed([c.value for c in DealCategory])
Category = Annotated[
    str | None,
    _described(f"Only deals of this category: {_CATEGORIES} (any case)."),
]
Categories = Annotated[
    list[str] | None,
    _any_of(f"deal categories ({_CATEGORIES}; any case)", "category"),
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
_NODE_ID = (
    "a strain's slug, disp_<n>, deal_<n>, doc_<n> or a law's state code (upper case), as the "
    "record's id field gives it"
)
NodeId = Annotated[strawberry.ID, _described(f"The record's id: {_NODE_ID}.")]
NodeIds = Annotated[
    list[strawberry.ID],
    _described(
        f"Records' ids, at most {MAX_NODE_IDS}: each {_NODE_ID}. The answer has one entry per "
        "id, in this order (null for an unknown id)."
    ),
]
StrainDispensariesState = Annotated[
    str | None,
    _described(
        "Only dispensaries in this state: two-letter code of a US state, DC or territory "
        "(any case)."
    ),
]

"""GraphQL enums: service.vocab's Enum classes, registered with Strawberry as they are, and the
orders a list takes (values: service.filters' STOCKIST_SORTS (PLACE_SORTS and the order only a
strain's dispensaries take), DEAL_SORTS, STRAIN_SORTS and LAW_SORTS).

Member names, values and order are the service's; only the descriptions are GraphQL's.
"""

from enum import Enum

import strawberry

from service.compounds import Basis, CompoundKey, CompoundKind, Origin, Ratio, TerpeneKey
from service.vocab import DispensaryType, SearchType, StrainType

__all__ = [
    "Basis",
    "CompoundKey",
    "CompoundKind",
    "DealSort",
    "DispensaryType",
    "LawSort",
    "Origin",
    "PlaceSort",
    "Ratio",
    "SearchType",
    "StrainSort",
    "StrainType",
    "TerpeneKey",
]

strawberry.enum(StrainType, description="Strain type.")
strawberry.enum(DispensaryType, description="Dispensary license type.")
strawberry.enum(SearchType, description="Kind of result a search is restricted to.")
# The chemistry vocabulary (service.compounds).
strawberry.enum(
    CompoundKey, description="A compound the service knows (Query.compounds lists them)."
)
strawberry.enum(TerpeneKey, name="Terpene", description="A terpene the service knows.")
strawberry.enum(CompoundKind, description="What a compound is.")
strawberry.enum(
    Ratio,
    description="How total THC compares with total CBD, on the medians: one is dominant when "
    "it is at least twice the other, else balanced.",
)
strawberry.enum(Origin, description="Where a strain comes from.")
strawberry.enum(
    Basis,
    name="ChemistryBasis",
    description="What a chemistry describes: typical = the spread over many samples of the strain.",
)


_UPDATED_AT = "Oldest change (updatedAt) first; ties go to the id."
_UPDATED_AT_DESC = "Newest change (updatedAt) first; ties go to the id, descending."


@strawberry.enum(
    description="Order of a list of places; ties go to the name, then the id (stable pages)."
)
class PlaceSort(Enum):
    NAME = "name"
    DISTANCE = strawberry.enum_value("distance", description="Nearest first: needs zip or near.")
    RATING = strawberry.enum_value("rating", description="Lowest rating first.")
    RATING_DESC = strawberry.enum_value("-rating", description="Highest rating first.")
    UPDATED_AT = strawberry.enum_value("updated_at", description=_UPDATED_AT)
    UPDATED_AT_DESC = strawberry.enum_value("-updated_at", description=_UPDATED_AT_DESC)
    PRICE_PER_GRAM = strawberry.enum_value(
        "price_per_gram",
        description="Cheapest per gram of the strain's menu item first, those without a price "
        "per gram last: only Strain.dispensaries (other lists refuse it).",
    )


@strawberry.enum(description="Order of a list of deals; ties go to the expiry, then the id.")
class DealSort(Enum):
    EXPIRES = strawberry.enum_value("expires", description="Soonest expiry first.")
    DISTANCE = strawberry.enum_value("distance", description="Nearest first: needs zip or near.")
    UPDATED_AT = strawberry.enum_value("updated_at", description=_UPDATED_AT)
    UPDATED_AT_DESC = strawberry.enum_value("-updated_at", description=_UPDATED_AT_DESC)


@strawberry.enum(description="Order of the strains.")
class StrainSort(Enum):
    NAME = strawberry.enum_value("name", description="By name (any case), then id.")
    UPDATED_AT = strawberry.enum_value("updated_at", description=_UPDATED_AT)
    UPDATED_AT_DESC = strawberry.enum_value("-updated_at", description=_UPDATED_AT_DESC)


@strawberry.enum(description="Order of the law records.")
class LawSort(Enum):
    STATE_CODE = strawberry.enum_value("state_code", description="By state code.")
    UPDATED_AT = strawberry.enum_value(
        "updated_at", description="Oldest change (updatedAt) first; ties go to the state code."
    )
    UPDATED_AT_DESC = strawberry.enum_value(
        "-updated_at",
        description="Newest change (updatedAt) first; ties go to the state code, descending.",
    )

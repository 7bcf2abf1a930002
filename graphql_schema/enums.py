"""GraphQL enums: service.vocab's Enum classes, registered with Strawberry as they are, and the
orders a list takes (values: service.filters' PLACE_SORTS and DEAL_SORTS).

Member names, values and order are the service's; only the descriptions are GraphQL's.
"""

from enum import Enum

import strawberry

from service.vocab import DispensaryType, SearchType, StrainType

__all__ = ["DealSort", "DispensaryType", "PlaceSort", "SearchType", "StrainType"]

strawberry.enum(StrainType, description="Strain type.")
strawberry.enum(DispensaryType, description="Dispensary license type.")
strawberry.enum(SearchType, description="Kind of result a search is restricted to.")


@strawberry.enum(
    description="Order of a list of places; ties go to the name, then the id (stable pages)."
)
class PlaceSort(Enum):
    NAME = "name"
    DISTANCE = strawberry.enum_value("distance", description="Nearest first: needs zip or near.")
    RATING = strawberry.enum_value("rating", description="Lowest rating first.")
    RATING_DESC = strawberry.enum_value("-rating", description="Highest rating first.")


@strawberry.enum(description="Order of a list of deals; ties go to the expiry, then the id.")
class DealSort(Enum):
    EXPIRES = strawberry.enum_value("expires", description="Soonest expiry first.")
    DISTANCE = strawberry.enum_value("distance", description="Nearest first: needs zip or near.")

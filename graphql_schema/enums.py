"""GraphQL enums: service.vocab's Enum classes, registered with Strawberry as they are.

Member names, values and order are the service's; only the descriptions are GraphQL's.
"""

import strawberry

from service.vocab import DispensaryType, SearchType, StrainType

__all__ = ["DispensaryType", "SearchType", "StrainType"]

strawberry.enum(StrainType, description="Strain type.")
strawberry.enum(DispensaryType, description="Dispensary license type.")
strawberry.enum(SearchType, description="Kind of result a search is restricted to.")

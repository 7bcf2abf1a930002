"""GraphQL enums; their values are the lower-case words the service uses."""

from enum import Enum

import strawberry


@strawberry.enum(description="Strain type.")
class StrainType(Enum):
    INDICA = "indica"
    SATIVA = "sativa"
    HYBRID = "hybrid"


@strawberry.enum(description="Dispensary license type.")
class DispensaryType(Enum):
    RECREATIONAL = "recreational"
    MEDICAL = "medical"
    BOTH = "both"


@strawberry.enum(description="Kind of result a search is restricted to.")
class SearchType(Enum):
    STRAINS = "strains"
    DISPENSARIES = "dispensaries"
    DOCTORS = "doctors"
    DEALS = "deals"

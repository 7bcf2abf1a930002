"""Every fixed vocabulary of the service, defined once: the words a field or parameter may take.

The filters validate against these words, REST publishes them (argument patterns, output
enums), GraphQL builds its enums from the Enum classes, and import validation checks records
with them. The models' CHECK constraints repeat the stored ones in SQL, since ``models`` sits
below ``service``; tests/unit/test_vocab.py keeps the two equal.
"""

from enum import Enum


class StrainType(Enum):
    """How a strain is classed."""

    INDICA = "indica"
    SATIVA = "sativa"
    HYBRID = "hybrid"


class DispensaryType(Enum):
    """The licence a dispensary holds."""

    RECREATIONAL = "recreational"
    MEDICAL = "medical"
    BOTH = "both"


class DealCategory(Enum):
    """What a deal or a menu item sells."""

    FLOWER = "flower"
    EDIBLES = "edibles"
    CONCENTRATES = "concentrates"
    VAPES = "vapes"
    PRE_ROLLS = "pre-rolls"
    TOPICALS = "topicals"
    TINCTURES = "tinctures"


class SearchType(Enum):
    """The kinds of result a search may be restricted to (its ``type`` parameter)."""

    STRAINS = "strains"
    DISPENSARIES = "dispensaries"
    DOCTORS = "doctors"
    DEALS = "deals"


class SearchHitType(Enum):
    """The kind of one search result, in the order of SearchType."""

    STRAIN = "strain"
    DISPENSARY = "dispensary"
    DOCTOR = "doctor"
    DEAL = "deal"


class KeyTier(Enum):
    """An API key's tier, which sets its hourly quota (SPEC 8.1)."""

    FREE = "free"
    PRO = "pro"
    ENTERPRISE = "enterprise"


class ChangeType(Enum):
    """The kind of object a change in the change feed is about (models.Change.kind)."""

    STRAIN = "strain"
    DISPENSARY = "dispensary"
    DEAL = "deal"
    DOCTOR = "doctor"
    LAW = "law"


class ChangeOp(Enum):
    """What a change did: the object now exists as served (upsert) or is gone (delete)."""

    UPSERT = "upsert"
    DELETE = "delete"


class Weekday(Enum):
    """The keys of a dispensary's opening hours, Monday first."""

    MON = "mon"
    TUE = "tue"
    WED = "wed"
    THU = "thu"
    FRI = "fri"
    SAT = "sat"
    SUN = "sun"


def words(vocabulary: type[Enum]) -> tuple[str, ...]:
    """The words of ``vocabulary``, in its order."""
    return tuple(member.value for member in vocabulary)


STRAIN_TYPES = words(StrainType)
DISPENSARY_TYPES = words(DispensaryType)
DEAL_CATEGORIES = words(DealCategory)
SEARCH_TYPES = words(SearchType)
SEARCH_HIT_TYPES = words(SearchHitType)
KEY_TIERS = words(KeyTier)
WEEKDAYS = words(Weekday)
CHANGE_TYPES = words(ChangeType)
CHANGE_OPS = words(ChangeOp)

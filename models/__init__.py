"""SQLAlchemy 2 domain models: tables, relationships, constraints and indexes.

May import sqlalchemy and the standard library only; nothing of ours and no web framework.
"""

# Registers the search structures' DDL on Base.metadata (create_all builds them too).
from . import dialect  # noqa: F401
from .api_key import ApiKey
from .base import Base
from .dataset import DatasetInfo
from .deal import Deal
from .dispensary import Dispensary, MenuItem, Review
from .doctor import Doctor
from .law import Law
from .search import SearchEntry, SearchPair
from .strain import Strain, StrainEffect, StrainFlavor, StrainTerpene

__all__ = [
    "ApiKey",
    "Base",
    "DatasetInfo",
    "Deal",
    "Dispensary",
    "Doctor",
    "Law",
    "MenuItem",
    "Review",
    "SearchEntry",
    "SearchPair",
    "Strain",
    "StrainEffect",
    "StrainFlavor",
    "StrainTerpene",
]

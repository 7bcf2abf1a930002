"""SQLAlchemy 2 domain models: tables, relationships, constraints and indexes.

One module per table family, plus db (engines, sessions), expressions (SQL that differs per
database), loading (bulk loads), search/ (name-search entries and their index) and accel/ (speed
tricks on private APIs, off with ``make_engine(accel=False)``). Importing it registers the search
DDL for ``create_all``. Imports sqlalchemy, orjson, psycopg and the stdlib only, nothing of ours.
"""

from .api_key import ApiKey
from .base import Base
from .change import Change, FeedState
from .dataset import DatasetInfo
from .deal import Deal
from .dispensary import (
    Dispensary,
    DispensaryOpenSpan,
    DispensaryTimeZone,
    MenuItem,
    Review,
)
from .doctor import Doctor
from .law import Law
from .search import SearchEntry, SearchPair
from .strain import Strain, StrainEffect, StrainFlavor, StrainParent, StrainTerpene

__all__ = [
    "ApiKey",
    "Base",
    "Change",
    "DatasetInfo",
    "Deal",
    "Dispensary",
    "DispensaryOpenSpan",
    "DispensaryTimeZone",
    "Doctor",
    "FeedState",
    "Law",
    "MenuItem",
    "Review",
    "SearchEntry",
    "SearchPair",
    "Strain",
    "StrainEffect",
    "StrainFlavor",
    "StrainParent",
    "StrainTerpene",
]

"""Name search: the entries table, its index on each database, and the SQL that reads it.

entries (the tables), trigrams (pg_trgm's similarity in Python), structures (the FTS5 tables and
trigram index, and their DDL), rebuild (refilled after every load), queries (per-database SQL).
"""

from . import structures  # noqa: F401 (registers the search DDL on Base.metadata)
from .entries import (
    WORD_SEPARATORS,
    SearchEntry,
    SearchPair,
    pair_rank,
    pairs,
    pieces,
    spaced_words,
    words_text,
)

__all__ = [
    "WORD_SEPARATORS",
    "SearchEntry",
    "SearchPair",
    "pair_rank",
    "pairs",
    "pieces",
    "spaced_words",
    "words_text",
]

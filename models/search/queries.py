"""The search SQL of each database: substring candidates, fuzzy matches and the page total.

The expressions read named bind parameters, so a statement built once per shape runs for any
query text; their values come from ``substring_params`` and ``similar_params``.
"""

import math
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Float,
    Integer,
    Select,
    SQLColumnExpression,
    String,
    bindparam,
    cast,
    func,
    select,
)
from sqlalchemy.orm import Session

from ..db import dialect_name
from .structures import FTS_NAMES, FTS_TERMS
from .trigrams import SIMILARITY_THRESHOLD, gram_token, trigrams

# Trigram indexes (FTS5's and pg_trgm's) serve texts of three characters or more; shorter
# needles are matched through the pairs table.
FTS_MIN_CHARS = 3
LIKE_ESCAPE = "\\"


def escape_like(text: str) -> str:
    """``text`` as a LIKE pattern that matches it literally (with ``ESCAPE LIKE_ESCAPE``)."""
    escape = LIKE_ESCAPE
    return text.replace(escape, escape * 2).replace("%", escape + "%").replace("_", escape + "_")


@dataclass(frozen=True)
class Similarity:
    """How to match entries fuzzily: WHERE terms and the similarity score (0 to 1)."""

    where: tuple[ColumnElement[bool], ...]
    score: ColumnElement[float]


_PHRASE = bindparam("phrase", type_=String)
_SIMILAR_TO = bindparam("similar_to", type_=String)
_TERMS = bindparam("terms", type_=String, expanding=True)
_AT_LEAST = bindparam("at_least", type_=Integer)
_SIZE = bindparam("size", type_=Integer)


class SearchSql:
    """Search SQL for one database; :func:`search_sql` picks the right one for a session."""

    def indexes(self, needle: str) -> bool:
        """True when a trigram index serves ``needle`` (3 or more characters); else (one or two
        characters) the pairs table finds its entries."""
        return len(needle) >= FTS_MIN_CHARS

    def contains(self, entry_id: SQLColumnExpression[int]) -> tuple[ColumnElement[bool], ...]:
        """Extra WHERE terms that find the candidates for ``folded LIKE '%needle%'`` through
        the index, for needles :meth:`indexes` accepts (the LIKE still decides). None on
        PostgreSQL, whose index serves the LIKE itself."""
        return ()

    def substring_params(self, needle: str) -> dict[str, Any]:
        """Values for :meth:`contains`; ``needle`` is the lower-case query."""
        return {}

    def total(self, counting: Select[int], *, selective: bool) -> ColumnElement[int]:
        """A column for a search page that carries the count of all its matches: a window
        over the matches, which the index has found anyway (``counting`` is that count as a
        statement of its own; ``selective``: nearly every entry the index finds matches)."""
        return func.count().over()

    def similar(
        self, entry_id: SQLColumnExpression[int], folded: SQLColumnExpression[str]
    ) -> Similarity:
        """Fuzzy-match terms for the entries (call once per statement)."""
        raise NotImplementedError

    def similar_params(self, text: str) -> dict[str, Any]:
        """Values for :meth:`similar`."""
        raise NotImplementedError


class _PostgresSearch(SearchSql):
    """A GIN trigram index on the folded names serves LIKE directly and the ``%`` operator
    (whose threshold every connection pins to SIMILARITY_THRESHOLD, see models.db)."""

    def similar(
        self, entry_id: SQLColumnExpression[int], folded: SQLColumnExpression[str]
    ) -> Similarity:
        return Similarity(
            where=(folded.op("%")(_SIMILAR_TO),), score=func.similarity(folded, _SIMILAR_TO)
        )

    def similar_params(self, text: str) -> dict[str, Any]:
        return {"similar_to": text.lower()}


class _SqliteSearch(SearchSql):
    """FTS5: trigram MATCH for substrings, shared-trigram counts for similarity."""

    def contains(self, entry_id: SQLColumnExpression[int]) -> tuple[ColumnElement[bool], ...]:
        candidates = select(FTS_NAMES.c.rowid).where(FTS_NAMES.c.name.op("MATCH")(_PHRASE))
        return (entry_id.in_(candidates),)

    def substring_params(self, needle: str) -> dict[str, Any]:
        return {"phrase": '"' + needle.replace('"', '""') + '"'}  # an FTS5 string: all literal

    def total(self, counting: Select[int], *, selective: bool) -> ColumnElement[int]:
        # A window keeps every match and sorts them all for the page; a count subquery (run
        # once) lets SQLite keep only the page's rows while sorting. It runs the lookup twice,
        # so it pays only when most entries found are matches (docs/search.md).
        if not selective:
            return func.count().over()
        return counting.scalar_subquery().correlate(None)

    def similar(
        self, entry_id: SQLColumnExpression[int], folded: SQLColumnExpression[str]
    ) -> Similarity:
        hits = func.count().label("hits")
        shared = (
            select(FTS_TERMS.c.doc, hits)
            .where(FTS_TERMS.c.term.in_(_TERMS))
            .group_by(FTS_TERMS.c.doc)
            .having(func.count() >= _AT_LEAST)
            .cte("shared")
        )
        union = _SIZE + FTS_NAMES.c.size - shared.c.hits
        threshold = SIMILARITY_THRESHOLD
        scored = (
            select(
                shared.c.doc.label("doc"),
                (cast(shared.c.hits, Float) / union).label("score"),
            )
            .join_from(shared, FTS_NAMES, FTS_NAMES.c.rowid == shared.c.doc)
            .where(shared.c.hits * threshold.denominator >= threshold.numerator * union)
            .cte("scored")
        )
        return Similarity(where=(scored.c.doc == entry_id,), score=scored.c.score)

    def similar_params(self, text: str) -> dict[str, Any]:
        wanted = sorted(map(gram_token, trigrams(text)))
        # An entry reaches the threshold only if it shares at least threshold * |wanted|
        # trigrams.
        at_least = max(1, math.ceil(SIMILARITY_THRESHOLD * len(wanted)))
        return {"terms": wanted, "at_least": at_least, "size": len(wanted)}


_SEARCH_SQL: dict[str, SearchSql] = {"postgresql": _PostgresSearch(), "sqlite": _SqliteSearch()}


def search_sql(db: Session | Connection) -> SearchSql:
    """The search SQL for the database ``db`` (a session or a connection) works on."""
    return _SEARCH_SQL[dialect_name(db)]

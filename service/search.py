"""Unified search over strain, dispensary, doctor and deal names, ranked by relevance.

Rank: exact name match, then name prefix, then a whole-word match, then any other substring
match; ties by name, case-insensitively. Words are separated by spaces and the punctuation in
WORD_SEPARATORS. The query is plain text: LIKE wildcards and quotes in it match literally.

Every searchable name is one row of the search entries (models.search), folded to lower case
once; a search is one statement over that table. Candidates come from an index over the folded
names (models.dialect: FTS5 on SQLite, pg_trgm on PostgreSQL), or for a query of two characters
from the entries under that pair (models.search.SearchPair); the LIKE test and the rank above
still decide, so the results are those of a full scan.

Typo tolerance: when nothing contains the query, names whose pg_trgm trigram similarity to it
is at least SIMILARITY_THRESHOLD are returned instead, most similar first (then by name). Only
queries made of letters, digits, spaces and word separators get this fallback: any other
symbol (``%``, ``_``, ``\\``, ``=``, ``*``, ``$`` ...) marks a query as literal text.
"""

from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    Date,
    Integer,
    Select,
    String,
    bindparam,
    case,
    func,
    or_,
    select,
)
from sqlalchemy.orm import Session

from models import SearchEntry
from models.dialect import LIKE_ESCAPE, SearchSql, escape_like, search_sql
from models.search import WORD_SEPARATORS, spaced_words

from .filters import SearchQuery, SearchType
from .paging import Page, PageRequest, known_total, rows


def allows_fuzzy(text: str) -> bool:
    """True when ``text`` may fall back to similarity: it has a letter or digit, and nothing
    but letters, digits, whitespace and word separators."""
    plain = all(c.isalnum() or c.isspace() or c in WORD_SEPARATORS for c in text)
    return plain and any(c.isalnum() for c in text)


@dataclass(frozen=True, slots=True)
class SearchHit:
    type: str  # strain, dispensary, doctor or deal
    key: str  # the slug for strains, the public id otherwise
    name: str

    @property
    def slug(self) -> str | None:
        """The key of a strain (None for other kinds)."""
        return self.key if self.type == "strain" else None

    @property
    def id(self) -> str | None:
        """The key of a dispensary, doctor or deal (None for strains)."""
        return None if self.type == "strain" else self.key


# Statements are built once per shape and cached; the query's values are bind parameters.
_NEEDLE = bindparam("needle", type_=String)
_PREFIX = bindparam("prefix", type_=String)
_CONTAINS = bindparam("contains", type_=String)
_WHOLE_WORD = bindparam("whole_word", type_=String)
_TODAY = bindparam("today", type_=Date)
_STATE = bindparam("state", type_=String)
_LIMIT = bindparam("limit", type_=Integer)
_OFFSET = bindparam("offset", type_=Integer)


@dataclass(frozen=True)
class _Shape:
    """Everything that changes the SQL of a search (the rest are bind parameter values)."""

    sql: SearchSql
    type: SearchType | None
    scoped: bool  # a state was given
    indexed: bool  # a trigram index finds the substring's entries (else: its two characters)
    fuzzy: bool  # the similarity fallback rather than the substring search


_ENTRY = SearchEntry
_KIND = bindparam("kind", type_=String)
# The ``type`` parameter (plural) -> the entries' kind.
KINDS = {"strains": "strain", "dispensaries": "dispensary", "doctors": "doctor", "deals": "deal"}


@lru_cache(maxsize=256)
def _statements(shape: _Shape) -> tuple[Select[Any], Select[Any]]:
    """(one ordered page with the total alongside, the total alone) for ``shape``."""
    sql, folded = shape.sql, _ENTRY.folded
    where: list[Any] = [or_(_ENTRY.expires.is_(None), _ENTRY.expires >= _TODAY)]
    if shape.type is not None:
        where.append(_ENTRY.kind == _KIND)
    if shape.scoped:  # strains are sold anywhere: a state scopes the other kinds
        where.append(or_(_ENTRY.state == _STATE, _ENTRY.kind == "strain"))
    if shape.fuzzy:
        match = sql.similar(_ENTRY.id, folded)
        where.extend(match.where)
        first: Any = match.score.desc()  # most similar first
    else:
        if shape.indexed:
            where.append(folded.like(_CONTAINS, escape=LIKE_ESCAPE))
            where.extend(sql.contains(_ENTRY.id))
        else:  # two characters (queries are never shorter): exactly the entries of that pair
            where.append(sql.paired(_ENTRY.id, _NEEDLE))
        first = case(
            (folded == _NEEDLE, 0),
            (folded.like(_PREFIX, escape=LIKE_ESCAPE), 1),
            (_ENTRY.words.like(_WHOLE_WORD, escape=LIKE_ESCAPE), 2),
            else_=3,
        )
    # An index finds the matches, so they are at hand: the page counts them too.
    counting = select(func.count()).select_from(_ENTRY).where(*where)
    # Without a state, most entries the index finds are matches (the typo fallback aside).
    selective = not (shape.fuzzy or shape.scoped)
    columns = [_ENTRY.kind, _ENTRY.key, _ENTRY.name, sql.total(counting, selective=selective)]
    page = (
        select(*columns)
        .where(*where)
        .order_by(first, folded, _ENTRY.name, _ENTRY.kind, _ENTRY.key)
        .limit(_LIMIT)
        .offset(_OFFSET)
    )
    return page, counting


def _page(
    session: Session, shape: _Shape, params: dict[str, Any], page: PageRequest
) -> Page[SearchHit]:
    stmt, counting = _statements(shape)
    found = rows(session, stmt, {**params, "limit": page.limit, "offset": page.offset})
    items = [SearchHit(type=row[0], key=row[1], name=row[2]) for row in found]
    if found:
        total = found[0][3]
    elif (known := known_total(page, len(found))) is not None:
        total = known
    else:
        total = rows(session, counting, params)[0][0]
    return Page(items=items, total=total, limit=page.limit, offset=page.offset)


def search(
    session: Session, query: SearchQuery, page: PageRequest, *, today: date
) -> Page[SearchHit]:
    """Return one page of ranked hits; deals count only while active on ``today``.

    Substring matches when there are any; otherwise, for plain-text queries, similar names.
    """
    sql = search_sql(session)
    needle = query.q.lower()
    scope = {"today": today, "state": query.state, "kind": KINDS.get(query.type or "")}
    scoped = query.state is not None
    shape = _Shape(sql, query.type, scoped, sql.indexes(needle), fuzzy=False)
    params = {
        **scope,
        "needle": needle,
        "prefix": escape_like(needle) + "%",
        "contains": "%" + escape_like(needle) + "%",
        # The query's words, spaced as typed, as whole words of the name.
        "whole_word": "%" + escape_like(spaced_words(query.q)) + "%",
        **sql.substring_params(needle),
    }
    found = _page(session, shape, params, page)
    if found.total or not allows_fuzzy(query.q):
        return found
    similar = _Shape(sql, query.type, scoped, indexed=True, fuzzy=True)
    return _page(session, similar, {**scope, **sql.similar_params(query.q)}, page)

"""Unified search over strain, dispensary, doctor and deal names, ranked by relevance.

Rank: exact, prefix, whole word (words split at spaces and WORD_SEPARATORS), other substring;
ties by name, case-insensitively. The query is literal text (LIKE wildcards match themselves).
One statement over the search entries (models.search), found through the trigram index or, for
one or two characters, the SearchPair rows, which must rank like the statement here. When nothing
matches, a query of only letters, digits and separators falls back to names by pg_trgm
similarity, most similar first.
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

from models import SearchEntry, SearchPair
from models.db import AnySelect, Reader
from models.search import WORD_SEPARATORS, spaced_words
from models.search.queries import LIKE_ESCAPE, SearchSql, escape_like, search_sql

from .filters import SearchQuery
from .paging import Page, PageRequest, known_total, rows
from .vocab import SEARCH_HIT_TYPES, SEARCH_TYPES


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
    type: str | None  # one of SEARCH_TYPES
    scoped: bool  # a state was given
    indexed: bool  # a trigram index finds the substring's entries (else: its two characters)
    fuzzy: bool  # the similarity fallback rather than the substring search


_ENTRY = SearchEntry
_KIND = bindparam("kind", type_=String)
# The ``type`` parameter (plural) -> the entries' kind.
KINDS = dict(zip(SEARCH_TYPES, SEARCH_HIT_TYPES, strict=True))


@lru_cache(maxsize=256)
def _statements(shape: _Shape) -> tuple[AnySelect, Select[int]]:
    """(one ordered page with the total alongside, the total alone) for ``shape``."""
    if not (shape.indexed or shape.fuzzy):
        return _pair_statements(shape)
    sql, folded = shape.sql, _ENTRY.folded
    where: list[Any] = [or_(_ENTRY.expires.is_(None), _ENTRY.expires >= _TODAY)]
    if shape.type is not None:
        where.append(_ENTRY.kind == _KIND)
    # Strains are sold anywhere: a state scopes the other kinds. For one of those kinds the
    # state's entries of it are the candidates, read through the (kind, state) index: a bounded
    # set, where a common word finds names in every state.
    one_state = shape.scoped and shape.type not in (None, "strains")
    if one_state:
        where.append(_ENTRY.state == _STATE)
    elif shape.scoped and shape.type is None:
        where.append(or_(_ENTRY.state == _STATE, _ENTRY.kind == "strain"))
    if shape.fuzzy:
        match = sql.similar(_ENTRY.id, folded)
        where.extend(match.where)
        first: Any = match.score.desc()  # most similar first
    else:
        where.append(folded.like(_CONTAINS, escape=LIKE_ESCAPE))
        if not one_state:
            where.extend(sql.contains(_ENTRY.id))
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


def _pair_statements(shape: _Shape) -> tuple[AnySelect, Select[int]]:
    """The statements for a query of one or two characters: its piece's rows, which carry each
    entry's rank and place in search order (models.search.SearchPair), so the page walks the
    primary key and stops at the limit, and the total counts those rows, not the entries. Only
    the page's rows are joined to their entries: a deep page skips the rows before it in the
    key alone."""
    pair = SearchPair
    where: list[Any] = [pair.pair == _NEEDLE, or_(pair.expires.is_(None), pair.expires >= _TODAY)]
    if shape.type is not None:
        where.append(pair.kind == _KIND)
    if shape.scoped:
        where.append(or_(pair.state == _STATE, pair.kind == "strain"))
    counting = select(func.count()).select_from(pair).where(*where)
    walked = (
        select(pair.entry_id, pair.rank, pair.position)
        .where(*where)
        .order_by(pair.rank, pair.position)
        .limit(_LIMIT)
        .offset(_OFFSET)
        .subquery("walked")
    )
    page = (
        select(_ENTRY.kind, _ENTRY.key, _ENTRY.name, counting.scalar_subquery())
        .select_from(walked)
        .join(_ENTRY, _ENTRY.id == walked.c.entry_id)
        .order_by(walked.c.rank, walked.c.position)
    )
    return page, counting


def _page(db: Reader, shape: _Shape, params: dict[str, Any], page: PageRequest) -> Page[SearchHit]:
    stmt, counting = _statements(shape)
    found = rows(db, stmt, {**params, "limit": page.limit, "offset": page.offset})
    items = [SearchHit(type=row[0], key=row[1], name=row[2]) for row in found]
    if found:
        total = found[0][3]
    elif (known := known_total(page, len(found))) is not None:
        total = known
    else:
        total = rows(db, counting, params)[0][0]
    return Page(items=items, total=total, limit=page.limit, offset=page.offset)


def _similar_only_if_contained(needle: str) -> bool:
    """True for one or two letters or digits: a name similar enough to it contains it, so when
    no name contains it the fallback would find nothing either and is skipped. One character:
    each of its trigrams holds it. Two, ``ab``: the proof is in docs/search.md (a property test
    checks it)."""
    return len(needle) <= 2 and needle.isalnum()


def search(db: Reader, query: SearchQuery, page: PageRequest, *, today: date) -> Page[SearchHit]:
    """Return one page of ranked hits; deals count only while active on ``today``.

    Substring matches when there are any; otherwise, for plain-text queries, similar names.
    """
    sql = search_sql(db)
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
    found = _page(db, shape, params, page)
    if found.total or not allows_fuzzy(query.q) or _similar_only_if_contained(needle):
        return found
    similar = _Shape(sql, query.type, scoped, indexed=True, fuzzy=True)
    return _page(db, similar, {**scope, **sql.similar_params(query.q)}, page)

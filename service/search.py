"""Unified search over strain, dispensary, doctor and deal names, ranked by relevance.

Rank: exact name match, then name prefix, then a whole-word match, then any other substring
match; ties by name, case-insensitively. Words are separated by spaces and the punctuation in
WORD_SEPARATORS. The query is plain text: LIKE wildcards and quotes in it match literally.

Candidates come from an index (models.dialect: FTS5 on SQLite, pg_trgm on PostgreSQL); the
LIKE test and the rank above still decide, so the results are those of a full scan.

Typo tolerance: when nothing contains the query, names whose pg_trgm trigram similarity to it
is at least SIMILARITY_THRESHOLD are returned instead, most similar first (then by name). Only
queries made of letters, digits, spaces and word separators get this fallback: any other
symbol (``%``, ``_``, ``\\``, ``=``, ``*``, ``$`` ...) marks a query as literal text.
"""

from collections.abc import Callable
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
    literal,
    select,
    union_all,
)
from sqlalchemy.orm import Session

from models import Deal, Dispensary, Doctor, Strain
from models.dialect import LIKE_ESCAPE, SearchSql, escape_like, search_sql

from .filters import SearchQuery, SearchType
from .paging import Page, PageRequest

# Characters that end a word as a space does ("concentrate," and "pre-roll" hold whole words).
WORD_SEPARATORS = ",.;:!?'\"()[]/&+-"


def words_text(text: str) -> str:
    """``text`` in lower case with every word separator turned into a space."""
    folded = text.lower()
    for separator in WORD_SEPARATORS:
        folded = folded.replace(separator, " ")
    return folded


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
    indexed: bool  # substring candidates come from the search index
    fuzzy: bool  # the similarity fallback rather than the substring search


# Builds one kind's SELECT of (kind, key, name, folded[, score]) from (kind, row id, key, name).
Branch = Callable[[str, Any, Any, Any], Select[Any]]


def _row(kind: str, key: Any, name: Any) -> tuple[Any, ...]:
    folded = func.lower(name)
    return literal(kind, String).label("kind"), key.label("key"), name.label("name"), folded


def _substring_branch(sql: SearchSql, indexed: bool) -> Branch:
    def branch(kind: str, row_id: Any, key: Any, name: Any) -> Select[Any]:
        *columns, folded = _row(kind, key, name)
        stmt = select(*columns, folded.label("folded")).where(
            folded.like(_CONTAINS, escape=LIKE_ESCAPE)
        )
        return stmt.where(*sql.contains(kind, row_id)) if indexed else stmt

    return branch


def _similar_branch(sql: SearchSql) -> Branch:
    similar = sql.similar()

    def branch(kind: str, row_id: Any, key: Any, name: Any) -> Select[Any]:
        *columns, folded = _row(kind, key, name)
        match = similar(kind, row_id, name)
        return select(*columns, folded.label("folded"), match.score.label("score")).where(
            *match.where
        )

    return branch


def _branches(shape: _Shape, branch: Branch) -> list[Select[Any]]:
    wanted = shape.type
    branches = []
    if wanted in (None, "strains"):
        branches.append(branch("strain", Strain.id, Strain.slug, Strain.name))
    if wanted in (None, "dispensaries"):
        dispensaries = branch("dispensary", Dispensary.id, Dispensary.public_id, Dispensary.name)
        if shape.scoped:
            dispensaries = dispensaries.where(Dispensary.state == _STATE)
        branches.append(dispensaries)
    if wanted in (None, "doctors"):
        doctors = branch("doctor", Doctor.id, Doctor.public_id, Doctor.name)
        branches.append(doctors.where(Doctor.state == _STATE) if shape.scoped else doctors)
    if wanted in (None, "deals"):
        deals = branch("deal", Deal.id, Deal.public_id, Deal.title).where(Deal.expires >= _TODAY)
        if shape.scoped:
            deals = deals.join(Dispensary, Deal.dispensary_id == Dispensary.id).where(
                Dispensary.state == _STATE
            )
        branches.append(deals)
    return branches


@lru_cache(maxsize=256)
def _statements(shape: _Shape) -> tuple[Select[Any], Select[Any]]:
    """(one ordered page with the total alongside, the total alone) for ``shape``."""
    branch = (
        _similar_branch(shape.sql) if shape.fuzzy else _substring_branch(shape.sql, shape.indexed)
    )
    # OFFSET 0 keeps the union a subquery: each row's lower(name) is computed once, not once
    # per use (PostgreSQL would otherwise inline it into every test of the ranking).
    hits = union_all(*_branches(shape, branch)).offset(0).subquery()
    if shape.fuzzy:
        first = hits.c.score.desc()  # most similar first
    else:
        folded = hits.c.folded
        first = case(
            (folded == _NEEDLE, 0),
            (folded.like(_PREFIX, escape=LIKE_ESCAPE), 1),
            (shape.sql.whole_word(folded), 2),
            else_=3,
        )
    page = (
        select(hits.c.kind, hits.c.key, hits.c.name, func.count().over())
        .order_by(first, hits.c.folded, hits.c.name, hits.c.kind, hits.c.key)
        .limit(_LIMIT)
        .offset(_OFFSET)
    )
    return page, select(func.count()).select_from(hits)


def _page(
    session: Session, shape: _Shape, params: dict[str, Any], page: PageRequest
) -> Page[SearchHit]:
    stmt, counting = _statements(shape)
    # The window count rides along with the page, so the matching runs once, not twice.
    rows = session.execute(stmt, {**params, "limit": page.limit, "offset": page.offset}).all()
    items = [SearchHit(type=kind, key=key, name=name) for kind, key, name, _total in rows]
    if rows:
        total = rows[0][3]
    elif page.offset == 0:
        total = 0
    else:
        total = session.scalar(counting, params) or 0
    return Page(items=items, total=total, limit=page.limit, offset=page.offset)


def search(
    session: Session, query: SearchQuery, page: PageRequest, *, today: date
) -> Page[SearchHit]:
    """Return one page of ranked hits; deals count only while active on ``today``.

    Substring matches when there are any; otherwise, for plain-text queries, similar names.
    """
    sql = search_sql(session)
    needle = query.q.lower()
    scope = {"today": today, "state": query.state}
    scoped = query.state is not None
    shape = _Shape(sql, query.type, scoped, sql.indexes(needle), fuzzy=False)
    params = {
        **scope,
        "needle": needle,
        "prefix": escape_like(needle) + "%",
        "contains": "%" + escape_like(needle) + "%",
        **sql.substring_params(needle, words_text(query.q).strip(), WORD_SEPARATORS),
    }
    with sql.planned(session, indexed=shape.indexed):
        found = _page(session, shape, params, page)
        if found.total or not allows_fuzzy(query.q):
            return found
        similar = _Shape(sql, query.type, scoped, indexed=True, fuzzy=True)
        return _page(session, similar, {**scope, **sql.similar_params(query.q)}, page)

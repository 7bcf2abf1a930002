"""Unified search over strain, dispensary, doctor and deal names, ranked by relevance.

Rank: exact name match, then name prefix, then a whole-word match, then any other substring
match; ties by name, case-insensitively. Words are separated by spaces and the punctuation in
WORD_SEPARATORS. The query is plain text: LIKE wildcards and quotes in it match literally.
"""

from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import ColumnElement, Select, String, case, func, literal, select, union_all
from sqlalchemy.orm import Session

from models import Deal, Dispensary, Doctor, Strain

from .filters import SearchQuery
from .paging import Page, PageRequest, total_for

_ESCAPE = "\\"
# Characters that end a word as a space does ("concentrate," and "pre-roll" hold whole words).
WORD_SEPARATORS = ",.;:!?'\"()[]/&+-"


def words_text(text: str) -> str:
    """``text`` in lower case with every word separator turned into a space."""
    folded = text.lower()
    for separator in WORD_SEPARATORS:
        folded = folded.replace(separator, " ")
    return folded


def _words_sql(folded: ColumnElement[str]) -> ColumnElement[str]:
    for separator in WORD_SEPARATORS:
        folded = func.replace(folded, separator, " ")
    return folded


@dataclass(frozen=True)
class SearchHit:
    type: str  # strain, dispensary, doctor or deal
    key: str  # the slug for strains, the public id otherwise
    name: str


def _escape_like(text: str) -> str:
    return (
        text.replace(_ESCAPE, _ESCAPE * 2).replace("%", _ESCAPE + "%").replace("_", _ESCAPE + "_")
    )


def _branch(kind: str, key: Any, name: Any, query: str, *where: ColumnElement[bool]) -> Select[Any]:
    folded = func.lower(name)
    pattern = _escape_like(query.lower())
    rank = case(
        (folded == query.lower(), 0),
        (folded.like(pattern + "%", escape=_ESCAPE), 1),
        (
            (literal(" ", String) + _words_sql(folded) + literal(" ", String)).like(
                "% " + _escape_like(words_text(query).strip()) + " %", escape=_ESCAPE
            ),
            2,
        ),
        else_=3,
    )
    return select(
        literal(kind, String).label("kind"),
        key.label("key"),
        name.label("name"),
        rank.label("rank"),
    ).where(folded.like("%" + pattern + "%", escape=_ESCAPE), *where)


def _select_hits(query: SearchQuery, today: date) -> Select[Any]:
    branches = []
    wanted = query.type
    if wanted in (None, "strains"):
        branches.append(_branch("strain", Strain.slug, Strain.name, query.q))
    if wanted in (None, "dispensaries"):
        scope = [Dispensary.state == query.state] if query.state else []
        branches.append(
            _branch("dispensary", Dispensary.public_id, Dispensary.name, query.q, *scope)
        )
    if wanted in (None, "doctors"):
        scope = [Doctor.state == query.state] if query.state else []
        branches.append(_branch("doctor", Doctor.public_id, Doctor.name, query.q, *scope))
    if wanted in (None, "deals"):
        deal_scope: list[ColumnElement[bool]] = [Deal.expires >= today]
        deals = _branch("deal", Deal.public_id, Deal.title, query.q, *deal_scope)
        if query.state:
            deals = deals.join(Dispensary, Deal.dispensary_id == Dispensary.id).where(
                Dispensary.state == query.state
            )
        branches.append(deals)
    hits = union_all(*branches).subquery()
    return select(hits.c.kind, hits.c.key, hits.c.name).order_by(
        hits.c.rank, func.lower(hits.c.name), hits.c.name, hits.c.kind, hits.c.key
    )


def search(
    session: Session, query: SearchQuery, page: PageRequest, *, today: date
) -> Page[SearchHit]:
    """Return one page of ranked hits; deals count only while active on ``today``."""
    stmt = _select_hits(query, today)
    # The window count rides along with the page, so the name scans run once, not twice.
    rows = session.execute(
        stmt.add_columns(func.count().over()).limit(page.limit).offset(page.offset)
    ).all()
    items = [SearchHit(type=kind, key=key, name=name) for kind, key, name, _total in rows]
    total = rows[0][3] if rows else total_for(session, stmt, page, 0)
    return Page(items=items, total=total, limit=page.limit, offset=page.offset)

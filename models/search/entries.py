"""The search entries: every searchable name in one narrow table, and its one- and two-character
pieces.

One row per strain, dispensary, doctor and deal: the name folded to lower case once, the state
that scopes it and, for deals, the expiry day. Derived data: every load rebuilds it
(models.search.rebuild).
"""

from datetime import date

from sqlalchemy import Date, Index, Integer, SmallInteger, String
from sqlalchemy.orm import Mapped, mapped_column

from ..base import Base

# Characters that end a word as a space does ("concentrate," and "pre-roll" hold whole words).
WORD_SEPARATORS = ",.;:!?'\"()[]/&+-"


def words_text(text: str) -> str:
    """``text`` in lower case with every word separator turned into a space."""
    folded = text.lower()
    for separator in WORD_SEPARATORS:
        folded = folded.replace(separator, " ")
    return folded


def pairs(folded: str) -> set[str]:
    """Every run of two characters in ``folded``: a two-character query is a substring of a
    name exactly when it is one of the name's pairs."""
    return {folded[i : i + 2] for i in range(len(folded) - 1)}


def pieces(folded: str) -> set[str]:
    """Every character but whitespace, and every run of two, of ``folded``: a query of one or
    two characters (trimmed) is a substring of a name exactly when it is one of these."""
    return {c for c in folded if not c.isspace()} | pairs(folded)


def spaced_words(text: str) -> str:
    """:func:`words_text` without spaces at its ends, between two spaces: the words ``w`` (one
    or several) are whole words of ``text`` exactly where " w " occurs in this."""
    return f" {words_text(text).strip()} "


class SearchEntry(Base):
    __tablename__ = "search_entries"
    # A search of one kind in one state (a state's deals, dispensaries or doctors) reads that
    # state's entries of the kind, hundreds, instead of every name the text index finds in
    # all states: thousands for a common word such as "off" (see service.search).
    __table_args__ = (Index("ix_search_entries_kind_state", "kind", "state"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(String(10))  # strain, dispensary, doctor or deal
    key: Mapped[str] = mapped_column(String(120))  # the slug of a strain, else the public id
    name: Mapped[str] = mapped_column(String(200))
    folded: Mapped[str] = mapped_column(String(200))  # name.lower()
    words: Mapped[str] = mapped_column(String(202))  # spaced_words(name)
    state: Mapped[str | None] = mapped_column(String(2))  # None for strains (sold anywhere)
    expires: Mapped[date | None] = mapped_column(Date)  # deals only

    def __repr__(self) -> str:
        return f"SearchEntry(kind={self.kind!r}, key={self.key!r}, name={self.name!r})"


class SearchPair(Base):
    """Each entry under every one- and two-character piece of its folded name (:func:`pieces`):
    the index for queries that short, which no trigram index serves (derived data, rebuilt with
    the entries).

    A row carries what a search for its pair ranks and filters by, so a page of such a search
    is a walk along the primary key and its total a count of the pair's rows, whatever their
    number: ``rank`` is the entry's rank for that query (:func:`pair_rank`), ``position`` its
    place among all entries in search order (folded name, name, kind, key, as the database
    sorts them; spaced out, so that a merge can place an entry between two others), and
    ``kind``, ``state`` and ``expires`` are copies of the entry's.
    """

    __tablename__ = "search_pairs"
    __table_args__ = {"sqlite_with_rowid": False}  # noqa: RUF012 (SQLAlchemy's declaration)

    pair: Mapped[str] = mapped_column(String(2), primary_key=True)
    rank: Mapped[int] = mapped_column(SmallInteger, primary_key=True, autoincrement=False)
    position: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    entry_id: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(10))
    state: Mapped[str | None] = mapped_column(String(2))
    expires: Mapped[date | None] = mapped_column(Date)


def pair_rank(pair: str, folded: str, words: str) -> int:
    """The rank search gives a name (``folded``, ``words`` as in SearchEntry) for the query
    ``pair`` (one or two characters): 0 exact, 1 prefix, 2 whole word, 3 other substring
    (service.search)."""
    if folded == pair:
        return 0
    if folded.startswith(pair):
        return 1
    return 2 if spaced_words(pair) in words else 3

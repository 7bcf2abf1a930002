"""Rebuilding the search entries, their short pieces and the database's index over them.

Every load calls :func:`rebuild_search_index` in its transaction: the entries are derived from
the strains, dispensaries, doctors and deals just written.
"""

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, Select, delete, func, insert, inspect, literal, select
from sqlalchemy.dialects.postgresql import REGCLASS

from ..deal import Deal
from ..dispensary import Dispensary
from ..doctor import Doctor
from ..strain import Strain
from .entries import pair_rank, pieces, spaced_words
from .structures import (
    ENTRIES,
    FTS_GRAMS,
    FTS_NAMES,
    PAIRS,
    PG_TRIGRAM_INDEX,
    create_search_structures,
)
from .trigrams import gram_token, trigrams

_CHUNK = 20_000  # rows per INSERT of the pairs
# Positions are 32-bit integers on PostgreSQL. A refill spaces them out, so that a merge can
# place a new name between two others (models.search.incremental) without renumbering.
MAX_POSITION = 2**31 - 1
_WIDEST_GAP = 2**16


def position_gap(entries: int) -> int:
    """The step between neighbouring positions for a refill of ``entries`` entries."""
    return max(1, min(_WIDEST_GAP, MAX_POSITION // (entries + 1)))


def _entry_sources() -> tuple[Select[*tuple[Any, ...]], ...]:
    """(kind, key, name, state, expires) of every searchable row, one statement per kind."""
    nothing = literal(None)
    return (
        select(literal("strain"), Strain.slug, Strain.name, nothing, nothing).order_by(Strain.id),
        select(
            literal("dispensary"), Dispensary.public_id, Dispensary.name, Dispensary.state, nothing
        ).order_by(Dispensary.id),
        select(literal("doctor"), Doctor.public_id, Doctor.name, Doctor.state, nothing).order_by(
            Doctor.id
        ),
        select(literal("deal"), Deal.public_id, Deal.title, Dispensary.state, Deal.expires)
        .join(Dispensary, Deal.dispensary_id == Dispensary.id)
        .order_by(Deal.id),
    )


def _entries(conn: Connection) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for source in _entry_sources():
        # Typed as plain tuples: mypy unpacks an untyped Row's items as ``object``.
        found: Iterable[tuple[Any, ...]] = conn.execute(source)
        for kind, key, name, state, expires in found:
            entries.append(
                {
                    "id": len(entries) + 1,
                    "kind": kind,
                    "key": key,
                    "name": name,
                    "folded": name.lower(),
                    "words": spaced_words(name),
                    "state": state,
                    "expires": expires,
                }
            )
    return entries


def refill_search_pairs(conn: Connection) -> None:
    """Rebuild the one- and two-character pieces (SearchPair) from the search entries.

    Skipped where the table is missing or has the first revision's shape (pair and entry
    only): a database not yet upgraded, whose upgrade to revision d7f3a9c51e20 fills it.
    """
    if not inspect(conn).has_table(PAIRS.name):
        return
    if "rank" not in {column["name"] for column in inspect(conn).get_columns(PAIRS.name)}:
        return
    conn.execute(delete(PAIRS))
    e = ENTRIES.c
    in_search_order = select(e.id, e.folded, e.words, e.kind, e.state, e.expires).order_by(
        e.folded,
        e.name,
        e.kind,
        e.key,  # the order of service.search, as the database sorts
    )
    entries: list[tuple[Any, ...]] = list(conn.execute(in_search_order))
    gap = position_gap(len(entries))
    rows = [
        {
            "pair": pair,
            "rank": pair_rank(pair, folded, words),
            "position": (n + 1) * gap,
            "entry_id": entry_id,
            "kind": kind,
            "state": state,
            "expires": expires,
        }
        for n, (entry_id, folded, words, kind, state, expires) in enumerate(entries)
        for pair in pieces(folded)
    ]
    rows.sort(key=lambda row: (row["pair"], row["rank"], row["position"]))  # key order
    for start in range(0, len(rows), _CHUNK):
        conn.execute(insert(PAIRS), rows[start : start + _CHUNK])


def _flush_gin_pending_list(conn: Connection) -> None:
    # Rows inserted after a GIN index was created wait in its "fast update" pending list, which
    # every query scans linearly (only VACUUM or autovacuum merge it): merge it now.
    conn.execute(select(func.gin_clean_pending_list(literal(PG_TRIGRAM_INDEX).cast(REGCLASS))))


def _refill_fts(conn: Connection, entries: list[dict[str, Any]]) -> None:
    conn.exec_driver_sql(f"DELETE FROM {FTS_NAMES.name}")
    # A contentless FTS5 table is emptied with its 'delete-all' command.
    conn.exec_driver_sql(f"INSERT INTO {FTS_GRAMS.name}({FTS_GRAMS.name}) VALUES ('delete-all')")
    names, grams = [], []
    for entry in entries:
        found = trigrams(entry["name"])
        names.append({"rowid": entry["id"], "name": entry["folded"], "size": len(found)})
        grams.append({"rowid": entry["id"], "grams": " ".join(sorted(map(gram_token, found)))})
    if names:
        conn.execute(insert(FTS_NAMES), names)
        conn.execute(insert(FTS_GRAMS), grams)
    for table in (FTS_NAMES, FTS_GRAMS):  # merge the index segments: fewer b-trees per lookup
        conn.exec_driver_sql(f"INSERT INTO {table.name}({table.name}) VALUES ('optimize')")


def rebuild_search_index(conn: Connection) -> None:
    """Rebuild the search entries from the searched tables, and the index over them; call after
    every load, in its transaction."""
    create_search_structures(conn)
    entries = _entries(conn)
    conn.execute(delete(ENTRIES))
    if entries:
        conn.execute(insert(ENTRIES), entries)
    refill_search_pairs(conn)
    if conn.dialect.name == "postgresql":
        _flush_gin_pending_list(conn)
    elif conn.dialect.name == "sqlite":
        _refill_fts(conn, entries)

"""Updating the search index for some objects only (a merge's), instead of rebuilding it.

An entry whose source changed is updated under its id, a new one takes the next id, a vanished
one is deleted; SQLite's FTS5 rows follow by rowid (PostgreSQL's GIN index follows by itself).
Pair rows carry a position in search order: a full refill spaces positions out
(rebuild.position_gap), and an entry whose place changes takes a position in the gap between
its neighbours as the database orders them now. When a gap is used up, the pairs are refilled.
"""

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from sqlalchemy import (
    Connection,
    bindparam,
    delete,
    func,
    insert,
    inspect,
    select,
    text,
    update,
)

from .entries import pair_rank, pieces, spaced_words
from .rebuild import (
    MAX_POSITION,
    _entry_sources,
    _flush_gin_pending_list,
    rebuild_search_index,
    refill_search_pairs,
)
from .structures import ENTRIES, FTS_GRAMS, FTS_NAMES, PAIRS
from .trigrams import gram_token, trigrams

_IN_CHUNK = 900
# Entries (of some 30 pair rows each) from which PostgreSQL scans the pairs once rather than
# look each entry's rows up.
_PG_SCAN_FROM = 80
# The key column of each kind's source statement (as _entry_sources lists them).
_SOURCE_KINDS = ("strain", "dispensary", "doctor", "deal")

Entry = dict[str, Any]


def _chunks(values: Iterable[Any]) -> Iterable[list[Any]]:
    ordered = sorted(values)
    for start in range(0, len(ordered), _IN_CHUNK):
        yield ordered[start : start + _IN_CHUNK]


def _stored_entries(conn: Connection, keys: dict[str, set[str]]) -> dict[tuple[str, str], Entry]:
    # One pass over the entries of these kinds: no index leads with (kind, key), and the
    # table is narrow.
    e = ENTRIES.c
    found: dict[tuple[str, str], Entry] = {}
    kinds = sorted(kind for kind, wanted in keys.items() if wanted)
    if not kinds:
        return found
    for row in conn.execute(select(ENTRIES).where(e.kind.in_(kinds))):
        if row.key in keys[row.kind]:
            found[(row.kind, row.key)] = dict(row._mapping)
    return found


def _source_entries(conn: Connection, keys: dict[str, set[str]]) -> dict[tuple[str, str], Entry]:
    found: dict[tuple[str, str], Entry] = {}
    for kind, source in zip(_SOURCE_KINDS, _entry_sources(), strict=True):
        key_column = source.selected_columns[1]
        for chunk in _chunks(keys.get(kind, set())):
            rows: Iterable[tuple[Any, ...]] = conn.execute(source.where(key_column.in_(chunk)))
            for _, key, name, state, expires in rows:
                found[(kind, key)] = {
                    "kind": kind,
                    "key": key,
                    "name": name,
                    "folded": name.lower(),
                    "words": spaced_words(name),
                    "state": state,
                    "expires": expires,
                }
    return found


def _first_piece(entry: Entry) -> tuple[str, int] | None:
    """A piece the entry has a pair row under, and its rank: its first two characters (a
    narrow range of the key), or its one character."""
    folded = entry["folded"]
    if len(folded) >= 2:
        return folded[:2], pair_rank(folded[:2], folded, entry["words"])
    if folded and not folded.isspace():
        return folded, 0
    return None


def _scans(conn: Connection, entries: list[Entry]) -> bool:
    """True when PostgreSQL had better find the pair rows of ``entries`` in one pass over the
    table (joined to their ids, hashed) than by a key lookup per piece, each a round trip."""
    return conn.dialect.name == "postgresql" and len(entries) > _PG_SCAN_FROM


_BY_IDS = f"{PAIRS.name} JOIN unnest(CAST(:ids AS integer[])) AS wanted(id) ON entry_id = wanted.id"


def _drop_pairs_scanning(conn: Connection, ids: list[int]) -> dict[int, int]:
    """Delete the pair rows of entries ``ids`` in one pass; return their positions."""
    statement = text(
        f"DELETE FROM {PAIRS.name} USING unnest(CAST(:ids AS integer[])) AS wanted(id) "
        f"WHERE {PAIRS.name}.entry_id = wanted.id RETURNING entry_id, position"
    )
    rows: Iterable[tuple[Any, ...]] = conn.execute(statement, {"ids": ids})
    return {entry_id: position for entry_id, position in rows}


def _positions(conn: Connection, entries: list[Entry]) -> dict[int, int]:
    """Entry id -> the position of its pair rows (entries without pieces have none)."""
    if _scans(conn, entries):
        scan = text(f"SELECT DISTINCT entry_id, position FROM {_BY_IDS}")
        scanned: Iterable[tuple[Any, ...]] = conn.execute(
            scan, {"ids": [entry["id"] for entry in entries]}
        )
        return {entry_id: position for entry_id, position in scanned}
    by_piece: dict[tuple[str, int], set[int]] = defaultdict(set)
    for entry in entries:
        piece = _first_piece(entry)
        if piece is not None:
            by_piece[piece].add(entry["id"])
    found: dict[int, int] = {}
    p = PAIRS.c
    for (pair, rank), ids in by_piece.items():
        for chunk in _chunks(ids):
            statement = select(p.entry_id, p.position).where(
                p.pair == pair, p.rank == rank, p.entry_id.in_(chunk)
            )
            rows: Iterable[tuple[Any, ...]] = conn.execute(statement)
            found.update({entry_id: position for entry_id, position in rows})
    return found


def _pair_rows(entry: Entry, position: int) -> list[dict[str, Any]]:
    return [
        {
            "pair": pair,
            "rank": pair_rank(pair, entry["folded"], entry["words"]),
            "position": position,
            "entry_id": entry["id"],
            "kind": entry["kind"],
            "state": entry["state"],
            "expires": entry["expires"],
        }
        for pair in pieces(entry["folded"])
    ]


def _grams(name: str) -> str:
    return " ".join(sorted(map(gram_token, trigrams(name))))


def _pairs_ready(conn: Connection) -> bool:
    if not inspect(conn).has_table(PAIRS.name):
        return False
    return "rank" in {column["name"] for column in inspect(conn).get_columns(PAIRS.name)}


def update_search_entries(conn: Connection, keys: dict[str, set[str]]) -> None:
    """Bring the search entries of ``keys`` (kind -> keys: strains' slugs, others' public ids)
    in line with the searched tables, with their pairs and the database's index; call in the
    load's transaction after the tables are written."""
    if not _pairs_ready(conn) or conn.scalar(select(func.count()).select_from(ENTRIES)) == 0:
        rebuild_search_index(conn)
        return
    old = _stored_entries(conn, keys)
    new = _source_entries(conn, keys)
    fields = ("name", "state", "expires")
    removed = [entry for k, entry in old.items() if k not in new]
    changed = [
        (old[k], entry)
        for k, entry in new.items()
        if k in old and any(old[k][f] != entry[f] for f in fields)
    ]
    added = [entry for k, entry in new.items() if k not in old]
    if not (removed or changed or added):
        return
    touched = removed + [before for before, _ in changed]
    p, e = PAIRS.c, ENTRIES.c
    if _scans(conn, touched):
        positions = _drop_pairs_scanning(conn, [entry["id"] for entry in touched])
    else:
        positions = _positions(conn, touched)
        dropped = [
            {"b_pair": row["pair"], "b_rank": row["rank"], "b_position": row["position"]}
            for entry in touched
            if entry["id"] in positions
            for row in _pair_rows(entry, positions[entry["id"]])
        ]
        by_key = (
            (p.pair == bindparam("b_pair"))
            & (p.rank == bindparam("b_rank"))
            & (p.position == bindparam("b_position"))
        )
        if dropped:
            conn.execute(delete(PAIRS).where(by_key), dropped)
    sqlite = conn.dialect.name == "sqlite"
    if sqlite:
        _drop_fts(conn, touched)

    # The entries themselves: same id when changed, the next ids when new.
    for chunk in _chunks(entry["id"] for entry in removed):
        conn.execute(delete(ENTRIES).where(e.id.in_(chunk)))
    if changed:
        values = [{**after, "b_id": before["id"]} for before, after in changed]
        conn.execute(update(ENTRIES).where(e.id == bindparam("b_id")), values)
        for before, after in changed:
            after["id"] = before["id"]
    next_id = (conn.scalar(select(func.max(e.id))) or 0) + 1
    for n, entry in enumerate(added):
        entry["id"] = next_id + n
    if added:
        conn.execute(insert(ENTRIES), added)

    # Positions: kept while the entry's place in search order is the same.
    placed: dict[int, int] = {}
    moving: list[Entry] = []
    for before, after in changed:
        same_place = before["folded"] == after["folded"] and before["name"] == after["name"]
        if same_place and before["id"] in positions:
            placed[after["id"]] = positions[before["id"]]
        elif pieces(after["folded"]):
            moving.append(after)
    moving.extend(entry for entry in added if pieces(entry["folded"]))
    written = [after for _, after in changed] + added
    if moving and not _place(conn, moving, placed):
        refill_search_pairs(conn)  # no gap left somewhere: number them all afresh
    else:
        rows = [
            row
            for entry in written
            if entry["id"] in placed
            for row in _pair_rows(entry, placed[entry["id"]])
        ]
        if rows:
            conn.execute(insert(PAIRS), rows)
    if sqlite:
        _add_fts(conn, written)
    elif conn.dialect.name == "postgresql":
        _flush_gin_pending_list(conn)


def _place(conn: Connection, moving: list[Entry], placed: dict[int, int]) -> bool:
    """Give each of ``moving`` a position between its neighbours in search order (into
    ``placed``); False when some gap is too narrow."""
    e = ENTRIES.c
    ordered: list[tuple[Any, ...]] = list(
        conn.execute(select(e.id, e.folded, e.words).order_by(e.folded, e.name, e.kind, e.key))
    )
    new_ids = {entry["id"] for entry in moving}
    # Runs of new entries between two neighbours that keep their positions.
    runs: list[tuple[int | None, list[int], int | None]] = []
    previous: int | None = None
    run: list[int] = []
    neighbours: list[dict[str, Any]] = []
    for entry_id, folded, words in ordered:
        if not pieces(folded):
            continue
        if entry_id in new_ids:
            run.append(entry_id)
            continue
        if entry_id not in placed:
            neighbours.append({"id": entry_id, "folded": folded, "words": words})
        if run:
            runs.append((previous, run, entry_id))
            run = []
        previous = entry_id
    if run:
        runs.append((previous, run, None))
    known = {**_positions(conn, neighbours), **placed}
    if any(n is not None and n not in known for before, _, after in runs for n in (before, after)):
        return False  # a neighbour without pair rows: number them all afresh
    for before, ids, after in runs:
        low = known[before] if before is not None else -1
        high = known[after] if after is not None else MAX_POSITION + 1
        if high - low <= len(ids):
            return False
        for n, entry_id in enumerate(ids, start=1):
            placed[entry_id] = low + (high - low) * n // (len(ids) + 1)
    return True


def _drop_fts(conn: Connection, entries: list[Entry]) -> None:
    """Remove the FTS5 rows of ``entries`` (their values as stored)."""
    if not entries:
        return
    for chunk in _chunks(entry["id"] for entry in entries):
        conn.execute(delete(FTS_NAMES).where(FTS_NAMES.c.rowid.in_(chunk)))
    # A contentless table forgets a row through its 'delete' command, given the row's values.
    name = FTS_GRAMS.name
    conn.exec_driver_sql(
        f"INSERT INTO {name}({name}, rowid, grams) VALUES ('delete', ?, ?)",
        [(entry["id"], _grams(entry["name"])) for entry in entries],
    )


def _add_fts(conn: Connection, entries: list[Entry]) -> None:
    if not entries:
        return
    names, grams = [], []
    for entry in entries:
        found = trigrams(entry["name"])
        names.append({"rowid": entry["id"], "name": entry["folded"], "size": len(found)})
        grams.append({"rowid": entry["id"], "grams": " ".join(sorted(map(gram_token, found)))})
    conn.execute(insert(FTS_NAMES), names)
    conn.execute(insert(FTS_GRAMS), grams)

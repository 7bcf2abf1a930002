"""The fast write path of a merge: only the rows of objects that change are written.

seed.importing.delta works out the merged state of the objects a merge touches; their plan
comes from seed.feed like any load's, restricted to their keys. The rows of changed, new and
deleted objects and their parts are then updated, inserted and deleted in place, in one
transaction under the load lock, and the search index follows entry by entry
(models.search.incremental). The result equals what seed.load.apply_dataset makes of the merged
whole (tests/cli/test_incremental_merge.py compares both), ids included.
"""

from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, Engine, Table, bindparam, delete, func, insert, select, update

from models import Base, Change, DatasetInfo, FeedState
from models.base import sort_key_of, stamp_now
from models.loading import advance_sequences, begin_transactional_ddl, settle_after_load
from models.search.incremental import update_search_entries
from service.hours import weekly_spans

from .feed import (
    KINDS,
    TRAIT_TABLES,
    ChangePlan,
    Key,
    Logged,
    lock_log,
    plan_changes,
    write_log,
)
from .generate import FACETED_TRAITS, TABLES, Row
from .importing.delta import MergeDelta, merge_delta
from .importing.validate import ImportReport
from .load import LoadResult, _data_tables

_IN_CHUNK = 900
# A merge changing fewer objects than this share of the served ones skips the ANALYZE: the
# statistics of the previous load still describe the data (PostgreSQL's autovacuum refreshes
# them as rows change; the VACUUM after a full load is skipped too).
ANALYZE_SHARE = 0.1


def _table(name: str) -> Table:
    return Base.metadata.tables[name]


def _has_log(conn: Connection) -> bool:
    return bool(conn.scalar(select(func.count()).select_from(FeedState)))


def _read_log_for(conn: Connection, keys: dict[str, set[str]]) -> dict[Key, Logged]:
    """The log entries of ``keys`` (kind -> keys), in sequence order."""
    c = Change.__table__.c
    found: list[tuple[Any, ...]] = []
    for kind, wanted in keys.items():
        ordered = sorted(wanted)
        for start in range(0, len(ordered), _IN_CHUNK):
            chunk = ordered[start : start + _IN_CHUNK]
            statement = select(c.seq, c.kind, c.key, c.op, c.at, c.menu_at, c.digest, c.menu_digest)
            found.extend(conn.execute(statement.where(c.kind == kind, c.key.in_(chunk))))
    found.sort(key=lambda row: row[0])
    return {(kind, key): Logged(*rest) for _, kind, key, *rest in found}


def _version(conn: Connection) -> int:
    return conn.scalar(select(func.max(DatasetInfo.version))) or 0


def apply_merge(
    engine: Engine,
    report: ImportReport,
    *,
    retention: timedelta,
    source: str = "import",
    check: Callable[[Connection], None] | None = None,
) -> LoadResult | None:
    """Merge ``report`` into the stored data, writing only what changes. None (and nothing
    written) when there is no change log yet: the full path starts one. ``check(conn)`` runs
    first under the lock (it may raise MergeError)."""
    with engine.begin() as conn:
        begin_transactional_ddl(conn)
        lock_log(conn)
        if not _has_log(conn):
            return None
        if check is not None:
            check(conn)
        delta = merge_delta(conn, report)
        plan = plan_changes(_read_log_for(conn, delta.keys()), delta.digests, stamp_now())
        plan.fresh = False
        if not plan.changed:
            _count_unchanged(conn, plan)
            return LoadResult({}, plan.counts, _version(conn), changed=False)
        version = _version(conn) + 1
        written = _write(conn, delta, plan)
        _count_unchanged(conn, plan)
        # One row, as after a full load (which recreates the table).
        conn.execute(delete(DatasetInfo))
        conn.execute(
            insert(DatasetInfo),
            {
                "id": 1,
                "version": version,
                "source": source,
                "seed": None,
                "reference_day": delta.reference_day,
                "loaded_at": plan.now,
            },
        )
        write_log(conn, plan, retention=retention)
        advance_sequences(conn, [_table(name) for name in [*written, "dataset_info"]])
        searched = {k: v for k, v in delta.keys().items() if k != "law"}
        update_search_entries(conn, searched)
        counts = _table_counts(conn)
        served = sum(counts[table.name] for table, _ in KINDS.values())
        large = len(plan.entries) > ANALYZE_SHARE * served
        if large:
            conn.exec_driver_sql("ANALYZE")
    if large:  # as after a full load (PostgreSQL: VACUUM marks the rewritten pages visible)
        settle_after_load(engine, [*_data_tables(), Change.__table__])  # type: ignore[list-item]
    return LoadResult(counts, plan.counts, version, changed=True)


def _table_counts(conn: Connection) -> dict[str, int]:
    """Rows per table, as a full load reports them (the tables of Dataset.tables)."""
    names = [*TABLES, "dispensary_open_spans", "dispensary_time_zones"]
    return {
        name: conn.scalar(select(func.count()).select_from(_table(name))) or 0 for name in names
    }


def _count_unchanged(conn: Connection, plan: ChangePlan) -> None:
    """Every stored object the merge left alone counts as unchanged, as in a full load."""
    for kind, (table, _) in KINDS.items():
        counts = plan.counts.setdefault(kind, Counter())
        alive = conn.scalar(select(func.count()).select_from(table)) or 0
        counts["unchanged"] = alive - counts["inserted"] - counts["replaced"]
        for outcome in ("unchanged", "inserted", "replaced", "deleted"):
            if not counts[outcome]:
                del counts[outcome]


def _upserted(plan: ChangePlan) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {kind: set() for kind in KINDS}
    for entry in plan.entries:
        if entry["op"] == "upsert":
            found[entry["kind"]].add(entry["key"])
    return found


class _Writer:
    """Executes the writes and counts rows per table."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.counts: Counter[str] = Counter()

    def insert(self, name: str, rows: list[Row]) -> None:
        if rows:
            self.conn.execute(insert(_table(name)), rows)
            self.counts[name] += len(rows)

    def update(self, name: str, key: str, rows: list[Row]) -> None:
        if not rows:
            return
        table = _table(name)
        # Executemany: the SET clause takes every column of the rows but the key.
        statement = update(table).where(table.c[key] == bindparam("b_key"))
        self.conn.execute(
            statement, [{**{k: v for k, v in r.items() if k != key}, "b_key": r[key]} for r in rows]
        )
        self.counts[name] += len(rows)

    def delete(self, name: str, column: str, values: set[Any]) -> None:
        ordered = sorted(values)
        table = _table(name)
        for start in range(0, len(ordered), _IN_CHUNK):
            chunk = ordered[start : start + _IN_CHUNK]
            self.conn.execute(delete(table).where(table.c[column].in_(chunk)))
        self.counts[name] += len(ordered)

    def put(self, name: str, key: str, rows: list[Row], stored: set[Any]) -> None:
        """Update the rows whose key is stored, insert the others."""
        self.update(name, key, [r for r in rows if r[key] in stored])
        self.insert(name, [r for r in rows if r[key] not in stored])


def _write(conn: Connection, delta: MergeDelta, plan: ChangePlan) -> Counter[str]:
    """Write the plan's changed objects, the replaced parts and the deletions; return the rows
    written per table."""
    w = _Writer(conn)
    changed = _upserted(plan)
    now = plan.now
    stored = {kind: set(ids.values()) for kind, ids in delta.stored_ids.items()}
    stamps = plan.stamps
    gone = {kind: set(keyed.values()) for kind, keyed in delta.deleted.items()}

    # Laws first: dispensaries and doctors name them.
    laws_t = _table("laws")
    stored_laws: set[str] = set(
        conn.scalars(select(laws_t.c.state_code).where(laws_t.c.state_code.in_(changed["law"])))
    )
    law_rows = [
        {**delta.laws[code], "updated_at": stamps[("law", code)]} for code in sorted(changed["law"])
    ]
    w.put("laws", "state_code", law_rows, stored_laws)

    # Strains (never deleted and inserted again: menu items would lose them), traits anew.
    strain_rows: list[Row] = []
    trait_rows: dict[str, list[Row]] = {name: [] for name in TRAIT_TABLES}
    for slug in sorted(changed["strain"], key=lambda s: delta.strains[s]["id"]):
        row = delta.strains[slug]
        traits = delta.traits.get(row["id"], {})
        listed = {
            column: [t["name"] for t in sorted(traits.get(table, []), key=lambda t: t["position"])]
            for column, table in (
                ("effect_list", "strain_effects"),
                ("flavor_list", "strain_flavors"),
            )
        }
        strain_rows.append(
            {
                **row,
                **listed,
                "sort_key": sort_key_of(row["name"]),
                "updated_at": stamps[("strain", slug)],
            }
        )
        facets = {
            "type": row["type"],
            "thc": row["thc"],
            "cbd": row["cbd"],
            "sort_key": sort_key_of(row["name"]),
        }
        for table, rows in traits.items():
            extra = facets if table in FACETED_TRAITS else {}
            trait_rows[table].extend({**t, **extra} for t in rows)
    rewritten = {row["id"] for row in strain_rows} | gone.get("strain", set())
    for table in trait_rows:
        w.delete(
            table, "strain_id", rewritten & stored.get("strain", set()) | gone.get("strain", set())
        )
    # A changed strain's edges anew; a deleted strain's edges both ways (its children are
    # changed strains, so they get theirs anew without it).
    w.delete(
        "strain_parents",
        "strain_id",
        rewritten & stored.get("strain", set()) | gone.get("strain", set()),
    )
    w.delete("strain_parents", "parent_id", gone.get("strain", set()))
    w.put("strains", "id", strain_rows, stored.get("strain", set()))
    for table, rows in trait_rows.items():
        w.insert(table, rows)
    w.insert(
        "strain_parents",
        [edge for row in strain_rows for edge in delta.parents.get(row["id"], [])],
    )

    # Dispensaries, their openings, replaced menus and reviews.
    shop_rows = []
    for key in sorted(changed["dispensary"], key=lambda k: delta.shops[k]["id"]):
        row = delta.shops[key]
        shop_rows.append(
            {
                **row,
                "sort_key": sort_key_of(row["name"]),
                "updated_at": stamps[("dispensary", key)],
                "menu_updated_at": plan.menu_stamps[key],
            }
        )
    shop_ids = {row["id"] for row in shop_rows}
    gone_shops = gone.get("dispensary", set())
    w.delete(
        "dispensary_open_spans",
        "dispensary_id",
        (shop_ids & stored.get("dispensary", set())) | gone_shops,
    )
    w.put("dispensaries", "id", shop_rows, stored.get("dispensary", set()))
    spans = [
        {"dispensary_id": row["id"], "starts": starts, "ends": ends}
        for row in shop_rows
        for starts, ends in weekly_spans(row["hours"])
    ]
    w.insert("dispensary_open_spans", spans)
    # Deleted strains leave the menu items naming them without a strain.
    if delta.nulled_strains:
        items = _table("menu_items")
        ordered = sorted(delta.nulled_strains)
        for start in range(0, len(ordered), _IN_CHUNK):
            chunk = ordered[start : start + _IN_CHUNK]
            conn.execute(update(items).where(items.c.strain_id.in_(chunk)).values(strain_id=None))
    w.delete("menu_items", "dispensary_id", delta.replaced_menus | gone_shops)
    w.insert(
        "menu_items",
        [{**r, "updated_at": now} for s in sorted(delta.replaced_menus) for r in delta.menus[s]],
    )
    w.delete("reviews", "dispensary_id", delta.replaced_reviews | gone_shops)
    w.insert(
        "reviews",
        [
            {**r, "updated_at": now}
            for s in sorted(delta.replaced_reviews)
            for r in delta.reviews[s]
        ],
    )

    # Deals and doctors.
    w.delete("deals", "id", gone.get("deal", set()))
    deal_rows = [
        {**delta.deals[key], "updated_at": stamps[("deal", key)]}
        for key in sorted(changed["deal"], key=lambda k: delta.deals[k]["id"])
    ]
    w.put("deals", "id", deal_rows, stored.get("deal", set()))
    w.delete("doctors", "id", gone.get("doctor", set()))
    doctor_rows = [
        {
            **delta.doctors[key],
            "sort_key": sort_key_of(delta.doctors[key]["name"]),
            "updated_at": stamps[("doctor", key)],
        }
        for key in sorted(changed["doctor"], key=lambda k: delta.doctors[k]["id"])
    ]
    w.put("doctors", "id", doctor_rows, stored.get("doctor", set()))

    # Deletions of parents last, their children gone already.
    w.delete("dispensaries", "id", gone_shops)
    w.delete("strains", "id", gone.get("strain", set()))
    w.delete("laws", "state_code", gone.get("law", set()))
    _sync_time_zones(conn, w)
    return w.counts


def _sync_time_zones(conn: Connection, w: _Writer) -> None:
    """The zones table holds every zone some dispensary is in."""
    shops, zones = _table("dispensaries"), _table("dispensary_time_zones")
    wanted: set[str] = set(conn.scalars(select(shops.c.timezone).distinct()))
    present: set[str] = set(conn.scalars(select(zones.c.name)))
    w.delete("dispensary_time_zones", "name", present - wanted)
    w.insert("dispensary_time_zones", [{"name": z} for z in sorted(wanted - present)])

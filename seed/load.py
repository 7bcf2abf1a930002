"""Loading a dataset into a database: only what changed gets new stamps and a log entry.

A load compares the dataset with the change log (seed.feed): unchanged objects keep their
stamps, new and changed ones are stamped with the load's instant, and vanished ones are logged
as deletions. The tables themselves are rebuilt in one transaction (API keys and the log are
kept); an import that changes nothing leaves the database as it was.
"""

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, Engine, Table, func, insert, inspect, select

from models import ApiKey, Base, Change, DatasetInfo, FeedState
from models.base import stamp_now
from models.loading import advance_sequences, begin_transactional_ddl, settle_after_load
from models.search.rebuild import rebuild_search_index

from .feed import KINDS, ChangePlan, dataset_digests, lock_log, plan_changes, read_log, write_log
from .generate import Dataset, Row

CHUNK_SIZE = 5000
SOURCE = "demo-seed"
DEFAULT_RETENTION = timedelta(days=30)

Progress = Callable[[str, int], None]
# table name -> kind, for the tables of served objects.
_KIND_OF_TABLE = {table.name: (kind, key) for kind, (table, key) in KINDS.items()}


@dataclass(frozen=True)
class LoadResult:
    """What a load did: rows per table written (none when nothing changed), the outcome per
    kind of object (inserted, replaced, deleted, unchanged), and the data version after it."""

    counts: dict[str, int]
    changes: dict[str, Counter[str]]
    version: int
    changed: bool


def _kept_tables() -> set[Table]:
    # API keys are operator state and the change log outlives every load.
    return {ApiKey.__table__, Change.__table__, FeedState.__table__}  # type: ignore[arg-type]


def _data_tables() -> list[Table]:
    kept = _kept_tables()
    return [t for t in Base.metadata.sorted_tables if t not in kept]


def _previous_version(conn: Connection) -> int:
    if not inspect(conn).has_table(DatasetInfo.__tablename__):
        return 0
    return conn.execute(select(func.max(DatasetInfo.version))).scalar() or 0


def load_dataset(
    engine: Engine,
    dataset: Dataset,
    *,
    progress: Progress | None = None,
    source: str = SOURCE,
    retention: timedelta = DEFAULT_RETENTION,
) -> dict[str, int]:
    """Rebuild every data table from ``dataset`` in one transaction; return rows per table.

    ``progress(table, rows)`` is called after each chunk; ``source`` is recorded in
    DatasetInfo ("demo-seed" or "import"). Stamps and the change log follow what changed.
    """
    return apply_dataset(
        engine, dataset, progress=progress, source=source, retention=retention, rebuild=True
    ).counts


def apply_dataset(
    engine: Engine,
    dataset: Dataset | Callable[[Connection], Dataset],
    *,
    progress: Progress | None = None,
    source: str = SOURCE,
    retention: timedelta = DEFAULT_RETENTION,
    rebuild: bool = False,
) -> LoadResult:
    """Make the stored data equal ``dataset``. Without ``rebuild``, a dataset identical to the
    stored one writes nothing (no stamp, no log entry, no new data version).

    ``dataset`` may be a function building it from the stored data (a merge): it runs in the
    load's transaction, after the lock, so no other load commits in between.
    """
    with engine.begin() as conn:
        begin_transactional_ddl(conn)
        lock_log(conn)
        if callable(dataset):
            dataset = dataset(conn)
        digests = dataset_digests(dataset)
        plan = plan_changes(read_log(conn), digests, stamp_now())
        if not (rebuild or plan.changed or plan.fresh):
            return LoadResult({}, plan.counts, _previous_version(conn), changed=False)
        version = _previous_version(conn) + 1
        counts = _rebuild_tables(conn, dataset, plan, progress)
        conn.execute(
            insert(DatasetInfo),
            {
                "version": version,
                "source": source,
                "seed": dataset.seed,
                "reference_day": dataset.reference_day,
                "loaded_at": plan.now,
            },
        )
        write_log(conn, plan, retention=retention)
        advance_sequences(conn, _data_tables())
        rebuild_search_index(conn)  # SQLite's FTS5 tables are filled here, in the transaction
        # Fresh statistics let both SQLite and PostgreSQL pick index plans for the filters.
        conn.exec_driver_sql("ANALYZE")
    settle_after_load(engine, [*_data_tables(), Change.__table__])  # type: ignore[list-item]
    return LoadResult(counts, plan.counts, version, changed=plan.changed)


def _rebuild_tables(
    conn: Connection, dataset: Dataset, plan: ChangePlan, progress: Progress | None
) -> dict[str, int]:
    """Drop and refill every data table; served objects carry the plan's stamps."""
    Base.metadata.drop_all(conn, tables=_data_tables())
    Base.metadata.create_all(conn)  # checkfirst: the kept tables only when missing
    counts: dict[str, int] = {}
    for name, rows in dataset.tables().items():
        table = Base.metadata.tables[name]
        statement = insert(table)
        if name in _KIND_OF_TABLE:
            rows = _stamped(name, rows, plan)
        elif "updated_at" in table.c:
            # Parts of an object (menu items, reviews): one stamp for the load, not one each.
            statement = statement.values(updated_at=plan.now)
        for start in range(0, len(rows), CHUNK_SIZE):
            chunk = rows[start : start + CHUNK_SIZE]
            conn.execute(statement, chunk)
            if progress is not None:
                progress(name, len(chunk))
        counts[name] = len(rows)
    return counts


def _stamped(table: str, rows: list[Row], plan: ChangePlan) -> list[Row]:
    kind, key = _KIND_OF_TABLE[table]
    stamps = plan.stamps
    if kind != "dispensary":
        return [{**row, "updated_at": stamps[(kind, row[key])]} for row in rows]
    menus = plan.menu_stamps
    return [
        {**row, "updated_at": stamps[(kind, row[key])], "menu_updated_at": menus[row[key]]}
        for row in rows
    ]


def last_change(conn: Connection) -> datetime | None:
    """When the data last changed (the feed's as-of instant), None before any load."""
    return conn.scalar(select(FeedState.as_of))

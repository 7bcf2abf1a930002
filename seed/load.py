"""Loading a generated dataset into a database, replacing whatever was there."""

from collections.abc import Callable

from sqlalchemy import Connection, Engine, Table, func, insert, inspect, select

from models import ApiKey, Base, DatasetInfo
from models.base import utcnow
from models.loading import advance_sequences, begin_transactional_ddl, settle_after_load
from models.search.rebuild import rebuild_search_index

from .generate import Dataset

CHUNK_SIZE = 5000
SOURCE = "demo-seed"

Progress = Callable[[str, int], None]


def _data_tables() -> list[Table]:
    # API keys are operator state, not data: a re-seed must not lock every client out.
    return [t for t in Base.metadata.sorted_tables if t is not ApiKey.__table__]


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
) -> dict[str, int]:
    """Replace every data table (API keys are kept), insert a DatasetInfo row; one transaction.

    Returns the number of rows inserted per dataset table. ``progress(table, rows)`` is
    called after each chunk with the table name and the rows just inserted. ``source`` is
    recorded in DatasetInfo: "demo-seed" for the generated data, "import" for imported files.
    """
    counts: dict[str, int] = {}
    loaded_at = utcnow()
    with engine.begin() as conn:
        begin_transactional_ddl(conn)
        version = _previous_version(conn) + 1
        Base.metadata.drop_all(conn, tables=_data_tables())
        Base.metadata.create_all(conn)  # checkfirst: creates api_keys only when missing
        for name, rows in dataset.tables().items():
            table = Base.metadata.tables[name]
            statement = insert(table)
            if "updated_at" in table.c:
                # Every row of one load shares one timestamp instead of one clock read each.
                statement = statement.values(updated_at=loaded_at)
            for start in range(0, len(rows), CHUNK_SIZE):
                chunk = rows[start : start + CHUNK_SIZE]
                conn.execute(statement, chunk)
                if progress is not None:
                    progress(name, len(chunk))
            counts[name] = len(rows)
        conn.execute(
            insert(DatasetInfo),
            {
                "version": version,
                "source": source,
                "seed": dataset.seed,
                "reference_day": dataset.reference_day,
                "loaded_at": loaded_at,
            },
        )
        advance_sequences(conn, _data_tables())
        rebuild_search_index(conn)  # SQLite's FTS5 tables are filled here, in the transaction
        # Fresh statistics let both SQLite and PostgreSQL pick index plans for the filters.
        conn.exec_driver_sql("ANALYZE")
    settle_after_load(engine, _data_tables())
    return counts

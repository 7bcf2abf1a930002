"""Bulk loads on both databases: transactional DDL, id sequences, and settling afterwards."""

import sqlite3
from typing import cast

from sqlalchemy import Connection, Engine, Table, func, select, text


def begin_transactional_ddl(conn: Connection) -> None:
    """Make DROP/CREATE part of the open transaction on SQLite too (PostgreSQL already is).

    pysqlite only opens a transaction before DML, so DDL would otherwise commit on its own and
    a failed load would leave empty tables behind. IMMEDIATE takes the write lock at once, so
    two loads run one after the other rather than both reading the change log first.
    """
    if conn.dialect.name != "sqlite":
        return
    # The SQLite driver is pysqlite: its connection says whether a transaction is open.
    dbapi_connection = cast(sqlite3.Connection, conn.connection.dbapi_connection)
    if not dbapi_connection.in_transaction:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def advance_sequences(conn: Connection, tables: list[Table]) -> None:
    """After bulk inserts with explicit ids, move PostgreSQL's id sequences past the data.

    SQLite's INTEGER PRIMARY KEY needs nothing: it always continues from max(id).
    """
    if conn.dialect.name != "postgresql":
        return
    for table in tables:
        if "id" not in table.c or not table.c.id.autoincrement:
            continue
        highest = conn.scalar(select(func.max(table.c.id))) or 0
        conn.execute(
            text("SELECT setval(pg_get_serial_sequence(:table, 'id'), :value, :called)"),
            {"table": table.name, "value": max(highest, 1), "called": highest > 0},
        )


def settle_after_load(engine: Engine, tables: list[Table]) -> None:
    """After a load commits, VACUUM (ANALYZE) the loaded tables on PostgreSQL.

    Freshly written pages are not yet all-visible, so the index-only scans behind every list
    count would still visit the table; vacuuming marks them. SQLite needs only the load's ANALYZE.
    """
    if engine.dialect.name != "postgresql":
        return
    names = ", ".join(engine.dialect.identifier_preparer.format_table(t) for t in tables)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql(f"VACUUM (ANALYZE) {names}")

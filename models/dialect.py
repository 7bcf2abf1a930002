"""The one place for SQL that differs between SQLite and PostgreSQL."""

from sqlalchemy import Connection, Table, func, select, text


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


def begin_transactional_ddl(conn: Connection) -> None:
    """Make DROP/CREATE part of the open transaction on SQLite too (PostgreSQL already is).

    pysqlite only opens a transaction before DML, so DDL would otherwise commit on its own and
    a failed load would leave empty tables behind.
    """
    if conn.dialect.name == "sqlite" and not conn.connection.dbapi_connection.in_transaction:
        conn.exec_driver_sql("BEGIN")

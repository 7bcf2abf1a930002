"""Engines, sessions and connection setup for SQLite and PostgreSQL."""

import math
import sqlite3
import time
from collections.abc import Callable
from typing import Any, TypeAlias

import orjson
from sqlalchemy import Connection, Engine, Row, Select, create_engine, event, exc
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import ConnectionPoolEntry, PoolProxiedConnection, StaticPool

from .search.trigrams import SIMILARITY_THRESHOLD

# What read-only service functions accept: an ORM session, or a plain connection where the
# caller makes no ORM objects (a request's list and law reads: no Session to open and close).
Reader = Session | Connection
# A SELECT of any columns (SQLAlchemy types a Select by the types of its columns).
AnySelect: TypeAlias = Select[*tuple[Any, ...]]
# A row of such a statement.
AnyRow: TypeAlias = Row[*tuple[Any, ...]]

# A pooled PostgreSQL connection idle for longer than this is pinged before it is handed out.
PING_AFTER_IDLE_S = 1.0
# psycopg prepares a statement on its second run on a connection (its default: the sixth) and
# keeps up to PREPARED_MAX of them (its default: 100). The API sends a few hundred distinct
# statements; unprepared, each run is parsed and planned again (docs/performance.md).
PREPARE_THRESHOLD = 1
PREPARED_MAX = 500
# Python's sqlite3 keeps the 128 statements it compiled last per connection (its default); the
# same few hundred statements would keep falling out and being compiled again.
SQLITE_CACHED_STATEMENTS = PREPARED_MAX


# The execution option under which each engine carries its ZoneCache (make_engine).
ZONES_OPTION = "cds_zone_cache"


class ZoneCache:
    """The time zones a database's dispensaries are in, as service.open_sql last read them,
    and when: one per engine, made with it by :func:`make_engine`."""

    __slots__ = ("_read",)

    def __init__(self) -> None:
        self._read: tuple[tuple[str, ...], float] | None = None

    def zones(self) -> tuple[str, ...] | None:
        """The zones kept, or None when none were."""
        return self._read[0] if self._read is not None else None

    def keep(self, zones: tuple[str, ...]) -> None:
        """Keep ``zones``, read just now."""
        self._read = (zones, time.monotonic())

    def read_within(self, seconds: float) -> bool:
        """Whether the zones kept were read less than ``seconds`` ago."""
        return self._read is not None and time.monotonic() - self._read[1] < seconds


def zone_cache(db: Reader) -> ZoneCache:
    """The zone cache of the engine ``db`` (a session or a connection) works on."""
    cache: ZoneCache = engine_of(db).get_execution_options()[ZONES_OPTION]
    return cache


def engine_of(db: Reader) -> Engine:
    """The engine ``db`` (a session or a connection) works on."""
    bind = db if isinstance(db, Connection) else db.get_bind()
    return bind.engine if isinstance(bind, Connection) else bind


def dialect_name(db: Reader) -> str:
    """The name of the database ``db`` (a session or a connection) works on: "sqlite" or
    "postgresql"."""
    return engine_of(db).dialect.name


def make_engine(
    url: str,
    *,
    echo: bool = False,
    connect_timeout_s: int = 3,
    statement_timeout_ms: int = 5_000,
    ping_after_idle_s: float = PING_AFTER_IDLE_S,
    autocommit: bool = False,
    accel: bool = True,
) -> Engine:
    """Build an engine for ``url``; SQLite gets foreign keys on and WAL for file databases.

    PostgreSQL connections give up connecting after ``connect_timeout_s`` and cancel any
    statement running longer than ``statement_timeout_ms``, so a sick database frees workers.
    A pooled connection idle for ``ping_after_idle_s`` is checked before reuse. With
    ``autocommit`` (PostgreSQL only) every connection of the pool runs each statement in a
    transaction of its own, and nothing is rolled back when it returns to the pool. With
    ``accel`` PostgreSQL connections use models.accel's cursor; without, psycopg's own.
    Each engine carries a :class:`ZoneCache` of its own (:func:`zone_cache`).
    """
    if url.startswith("sqlite"):
        in_memory = url in ("sqlite://", "sqlite:///:memory:")
        sqlite_args = {"check_same_thread": False, "cached_statements": SQLITE_CACHED_STATEMENTS}
        kwargs: dict[str, Any] = {"connect_args": sqlite_args}
        if in_memory:
            kwargs["poolclass"] = StaticPool
        engine = create_engine(
            url,
            echo=echo,
            json_deserializer=orjson.loads,
            execution_options={ZONES_OPTION: ZoneCache()},
            **kwargs,
        )
        event.listen(engine, "connect", _sqlite_pragmas(wal=not in_memory))
        return engine
    connect_args: dict[str, Any] = {
        "connect_timeout": connect_timeout_s,
        # pg_trgm's % threshold is pinned to the documented one (a placeholder setting until
        # the extension loads). force_generic_plan: a statement psycopg prepared is planned once
        # instead of re-planned on every run (docs/performance.md). jit=off: every statement is
        # a short read, and compiling one the planner rates costly took longer than running it.
        "options": f"-c statement_timeout={statement_timeout_ms} "
        f"-c pg_trgm.similarity_threshold={float(SIMILARITY_THRESHOLD)} "
        "-c plan_cache_mode=force_generic_plan -c jit=off",
        "prepare_threshold": PREPARE_THRESHOLD,
    }
    if accel:
        connect_args["cursor_factory"] = _lazy_description_cursor()
    transactions: dict[str, Any] = (
        {"isolation_level": "AUTOCOMMIT", "skip_autocommit_rollback": True} if autocommit else {}
    )
    engine = create_engine(
        url,
        echo=echo,
        pool_timeout=connect_timeout_s,
        connect_args=connect_args,
        json_deserializer=orjson.loads,
        execution_options={ZONES_OPTION: ZoneCache()},
        **transactions,
    )
    _ping_when_idle(engine, ping_after_idle_s)
    event.listen(engine, "connect", _keep_prepared)
    return engine


def _keep_prepared(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    dbapi_connection.prepared_max = PREPARED_MAX


def _lazy_description_cursor() -> type:
    # psycopg is installed only for PostgreSQL, so the module is imported only here.
    from .accel.pg_cursor import LazyDescriptionCursor

    return LazyDescriptionCursor


def _ping_when_idle(engine: Engine, idle_s: float) -> None:
    """Ping a pooled connection before reuse only when it sat unused for ``idle_s``.

    The pool's pre-ping would cost a round trip on every checkout. If a busy connection died,
    its statement fails (a 503) and SQLAlchemy replaces the pool's connections.
    """

    @event.listens_for(engine, "checkin")
    def stamp(_dbapi_connection: DBAPIConnection, record: ConnectionPoolEntry) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def ping_if_idle(
        dbapi_connection: DBAPIConnection,
        record: ConnectionPoolEntry,
        _proxy: PoolProxiedConnection,
    ) -> None:
        idle_since = record.info.get("idle_since")
        if idle_since is None or time.monotonic() - idle_since < idle_s:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as error:  # any failure means this connection cannot be trusted
            raise exc.DisconnectionError("pooled connection failed its ping") from error


# The math functions distances use (service.geo.miles_sql), for an SQLite built without its own.
MATH_FUNCTIONS = {"sin": math.sin, "cos": math.cos, "asin": math.asin, "sqrt": math.sqrt}


def ensure_math_functions(dbapi_connection: sqlite3.Connection, *, replace: bool = False) -> bool:
    """Give an SQLite connection ``sin``, ``cos``, ``asin`` and ``sqrt`` from Python's math
    module when its library was built without SQLITE_ENABLE_MATH_FUNCTIONS (or always, with
    ``replace``). Both are the C library's functions, so the results are the same. True when
    they were registered."""
    cursor = dbapi_connection.cursor()
    try:
        built_in = cursor.execute(
            "SELECT sqlite_compileoption_used('ENABLE_MATH_FUNCTIONS')"
        ).fetchone()[0]
    finally:
        cursor.close()
    if built_in and not replace:
        return False
    for name, function in MATH_FUNCTIONS.items():
        dbapi_connection.create_function(name, 1, function, deterministic=True)
    return True


def _sqlite_pragmas(*, wal: bool) -> Callable[[sqlite3.Connection, ConnectionPoolEntry], None]:
    def on_connect(dbapi_connection: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
        ensure_math_functions(dbapi_connection)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        if wal:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    return on_connect


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions for read-mostly request work; objects stay usable after commit."""
    return sessionmaker(bind=engine, expire_on_commit=False, autoflush=False)


def make_engines(url: str, *, accel: bool = True, **options: Any) -> tuple[Engine, Engine]:
    """(the engine for loads and commands, the engine requests use), both built by
    :func:`make_engine` with ``accel`` and ``options``.

    On PostgreSQL the request engine is a pool of autocommit connections: each statement reads
    the latest committed data, without a BEGIN and ROLLBACK round trip per request. Loads keep
    their one transaction on the first engine. On SQLite both are the same engine.
    """
    engine = make_engine(url, accel=accel, **options)
    if engine.dialect.name != "postgresql":
        return engine, engine
    return engine, make_engine(url, autocommit=True, accel=accel, **options)

"""Engine and session factory construction, including SQLite connection pragmas."""

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from .dialect import SIMILARITY_THRESHOLD


def make_engine(
    url: str,
    *,
    echo: bool = False,
    connect_timeout_s: int = 3,
    statement_timeout_ms: int = 5_000,
) -> Engine:
    """Build an engine for ``url``; SQLite gets foreign keys on and WAL for file databases.

    PostgreSQL connections give up connecting after ``connect_timeout_s`` and cancel any
    statement running longer than ``statement_timeout_ms``, so a sick database frees workers.
    """
    if url.startswith("sqlite"):
        in_memory = url in ("sqlite://", "sqlite:///:memory:")
        kwargs: dict = {"connect_args": {"check_same_thread": False}}
        if in_memory:
            kwargs["poolclass"] = StaticPool
        engine = create_engine(url, echo=echo, **kwargs)
        event.listen(engine, "connect", _sqlite_pragmas(wal=not in_memory))
        return engine
    connect_args = {
        "connect_timeout": connect_timeout_s,
        # The similarity threshold of pg_trgm's % operator is pinned to the documented one for
        # every session (a placeholder setting until the extension loads, then its value).
        "options": f"-c statement_timeout={statement_timeout_ms} "
        f"-c pg_trgm.similarity_threshold={float(SIMILARITY_THRESHOLD)}",
    }
    return create_engine(
        url,
        echo=echo,
        pool_pre_ping=True,
        pool_timeout=connect_timeout_s,
        connect_args=connect_args,
    )


def _sqlite_pragmas(*, wal: bool):
    def on_connect(dbapi_connection, _record) -> None:
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


def request_engine(engine: Engine) -> Engine:
    """The engine request sessions use (same pool). On PostgreSQL every statement runs in a
    transaction of its own (autocommit): it reads the latest committed data, as it would in the
    default READ COMMITTED transaction, without a BEGIN and a ROLLBACK round trip per request.
    Loads keep their single transaction: they use ``engine`` itself."""
    if engine.dialect.name == "postgresql":
        return engine.execution_options(isolation_level="AUTOCOMMIT")
    return engine

"""The app's engines and the per-request database handles, each opened on first use and closed
at the end of the request: a plain connection for the reads that make no ORM objects (every
read of either edge) and a session for the rest (checking a key). A request that
opens no session is cheaper (docs/performance.md).
"""

import os

from flask import Flask, current_app
from sqlalchemy import Connection
from sqlalchemy.orm import Session

from models.db import make_engines, make_session_factory

from .context import current_g

ENGINE_EXTENSION = "cds.engine"  # loads and commands
SESSIONS_EXTENSION = "cds.sessions"
REQUEST_ENGINE_EXTENSION = "cds.request_engine"  # request sessions and connections, /health


def init_database(app: Flask) -> None:
    """Build the engines from ``DATABASE_URL`` and close each request's handles on teardown."""
    url = app.config["DATABASE_URL"]
    if url.startswith(f"sqlite:///{app.instance_path}"):
        # The default database file lives in the instance folder, which may not exist yet.
        os.makedirs(app.instance_path, exist_ok=True)
    engine, requests = make_engines(
        url,
        accel=app.config["SPEED_TRICKS"],
        connect_timeout_s=app.config["DB_CONNECT_TIMEOUT_S"],
        statement_timeout_ms=app.config["DB_STATEMENT_TIMEOUT_MS"],
    )
    app.extensions[ENGINE_EXTENSION] = engine
    app.extensions[REQUEST_ENGINE_EXTENSION] = requests
    app.extensions[SESSIONS_EXTENSION] = make_session_factory(requests)

    @app.teardown_appcontext
    def close_database(_exc: BaseException | None) -> None:
        close_request_handles()


def dispose_engines(app: Flask, *, close: bool = True) -> None:
    """Close the app's pooled database connections (both engines); ``close=False`` only
    forgets them (a forked worker must not use or close its parent's connections)."""
    for name in (ENGINE_EXTENSION, REQUEST_ENGINE_EXTENSION):
        app.extensions[name].dispose(close=close)


def request_session() -> Session:
    """Return this request's session, opening it on first use."""
    globals_ = current_g()
    session: Session | None = globals_.get("db_session")
    if session is None:
        session = globals_.db_session = current_app.extensions[SESSIONS_EXTENSION]()
    return session


def request_connection() -> Connection:
    """Return this request's connection for column statements, opening it on first use."""
    globals_ = current_g()
    connection: Connection | None = globals_.get("db_connection")
    if connection is None:
        engine = current_app.extensions[REQUEST_ENGINE_EXTENSION]
        connection = globals_.db_connection = engine.connect()
    return connection


def close_request_handles() -> None:
    """Close whatever this request opened (a session gives its connection back to the pool)."""
    globals_ = current_g()
    session = globals_.pop("db_session", None)
    connection = globals_.pop("db_connection", None)
    if session is not None:
        session.close()
    if connection is not None:
        connection.close()

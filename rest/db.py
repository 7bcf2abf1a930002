"""The per-request database handles, each opened on first use and closed by app.py's teardown:
a plain connection for the reads that make no ORM objects (lists, search, laws, strain detail)
and a session for the rest. A list request opens no session: checking out a connection and
returning it costs about a quarter of opening a session, taking its connection and closing it.
"""

from flask import current_app, g
from sqlalchemy import Connection
from sqlalchemy.orm import Session

SESSIONS_EXTENSION = "cds.sessions"
REQUEST_ENGINE_EXTENSION = "cds.request_engine"  # request sessions and connections, /health


def request_session() -> Session:
    """Return this request's session, opening it on first use."""
    if "db_session" not in g:
        g.db_session = current_app.extensions[SESSIONS_EXTENSION]()
    return g.db_session


def request_connection() -> Connection:
    """Return this request's connection for column statements, opening it on first use."""
    if "db_connection" not in g:
        g.db_connection = current_app.extensions[REQUEST_ENGINE_EXTENSION].connect()
    return g.db_connection


def close_request_handles() -> None:
    """Close whatever this request opened (a session gives its connection back to the pool)."""
    session = g.pop("db_session", None)
    connection = g.pop("db_connection", None)
    if session is not None:
        session.close()
    if connection is not None:
        connection.close()

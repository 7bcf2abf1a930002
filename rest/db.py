"""The per-request database session: created lazily, closed by app.py's teardown."""

from flask import current_app, g
from sqlalchemy.orm import Session

SESSIONS_EXTENSION = "cds.sessions"


def request_session() -> Session:
    """Return this request's session, opening it on first use."""
    if "db_session" not in g:
        g.db_session = current_app.extensions[SESSIONS_EXTENSION]()
    return g.db_session

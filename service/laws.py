"""Law records: one per jurisdiction."""

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from models import Law

from .errors import NotFound
from .geo import is_jurisdiction


def get_law(session: Session, state: str) -> Law:
    """Return the law record for a two-letter code (any case); raise NotFound otherwise."""
    law = session.get(Law, state.upper()) if is_jurisdiction(state) else None
    if law is None:
        raise NotFound(f"no law record for state {state!r}; use a two-letter code such as CA")
    return law


def list_laws(session: Session) -> list[Law]:
    """Return every law record ordered by state code."""
    return list(session.scalars(select(Law).order_by(Law.state_code)))


def laws_by_codes(session: Session, codes: Iterable[str]) -> dict[str, Law]:
    """Return the law records for the given state codes, keyed by code."""
    wanted = set(codes)
    if not wanted:
        return {}
    return {
        law.state_code: law
        for law in session.scalars(select(Law).where(Law.state_code.in_(wanted)))
    }

"""Law records: one per jurisdiction.

Records come back as rows of the columns the API shows (the provenance columns, notes,
confidence and sources, stay in the database), from statements built once.
"""

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from sqlalchemy import Row, bindparam, select

from models import Law
from models.db import AnySelect, Reader

from .errors import NotFound
from .filters import LawFilters
from .geo import is_jurisdiction
from .paging import rows
from .stamps import SINCE, since_where, stamp_order

# A law record as the service returns it: a row with the attributes of SHOWN.
LawRecord = Row[*tuple[Any, ...]]

SHOWN = (
    Law.state,
    Law.state_code,
    Law.recreational,
    Law.medical,
    Law.possession_limit_oz,
    Law.home_grow,
    Law.home_grow_plants,
    Law.delivery_legal,
    Law.updated,
    Law.updated_at,
)


@lru_cache(maxsize=1)
def _by_codes() -> AnySelect:
    return select(*SHOWN).where(Law.state_code.in_(bindparam("codes", expanding=True)))


@lru_cache(maxsize=1)
def _by_code() -> AnySelect:
    return select(*SHOWN).where(Law.state_code == bindparam("code"))


@lru_cache(maxsize=32)
def _all(
    compared: tuple[str, ...] = (), since: bool = False, sort: str = "state_code"
) -> AnySelect:
    """By state code, or by the change stamp through the (updated_at, state_code) index."""
    where = [getattr(Law, name) == bindparam(name) for name in compared]
    if since:
        where.append(since_where(Law.updated_at))
    if sort == "state_code":
        order: tuple[Any, ...] = (Law.state_code,)
    else:
        order = stamp_order(Law.updated_at, Law.state_code, sort)
    return select(*SHOWN).where(*where).order_by(*order)


def get_law(db: Reader, state: str) -> LawRecord:
    """Return the law record for a two-letter code (any case); raise NotFound otherwise."""
    found = rows(db, _by_code(), {"code": state.upper()}) if is_jurisdiction(state) else []
    if not found:
        raise NotFound(f"no law record for state {state!r}; use a two-letter code such as CA")
    return found[0]


def list_laws(db: Reader, filters: LawFilters | None = None) -> list[LawRecord]:
    """Return the law records matching ``filters`` (all by default), ordered by state code or
    by the change stamp (``filters.sort``)."""
    filters = filters if filters is not None else LawFilters()
    compared: dict[str, Any] = {
        name: value
        for name in ("recreational", "medical")
        if (value := getattr(filters, name)) is not None
    }
    since = filters.updated_since
    statement = _all(tuple(compared), since is not None, filters.sort)
    return list(rows(db, statement, {**compared, **({SINCE: since} if since else {})}))


def laws_by_codes(db: Reader, codes: Iterable[str]) -> dict[str, LawRecord]:
    """Return the law records for the given state codes, keyed by code."""
    wanted = list(set(codes))
    if not wanted:
        return {}
    return {law.state_code: law for law in rows(db, _by_codes(), {"codes": wanted})}

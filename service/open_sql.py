"""Whether a dispensary is open at an instant, as a SQL condition (away from offset changes).

Every load writes each dispensary's openings as spans of seconds after Monday 00:00 in its
zone's wall time (models.DispensaryOpenSpan) and lists the zones (models.DispensaryTimeZone).
A request works out each zone's moment of the week once (service.hours.steady_moments); a row
is open when its last opening to start by its zone's moment is still open then.

The zones are read once per database and reused: each statement also checks that no listed
zone is missing from them, and finds no row otherwise; an empty answer rereads the zones read
more than :data:`RECHECK_AFTER_S` ago and, if they changed (a load in between), runs again. So
a load that brings a new zone is answered for within that time, the bound the web tier's
caches keep (``STATE_TTL_MS``), and an empty answer costs no second statement while the zones
are fresh. Near a change of offset, or with no zones listed (data loaded before the spans
existed), :func:`kept_open` gives None and the lists test each row's hours in Python
(service.hours.open_state) instead.
"""

import time
from collections.abc import Callable
from datetime import datetime
from functools import lru_cache
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

from sqlalchemy import (
    ColumnElement,
    Engine,
    Integer,
    Select,
    String,
    bindparam,
    case,
    literal_column,
    select,
)

from models import Dispensary, DispensaryOpenSpan, DispensaryTimeZone
from models.db import Reader, engine_of

from .hours import steady_moments
from .paging import Page, rows

T = TypeVar("T")
Moments = tuple[tuple[str, ...], dict[str, int]]

# Seconds after which an empty answer rereads the zones (see the module's docstring).
RECHECK_AFTER_S = 1.0
# The zones last read from each database, with the time.monotonic() of that read.
_ZONES: "WeakKeyDictionary[Engine, tuple[tuple[str, ...], float]]" = WeakKeyDictionary()


@lru_cache(maxsize=1)
def _zones_statement() -> Select[str]:
    return select(DispensaryTimeZone.name).order_by(DispensaryTimeZone.name)


def _zones(db: Reader, *, reread: bool) -> tuple[str, ...]:
    engine = engine_of(db)
    known = None if reread else _ZONES.get(engine)
    if known is not None:
        return known[0]
    zones = tuple(zone for (zone,) in rows(db, _zones_statement(), {}))
    if zones:  # none listed: ask again next time (a load may list them)
        _ZONES[engine] = (zones, time.monotonic())
    return zones


def _read_lately(db: Reader) -> bool:
    known = _ZONES.get(engine_of(db))
    return known is not None and time.monotonic() - known[1] < RECHECK_AFTER_S


def _moments(db: Reader, at: datetime, *, reread: bool = False) -> Moments | None:
    zones = _zones(db, reread=reread)
    found = steady_moments(zones, at) if zones else None
    if found is None:
        return None
    return zones, {f"moment_{i}": found[zone] for i, zone in enumerate(zones)}


def kept_open(
    db: Reader, at: datetime, run: Callable[[tuple[str, ...], dict[str, int]], Page[T]]
) -> Page[T] | None:
    """``run(zones, params)``: a page of a list statement built with :func:`open_where` for
    ``zones`` and run with ``params`` besides its own; None where the hours must be tested in
    Python."""
    found = _moments(db, at)
    if found is None:
        return None
    page = run(*found)
    if page.items or _read_lately(db):
        return page
    fresh = _moments(db, at, reread=True)
    if fresh is None:
        return None
    return page if fresh[0] == found[0] else run(*fresh)


def _text(zone: str) -> Any:
    """A zone's name written into the statement: zones are IANA names (service.geo validates
    each one a load writes), and a statement is built once per list of zones, so literals
    spare binding two parameters per zone on every run."""
    return literal_column("'" + zone.replace("'", "''") + "'", String)


def open_where(zones: tuple[str, ...]) -> ColumnElement[bool]:
    """The dispensary (``Dispensary`` in the statement) is open at its zone's moment of the
    week, ``:moment_<i>`` for ``zones[i]``, and no listed zone is missing from ``zones``. A
    dispensary's openings never overlap, so its last one to start by the moment decides: one
    index probe per row."""
    moment: Any = case(
        {_text(zone): bindparam(f"moment_{i}", type_=Integer) for i, zone in enumerate(zones)},
        value=Dispensary.timezone,
    )
    span = DispensaryOpenSpan
    last_to_start = (
        select(span.ends)
        .where(span.dispensary_id == Dispensary.id, span.starts <= moment)
        .order_by(span.starts.desc())
        .limit(1)
        .scalar_subquery()
    )
    listed = [_text(zone) for zone in zones]
    unknown = select(DispensaryTimeZone.name).where(DispensaryTimeZone.name.not_in(listed))
    opened: ColumnElement[bool] = (last_to_start > moment) & ~unknown.exists()
    return opened

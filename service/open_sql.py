"""Whether a dispensary is open at an instant, as a SQL condition (away from offset changes).

Every load writes each dispensary's openings as spans of seconds after Monday 00:00 in its
zone's wall time (models.DispensaryOpenSpan) and lists the zones (models.DispensaryTimeZone).
A request works out each zone's moment of the week once (service.hours.steady_moments); a row
is open when its last opening to start by its zone's moment is still open then. Near a change
of offset, or with no zones listed (data loaded before the spans existed), ``moments`` gives
None and the lists test each row's hours in Python (service.hours.open_state) instead.
"""

from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import ColumnElement, Integer, Select, bindparam, case, select

from models import Dispensary, DispensaryOpenSpan, DispensaryTimeZone
from models.db import Reader

from .hours import steady_moments
from .paging import rows


@lru_cache(maxsize=1)
def _zones_statement() -> Select[str]:
    return select(DispensaryTimeZone.name).order_by(DispensaryTimeZone.name)


def moments(db: Reader, at: datetime) -> tuple[tuple[str, ...], dict[str, int]] | None:
    """(the zones, the bind parameters of :func:`open_where` for them) at ``at``, or None when
    the hours must be tested in Python."""
    zones = tuple(zone for (zone,) in rows(db, _zones_statement(), {}))
    found = steady_moments(zones, at) if zones else None
    if found is None:
        return None
    return zones, {f"moment_{i}": found[zone] for i, zone in enumerate(zones)}


def open_where(zones: tuple[str, ...]) -> ColumnElement[bool]:
    """The dispensary (``Dispensary`` in the statement) is open at its zone's moment of the
    week, ``:moment_<i>`` for ``zones[i]``; a zone not listed has no moment, and its rows are
    closed. A dispensary's openings never overlap, so its last one to start by the moment
    decides: one index probe per row."""
    moment: Any = case(
        {zone: bindparam(f"moment_{i}", type_=Integer) for i, zone in enumerate(zones)},
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
    opened: ColumnElement[bool] = last_to_start > moment
    return opened

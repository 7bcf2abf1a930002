"""Whether a dispensary is open at an instant, as a SQL condition and its parameters.

Each row's weekly spans (models.DispensaryOpenSpan) are tested against its zone's clock
(service.hours.week_clocks); zones are read once per database (models.db.ZoneCache) and read
again as :func:`reread` says. See docs/performance.md, "Open now is kept by the database".
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import (
    ColumnElement,
    Integer,
    Select,
    String,
    bindparam,
    case,
    literal_column,
    or_,
    select,
)
from sqlalchemy.orm import aliased

from models import Dispensary, DispensaryOpenSpan, DispensaryTimeZone
from models.db import Reader, ZoneCache, zone_cache

from .hours import WEEK, WeekClock, week_clocks
from .paging import rows

# Each statement also checks that no listed zone is missing from the zones it was built for, and
# finds no row otherwise; an empty answer rereads zones read more than this many seconds ago
# and, if a load changed them, runs again. So a load that brings a new zone is answered for
# within the bound the web tier's caches keep (STATE_TTL_MS), and an empty answer (open now at
# night) costs no second statement while the zones are fresh.
RECHECK_AFTER_S = 1.0


class OpenKey(NamedTuple):
    """What an open-at condition is built for: the listed zones (``zones[i]``'s clock is in the
    parameters ending ``_<i>``); near a change of offset, the weeks whose spans may hold the
    instant (-1, 0, 1: the week before, the instant's, the week after) and whether a gap maps
    the week's end before the start of an opening cut there (``seam``)."""

    zones: tuple[str, ...]
    weeks: tuple[int, ...] = ()  # () away from a change: one probe per row
    seam: bool = False


@dataclass(frozen=True)
class OpenCondition:
    """``Dispensary`` (in the statement) is open at the instant whose clocks are bound: built
    once per key, and equal by key, so that a statement built on it is cached per key."""

    key: OpenKey
    where: ColumnElement[bool] = field(compare=False)


@dataclass(frozen=True)
class OpenAt:
    """The condition for an instant and its parameters (the zones' clocks then)."""

    condition: OpenCondition
    params: dict[str, int]


@lru_cache(maxsize=1)
def _zones_statement() -> Select[str]:
    return select(DispensaryTimeZone.name).order_by(DispensaryTimeZone.name)


def _zones(db: Reader, cache: ZoneCache, *, reread: bool) -> tuple[str, ...]:
    known = None if reread else cache.zones()
    if known is not None:
        return known
    zones = tuple(zone for (zone,) in rows(db, _zones_statement(), {}))
    if zones:  # none listed: ask again next time (a load may list them)
        cache.keep(zones)
    return zones


def _key(zones: tuple[str, ...], clocks: list[WeekClock]) -> OpenKey:
    """Only what some zone's clock needs goes into the statement: each probe and check costs
    every row, and PostgreSQL compiles a statement estimated dear enough (jit_above_cost),
    which takes longer than running it here."""
    if all(clock.early == clock.late for clock in clocks):
        return OpenKey(zones)
    lowest = min(min(clock.early, clock.late) for clock in clocks)
    highest = max(max(clock.early, clock.late) for clock in clocks)
    weeks = (-1,) * (lowest < 0) + (0,) + (1,) * (highest >= WEEK)
    # A gap steps the instants back at ``split``: a piece of an opening cut at the week's end
    # may then be open while the opening is not, only when the instant is within the gap's
    # length after the change and the week's end lies between the two readings.
    seam = any(
        early < split <= late and early // WEEK != late // WEEK for early, late, split in clocks
    )
    return OpenKey(zones, weeks, seam)


def _open_at(zones: tuple[str, ...], at: datetime) -> OpenAt:
    """The condition of the zones' clocks at ``at``, and their values as parameters."""
    found = week_clocks(zones, at)
    clocks = [found[zone] for zone in zones]
    key = _key(zones, clocks)
    params = {}
    for i, (early, late, split) in enumerate(clocks):
        if not key.weeks:
            params[f"moment_{i}"] = early
            continue
        low, high = sorted((early, late))
        params.update(
            {f"early_{i}": early, f"late_{i}": late, f"split_{i}": split}
            | {f"low_{i}": low, f"high_{i}": high}
        )
    return OpenAt(_condition(key), params)


def open_at(db: Reader, at: datetime) -> OpenAt:
    """The condition that keeps the rows open at ``at`` in their own zones, and its parameters:
    a list adds both to its statement (and asks :func:`reread` when it found nothing)."""
    return _open_at(_zones(db, zone_cache(db), reread=False), at)


def reread(db: Reader, at: datetime, tried: OpenAt) -> OpenAt | None:
    """After ``tried`` found no row: the condition with the zones read again when they were
    read long ago (RECHECK_AFTER_S) and a load has changed them since; else None (running
    again would find nothing either)."""
    cache = zone_cache(db)
    if not tried.condition.key.zones or cache.read_within(RECHECK_AFTER_S):
        return None
    zones = _zones(db, cache, reread=True)
    return _open_at(zones, at) if zones != tried.condition.key.zones else None


@lru_cache(maxsize=64)
def _condition(key: OpenKey) -> OpenCondition:
    return OpenCondition(key, _open_where(key))


def _text(zone: str) -> Any:
    """A zone's name written into the statement: zones are IANA names (service.geo validates
    each one a load writes), and a statement is built once per list of zones, so literals
    spare binding parameters per zone on every run."""
    return literal_column("'" + zone.replace("'", "''") + "'", String)


def _by_zone(zones: tuple[str, ...], name: str) -> Any:
    """The row's zone's value of the parameters ``:<name>_<i>`` (a CASE on its zone)."""
    values = {_text(zone): bindparam(f"{name}_{i}", type_=Integer) for i, zone in enumerate(zones)}
    return case(values, value=Dispensary.timezone)


def _open_where(key: OpenKey) -> ColumnElement[bool]:
    if not key.zones:  # no zone listed: no spans either (data loaded before they existed)
        never: ColumnElement[bool] = Dispensary.id.is_(None)  # false() folds a whole AND away
        return never
    opened = _shifted_open(key) if key.weeks else _steady_open(key.zones)
    listed = [_text(zone) for zone in key.zones]
    unknown = select(DispensaryTimeZone.name).where(DispensaryTimeZone.name.not_in(listed))
    return opened & ~unknown.exists()


def _steady_open(zones: tuple[str, ...]) -> ColumnElement[bool]:
    """Away from a change of offset: the row's zone's moment of the week ``:moment_<i>`` lies in
    one of its spans. A dispensary's spans never overlap, so its last one to start by the moment
    decides: one index probe per row."""
    moment = _by_zone(zones, "moment")
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


def _number(value: int) -> Any:
    """An integer written into the statement, in parentheses (``x - (-604800)``)."""
    return literal_column(f"({value})", Integer)


def _shifted_open(key: OpenKey) -> ColumnElement[bool]:
    """Near a change of offset (service.hours.WeekClock): one of the row's spans, in one of
    ``key.weeks``, has come and its end has not. Mapped to instants, spans the spring gap
    touches may overlap, so each probe tests every span that starts by the later reading and
    ends after the earlier one (index range: ``starts``)."""
    early, late, split = (_by_zone(key.zones, name) for name in ("early", "late", "split"))
    low, high = _by_zone(key.zones, "low"), _by_zone(key.zones, "high")
    span = DispensaryOpenSpan

    def came(wall: Any) -> Any:
        """The wall time (seconds from the instant's Monday 00:00) has come at the instant."""
        return wall <= case((wall < split, early), else_=late)

    def probe(weeks: int) -> Any:
        moved = _number(weeks * WEEK)
        where = [
            span.dispensary_id == Dispensary.id,
            span.starts <= high - moved,
            span.ends > low - moved,
            came(span.starts + moved),
            ~came(span.ends + moved),
        ]
        if key.seam:
            where += _whole_opening(span, came, weeks)
        found = select(span.dispensary_id).where(*where).exists()
        # The readings fall outside this week only for some zones, and only for an hour.
        if weeks > 0:
            return (high >= moved) & found
        return (low < _number(0)) & found if weeks < 0 else found

    opened: ColumnElement[bool] = or_(*(probe(weeks) for weeks in key.weeks))
    return opened


def _whole_opening(span: Any, came: Callable[[Any], Any], weeks: int) -> list[Any]:
    """``span`` (of the week ``weeks`` away) is open only if its whole opening is: an opening
    cut at the week's end has begun when its piece up to the end has come, and not ended while
    its piece from 0 has not (see _key: the gap may map the cut before the opening's start)."""
    before, after, week = aliased(DispensaryOpenSpan), aliased(DispensaryOpenSpan), _number(WEEK)
    begun = select(before.dispensary_id).where(
        before.dispensary_id == span.dispensary_id,
        before.ends == week,
        ~came(before.starts + _number((weeks - 1) * WEEK)),
    )
    ended = select(after.dispensary_id).where(
        after.dispensary_id == span.dispensary_id,
        after.starts == _number(0),
        came(after.ends + _number((weeks + 1) * WEEK)),
    )
    return [  # the zone is the row's, two levels up: correlate all but the piece looked up
        (span.starts > _number(0)) | ~begun.correlate_except(before).exists(),
        (span.ends < week) | ~ended.correlate_except(after).exists(),
    ]

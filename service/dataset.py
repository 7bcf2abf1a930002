"""Facts about the loaded dataset that the edges need: its version (cache validators) and the
sizes of its tables (what a GraphQL document's cost weighs rows read by)."""

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from sqlalchemy import Select, func, literal, null, select, union_all

from models import DatasetInfo, Deal, Dispensary, Doctor, MenuItem, Strain
from models.db import Reader

from .paging import rows


def data_version(db: Reader) -> int:
    """Return the version of the loaded data: bumped by every seed or import (0 if none)."""
    return db.scalar(select(func.max(DatasetInfo.version))) or 0


@dataclass(frozen=True)
class TableSizes:
    """Rows per table, and dispensaries and deals per state (by two-letter code)."""

    strains: int
    dispensaries: int
    deals: int
    doctors: int
    menu_items: int
    dispensaries_by_state: tuple[tuple[str, int], ...] = ()
    deals_by_state: tuple[tuple[str, int], ...] = ()

    def dispensaries_in(self, states: Iterable[str]) -> int:
        """Dispensaries in any of ``states`` (codes in any case; unknown ones hold none)."""
        return _in(self.dispensaries_by_state, states)

    def deals_in(self, states: Iterable[str]) -> int:
        """Deals of the dispensaries in any of ``states``."""
        return _in(self.deals_by_state, states)


# The sizes of an empty database.
EMPTY_TABLES = TableSizes(strains=0, dispensaries=0, deals=0, doctors=0, menu_items=0)


def _in(counts: tuple[tuple[str, int], ...], states: Iterable[str]) -> int:
    wanted = {state.upper() for state in states}
    return sum(count for state, count in counts if state in wanted)


def table_sizes(db: Reader) -> TableSizes:
    """Count the rows of the tables lists read, in one statement."""
    counts: dict[str, int] = {}
    by_state: dict[str, list[tuple[str, int]]] = {"dispensaries": [], "deals": []}
    for table, state, count in rows(db, _sizes_statement(), {}):
        if state is None:
            counts[table] = count
        else:
            by_state[table].append((state, count))
    return TableSizes(
        strains=counts.get("strains", 0),
        dispensaries=counts.get("dispensaries", 0),
        deals=counts.get("deals", 0),
        doctors=counts.get("doctors", 0),
        menu_items=counts.get("menu_items", 0),
        dispensaries_by_state=tuple(sorted(by_state["dispensaries"])),
        deals_by_state=tuple(sorted(by_state["deals"])),
    )


@lru_cache(maxsize=1)
def _sizes_statement() -> Select[str, str | None, int]:
    """(table, None, rows) for each table, and (table, state, rows) for dispensaries and deals
    per state."""
    whole = [
        select(literal(table.__tablename__), null(), func.count()).select_from(table)
        for table in (Strain, Dispensary, Deal, Doctor, MenuItem)
    ]
    dispensaries = select(literal("dispensaries"), Dispensary.state, func.count()).group_by(
        Dispensary.state
    )
    deals = (
        select(literal("deals"), Dispensary.state, func.count())
        .select_from(Deal)
        .join(Dispensary, Dispensary.id == Deal.dispensary_id)
        .group_by(Dispensary.state)
    )
    return union_all(*whole, dispensaries, deals)  # type: ignore[return-value]

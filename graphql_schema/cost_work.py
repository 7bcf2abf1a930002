"""What a document costs besides the values of its answer (cost_walk adds these to them).

A value of an answer counts 1; work counts a unit for about the time two or three values take,
so that a small document stays within 1,000 (one quota unit). A resolved field costs ``CALL``
per call and ``ARGUMENT`` per declared argument per call (converted at every call); a field that
runs a statement, its ``statement`` once per request level (siblings share it); a list, the rows
its statements read (:func:`rows_read`) by the live table sizes; an introspection value,
``INTROSPECTION``. The weights come from ``bench/calibrate.py`` (docs/performance.md).
"""

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from service.dataset import TableSizes
from service.places import DEFAULT_RADIUS_MILES, WIDE_BOX_SQUARE_DEGREES
from service.stamps import STAMP_SORTS

CALL = 6
ARGUMENT = 4
INTROSPECTION = 2
# Per row a list's statement reads: counted through an index; a candidate ranked (a distance,
# a rating order, a window count); a candidate whose openings are probed; a row read and
# dropped before the page (an offset); a stockist of each strain asked about.
COUNTED = 0.02
RANKED = 0.4
OPEN = 0.4
SKIPPED = 0.6
STOCKIST = 1.2
# Strains: per strain, each effect or flavor asked for (its trait index), and a test of every
# strain's type, THC or CBD where no trait narrows them.
TRAIT = 0.04
SCANNED = 0.3
TRAITS = ("effect", "effects", "flavor", "flavors")
TESTED = (
    "type",
    "types",
    "thcMin",
    "thcMax",
    "cbdMin",
    "cbdMax",
    "updatedSince",
    # Chemistry: the strain's own columns, or its leading terpenes' rows (an EXISTS per strain).
    "terpene",
    "terpenes",
    "dominantTerpene",
    "dominantTerpenes",
    "ratio",
    "ratios",
    "cbgMin",
    "cbnMin",
    "thcvMin",
    "cbcMin",
)
# A parent's children are the candidates (a few), read through an index and sorted.
PARENT = "parent"
# Orders read from an index, page by page (a stamp order walks the (updated_at, id) index).
WALKED = (None, "name", "expires", "updated_at", "-updated_at")
# A point's circle of this radius reads about every row (its bounding box's latitude band
# spans most of the country), a smaller one proportionally fewer.
WHOLE_RADIUS_MILES = 500.0
# A search: the index query, ranking and the hits' rows.
SEARCH = 1_200
# Per id of nodes: its record found through a unique index and built.
NODE_ID = 2


@dataclass(frozen=True)
class FieldWork:
    """A resolved field's work: ``call`` per call (besides CALL and its arguments) and
    ``statement`` once per request level."""

    call: int = 0
    statement: int = 0


ROOT_LIST = FieldWork(statement=200)
ROOT_RECORD = FieldWork(statement=120)
NESTED_LIST = FieldWork(statement=120)
# Every field resolved by a function, by (type, field); the others are read as attributes.
# tests/graphql/test_cost_work.py fails when a resolver of the schema is missing here.
WORK: dict[tuple[str, str], FieldWork] = {
    **{("Query", name): ROOT_LIST for name in ("strains", "dispensaries", "deals", "doctors")},
    ("Query", "search"): ROOT_LIST,
    ("Query", "changes"): ROOT_LIST,
    # A change's object: found through a unique index and built, at most one statement per
    # kind of record for the whole page.
    ("Change", "object"): FieldWork(call=NODE_ID, statement=5 * ROOT_RECORD.statement),
    ("Query", "laws"): ROOT_LIST,
    ("Query", "node"): ROOT_RECORD,
    # At most one statement per kind of record (five kinds); each id's record is read apart.
    ("Query", "nodes"): FieldWork(statement=5 * ROOT_RECORD.statement),
    **{("Query", name): ROOT_RECORD for name in ("strain", "dispensary", "deal", "doctor", "law")},
    ("Strain", "terpenes"): FieldWork(call=8, statement=120),
    # Read for every strain of the request at once (none for Query.strain: its detail has them).
    ("Strain", "chemistry"): FieldWork(call=8, statement=120),
    ("Strain", "lineage"): FieldWork(call=8, statement=120),
    # The vocabulary, built without a statement.
    ("Query", "compounds"): FieldWork(call=8),
    ("Strain", "dispensaries"): NESTED_LIST,
    ("Strain", "parents"): NESTED_LIST,
    ("Strain", "children"): NESTED_LIST,
    # The root's lookup, then a statement per generation (up to three), for each call.
    ("Query", "lineage"): FieldWork(
        call=3 * ROOT_RECORD.statement, statement=ROOT_RECORD.statement
    ),
    ("Dispensary", "deals"): NESTED_LIST,
    ("Dispensary", "menu"): FieldWork(call=12, statement=120),
    ("Dispensary", "reviews"): NESTED_LIST,
    ("Dispensary", "law"): FieldWork(call=2, statement=120),
    ("Dispensary", "reviewCount"): FieldWork(call=2, statement=120),
    ("Dispensary", "isOpen"): FieldWork(),
    ("Dispensary", "nextChange"): FieldWork(),
    ("Dispensary", "price"): FieldWork(statement=120),
    ("Dispensary", "unit"): FieldWork(statement=120),
    ("Dispensary", "pricePerGram"): FieldWork(statement=120),
    ("Dispensary", "lab"): FieldWork(statement=120),
    ("Deal", "dispensary"): FieldWork(call=25, statement=120),
    ("Doctor", "law"): FieldWork(call=2, statement=120),
    # The change stamps: attributes read by a method, so that the schema lists them last.
    **{
        (kind, "updatedAt"): FieldWork()
        for kind in ("Strain", "Dispensary", "Deal", "Doctor", "Law")
    },
    ("Dispensary", "menuUpdatedAt"): FieldWork(),
}


def _given(arguments: Mapping[str, Any], name: str) -> Any:
    value = arguments.get(name)
    return value.value if isinstance(value, Enum) else value


def _states(arguments: Mapping[str, Any]) -> list[str] | None:
    state, states = _given(arguments, "state"), _given(arguments, "states")
    if isinstance(states, list):
        return [s for s in states if isinstance(s, str)]
    return [state] if isinstance(state, str) else None


def _share_of_location(arguments: Mapping[str, Any]) -> float | None:
    """The share of a table's rows a location's statement reads, or None without one."""
    near, box = _given(arguments, "near"), _given(arguments, "bbox")
    if isinstance(near, Mapping):
        radius = near.get("radius")
    elif _given(arguments, "zip") is not None:
        radius = _given(arguments, "radius")
    elif isinstance(box, Mapping):
        try:
            area = float(abs(box["east"] - box["west"]) * abs(box["north"] - box["south"]))
        except (KeyError, TypeError):
            return 1.0
        return min(1.0, area / WIDE_BOX_SQUARE_DEGREES)
    else:
        return None
    miles = float(radius) if isinstance(radius, (int, float)) else DEFAULT_RADIUS_MILES
    return min(1.0, max(miles, 0.0) / WHOLE_RADIUS_MILES)


def _offset(arguments: Mapping[str, Any]) -> int:
    offset = _given(arguments, "offset")
    return offset if isinstance(offset, int) and offset > 0 else 0


def _places(table: int, in_states: Callable[[list[str]], int], arguments: Mapping[str, Any]) -> int:
    """Rows a list of places (dispensaries, deals, doctors) reads: the candidates that its
    state, location, order and time keep to rank, probe and count, and what an offset skips."""
    states = _states(arguments)
    candidates = in_states(states) if states is not None else table
    share = _share_of_location(arguments)
    if share is not None:
        candidates = min(candidates, math.ceil(table * share))
    sort = _given(arguments, "sort")
    timed = bool(_given(arguments, "openNow")) or _given(arguments, "openAt") is not None
    # updatedSince with another order: the page may test every candidate's stamp.
    tested = _given(arguments, "updatedSince") is not None and sort not in STAMP_SORTS
    ranked = share is not None or timed or tested or sort not in WALKED
    weight = (RANKED if ranked else COUNTED) + (OPEN if timed else 0.0)
    return math.ceil(candidates * weight + min(_offset(arguments), candidates) * SKIPPED)


def _dispensaries(arguments: Mapping[str, Any], sizes: TableSizes) -> int:
    return _places(sizes.dispensaries, sizes.dispensaries_in, arguments)


def _deals(arguments: Mapping[str, Any], sizes: TableSizes) -> int:
    return _places(sizes.deals, sizes.deals_in, arguments)


def _doctors(arguments: Mapping[str, Any], sizes: TableSizes) -> int:
    # Doctors are few: their state is not counted apart (every doctor is an upper bound).
    return _places(sizes.doctors, lambda _states: sizes.doctors, arguments)


def _strains(arguments: Mapping[str, Any], sizes: TableSizes) -> int:
    """Strains are counted through an index; each effect or flavor asked for reads its trait
    index, and a type, a THC or CBD range or a chemistry filter without one is tested on every
    strain; an offset reads the rows it skips. With a parent, only its few children are read
    (and what an offset skips)."""
    if _given(arguments, PARENT) is not None:
        return math.ceil(min(_offset(arguments), sizes.strains) * SKIPPED) + 1
    traits = sum(_values_given(arguments, name) for name in TRAITS)
    ranged = any(_given(arguments, name) is not None for name in TESTED)
    weight = COUNTED + traits * TRAIT + (SCANNED if ranged and not traits else 0.0)
    return math.ceil(sizes.strains * weight + min(_offset(arguments), sizes.strains) * SKIPPED)


def _values_given(arguments: Mapping[str, Any], name: str) -> int:
    value = _given(arguments, name)
    return len(value) if isinstance(value, list) else int(value is not None)


def _search(arguments: Mapping[str, Any], sizes: TableSizes) -> int:
    return SEARCH + math.ceil(_offset(arguments) * SKIPPED)


def _stockists(arguments: Mapping[str, Any], sizes: TableSizes) -> int:
    """Per strain: its stockists (the menu items per strain), each ranked and probed as a
    dispensary list would, and what an offset skips of them."""
    per_strain = sizes.menu_items / max(sizes.strains, 1)
    share = _share_of_location(arguments)
    timed = bool(_given(arguments, "openNow")) or _given(arguments, "openAt") is not None
    weight = STOCKIST + (OPEN if timed else 0.0) + (RANKED if share is not None else 0.0)
    return math.ceil(per_strain * weight + min(_offset(arguments), per_strain) * SKIPPED)


def _node_ids(arguments: Mapping[str, Any], sizes: TableSizes) -> int:
    ids = arguments.get("ids")
    return NODE_ID * (len(ids) if isinstance(ids, list) else 0)


@dataclass(frozen=True)
class Reading:
    """How a list's rows are weighed, and the arguments that weighing reads."""

    weigh: Callable[[Mapping[str, Any], TableSizes], int]
    arguments: tuple[str, ...]


_OFFSET = ("offset",)
_LOCATION = ("near", "zip", "radius", "bbox")
_TIME = ("openNow", "openAt", "sort", "updatedSince")
ROWS: dict[tuple[str, str], Reading] = {
    ("Query", "strains"): Reading(_strains, (*TRAITS, *TESTED, PARENT, *_OFFSET)),
    ("Query", "dispensaries"): Reading(
        _dispensaries, ("state", "states", *_LOCATION, *_TIME, *_OFFSET)
    ),
    ("Query", "deals"): Reading(_deals, ("state", "states", *_LOCATION, *_TIME, *_OFFSET)),
    ("Query", "doctors"): Reading(_doctors, (*_LOCATION, "sort", "updatedSince", *_OFFSET)),
    ("Query", "search"): Reading(_search, _OFFSET),
    ("Query", "nodes"): Reading(_node_ids, ("ids",)),
    ("Strain", "dispensaries"): Reading(_stockists, (*_LOCATION, *_TIME, *_OFFSET)),
}


def rows_read(owner: str, name: str, arguments: Mapping[str, Any] | None, sizes: TableSizes) -> int:
    """Units for the rows one call of list ``owner.name`` reads with ``arguments`` as execution
    coerces them (None when they do not coerce: execution refuses the field, nothing is read)."""
    reading = ROWS.get((owner, name))
    if reading is None:
        return 0
    return reading.weigh(arguments if arguments is not None else {}, sizes)

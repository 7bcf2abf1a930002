"""What a strain's detail shows beyond its row: its typical chemistry, rendered from the stored
JSON (models.Strain.chemistry) with names, units, formulas, dominant terpene and ratio; and its
lineage summary (origin, parents, how many children).

The detail costs two statements: the strain's row (its chemistry included) and one statement
that reads its terpenes, its parents and its children count together (a UNION ALL). The batch
helpers give GraphQL the same per page of strains, one statement per relation.
"""

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import (
    BindParameter,
    Integer,
    String,
    bindparam,
    func,
    literal_column,
    null,
    select,
    union_all,
)

from models import Strain, StrainParent, StrainTerpene
from models.db import AnySelect, Reader

from .compounds import BY_KEY, PERCENT, TOTAL_CBD_FORMULA, TOTAL_THC_FORMULA, ratio_of
from .paging import rows


class CompoundAmount(NamedTuple):
    """One compound's spread over a strain's samples, percent of dry weight."""

    key: str
    name: str
    unit: str
    p25: float
    p50: float
    p75: float


class Spread(NamedTuple):
    """The 25th, 50th and 75th percentiles of a total."""

    p25: float
    p50: float
    p75: float


class Total(NamedTuple):
    """A total's percentiles and the formula it follows (service.compounds)."""

    p25: float
    p50: float
    p75: float
    formula: str


class Chemistry(NamedTuple):
    """A strain's typical chemistry as both edges show it."""

    basis: str
    sample_count: int
    source: str
    cannabinoids: list[CompoundAmount]  # p50 highest first
    terpenes: list[CompoundAmount]  # p50 highest first
    total_thc: Total
    total_cbd: Total
    total_terpenes: Spread
    dominant_terpene: str | None
    ratio: str


class ParentRef(NamedTuple):
    slug: str
    name: str


class Lineage(NamedTuple):
    """Where a strain comes from: its origin word, its parents (first parent first) and the
    number of strains bred from it."""

    origin: str
    parents: list[ParentRef]
    children_count: int


def _amounts(stored: Iterable[Mapping[str, Any]]) -> list[CompoundAmount]:
    amounts = [
        CompoundAmount(
            key=entry["key"],
            name=BY_KEY[entry["key"]].name if entry["key"] in BY_KEY else entry["key"],
            unit=PERCENT,
            p25=entry["p25"],
            p50=entry["p50"],
            p75=entry["p75"],
        )
        for entry in stored
    ]
    return sorted(amounts, key=lambda amount: -amount.p50)  # stable: stored order among ties


def _spread(stored: Mapping[str, Any]) -> Spread:
    return Spread(stored["p25"], stored["p50"], stored["p75"])


def render_chemistry(stored: Mapping[str, Any] | None) -> Chemistry | None:
    """The stored chemistry (seed.chemistry's layout) as shown; None stays None (a strain
    without samples has no chemistry, never zeros)."""
    if stored is None:
        return None
    terpenes = _amounts(stored.get("terpenes", ()))
    total_thc, total_cbd = _spread(stored["total_thc"]), _spread(stored["total_cbd"])
    return Chemistry(
        basis=stored["basis"],
        sample_count=stored["sample_count"],
        source=stored["source"],
        cannabinoids=_amounts(stored.get("cannabinoids", ())),
        terpenes=terpenes,
        total_thc=Total(*total_thc, formula=TOTAL_THC_FORMULA),
        total_cbd=Total(*total_cbd, formula=TOTAL_CBD_FORMULA),
        total_terpenes=_spread(stored["total_terpenes"]),
        dominant_terpene=terpenes[0].key if terpenes else None,
        ratio=ratio_of(total_thc.p50, total_cbd.p50),
    )


# The parts of the extras statement, by the number each row carries in its ``part`` column.
TERPENES, PARENTS, CHILDREN, ORIGIN = 0, 1, 2, 3


def _part(strain_id: Any, part: int, position: Any, name: Any, slug: Any) -> AnySelect:
    """One part of the extras statement: its columns, labelled alike in every part."""
    return select(
        strain_id.label("strain_id"),
        literal_column(str(part), Integer).label("part"),
        position.label("position"),
        name.label("name"),
        slug.label("slug"),
    )


@lru_cache(maxsize=4)
def _extras_statement(parts: tuple[int, ...]) -> AnySelect:
    """For the strains ``:ids``, one row per terpene (part 0: position, name), per parent
    (part 1: position, name, slug), one children count per strain that has children (part
    2: the count in ``position``) and its origin (part 3, in ``name``), ordered by strain, part
    and position."""
    ids: BindParameter[int] = bindparam("ids", expanding=True)
    no_text = null().cast(String)
    selects = []
    if TERPENES in parts:
        selects.append(
            _part(
                StrainTerpene.strain_id,
                TERPENES,
                StrainTerpene.position,
                StrainTerpene.name,
                no_text,
            ).where(StrainTerpene.strain_id.in_(ids))
        )
    if PARENTS in parts:
        selects.append(
            _part(StrainParent.strain_id, PARENTS, StrainParent.position, Strain.name, Strain.slug)
            .join_from(StrainParent, Strain, Strain.id == StrainParent.parent_id)
            .where(StrainParent.strain_id.in_(ids))
        )
    if CHILDREN in parts:
        selects.append(
            _part(StrainParent.parent_id, CHILDREN, func.count(), no_text, no_text)
            .where(StrainParent.parent_id.in_(ids))
            .group_by(StrainParent.parent_id)
        )
    if ORIGIN in parts:
        selects.append(
            _part(Strain.id, ORIGIN, literal_column("0", Integer), Strain.origin, no_text).where(
                Strain.id.in_(ids)
            )
        )
    combined = union_all(*selects).subquery("extras")
    return select(*combined.c).order_by(combined.c.strain_id, combined.c.part, combined.c.position)


class Extras(NamedTuple):
    """A strain's terpene names, parents and children count, as the extras statement read
    them."""

    terpenes: list[str]
    parents: list[ParentRef]
    children_count: int
    origin: str | None  # when read


def extras_by_strain(
    db: Reader, ids: Iterable[int], parts: tuple[int, ...] = (TERPENES, PARENTS, CHILDREN)
) -> dict[int, Extras]:
    """Each strain's terpenes, parents and children count (only the ``parts`` asked for are
    read; the others stay empty), keyed by strain id (all ids present): one statement."""
    found: dict[int, tuple[list[str], list[ParentRef], list[Any]]] = {
        id_: ([], [], [0, None]) for id_ in ids
    }
    if found:
        read: Sequence[Any] = rows(db, _extras_statement(parts), {"ids": list(found)})
        for strain_id, part, position, name, slug in read:
            terpenes, parents, children = found[strain_id]
            if part == TERPENES:
                terpenes.append(name)
            elif part == PARENTS:
                parents.append(ParentRef(slug=slug, name=name))
            elif part == CHILDREN:
                children[0] = position
            else:
                children[1] = name
    return {
        id_: Extras(terpenes, parents, children[0], children[1])
        for id_, (terpenes, parents, children) in found.items()
    }


def lineage_by_strain(db: Reader, ids: Iterable[int]) -> dict[int, Lineage]:
    """The lineage summary of each strain, keyed by id (every id of a strain that exists): one
    statement for their origins, parents and children counts."""
    extras = extras_by_strain(db, ids, (PARENTS, CHILDREN, ORIGIN))
    return {
        id_: Lineage(found.origin, found.parents, found.children_count)
        for id_, found in extras.items()
        if found.origin is not None
    }


@lru_cache(maxsize=1)
def _chemistry_statement() -> AnySelect:
    return select(Strain.id, Strain.chemistry).where(
        Strain.id.in_(bindparam("ids", expanding=True))
    )


def chemistry_by_strain(db: Reader, ids: Iterable[int]) -> dict[int, Chemistry | None]:
    """Each strain's rendered chemistry (None without), keyed by id (all ids present): one
    statement."""
    found: dict[int, Chemistry | None] = dict.fromkeys(ids)
    if found:
        read: Sequence[Any] = rows(db, _chemistry_statement(), {"ids": list(found)})
        for strain_id, stored in read:
            found[strain_id] = render_chemistry(stored)
    return found

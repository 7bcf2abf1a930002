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
TERPENES, PARENTS, CHILDREN = 0, 1, 2


@lru_cache(maxsize=4)
def _extras_statement(parts: tuple[int, ...]) -> AnySelect:
    """For the strains ``:ids``, one row per terpene (part 0: position, name), per parent
    (part 1: position, name, slug) and one children count per strain that has children (part
    2: the count in ``position``), ordered by strain, part and position."""
    ids: BindParameter[int] = bindparam("ids", expanding=True)
    selects = []
    if TERPENES in parts:
        selects.append(
            select(
                StrainTerpene.strain_id.label("strain_id"),
                literal_column(str(TERPENES), Integer).label("part"),
                StrainTerpene.position.label("position"),
                StrainTerpene.name.label("name"),
                null().cast(String).label("slug"),
            ).where(StrainTerpene.strain_id.in_(ids))
        )
    if PARENTS in parts:
        selects.append(
            select(
                StrainParent.strain_id,
                literal_column(str(PARENTS), Integer),
                StrainParent.position,
                Strain.name,
                Strain.slug,
            )
            .join_from(StrainParent, Strain, Strain.id == StrainParent.parent_id)
            .where(StrainParent.strain_id.in_(ids))
        )
    if CHILDREN in parts:
        selects.append(
            select(
                StrainParent.parent_id,
                literal_column(str(CHILDREN), Integer),
                func.count(),
                null().cast(String),
                null().cast(String),
            )
            .where(StrainParent.parent_id.in_(ids))
            .group_by(StrainParent.parent_id)
        )
    combined = union_all(*selects).subquery("extras")
    return select(*combined.c).order_by(combined.c.strain_id, combined.c.part, combined.c.position)


class Extras(NamedTuple):
    """A strain's terpene names, parents and children count, as the extras statement read
    them."""

    terpenes: list[str]
    parents: list[ParentRef]
    children_count: int


def extras_by_strain(
    db: Reader, ids: Iterable[int], parts: tuple[int, ...] = (TERPENES, PARENTS, CHILDREN)
) -> dict[int, Extras]:
    """Each strain's terpenes, parents and children count (only the ``parts`` asked for are
    read; the others stay empty), keyed by strain id (all ids present): one statement."""
    found: dict[int, tuple[list[str], list[ParentRef], list[int]]] = {
        id_: ([], [], [0]) for id_ in ids
    }
    if found:
        read: Sequence[Any] = rows(db, _extras_statement(parts), {"ids": list(found)})
        for strain_id, part, position, name, slug in read:
            terpenes, parents, children = found[strain_id]
            if part == TERPENES:
                terpenes.append(name)
            elif part == PARENTS:
                parents.append(ParentRef(slug=slug, name=name))
            else:
                children[0] = position
    return {
        id_: Extras(terpenes, parents, children[0])
        for id_, (terpenes, parents, children) in found.items()
    }


def lineage_by_strain(db: Reader, origins: Mapping[int, str]) -> dict[int, Lineage]:
    """The lineage summary of each strain (keyed by id, with its ``origins`` given): one
    statement for their parents and children counts."""
    extras = extras_by_strain(db, origins, (PARENTS, CHILDREN))
    return {
        id_: Lineage(origin, extras[id_].parents, extras[id_].children_count)
        for id_, origin in origins.items()
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

"""Strain queries: filtered list pages, detail by slug, batch lookup.

Strains come back as :class:`StrainRow` (columns and trait names, no ORM objects): the page or
lookup is one statement built once per shape, each strain's effects and flavors (the lists its
row keeps, see models.strain) and a page's total included.
"""

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, Float, Select, String, Subquery, bindparam, func, select

from models import Strain, StrainEffect, StrainFlavor, StrainParent, StrainTerpene
from models.db import AnySelect, Reader, dialect_name
from models.expressions import tested_per_row

from .compounds import LEADING_TERPENES
from .errors import NotFound
from .filters import CANNABINOID_MINIMUMS, StrainFilters
from .paging import Listing, Page, PageRequest, fetch_page, pick_listing, ranked_listing, rows
from .stamps import SINCE, STAMP_SORTS, since_where, stamp_order
from .strain_detail import Chemistry, Lineage, extras_by_strain, render_chemistry

# Slugs are lower-case ASCII words joined by hyphens; anything else cannot name a strain and is
# answered without a query (NUL or lone surrogates would otherwise reach the database driver).
SLUG_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

# What a strain shows in either edge (GraphQL's type has the detail columns too).
COLUMNS = (
    Strain.id,
    Strain.slug,
    Strain.name,
    Strain.type,
    Strain.thc,
    Strain.cbd,
    Strain.description,
    Strain.rating,
    Strain.review_count,
)


# The columns of a StrainRow: COLUMNS, then the effects, flavors, the chemistry's dominant
# terpene and ratio (copies kept on the row, see models.strain), its origin and the change stamp.
LISTED = (
    *COLUMNS,
    Strain.effect_list.label("effects"),
    Strain.flavor_list.label("flavors"),
    Strain.dominant_terpene,
    Strain.ratio,
    Strain.origin,
    Strain.updated_at,
)
# Range filters: (filter name, column, comparison).
_RANGES = (
    ("thc_min", Strain.thc, "__ge__"),
    ("thc_max", Strain.thc, "__le__"),
    ("cbd_min", Strain.cbd, "__ge__"),
    ("cbd_max", Strain.cbd, "__le__"),
)


class StrainRow(NamedTuple):
    """A strain with its effects and flavors, in their listed order (a named tuple, like every
    row type read by the hundred)."""

    id: int
    slug: str
    name: str
    type: str
    thc: float
    cbd: float
    description: str
    rating: float
    review_count: int
    effects: list[str]
    flavors: list[str]
    dominant_terpene: str | None  # None without chemistry
    ratio: str | None
    origin: str
    updated_at: datetime  # naive on SQLite (UTC): service.stamps reads either


class StrainDetail(NamedTuple):
    """A strain in full: a StrainRow's fields, then its terpenes, chemistry and lineage."""

    id: int
    slug: str
    name: str
    type: str
    thc: float
    cbd: float
    description: str
    rating: float
    review_count: int
    effects: list[str]
    flavors: list[str]
    dominant_terpene: str | None
    ratio: str | None
    origin: str
    updated_at: datetime
    terpenes: list[str]
    chemistry: Chemistry | None
    lineage: Lineage


_MANY = "+"  # suffix of a shape's filter name when it has several values ("any of")
# Chemistry filters on the strain's own row: words (any of) and minimum medians.
_CHEMISTRY_WORDS = (("dominant_terpene", Strain.dominant_terpene), ("ratio", Strain.ratio))
_MINIMUMS = tuple((name, getattr(Strain, key)) for name, key in CANNABINOID_MINIMUMS)
PARENT = "parent"
# Every filter of StrainFilters a statement depends on, in the order shapes name them.
_FILTERS = (
    "type",
    "effect",
    "flavor",
    "thc_min",
    "thc_max",
    "cbd_min",
    "cbd_max",
    "terpene",
    *(name for name, _ in _CHEMISTRY_WORDS),
    *(name for name, _ in _MINIMUMS),
    PARENT,
)


def _shape(filters: StrainFilters) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The names of the set filters (what the statement depends on) and their values. A word
    filter with several values is named with the suffix _MANY and compared with IN; the order,
    when by the change stamp, is named too."""
    names: list[str] = [filters.sort] if filters.sort in STAMP_SORTS else []
    values: dict[str, Any] = {}
    if filters.updated_since is not None:
        names.append(SINCE)
        values[SINCE] = filters.updated_since
    for name in _FILTERS:
        value = getattr(filters, name)
        if value is None:
            continue
        if isinstance(value, tuple) and len(value) > 1:
            names.append(name + _MANY)
            values[name] = list(value)
        else:
            names.append(name)
            values[name] = value[0] if isinstance(value, tuple) else value
    return tuple(names), values


def _compare(column: Any, name: str, shape: tuple[str, ...]) -> ColumnElement[bool] | None:
    """``column`` against the filter ``name``'s value(s), or None when it is not set."""
    if name in shape:
        return column == bindparam(name, type_=String)  # type: ignore[no-any-return]
    if name + _MANY in shape:
        return column.in_(bindparam(name, expanding=True))  # type: ignore[no-any-return]
    return None


_Trait = tuple[str, type[StrainEffect] | type[StrainFlavor]]
_TRAITS: tuple[_Trait, _Trait] = (("effect", StrainEffect), ("flavor", StrainFlavor))


def _has_trait(
    trait: type[StrainEffect] | type[StrainFlavor],
    name: str,
    shape: tuple[str, ...],
    strain_id: Any = Strain.id,
) -> ColumnElement[bool] | None:
    """An EXISTS test that the strain ``strain_id`` has the filter ``name``'s word(s) among
    its ``trait`` rows, or None when that filter is not set."""
    named = _compare(trait.name, name, shape)
    if named is None:
        return None
    return select(trait.strain_id).where(trait.strain_id == strain_id, named).exists()


@lru_cache(maxsize=1)
def _children_of_parent() -> Select[int]:
    """The ids of the strains whose parent has the slug ``:parent`` (through the
    (parent_id, strain_id) index)."""
    parent_id = select(Strain.id).where(Strain.slug == bindparam(PARENT, type_=String))
    return select(StrainParent.strain_id).where(
        StrainParent.parent_id == parent_id.scalar_subquery()
    )


def _chemistry_where(
    shape: tuple[str, ...], column: Callable[[Any], Any], strain_id: Any = Strain.id
) -> list[ColumnElement[bool]]:
    """The chemistry and lineage filters of ``shape`` on the strain ``strain_id``: dominant
    terpene and ratio words, minimum medians, a terpene among its leading ones (its
    strain_terpenes rows), its parent. ``column`` wraps the strain's own columns (as ``_where``
    does when walking)."""
    where: list[ColumnElement[bool]] = []
    for name, compared in _CHEMISTRY_WORDS:
        found = _compare(column(compared), name, shape)
        if found is not None:
            where.append(found)
    for name, compared in _MINIMUMS:
        if name in shape:
            where.append(column(compared) >= bindparam(name, type_=Float))
    leading = _compare(StrainTerpene.name, "terpene", shape)
    if leading is not None:
        # The strains having the terpene(s) among their leading rows, found once through the
        # terpenes' (name, strain_id) index: each strain is then tested against that set.
        terpenes = select(StrainTerpene.strain_id).where(
            leading, StrainTerpene.position < LEADING_TERPENES
        )
        where.append(column(strain_id).in_(terpenes))
    if PARENT in shape:
        where.append(strain_id.in_(_children_of_parent()))
    return where


def _where(shape: tuple[str, ...], *, walking: bool) -> list[ColumnElement[bool]]:
    """The filters of ``shape``. A trait filter is an EXISTS test per strain. ``walking``: for
    a page that walks the name order, testing each strain, and stops once it is full (the other
    columns are then tested per row too, rather than looked up in their indexes)."""
    column: Callable[[Any], Any] = tested_per_row if walking else (lambda c: c)
    where = []
    typed = _compare(column(Strain.type), "type", shape)
    if typed is not None:
        where.append(typed)
    for name, trait in _TRAITS:
        has_trait = _has_trait(trait, name, shape)
        if has_trait is not None:
            where.append(has_trait)
    for name, compared, compare in _RANGES:
        if name in shape:
            where.append(getattr(column(compared), compare)(bindparam(name, type_=Float)))
    where.extend(_chemistry_where(shape, column))
    if SINCE in shape:
        where.append(since_where(column(Strain.updated_at)))
    return where


def _first_trait(shape: tuple[str, ...]) -> _Trait:
    """The trait filter a shape's candidates come from: its effect filter, else its flavor."""
    if "effect" in shape or "effect" + _MANY in shape:
        return _TRAITS[0]
    return _TRAITS[1]


def _walked_trait(shape: tuple[str, ...]) -> _Trait | None:
    """The trait whose rows a page walks in name order: one filtered by a single word (the
    effect, when both are), or None."""
    return next((found for found in _TRAITS if found[0] in shape), None)


def _trait_rows_where(
    shape: tuple[str, ...], first: _Trait | None = None, *, walking: bool = False
) -> tuple[Any, list[ColumnElement[bool]]]:
    """(the ``first`` trait's table (by default ``_first_trait``'s), its rows matching the
    shape's word(s), type and ranges). A trait row carries its strain's type, THC and CBD (see
    models.strain), so its indexes find these rows without reading the strains. ``walking``:
    type and ranges are tested per row of a walk (as in ``_where``)."""
    name, trait = first if first is not None else _first_trait(shape)
    tested: Callable[[Any], Any] = tested_per_row if walking else (lambda c: c)
    where = [_compare(trait.name, name, shape)]
    typed = _compare(tested(trait.type), "type", shape)
    if typed is not None:
        where.append(typed)
    for filter_name, compared, compare in _RANGES:
        if filter_name in shape:
            column = tested(getattr(trait, compared.key))
            where.append(getattr(column, compare)(bindparam(filter_name, type_=Float)))
    return trait, [condition for condition in where if condition is not None]


def _trait_walk_where(shape: tuple[str, ...], walked: _Trait) -> list[ColumnElement[bool]]:
    """The filters of a shape as the walked trait's matching rows, each joined to its strain,
    with an EXISTS test of the other trait's word(s) when that is filtered too."""
    trait, where = _trait_rows_where(shape, walked, walking=True)
    where.append(Strain.id == trait.strain_id)
    if SINCE in shape:
        where.append(since_where(tested_per_row(Strain.updated_at.expression)))
    other_name, other = _TRAITS[1] if walked[0] == "effect" else _TRAITS[0]
    has_other = _has_trait(other, other_name, shape, trait.strain_id)
    if has_other is not None:
        where.append(has_other)
    where.extend(_chemistry_where(shape, tested_per_row))
    return where


def _trait_count(shape: tuple[str, ...]) -> Select[Any]:
    """The count of a shape with a trait filter, from the first trait's rows alone: one row
    per strain and word, so a strain is counted once per word it matches unless DISTINCT."""
    first = _first_trait(shape)
    name, _ = first
    trait, where = _trait_rows_where(shape, first)
    flavored = _compare(StrainFlavor.name, "flavor", shape)
    if trait is StrainEffect and flavored is not None:
        where.append(trait.strain_id.in_(select(StrainFlavor.strain_id).where(flavored)))
    if SINCE in shape:
        stamped = select(Strain.id).where(since_where(Strain.updated_at))
        where.append(trait.strain_id.in_(stamped))
    chemistry = _chemistry_where(shape, lambda c: c)
    if chemistry:
        where.append(trait.strain_id.in_(select(Strain.id).where(*chemistry)))
    counted = func.count(trait.strain_id.distinct()) if name + _MANY in shape else func.count()
    return select(counted).select_from(trait).where(*where)


def _trait_driven_where(shape: tuple[str, ...]) -> list[ColumnElement[bool]]:
    """The filters of a shape with a trait filter, as the strains among the first trait's
    matching rows (and, with both traits, an EXISTS test of the flavor)."""
    trait, matching = _trait_rows_where(shape)
    where: list[ColumnElement[bool]] = [Strain.id.in_(select(trait.strain_id).where(*matching))]
    if SINCE in shape:
        where.append(since_where(Strain.updated_at))
    flavored = _has_trait(StrainFlavor, "flavor", shape)
    if trait is StrainEffect and flavored is not None:
        where.append(flavored)
    where.extend(_chemistry_where(shape, lambda c: c))
    return where


def _stamped(shape: tuple[str, ...]) -> Listing:
    """By the change stamp: the page walks the (updated_at, id) index (from ``updated_since``,
    when given), testing the other filters per strain, and stops once full; the count finds the
    stamped strains through that index too."""
    sort = next(name for name in STAMP_SORTS if name in shape)
    walked = _where(tuple(name for name in shape if name != SINCE), walking=True)
    if SINCE in shape:
        walked.append(since_where(Strain.updated_at))
    order = stamp_order(Strain.updated_at, Strain.id, sort)
    count = select(func.count()).select_from(Strain).where(*_where(shape, walking=False))
    return Listing.of(LISTED, walked, order, count=count)


def _parented(shape: tuple[str, ...]) -> Listing:
    """With ``parent``: a strain has few children, so they are the candidates (found through
    the (parent_id, strain_id) index), each tested for the other filters, then sorted; no walk
    of the whole name or stamp order."""
    sort = next((name for name in STAMP_SORTS if name in shape), None)
    candidates = (
        select(Strain.id, Strain.sort_key, Strain.updated_at)
        .where(*_where(tuple(name for name in shape if name not in STAMP_SORTS), walking=False))
        .subquery("candidates")
    )

    def order(c: Any) -> tuple[Any, ...]:
        if sort is None:
            return (c.sort_key, c.id)
        return stamp_order(c.updated_at, c.id, sort)

    def listed(ranked: Subquery) -> AnySelect:
        return select(*LISTED).join_from(ranked, Strain, Strain.id == ranked.c.id)

    return ranked_listing(candidates, [], order, listed)


@lru_cache(maxsize=128)
def _listing(shape: tuple[str, ...], dialect: str) -> Listing:
    if PARENT in shape:
        return _parented(shape)
    if any(name in shape for name in STAMP_SORTS):
        return _stamped(shape)
    order = (Strain.sort_key, Strain.id)
    traits = {"effect", "flavor", "effect" + _MANY, "flavor" + _MANY}.intersection(shape)
    if not traits:
        if SINCE in shape or "terpene" in shape or "terpene" + _MANY in shape:
            # By name: the page walks the name index testing each strain's stamp (or its
            # membership of the strains with the terpene, a set read once), and the count finds
            # them through the (updated_at, id) index (or that set).
            count = select(func.count()).select_from(Strain).where(*_where(shape, walking=False))
            return Listing.of(LISTED, _where(shape, walking=True), order, count=count)
        return Listing.of(LISTED, _where(shape, walking=False), order)
    count = _trait_count(shape)
    walked = _walked_trait(shape)
    if walked is not None:
        # One word: its trait rows carry their strain's sort key, type, THC and CBD, so the
        # page walks that word's rows in name order through one index, testing the other
        # filters there, and stops once full; a rare word ends its walk soon too.
        trait = walked[1]
        where = _trait_walk_where(shape, walked)
        return Listing.of(LISTED, where, (trait.sort_key, trait.strain_id), count=count)
    ranged = any(name in shape for name, _, _ in _RANGES)
    if dialect == "postgresql" and ranged:
        # PostgreSQL plans a statement once for any values (models.db) and guesses that a THC
        # or CBD range keeps 0.5 % of the strains, so it would start from the range's index
        # and sort thousands. The trait's rows carry THC and CBD: the candidates come from
        # them (its facets index), each strain is then read by its key and the page sorted.
        return Listing.of(LISTED, _trait_driven_where(shape), order, count=count)
    # Otherwise the page walks the name order, testing each strain, and stops once it is full.
    return Listing.of(LISTED, _where(shape, walking=True), order, count=count)


@lru_cache(maxsize=64)
def _sorted_by_name(shape: tuple[str, ...]) -> Listing:
    """By name, the strains stamped at or after ``updated_since`` found through the
    (updated_at, id) index, the other filters tested on each, and sorted: cheaper than a walk
    of the name index when few are stamped."""
    where = _where(tuple(name for name in shape if name != SINCE), walking=True)
    candidates = (
        select(Strain.id, Strain.sort_key)
        .where(*where, since_where(Strain.updated_at))
        .subquery("candidates")
    )

    def listed(ranked: Subquery) -> AnySelect:
        return select(*LISTED).join_from(ranked, Strain, Strain.id == ranked.c.id)

    return ranked_listing(candidates, [], lambda c: (c.sort_key, c.id), listed)


@lru_cache(maxsize=64)
def _sorted_matches(shape: tuple[str, ...]) -> Listing:
    """By name, the strains matching ``shape`` found through their filters' indexes (a minimum
    median's), then sorted: cheaper than a walk of the name index when few match."""
    candidates = (
        select(Strain.id, Strain.sort_key)
        .where(*_where(shape, walking=False))
        .subquery("candidates")
    )

    def listed(ranked: Subquery) -> AnySelect:
        return select(*LISTED).join_from(ranked, Strain, Strain.id == ranked.c.id)

    return ranked_listing(candidates, [], lambda c: (c.sort_key, c.id), listed)


@lru_cache(maxsize=len(_MINIMUMS))
def _minimum_count(name: str) -> AnySelect:
    """The strains whose median is at least the minimum ``name``, counted in its index alone."""
    column = dict(_MINIMUMS)[name]
    return select(func.count()).select_from(Strain).where(column >= bindparam(name, type_=Float))


def _picked(db: Reader, shape: tuple[str, ...], params: dict[str, Any]) -> Listing:
    """The shape's listing. By name with a minimum median (and no trait or parent filter), the
    strains over the minimum are counted first in its index and sorted when few, else the name
    index is walked (service.paging.pick_listing). Likewise by name with ``updated_since`` on
    SQLite, through the stamps' index; PostgreSQL's plan, made once for any instant, walks the
    name index either way."""
    dialect = dialect_name(db)
    walked = _listing(shape, dialect)
    traits = {"effect", "flavor", "effect" + _MANY, "flavor" + _MANY}.intersection(shape)
    if traits or PARENT in shape or any(name in shape for name in STAMP_SORTS):
        return walked
    minimum = next((name for name, _ in _MINIMUMS if name in shape), None)
    if minimum is not None:
        return pick_listing(db, _minimum_count(minimum), params, _sorted_matches(shape), walked)
    if SINCE not in shape:
        return walked
    if dialect != "sqlite":
        return walked
    return pick_listing(db, _stamped_count(), params, _sorted_by_name(shape), walked)


@lru_cache(maxsize=1)
def _stamped_count() -> AnySelect:
    """The strains stamped at or after ``updated_since``, counted in the (updated_at, id)
    index alone."""
    return select(func.count()).select_from(Strain).where(since_where(Strain.updated_at))


def _strains(found: Sequence[Sequence[Any]]) -> list[StrainRow]:
    """Rows of LISTED as strains."""
    return [StrainRow(*row) for row in found]


def list_strains(db: Reader, filters: StrainFilters, page: PageRequest) -> Page[StrainRow]:
    """Return one page of strains matching ``filters``: by name (any case) then id, or by the
    change stamp (``filters.sort``)."""
    shape, params = _shape(filters)
    result = fetch_page(db, _picked(db, shape, params), params, page)
    return replace(result, items=_strains(result.items))


@lru_cache(maxsize=1)
def _by_slugs_statement() -> AnySelect:
    return select(*LISTED).where(Strain.slug.in_(bindparam("slugs", expanding=True)))


@lru_cache(maxsize=1)
def _by_ids_statement() -> AnySelect:
    return select(*LISTED).where(Strain.id.in_(bindparam("ids", expanding=True)))


@lru_cache(maxsize=1)
def _detail_statement() -> AnySelect:
    return select(*LISTED, Strain.chemistry).where(Strain.slug == bindparam("slug", type_=String))


def get_strain(db: Reader, slug: str) -> StrainDetail:
    """Return the strain with ``slug`` (any case) with its terpenes, chemistry and lineage, in
    two statements; raise NotFound."""
    folded = slug.lower()
    found = SLUG_PATTERN.fullmatch(folded) and rows(db, _detail_statement(), {"slug": folded})
    if not found:
        raise NotFound(f"no strain with slug {slug!r}")
    first: Sequence[Any] = found[0]
    row, stored = StrainRow(*first[:-1]), first[-1]
    extras = extras_by_strain(db, [row.id])[row.id]
    return StrainDetail(
        *row,
        terpenes=extras.terpenes,
        chemistry=render_chemistry(stored),
        lineage=Lineage(row.origin, extras.parents, extras.children_count),
    )


def find_strain(db: Reader, slug: str) -> StrainRow:
    """The strain with ``slug`` (any case), without its terpenes; raise NotFound."""
    folded = slug.lower()
    found = strains_by_slugs(db, [folded]).get(folded)
    if found is None:
        raise NotFound(f"no strain with slug {slug!r}")
    return found


def strains_by_ids(db: Reader, ids: Iterable[int]) -> dict[int, StrainRow]:
    """Return the strains with the given primary keys (effects, flavors included), keyed by id."""
    wanted = list(set(ids))
    if not wanted:
        return {}
    found = _strains(rows(db, _by_ids_statement(), {"ids": wanted}))
    return {strain.id: strain for strain in found}


def strains_by_slugs(db: Reader, slugs: Iterable[str]) -> dict[str, StrainRow]:
    """Return the strains with the given slugs (effects and flavors included), keyed by slug."""
    wanted = [slug for slug in set(slugs) if SLUG_PATTERN.fullmatch(slug)]
    if not wanted:
        return {}
    found = _strains(rows(db, _by_slugs_statement(), {"slugs": wanted}))
    return {strain.slug: strain for strain in found}


@lru_cache(maxsize=1)
def _terpenes_statement() -> Select[int, str]:
    return (
        select(StrainTerpene.strain_id, StrainTerpene.name)
        .where(StrainTerpene.strain_id.in_(bindparam("ids", expanding=True)))
        .order_by(StrainTerpene.strain_id, StrainTerpene.position)
    )


def terpenes_by_strain(db: Reader, ids: Iterable[int]) -> dict[int, list[str]]:
    """Return each strain's terpene names in order, keyed by strain id (all ids present)."""
    found: dict[int, list[str]] = {id_: [] for id_ in ids}
    if not found:
        return found
    for strain_id, name in rows(db, _terpenes_statement(), {"ids": list(found)}):
        found[strain_id].append(name)
    return found

"""Strain queries: filtered list pages, detail by slug, batch lookup."""

import re
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session, selectinload

from models import Strain, StrainEffect, StrainFlavor, StrainTerpene

from .errors import NotFound
from .filters import StrainFilters
from .paging import Page, PageRequest, paginate

# Slugs are lower-case ASCII words joined by hyphens; anything else cannot name a strain and is
# answered without a query (NUL or lone surrogates would otherwise reach the database driver).
SLUG_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def _select_with_traits() -> Select[Any]:
    """Strains with the traits every strain representation shows (effects, flavors)."""
    return select(Strain).options(selectinload(Strain.effects), selectinload(Strain.flavors))


def _select_strains(filters: StrainFilters) -> Select[Any]:
    stmt = _select_with_traits()
    if filters.type is not None:
        stmt = stmt.where(Strain.type == filters.type)
    if filters.effect is not None:
        stmt = stmt.where(
            Strain.id.in_(select(StrainEffect.strain_id).where(StrainEffect.name == filters.effect))
        )
    if filters.flavor is not None:
        stmt = stmt.where(
            Strain.id.in_(select(StrainFlavor.strain_id).where(StrainFlavor.name == filters.flavor))
        )
    if filters.thc_min is not None:
        stmt = stmt.where(Strain.thc >= filters.thc_min)
    if filters.thc_max is not None:
        stmt = stmt.where(Strain.thc <= filters.thc_max)
    if filters.cbd_min is not None:
        stmt = stmt.where(Strain.cbd >= filters.cbd_min)
    if filters.cbd_max is not None:
        stmt = stmt.where(Strain.cbd <= filters.cbd_max)
    return stmt.order_by(Strain.sort_key, Strain.id)


def list_strains(session: Session, filters: StrainFilters, page: PageRequest) -> Page[Strain]:
    """Return one page of strains matching ``filters``, by name (any case) then id."""
    return paginate(session, _select_strains(filters), page)


def get_strain(session: Session, slug: str) -> Strain:
    """Return the strain with ``slug`` (any case) and all its traits; raise NotFound."""
    if not SLUG_PATTERN.fullmatch(slug.lower()):
        raise NotFound(f"no strain with slug {slug!r}")
    strain = session.scalar(
        _select_with_traits()
        .where(Strain.slug == slug.lower())
        .options(selectinload(Strain.terpenes))
    )
    if strain is None:
        raise NotFound(f"no strain with slug {slug!r}")
    return strain


def strains_by_ids(session: Session, ids: Iterable[int]) -> dict[int, Strain]:
    """Return the strains with the given primary keys (effects, flavors loaded), keyed by id."""
    wanted = set(ids)
    if not wanted:
        return {}
    rows = session.scalars(_select_with_traits().where(Strain.id.in_(wanted)))
    return {strain.id: strain for strain in rows}


def strains_by_slugs(session: Session, slugs: Iterable[str]) -> dict[str, Strain]:
    """Return the strains with the given slugs (effects and flavors loaded), keyed by slug."""
    wanted = {slug for slug in slugs if SLUG_PATTERN.fullmatch(slug)}
    if not wanted:
        return {}
    rows = session.scalars(_select_with_traits().where(Strain.slug.in_(wanted)))
    return {strain.slug: strain for strain in rows}


def terpenes_by_strain(session: Session, ids: Iterable[int]) -> dict[int, list[str]]:
    """Return each strain's terpene names in order, keyed by strain id (all ids present)."""
    found: dict[int, list[str]] = {id_: [] for id_ in ids}
    if not found:
        return found
    rows = session.execute(
        select(StrainTerpene.strain_id, StrainTerpene.name)
        .where(StrainTerpene.strain_id.in_(found))
        .order_by(StrainTerpene.strain_id, StrainTerpene.position)
    )
    for strain_id, name in rows:
        found[strain_id].append(name)
    return found

"""Strains and their multi-valued traits (effects, flavors, terpenes)."""

from typing import Any

from sqlalchemy import JSON, CheckConstraint, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .base import Base, Timestamped, sort_key_from_name, sort_key_type


class Strain(Timestamped, Base):
    __tablename__ = "strains"
    __table_args__ = (
        # service.vocab.StrainType's words (tests/unit/test_vocab.py keeps them equal).
        CheckConstraint("type IN ('indica', 'sativa', 'hybrid')", name="type"),
        CheckConstraint("thc >= 0 AND thc <= 100", name="thc_range"),
        CheckConstraint("cbd >= 0 AND cbd <= 100", name="cbd_range"),
        CheckConstraint("rating >= 0 AND rating <= 5", name="rating_range"),
        # GET /strains orders by sort_key (the name, case-insensitively), then id.
        Index("ix_strains_sort_key_id", "sort_key", "id"),
        # updated_since and sort=updated_at
        Index("ix_strains_updated_at_id", "updated_at", "id"),
        # service.compounds' words (tests/unit/test_vocab.py keeps them equal).
        CheckConstraint("origin IN ('cross', 'landrace', 'phenotype', 'unknown')", name="origin"),
        CheckConstraint("ratio IN ('thc_dominant', 'cbd_dominant', 'balanced')", name="ratio"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # GET /strains/{slug}
    slug: Mapped[str] = mapped_column(String(120), unique=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    sort_key: Mapped[str] = mapped_column(sort_key_type(120), default=sort_key_from_name)
    # GET /strains?type=
    type: Mapped[str] = mapped_column(String(10), index=True)
    # GET /strains?thc_min=&thc_max=
    thc: Mapped[float] = mapped_column(Float, index=True)
    # GET /strains?cbd_min=&cbd_max=
    cbd: Mapped[float] = mapped_column(Float, index=True)
    description: Mapped[str] = mapped_column(Text)
    rating: Mapped[float] = mapped_column(Float)
    review_count: Mapped[int] = mapped_column(Integer)
    # The names of the strain's effects and flavors in position order: copies of its trait rows
    # (which the filters use), set by every load (seed.generate.Dataset.tables), so that a list
    # page reads them with the strain's own row instead of aggregating trait rows per strain.
    effect_list: Mapped[list[str]] = mapped_column(JSON)
    flavor_list: Mapped[list[str]] = mapped_column(JSON)
    # Where the strain comes from (service.compounds.Origin); its parents are StrainParent rows.
    origin: Mapped[str] = mapped_column(String(10), default="unknown")
    # The strain's typical chemistry, or None when it has no samples: percentiles (p25, p50, p75,
    # percent of dry weight) per compound key and of the totals, as the import or seed computed
    # them (seed.chemistry documents the layout). The columns below copy what lists filter on
    # from it, and every load sets them (seed.generate.Dataset.tables), like effect_list.
    chemistry: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # GET /strains?dominant_terpene= ; None without chemistry
    dominant_terpene: Mapped[str | None] = mapped_column(String(20), index=True)
    # GET /strains?ratio=
    ratio: Mapped[str | None] = mapped_column(String(12), index=True)
    # GET /strains?cbg_min= (and cbn_min, thcv_min, cbc_min): the compound's median. Indexed:
    # the list counts the strains over a minimum in the index, and sorts them when few.
    cbg: Mapped[float | None] = mapped_column(Float, index=True)
    cbn: Mapped[float | None] = mapped_column(Float, index=True)
    thcv: Mapped[float | None] = mapped_column(Float, index=True)
    cbc: Mapped[float | None] = mapped_column(Float, index=True)

    effects: Mapped[list["StrainEffect"]] = relationship(
        order_by="StrainEffect.position", cascade="all, delete-orphan", lazy="raise"
    )
    flavors: Mapped[list["StrainFlavor"]] = relationship(
        order_by="StrainFlavor.position", cascade="all, delete-orphan", lazy="raise"
    )
    terpenes: Mapped[list["StrainTerpene"]] = relationship(
        order_by="StrainTerpene.position", cascade="all, delete-orphan", lazy="raise"
    )

    def __repr__(self) -> str:
        return f"Strain(slug={self.slug!r}, type={self.type!r}, thc={self.thc}, cbd={self.cbd})"


class _Trait:
    """Columns shared by the three trait tables: one row per (strain, value)."""

    strain_id: Mapped[int] = mapped_column(
        ForeignKey("strains.id", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(strain_id={self.strain_id}, name={self.name!r})"


class _FilteredTrait(_Trait):
    """A trait GET /strains filters by. Its rows also carry copies of their strain's type, THC,
    CBD and sort key (every load sets them, see seed.generate.Dataset.tables), so the strains
    matching one word and those filters are counted from one index range of this table, and
    listed in name order by walking another."""

    type: Mapped[str] = mapped_column(String(10))
    thc: Mapped[float] = mapped_column(Float)
    cbd: Mapped[float] = mapped_column(Float)
    sort_key: Mapped[str] = mapped_column(sort_key_type(120))


class StrainEffect(_FilteredTrait, Base):
    __tablename__ = "strain_effects"
    __table_args__ = (
        # GET /strains?effect= : find strain ids by value without scanning.
        Index("ix_strain_effects_name_strain_id", "name", "strain_id"),
        # ... and count them with the other filters.
        Index("ix_strain_effects_facets", "name", "type", "thc", "cbd"),
        # ... and list them in name order, testing the other filters in the index.
        Index("ix_strain_effects_walk", "name", "sort_key", "strain_id", "type", "thc", "cbd"),
    )


class StrainFlavor(_FilteredTrait, Base):
    __tablename__ = "strain_flavors"
    __table_args__ = (
        # GET /strains?flavor=
        Index("ix_strain_flavors_name_strain_id", "name", "strain_id"),
        Index("ix_strain_flavors_facets", "name", "type", "thc", "cbd"),
        Index("ix_strain_flavors_walk", "name", "sort_key", "strain_id", "type", "thc", "cbd"),
    )


class StrainTerpene(_Trait, Base):
    __tablename__ = "strain_terpenes"
    __table_args__ = (Index("ix_strain_terpenes_name_strain_id", "name", "strain_id"),)


class StrainParent(Base):
    """One edge of the lineage: ``strain_id`` was bred from ``parent_id`` (its first parent has
    position 0). Imports refuse a cycle, so the edges form a DAG."""

    __tablename__ = "strain_parents"
    __table_args__ = (
        CheckConstraint("strain_id <> parent_id", name="not_own_parent"),
        # GET /strains?parent= and lineage?direction=descendants: children by parent.
        Index("ix_strain_parents_parent_id_strain_id", "parent_id", "strain_id"),
    )

    strain_id: Mapped[int] = mapped_column(
        ForeignKey("strains.id", ondelete="CASCADE"), primary_key=True
    )
    parent_id: Mapped[int] = mapped_column(
        ForeignKey("strains.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer)

    def __repr__(self) -> str:
        return f"StrainParent(strain_id={self.strain_id}, parent_id={self.parent_id})"

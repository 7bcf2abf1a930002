"""Dispensaries, their menu items and their reviews."""

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
)
from sqlalchemy.ext.hybrid import hybrid_property
from sqlalchemy.orm import Mapped, mapped_column, relationship
from sqlalchemy.sql.elements import ColumnElement

from .base import Base, Timestamped, sort_key_from_name, sort_key_type, stamp_now


class Dispensary(Timestamped, Base):
    __tablename__ = "dispensaries"
    __table_args__ = (
        # service.vocab.DispensaryType's words (tests/unit/test_vocab.py keeps them equal).
        CheckConstraint("type IN ('recreational', 'medical', 'both')", name="type"),
        CheckConstraint("rating >= 0 AND rating <= 5", name="rating_range"),
        # GET /dispensaries orders by sort_key (the name, case-insensitively), then id.
        Index("ix_dispensaries_sort_key_id", "sort_key", "id"),
        # GET /dispensaries?state= : the state's rows already in list order.
        Index("ix_dispensaries_state_sort_key_id", "state", "sort_key", "id"),
        # GET /dispensaries?state=&city= (city compared case-insensitively via city_key)
        Index("ix_dispensaries_state_city_key", "state", "city_key"),
        # GET /dispensaries?zip= : bounding-box prefilter before the distance sort.
        Index("ix_dispensaries_lat_lng", "lat", "lng"),
        # updated_since and sort=updated_at
        Index("ix_dispensaries_updated_at_id", "updated_at", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # GET /dispensaries/{id}: the public id, disp_<number>
    public_id: Mapped[str] = mapped_column(String(24), unique=True)
    name: Mapped[str] = mapped_column(String(160))
    sort_key: Mapped[str] = mapped_column(sort_key_type(160), default=sort_key_from_name)
    street: Mapped[str] = mapped_column(String(160))
    city: Mapped[str] = mapped_column(String(80))
    city_key: Mapped[str] = mapped_column(String(80))
    state: Mapped[str] = mapped_column(ForeignKey("laws.state_code"))
    zip: Mapped[str] = mapped_column(String(5), index=True)
    lat: Mapped[float] = mapped_column(Float)
    lng: Mapped[float] = mapped_column(Float)
    # IANA zone of the address (service.geo.zip_timezone); opening hours are its wall-clock time.
    timezone: Mapped[str] = mapped_column(String(64))
    # GET /dispensaries?type=
    type: Mapped[str] = mapped_column(String(12), index=True)
    rating: Mapped[float] = mapped_column(Float)
    review_count: Mapped[int] = mapped_column(Integer)
    # GET /dispensaries?delivery=
    delivery: Mapped[bool] = mapped_column(Boolean, index=True)
    # {"mon": "9:00-21:00", ...}; closed days are absent. Displayed, never filtered.
    hours: Mapped[dict[str, str]] = mapped_column(JSON)
    phone: Mapped[str] = mapped_column(String(20))
    website: Mapped[str] = mapped_column(String(200))
    # When its menu (items, prices, stock) last changed; updated_at covers the menu too.
    menu_updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=stamp_now)

    menu: Mapped[list["MenuItem"]] = relationship(
        order_by="MenuItem.position", cascade="all, delete-orphan", lazy="raise"
    )
    reviews: Mapped[list["Review"]] = relationship(
        order_by="(Review.date.desc(), Review.id.desc())",
        cascade="all, delete-orphan",
        lazy="raise",
    )

    @hybrid_property
    def address(self) -> str:
        """Single-line street address: ``<number> <street>, <City>, <ST> <ZIP>``."""
        return f"{self.street}, {self.city}, {self.state} {self.zip}"

    @address.inplace.expression
    @classmethod
    def _address_expression(cls) -> ColumnElement[str]:
        """The same address, built by the database (for queries that select columns)."""
        return cls.street + ", " + cls.city + ", " + cls.state + " " + cls.zip

    def __repr__(self) -> str:
        return f"Dispensary(public_id={self.public_id!r}, name={self.name!r}, state={self.state!r})"


class MenuItem(Timestamped, Base):
    __tablename__ = "menu_items"
    __table_args__ = (
        CheckConstraint("price >= 0", name="price_positive"),
        # A menu is read in order, its first N items as ``position < N``: every writer (seed,
        # import) numbers a dispensary's items 0, 1, 2, ... and the index keeps them distinct.
        Index("ix_menu_items_dispensary_id_position", "dispensary_id", "position", unique=True),
        # GET /strains/{slug}/dispensaries?sort=price_per_gram and total_thc_min (and GraphQL's
        # Strain.dispensaries): a strain's items at one dispensary, with what those read.
        Index(
            "ix_menu_items_strain_id_dispensary_id",
            "strain_id",
            "dispensary_id",
            "total_thc",
            "price_per_gram",
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    dispensary_id: Mapped[int] = mapped_column(ForeignKey("dispensaries.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(160))
    category: Mapped[str] = mapped_column(String(20))
    price: Mapped[float] = mapped_column(Float)  # USD
    unit: Mapped[str] = mapped_column(String(20))
    # Set when the item is a strain's flower (GraphQL Strain.dispensaries walks this back).
    strain_id: Mapped[int | None] = mapped_column(
        ForeignKey("strains.id", ondelete="SET NULL"), index=True
    )
    # The lab result of the batch on the shelf, or None: batch_id, tested_at (ISO date), lab,
    # coa_url and results (each {key, value, unit} or {key, value: None, qualifier}).
    lab: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # Copies every load derives (seed.generate.Dataset.tables) so a strain's dispensaries can be
    # filtered and sorted on them: the batch's totals by service.compounds' formulas, and the
    # price over the grams of a weight unit (None for other units).
    total_thc: Mapped[float | None] = mapped_column(Float)
    total_cbd: Mapped[float | None] = mapped_column(Float)
    price_per_gram: Mapped[float | None] = mapped_column(Float)

    def __repr__(self) -> str:
        return f"MenuItem(dispensary_id={self.dispensary_id}, name={self.name!r})"


class Review(Timestamped, Base):
    __tablename__ = "reviews"
    __table_args__ = (
        CheckConstraint("rating >= 1 AND rating <= 5", name="rating_range"),
        # Dispensary detail shows the newest reviews first.
        Index("ix_reviews_dispensary_id_date", "dispensary_id", "date"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    dispensary_id: Mapped[int] = mapped_column(ForeignKey("dispensaries.id", ondelete="CASCADE"))
    rating: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    author: Mapped[str] = mapped_column(String(80))
    date: Mapped[date] = mapped_column(Date)

    def __repr__(self) -> str:
        return f"Review(dispensary_id={self.dispensary_id}, rating={self.rating}, date={self.date})"


class DispensaryOpenSpan(Base):
    """One opening of a dispensary's week, as seconds after Monday 00:00 in its zone's wall
    time, cut at the week's end (service.hours.weekly_spans). Derived from ``hours`` by every
    load, so that "open at this instant" is a SQL condition: each zone's clock against the week
    is worked out per request (service.hours.week_clocks)."""

    __tablename__ = "dispensary_open_spans"
    # The key holds every column, so a probe reads the key alone (no rowid table on SQLite);
    # a dispensary's openings never overlap, so (dispensary_id, starts) is unique too.
    __table_args__ = ({"sqlite_with_rowid": False},)

    dispensary_id: Mapped[int] = mapped_column(
        ForeignKey("dispensaries.id", ondelete="CASCADE"), primary_key=True
    )
    starts: Mapped[int] = mapped_column(Integer, primary_key=True)
    ends: Mapped[int] = mapped_column(Integer, primary_key=True)


class DispensaryTimeZone(Base):
    """Every zone some dispensary is in (set by every load with the spans): the zones whose
    moment of the week a request works out."""

    __tablename__ = "dispensary_time_zones"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)

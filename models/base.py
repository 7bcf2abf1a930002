"""Declarative base, constraint naming convention and shared column helpers."""

from datetime import UTC, datetime

from sqlalchemy import DateTime, MetaData, String
from sqlalchemy.engine.default import DefaultExecutionContext
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """Return the current time as an aware UTC datetime."""
    return datetime.now(UTC)


def stamp_now() -> datetime:
    """The current time as a change stamp: UTC, cut to the millisecond the API shows, so a
    stamp read back from the API and sent as ``updated_since`` matches it exactly."""
    now = datetime.now(UTC)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Timestamped:
    """Mixin giving every row an ``updated_at`` stamp. For the served objects (strains,
    dispensaries, deals, doctors, laws) it is the instant anything the object shows last changed:
    loads set it from the change log (models.change), never from the clock alone."""

    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=stamp_now, onupdate=stamp_now
    )


def sort_key_type(length: int) -> String:
    """String compared byte by byte on every backend (PostgreSQL would otherwise use its locale)."""
    return String(length).with_variant(String(length, collation="C"), "postgresql")


def sort_key_of(name: str) -> str:
    """The ``sort_key`` of a row called ``name``: the name in lower case."""
    return name.lower()


def sort_key_from_name(context: DefaultExecutionContext) -> str:
    """Default for ``sort_key`` columns: :func:`sort_key_of` the row's name."""
    return sort_key_of(context.get_current_parameters()["name"])

"""State-by-state cannabis law records, one per jurisdiction."""

from datetime import date

from sqlalchemy import JSON, Boolean, Date, Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, Timestamped


class Law(Timestamped, Base):
    __tablename__ = "laws"
    # updated_since and sort=updated_at
    __table_args__ = (Index("ix_laws_updated_at_state_code", "updated_at", "state_code"),)

    # GET /laws/{state}: two-letter code, upper case.
    state_code: Mapped[str] = mapped_column(String(2), primary_key=True)
    state: Mapped[str] = mapped_column(String(60), unique=True)
    recreational: Mapped[bool] = mapped_column(Boolean)
    medical: Mapped[bool] = mapped_column(Boolean)
    possession_limit_oz: Mapped[float] = mapped_column(Float)
    home_grow: Mapped[bool] = mapped_column(Boolean)
    home_grow_plants: Mapped[int] = mapped_column(Integer)
    delivery_legal: Mapped[bool] = mapped_column(Boolean)
    updated: Mapped[date] = mapped_column(Date)
    # Provenance kept with the data; not served by the API.
    notes: Mapped[str] = mapped_column(Text, default="")
    confidence: Mapped[str] = mapped_column(String(10), default="")
    sources: Mapped[list[str]] = mapped_column(JSON, default=list)

    @property
    def has_program(self) -> bool:
        """True where a medical or adult-use market may legally exist."""
        return self.medical or self.recreational

    def __repr__(self) -> str:
        return (
            f"Law(state_code={self.state_code!r}, recreational={self.recreational}, "
            f"medical={self.medical})"
        )

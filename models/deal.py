"""Deals: promotions tied to one dispensary."""

from datetime import date

from sqlalchemy import Date, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .base import Base, Timestamped
from .dispensary import Dispensary


class Deal(Timestamped, Base):
    __tablename__ = "deals"
    __table_args__ = (
        # GET /deals orders by expiry, then id, and filters out expired deals.
        Index("ix_deals_expires_id", "expires", "id"),
        # updated_since and sort=updated_at
        Index("ix_deals_updated_at_id", "updated_at", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # deal_<number>
    public_id: Mapped[str] = mapped_column(String(24), unique=True)
    dispensary_id: Mapped[int] = mapped_column(
        ForeignKey("dispensaries.id", ondelete="CASCADE"), index=True
    )
    title: Mapped[str] = mapped_column(String(160))
    # GET /deals?category=
    category: Mapped[str] = mapped_column(String(20), index=True)
    discount: Mapped[str] = mapped_column(String(40))
    expires: Mapped[date] = mapped_column(Date)

    dispensary: Mapped[Dispensary] = relationship(lazy="raise")

    @property
    def dispensary_name(self) -> str:
        """The offering dispensary's name (load the dispensary with the deal)."""
        return self.dispensary.name

    def __repr__(self) -> str:
        return f"Deal(public_id={self.public_id!r}, expires={self.expires})"

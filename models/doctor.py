"""Medical marijuana physicians."""

from sqlalchemy import Boolean, CheckConstraint, Float, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, Timestamped, sort_key_from_name, sort_key_type


class Doctor(Timestamped, Base):
    __tablename__ = "doctors"
    __table_args__ = (
        CheckConstraint("rating >= 0 AND rating <= 5", name="rating_range"),
        CheckConstraint("price >= 0", name="price_positive"),
        # GET /doctors orders by sort_key (the name, case-insensitively), then id.
        Index("ix_doctors_sort_key_id", "sort_key", "id"),
        # GET /doctors?state=&city=
        Index("ix_doctors_state_city_key", "state", "city_key"),
        # updated_since and sort=updated_at
        Index("ix_doctors_updated_at_id", "updated_at", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # doc_<number>
    public_id: Mapped[str] = mapped_column(String(24), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    sort_key: Mapped[str] = mapped_column(sort_key_type(120), default=sort_key_from_name)
    city: Mapped[str] = mapped_column(String(80))
    city_key: Mapped[str] = mapped_column(String(80))
    state: Mapped[str] = mapped_column(ForeignKey("laws.state_code"), index=True)
    zip: Mapped[str] = mapped_column(String(5), index=True)
    lat: Mapped[float] = mapped_column(Float)
    lng: Mapped[float] = mapped_column(Float)
    # IANA zone of the address (service.geo.zip_timezone); opening hours are its wall-clock time.
    timezone: Mapped[str] = mapped_column(String(64))
    # GET /doctors?telehealth=
    telehealth: Mapped[bool] = mapped_column(Boolean, index=True)
    rating: Mapped[float] = mapped_column(Float)
    price: Mapped[float] = mapped_column(Float)  # consultation fee, USD

    def __repr__(self) -> str:
        return f"Doctor(public_id={self.public_id!r}, name={self.name!r}, state={self.state!r})"

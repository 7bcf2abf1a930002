"""Facts about the loaded dataset (one row): where it came from and its version."""

from datetime import date, datetime

from sqlalchemy import Date, DateTime, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, utcnow


class DatasetInfo(Base):
    __tablename__ = "dataset_info"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Bumped by every seed or import; caches and ETags key on it.
    version: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(40))  # "demo-seed" or "import"
    seed: Mapped[int | None] = mapped_column(Integer)
    # The day the demo dataset was built; deal expiry dates are relative to it.
    reference_day: Mapped[date] = mapped_column(Date)
    loaded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    def __repr__(self) -> str:
        return f"DatasetInfo(version={self.version}, source={self.source!r})"

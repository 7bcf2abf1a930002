"""API keys: only a SHA-256 hash of the secret is stored."""

from datetime import datetime

from sqlalchemy import CheckConstraint, DateTime, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, Timestamped, utcnow


class ApiKey(Timestamped, Base):
    __tablename__ = "api_keys"
    __table_args__ = (
        # service.vocab.KeyTier's words (tests/unit/test_vocab.py keeps them equal).
        CheckConstraint("tier IN ('free', 'pro', 'enterprise')", name="tier"),
        CheckConstraint("hourly_limit IS NULL OR hourly_limit > 0", name="limit_positive"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Hex SHA-256 of the full key; the lookup column for authentication.
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # Last four characters, so operators can tell keys apart without the secret.
    last4: Mapped[str] = mapped_column(String(4))
    tier: Mapped[str] = mapped_column(String(12))
    name: Mapped[str] = mapped_column(String(120), default="")
    # Custom requests-per-hour (enterprise); NULL means the tier's default.
    hourly_limit: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    def __repr__(self) -> str:
        return f"ApiKey(id={self.id}, tier={self.tier!r}, last4={self.last4!r})"

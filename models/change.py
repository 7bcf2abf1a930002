"""The change log behind ``GET /changes``: per served object its latest change, and the feed's
own state (where its cursors start, how far deletions have been dropped).

One row per object (kind, key), compacted: a new change replaces the object's row with one at a
higher ``seq``, so reading by ``seq`` gives every object's latest change once, in commit order.
``digest`` (and a dispensary's ``menu_digest``) fingerprint what the object shows, so a load that
brings an identical record changes nothing. Loads and merges are serialized on the feed state's
row, so sequence numbers become visible in order. Neither table is dropped by a reload.
"""

from datetime import datetime

from sqlalchemy import CheckConstraint, DateTime, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, stamp_now


class Change(Base):
    __tablename__ = "changes"
    __table_args__ = (
        CheckConstraint("op IN ('upsert', 'delete')", name="op"),
        CheckConstraint("kind IN ('strain', 'dispensary', 'deal', 'doctor', 'law')", name="kind"),
        # One row per object: its latest change.
        Index("ix_changes_kind_key", "kind", "key", unique=True),
        # A page of some kinds only (types=) reads their rows in order, not the whole log.
        Index("ix_changes_kind_seq", "kind", "seq"),
    )

    # The feed's order and its cursors' position; assigned from FeedState.last_seq.
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(String(12))
    # The public id: a strain's slug, disp_/deal_/doc_ ids, a law's state code.
    key: Mapped[str] = mapped_column(String(120))
    op: Mapped[str] = mapped_column(String(6))
    # An upsert's ``at`` is the object's updated_at; a deletion's, when it was deleted.
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # A dispensary's menu_updated_at (None for other kinds and for deletions).
    menu_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    digest: Mapped[str | None] = mapped_column(String(32))
    menu_digest: Mapped[str | None] = mapped_column(String(32))

    def __repr__(self) -> str:
        return f"Change(seq={self.seq}, {self.kind} {self.key!r} {self.op})"


class FeedState(Base):
    """One row: the feed's epoch (a fresh log starts a new one, and cursors of another epoch
    have expired), the last sequence number given out, the highest one of a deletion dropped
    after the retention period (a cursor below it has expired), and when the data last
    changed."""

    __tablename__ = "feed_state"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    epoch: Mapped[str] = mapped_column(String(16))
    last_seq: Mapped[int] = mapped_column(Integer, default=0)
    horizon: Mapped[int] = mapped_column(Integer, default=0)
    as_of: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=stamp_now)

    def __repr__(self) -> str:
        return f"FeedState(epoch={self.epoch!r}, last_seq={self.last_seq})"

"""search pairs: the entries under each two-character piece of their names

Revision ID: c4d8a1f07e26
Revises: 9b6e2f0c5d13
Create Date: 2026-11-24 05:50:00.000000

Two-character queries, which no trigram index serves, used to scan every search entry; this
revision adds the table that finds their entries by key (models.search.SearchPair) and fills it
from the entries already built (online mode; with ``--sql`` run ``flask seed`` or an import
afterwards).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

from models.search import pairs

# revision identifiers, used by Alembic.
revision: str = "c4d8a1f07e26"
down_revision: str | Sequence[str] | None = "9b6e2f0c5d13"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the pairs table (unless create_all made it already) and fill it."""
    offline = context.is_offline_mode()
    if offline or not sa.inspect(op.get_bind()).has_table("search_pairs"):
        op.create_table(
            "search_pairs",
            sa.Column("pair", sa.String(length=2), nullable=False),
            sa.Column("entry_id", sa.Integer(), autoincrement=False, nullable=False),
            sa.PrimaryKeyConstraint("pair", "entry_id", name=op.f("pk_search_pairs")),
            sqlite_with_rowid=False,
        )
    bind = None if offline else op.get_bind()
    columns = {c["name"] for c in sa.inspect(bind).get_columns("search_pairs")} if bind else set()
    if bind is not None and "rank" not in columns:
        # This revision's own fill (create_all builds the shape of revision d7f3a9c51e20, which
        # fills that one itself).
        entries = bind.execute(sa.text("SELECT id, folded FROM search_entries")).all()
        rows = [{"pair": p, "entry_id": id_} for id_, folded in entries for p in pairs(folded)]
        table = sa.table("search_pairs", sa.column("pair"), sa.column("entry_id"))
        bind.execute(sa.delete(table))
        for start in range(0, len(rows), 20_000):
            bind.execute(sa.insert(table), rows[start : start + 20_000])


def downgrade() -> None:
    """Drop the pairs (two-character queries need them from this revision on)."""
    op.drop_table("search_pairs")

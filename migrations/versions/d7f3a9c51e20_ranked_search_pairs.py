"""ranked search pairs: each pair row carries its entry's rank, place in search order and scope

Revision ID: d7f3a9c51e20
Revises: e5b7c2d94a18
Create Date: 2026-11-24 21:20:00.000000

A two-character search fetched every entry of its pair to rank and count them; the pair rows
now carry the entry's rank for that query, its place in search order, its kind, state and
expiry (models.search.SearchPair), so a page walks the primary key and the total counts the
pair's rows. The table is rebuilt in its new shape and filled from the entries
already built (online mode; with ``--sql`` run ``flask seed`` or an import afterwards).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

from models.search import pairs
from models.search.rebuild import refill_search_pairs

# revision identifiers, used by Alembic.
revision: str = "d7f3a9c51e20"
down_revision: str | Sequence[str] | None = "e5b7c2d94a18"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _columns() -> set[str]:
    bind = op.get_bind()
    if not sa.inspect(bind).has_table("search_pairs"):
        return set()
    return {column["name"] for column in sa.inspect(bind).get_columns("search_pairs")}


def upgrade() -> None:
    """Replace the pairs table of revision c4d8a1f07e26 (unless create_all made the new one)."""
    offline = context.is_offline_mode()
    if offline or "rank" not in _columns():
        op.drop_table("search_pairs")
        op.create_table(
            "search_pairs",
            sa.Column("pair", sa.String(length=2), nullable=False),
            sa.Column("rank", sa.SmallInteger(), autoincrement=False, nullable=False),
            sa.Column("position", sa.Integer(), autoincrement=False, nullable=False),
            sa.Column("entry_id", sa.Integer(), nullable=False),
            sa.Column("kind", sa.String(length=10), nullable=False),
            sa.Column("state", sa.String(length=2), nullable=True),
            sa.Column("expires", sa.Date(), nullable=True),
            sa.PrimaryKeyConstraint("pair", "rank", "position", name=op.f("pk_search_pairs")),
            sqlite_with_rowid=False,
        )
    if not offline:
        refill_search_pairs(op.get_bind())


def downgrade() -> None:
    """Back to the pairs of revision c4d8a1f07e26: a pair and an entry per row."""
    op.drop_table("search_pairs")
    op.create_table(
        "search_pairs",
        sa.Column("pair", sa.String(length=2), nullable=False),
        sa.Column("entry_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.PrimaryKeyConstraint("pair", "entry_id", name=op.f("pk_search_pairs")),
        sqlite_with_rowid=False,
    )
    if not context.is_offline_mode():
        fill_entry_pairs(op.get_bind())


def fill_entry_pairs(bind: sa.Connection) -> None:
    """Fill the first revision's pairs table (pair, entry_id) from the search entries."""
    entries = bind.execute(sa.text("SELECT id, folded FROM search_entries")).all()
    rows = [{"pair": pair, "entry_id": id_} for id_, folded in entries for pair in pairs(folded)]
    table = sa.table("search_pairs", sa.column("pair"), sa.column("entry_id"))
    for start in range(0, len(rows), 20_000):
        bind.execute(sa.insert(table), rows[start : start + 20_000])

"""search entries: every searchable name in one table, with one trigram index over it

Revision ID: 9b6e2f0c5d13
Revises: 7a4d19e6c3b2
Create Date: 2026-11-23 14:45:00.000000

Search reads one narrow table (models.search) instead of four source tables: this revision
creates it, replaces the four per-table trigram indexes of PostgreSQL with one over the folded
names, rebuilds SQLite's FTS5 tables keyed by entry id, and fills all of it from the rows
already loaded (online mode; with ``--sql`` run ``flask seed`` or an import afterwards).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

from models.search.rebuild import rebuild_search_index
from models.search.structures import search_create_statements, search_drop_statements

# revision identifiers, used by Alembic.
revision: str = "9b6e2f0c5d13"
down_revision: str | Sequence[str] | None = "7a4d19e6c3b2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# What revision 3c1f9a7d2e45 made: per-table indexes (PostgreSQL), FTS5 keyed by source row.
OLD_PG_INDEXES = {
    "ix_strains_name_trgm": ("strains", "name"),
    "ix_dispensaries_name_trgm": ("dispensaries", "name"),
    "ix_doctors_name_trgm": ("doctors", "name"),
    "ix_deals_title_trgm": ("deals", "title"),
}
FTS_TABLES = ("search_grams_terms", "search_grams", "search_names")
OLD_SQLITE_CREATE = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS search_names "
    "USING fts5(name, size UNINDEXED, tokenize = 'trigram')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS search_grams "
    "USING fts5(grams, content = '', tokenize = 'unicode61')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS search_grams_terms USING fts5vocab(search_grams, instance)",
)


def _dialect() -> str:
    return op.get_context().dialect.name


def upgrade() -> None:
    """Create the entries and their index, drop the old structures, fill them."""
    if not sa.inspect(op.get_bind()).has_table("search_entries"):  # else built by create_all
        op.create_table(
            "search_entries",
            sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
            sa.Column("kind", sa.String(length=10), nullable=False),
            sa.Column("key", sa.String(length=120), nullable=False),
            sa.Column("name", sa.String(length=200), nullable=False),
            sa.Column("folded", sa.String(length=200), nullable=False),
            sa.Column("words", sa.String(length=202), nullable=False),
            sa.Column("state", sa.String(length=2), nullable=True),
            sa.Column("expires", sa.Date(), nullable=True),
            sa.PrimaryKeyConstraint("id", name=op.f("pk_search_entries")),
        )
    if _dialect() == "postgresql":
        for index in OLD_PG_INDEXES:
            op.execute(f"DROP INDEX IF EXISTS {index}")
    elif _dialect() == "sqlite":
        for table in FTS_TABLES:  # their rowids meant source rows; now they mean entries
            op.execute(f"DROP TABLE IF EXISTS {table}")
    for statement in search_create_statements(_dialect()):
        op.execute(statement)
    if not context.is_offline_mode():
        rebuild_search_index(op.get_bind())


def downgrade() -> None:
    """Back to the per-source structures of revision 3c1f9a7d2e45 (empty on SQLite until the
    next load)."""
    for statement in search_drop_statements(_dialect()):
        op.execute(statement)
    op.drop_table("search_entries")
    if _dialect() == "postgresql":
        for index, (table, column) in OLD_PG_INDEXES.items():
            op.execute(
                f"CREATE INDEX IF NOT EXISTS {index} ON {table} "
                f"USING gin (lower({column}) gin_trgm_ops)"
            )
    elif _dialect() == "sqlite":
        for statement in OLD_SQLITE_CREATE:
            op.execute(statement)

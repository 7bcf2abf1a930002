"""search indexes: pg_trgm GIN indexes on PostgreSQL, FTS5 tables on SQLite

Revision ID: 3c1f9a7d2e45
Revises: b626bef8de9d
Create Date: 2026-11-23 01:30:00.000000

The structures as this revision first made them, written out here so that the revision stays
what it was while models.search moves on: a trigram index on lower(name) (lower(title) for
deals) per searched table on PostgreSQL, and on SQLite two FTS5 tables keyed by source row.
Revision 9b6e2f0c5d13 replaces them with one index over the search entries and fills it; with
this revision alone the FTS5 tables stay empty until ``flask seed`` or an import.
"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "3c1f9a7d2e45"
down_revision: str | Sequence[str] | None = "b626bef8de9d"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PG_INDEXES = {
    "ix_strains_name_trgm": ("strains", "name"),
    "ix_dispensaries_name_trgm": ("dispensaries", "name"),
    "ix_doctors_name_trgm": ("doctors", "name"),
    "ix_deals_title_trgm": ("deals", "title"),
}
SQLITE_CREATE = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS search_names "
    "USING fts5(name, size UNINDEXED, tokenize = 'trigram')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS search_grams "
    "USING fts5(grams, content = '', tokenize = 'unicode61')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS search_grams_terms USING fts5vocab(search_grams, instance)",
)
SQLITE_DROP = tuple(
    f"DROP TABLE IF EXISTS {table}"
    for table in ("search_grams_terms", "search_grams", "search_names")
)


def _dialect() -> str:
    return op.get_context().dialect.name


def upgrade() -> None:
    """Create the search structures."""
    if _dialect() == "postgresql":
        op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        for index, (table, column) in PG_INDEXES.items():
            op.execute(
                f"CREATE INDEX IF NOT EXISTS {index} ON {table} "
                f"USING gin (lower({column}) gin_trgm_ops)"
            )
    elif _dialect() == "sqlite":
        for statement in SQLITE_CREATE:
            op.execute(statement)


def downgrade() -> None:
    """Drop the search structures (and the pg_trgm extension)."""
    if _dialect() == "postgresql":
        for index in PG_INDEXES:
            op.execute(f"DROP INDEX IF EXISTS {index}")
        op.execute("DROP EXTENSION IF EXISTS pg_trgm")
    elif _dialect() == "sqlite":
        for statement in SQLITE_DROP:
            op.execute(statement)

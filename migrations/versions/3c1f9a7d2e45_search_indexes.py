"""search indexes: pg_trgm GIN indexes on PostgreSQL, FTS5 tables on SQLite

Revision ID: 3c1f9a7d2e45
Revises: b626bef8de9d
Create Date: 2026-11-23 01:30:00.000000

The statements come from models.dialect, the one place that knows the search structures, so a
database migrated here and one built by ``flask seed`` (create_all) hold the same ones. Upgrade
also fills SQLite's FTS5 tables from the rows already loaded (online mode only; with ``--sql``
run ``flask seed`` or an import afterwards to fill them). Downgrade drops them, and pg_trgm.
"""

from collections.abc import Sequence

from alembic import context, op

from models.dialect import rebuild_search_index, search_create_statements, search_drop_statements

# revision identifiers, used by Alembic.
revision: str = "3c1f9a7d2e45"
down_revision: str | Sequence[str] | None = "b626bef8de9d"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _dialect() -> str:
    return op.get_context().dialect.name


def upgrade() -> None:
    """Create the search structures and index the rows already there."""
    for statement in search_create_statements(_dialect()):
        op.execute(statement)
    if not context.is_offline_mode():
        rebuild_search_index(op.get_bind())


def downgrade() -> None:
    """Drop the search structures (and the pg_trgm extension)."""
    for statement in search_drop_statements(_dialect(), extension=True):
        op.execute(statement)

"""search entries get an index on (kind, state)

Revision ID: a3d5e7f9b1c2
Revises: f2a6c8e413b9
Create Date: 2026-11-25 11:10:00.000000

A search of one kind in one state (``type=deals&state=CA``) reads that state's entries of the
kind through this index, instead of every name the text index finds for the query in all
states. The entries are derived data, but the index is part of the table: an existing database
gets it here, and later rebuilds of the entries keep it.
"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "a3d5e7f9b1c2"
down_revision: str | Sequence[str] | None = "f2a6c8e413b9"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "ix_search_entries_kind_state"


def upgrade() -> None:
    # A table that create_all built for a load (revision 9b6e2f0c5d13) has it already.
    op.create_index(NAME, "search_entries", ["kind", "state"], if_not_exists=True)


def downgrade() -> None:
    op.drop_index(NAME, table_name="search_entries")

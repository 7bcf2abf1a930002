"""dispensaries by state in list order: (state, sort_key, id) replaces the index on state alone

Revision ID: 5e2b8c41d0a7
Revises: 3c1f9a7d2e45
Create Date: 2026-11-23 13:30:00.000000

GET /dispensaries?state= reads one state's rows by name: with this index the database walks
them in order and stops after the page instead of sorting every row of the state. The index
still serves equality on state alone (its first column), so the old one goes.
"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "5e2b8c41d0a7"
down_revision: str | Sequence[str] | None = "3c1f9a7d2e45"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # IF (NOT) EXISTS: a database built by ``flask seed`` (create_all) may have it already.
    op.create_index(
        "ix_dispensaries_state_sort_key_id",
        "dispensaries",
        ["state", "sort_key", "id"],
        unique=False,
        if_not_exists=True,
    )
    op.drop_index("ix_dispensaries_state", table_name="dispensaries", if_exists=True)


def downgrade() -> None:
    op.create_index(
        "ix_dispensaries_state", "dispensaries", ["state"], unique=False, if_not_exists=True
    )
    op.drop_index("ix_dispensaries_state_sort_key_id", table_name="dispensaries", if_exists=True)

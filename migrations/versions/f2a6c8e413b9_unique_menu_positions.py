"""menu positions are unique per dispensary: the (dispensary_id, position) index becomes unique

Revision ID: f2a6c8e413b9
Revises: d7f3a9c51e20
Create Date: 2026-11-25 09:40:00.000000

A menu's first N items are read as ``position < N`` (an index range) instead of numbering every
item of the dispensaries with a window function. That is exact because the writers number a
dispensary's items 0, 1, 2, ...; the unique index makes two items sharing a place an error
instead of a silently longer menu. Seed and import have always written distinct positions, so
an existing database upgrades without changes to its rows.
"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "f2a6c8e413b9"
down_revision: str | Sequence[str] | None = "d7f3a9c51e20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "ix_menu_items_dispensary_id_position"
COLUMNS = ["dispensary_id", "position"]


def upgrade() -> None:
    op.drop_index(NAME, table_name="menu_items")
    op.create_index(NAME, "menu_items", COLUMNS, unique=True)


def downgrade() -> None:
    op.drop_index(NAME, table_name="menu_items")
    op.create_index(NAME, "menu_items", COLUMNS, unique=False)

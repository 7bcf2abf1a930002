"""strain trait sort keys: effect and flavor rows carry their strain's sort key

Revision ID: 6d1e8b3f7a20
Revises: 4f7c2e9a1b63
Create Date: 2026-11-26 07:50:00.000000

GET /strains with one effect or flavor walks that word's trait rows in name order, through an
index on (name, sort_key, strain_id, type, thc, cbd), and stops once the page is full: each
row holds a copy of its strain's sort key, set by every load (seed.generate.Dataset.tables)
and filled here for rows loaded before.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "6d1e8b3f7a20"
down_revision: str | Sequence[str] | None = "4f7c2e9a1b63"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TRAITS = ("strain_effects", "strain_flavors")
WALK = ["name", "sort_key", "strain_id", "type", "thc", "cbd"]


def _sort_key_type() -> sa.String:
    # models.base.sort_key_type: compared byte by byte on PostgreSQL too.
    return sa.String(length=120).with_variant(sa.String(length=120, collation="C"), "postgresql")


def upgrade() -> None:
    for table in TRAITS:
        present = {column["name"] for column in sa.inspect(op.get_bind()).get_columns(table)}
        # A database built by ``flask seed`` (create_all) may have the column already.
        with op.batch_alter_table(table) as batch_op:
            if "sort_key" not in present:
                batch_op.add_column(sa.Column("sort_key", _sort_key_type(), nullable=True))
        op.execute(
            f"UPDATE {table} SET sort_key = "
            f"(SELECT strains.sort_key FROM strains WHERE strains.id = {table}.strain_id)"
        )
        with op.batch_alter_table(table) as batch_op:
            batch_op.alter_column("sort_key", existing_type=_sort_key_type(), nullable=False)
        op.create_index(f"ix_{table}_walk", table, WALK, if_not_exists=True)


def downgrade() -> None:
    for table in TRAITS:
        op.drop_index(f"ix_{table}_walk", table_name=table, if_exists=True)
        with op.batch_alter_table(table) as batch_op:
            batch_op.drop_column("sort_key")

"""strain trait lists: each strain keeps its effect and flavor names in position order

Revision ID: e5b7c2d94a18
Revises: c4d8a1f07e26
Create Date: 2026-11-24 10:05:00.000000

A strain list page read each strain's effects and flavors by aggregating its trait rows (two
subqueries per strain); the strain row now carries both lists, set by every load
(seed.generate.Dataset.tables) and filled here for strains loaded before.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "e5b7c2d94a18"
down_revision: str | Sequence[str] | None = "c4d8a1f07e26"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LISTS = {"effect_list": "strain_effects", "flavor_list": "strain_flavors"}


def _names_in_order(dialect: str, table: str) -> str:
    """SQL for the JSON array of a strain's names from ``table``, in position order."""
    if dialect == "postgresql":
        return (
            f"(SELECT coalesce(json_agg(t.name ORDER BY t.position), '[]'::json) "
            f"FROM {table} t WHERE t.strain_id = strains.id)"
        )
    # SQLite before 3.44 cannot order inside an aggregate: aggregate an ordered subquery.
    return (
        f"(SELECT json_group_array(listed.name) FROM (SELECT t.name AS name FROM {table} t "
        f"WHERE t.strain_id = strains.id ORDER BY t.position) AS listed)"
    )


def upgrade() -> None:
    bind = op.get_bind()
    present = {column["name"] for column in sa.inspect(bind).get_columns("strains")}
    # A database built by ``flask seed`` (create_all) may have the columns already.
    missing = [name for name in LISTS if name not in present]
    with op.batch_alter_table("strains") as batch_op:
        for name in missing:
            batch_op.add_column(sa.Column(name, sa.JSON(), nullable=True))
    for name, table in LISTS.items():
        op.execute(f"UPDATE strains SET {name} = {_names_in_order(bind.dialect.name, table)}")
    with op.batch_alter_table("strains") as batch_op:
        for name in LISTS:
            batch_op.alter_column(name, existing_type=sa.JSON(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("strains") as batch_op:
        for name in LISTS:
            batch_op.drop_column(name)

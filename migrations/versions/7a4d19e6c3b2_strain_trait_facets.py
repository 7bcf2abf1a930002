"""strain trait facets: effect and flavor rows carry their strain's type, THC and CBD

Revision ID: 7a4d19e6c3b2
Revises: 5e2b8c41d0a7
Create Date: 2026-11-23 14:15:00.000000

GET /strains with an effect or flavor filter counts its matches from that trait's rows alone,
through an index on (name, type, thc, cbd): each row holds a copy of its strain's values, set by
every load (seed.generate.Dataset.tables) and filled here for rows loaded before.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "7a4d19e6c3b2"
down_revision: str | Sequence[str] | None = "5e2b8c41d0a7"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TRAITS = ("strain_effects", "strain_flavors")
FACETS = (("type", sa.String(length=10)), ("thc", sa.Float()), ("cbd", sa.Float()))


def upgrade() -> None:
    for table in TRAITS:
        present = {column["name"] for column in sa.inspect(op.get_bind()).get_columns(table)}
        # A database built by ``flask seed`` (create_all) may have the columns already.
        missing = [(name, kind) for name, kind in FACETS if name not in present]
        with op.batch_alter_table(table) as batch_op:
            for name, kind in missing:
                batch_op.add_column(sa.Column(name, kind, nullable=True))
        for name, _kind in FACETS:
            op.execute(
                f"UPDATE {table} SET {name} = "
                f"(SELECT strains.{name} FROM strains WHERE strains.id = {table}.strain_id)"
            )
        with op.batch_alter_table(table) as batch_op:
            for name, kind in FACETS:
                batch_op.alter_column(name, existing_type=kind, nullable=False)
        op.create_index(
            f"ix_{table}_facets", table, ["name", "type", "thc", "cbd"], if_not_exists=True
        )


def downgrade() -> None:
    for table in TRAITS:
        op.drop_index(f"ix_{table}_facets", table_name=table, if_exists=True)
        with op.batch_alter_table(table) as batch_op:
            for name, _kind in FACETS:
                batch_op.drop_column(name)

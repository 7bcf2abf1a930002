"""search pair count index: a short query's total counted from an index alone (PostgreSQL)

Revision ID: a9e3c5b7d1f4
Revises: 8c2f4a6e1d35
Create Date: 2026-11-26 10:20:00.000000

The total of a one- or two-character search counts its piece's rows in ``search_pairs`` that
are live and in scope; the primary key (pair, rank, position) lacks the expiry, kind and state,
so PostgreSQL read every such row from the table (about 3 ms for 16,000). An index on (pair,
expires, kind, state) answers the count alone. SQLite's pairs table is its own primary key and
holds those columns: nothing to do there.
"""

from collections.abc import Sequence

from alembic import op

from models.search.structures import PG_PAIR_COUNT_CREATE, PG_PAIR_COUNT_INDEX

# revision identifiers, used by Alembic.
revision: str = "a9e3c5b7d1f4"
down_revision: str | Sequence[str] | None = "8c2f4a6e1d35"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _postgresql() -> bool:
    return op.get_context().dialect.name == "postgresql"


def upgrade() -> None:
    if _postgresql():
        op.execute(PG_PAIR_COUNT_CREATE)


def downgrade() -> None:
    if _postgresql():
        op.execute(f"DROP INDEX IF EXISTS {PG_PAIR_COUNT_INDEX}")

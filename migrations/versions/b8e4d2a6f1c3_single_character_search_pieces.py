"""single-character search pieces: search_pairs also holds each entry under each of its characters

Revision ID: b8e4d2a6f1c3
Revises: a3d5e7f9b1c2
Create Date: 2026-11-25 20:50:00.000000

A search of one character (what a search-as-you-type box sends first) is served by the same
table as one of two: its rows are refilled from the search entries (online mode; with ``--sql``
run ``flask seed`` or an import afterwards). The table's shape does not change.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

from models.search.rebuild import refill_search_pairs

# revision identifiers, used by Alembic.
revision: str = "b8e4d2a6f1c3"
down_revision: str | Sequence[str] | None = "a3d5e7f9b1c2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if not context.is_offline_mode():
        refill_search_pairs(op.get_bind())


def downgrade() -> None:
    """Keep the two-character rows only."""
    op.execute(sa.text("DELETE FROM search_pairs WHERE length(pair) = 1"))

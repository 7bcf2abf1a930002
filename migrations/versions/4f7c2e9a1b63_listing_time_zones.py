"""listing time zones: every dispensary and doctor has the IANA zone of its address

Revision ID: 4f7c2e9a1b63
Revises: b8e4d2a6f1c3
Create Date: 2026-11-26 09:00:00.000000

Opening hours are wall-clock times in the shop's own zone (service.hours). Every load sets the
zone (seed.places.location_columns, or an import's ``timezone`` field); rows loaded before get
their ZIP code's zone here (service.geo.zip_timezone), worked out in Python and written in
batches. With ``--sql`` the rows cannot be read, so each state's most common zone is written.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

from service.geo import JURISDICTIONS, zip_timezone

# revision identifiers, used by Alembic.
revision: str = "4f7c2e9a1b63"
down_revision: str | Sequence[str] | None = "b8e4d2a6f1c3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("dispensaries", "doctors")
ZONE = sa.String(length=64)
BATCH_SIZE = 1000


def _fill_from_zip_codes(table: str) -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.text(f"SELECT id, zip, state FROM {table} WHERE timezone IS NULL"))
    values = [{"id": id_, "zone": zip_timezone(zip_code, state)} for id_, zip_code, state in rows]
    update = sa.text(f"UPDATE {table} SET timezone = :zone WHERE id = :id")
    for start in range(0, len(values), BATCH_SIZE):
        bind.execute(update, values[start : start + BATCH_SIZE])


def _fill_by_state(table: str) -> None:
    for code in sorted(JURISDICTIONS):
        zone = zip_timezone("", code)  # no ZIP code: the state's most common zone
        op.execute(
            f"UPDATE {table} SET timezone = '{zone}' WHERE state = '{code}' AND timezone IS NULL"
        )


def upgrade() -> None:
    offline = context.is_offline_mode()
    for table in TABLES:
        present = (
            set() if offline else {c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)}
        )
        # A database built by ``flask seed`` (create_all) may have the column already.
        if "timezone" not in present:
            with op.batch_alter_table(table) as batch_op:
                batch_op.add_column(sa.Column("timezone", ZONE, nullable=True))
        if offline:
            _fill_by_state(table)
        else:
            _fill_from_zip_codes(table)
        with op.batch_alter_table(table) as batch_op:
            batch_op.alter_column("timezone", existing_type=ZONE, nullable=False)


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch_op:
            batch_op.drop_column("timezone")

"""dispensary open spans: each dispensary's openings of the week, and the zones they are in

Revision ID: 8c2f4a6e1d35
Revises: 6d1e8b3f7a20
Create Date: 2026-11-26 10:30:00.000000

``open_now`` and ``open_at`` keep the open dispensaries in SQL away from a change of UTC offset:
each opening is a span of seconds after Monday 00:00 in the shop's wall time
(service.hours.weekly_spans), and a request gives each zone's moment of the week. Every load
writes both tables (seed.generate.Dataset.tables); rows loaded before get theirs here, worked
out in Python. With ``--sql`` the rows cannot be read: the tables stay empty, and with no zones
listed every request tests the hours in Python as before, until the next load.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

from service.hours import hours_from_text, weekly_spans

# revision identifiers, used by Alembic.
revision: str = "8c2f4a6e1d35"
down_revision: str | Sequence[str] | None = "6d1e8b3f7a20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH_SIZE = 5000


def upgrade() -> None:
    offline = context.is_offline_mode()
    # A database built by ``flask seed`` (create_all) may have both, filled by its load.
    if not offline and sa.inspect(op.get_bind()).has_table("dispensary_open_spans"):
        return
    op.create_table(
        "dispensary_open_spans",
        sa.Column("dispensary_id", sa.Integer(), nullable=False),
        sa.Column("starts", sa.Integer(), nullable=False),
        sa.Column("ends", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["dispensary_id"],
            ["dispensaries.id"],
            name=op.f("fk_dispensary_open_spans_dispensary_id_dispensaries"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "dispensary_id", "starts", "ends", name=op.f("pk_dispensary_open_spans")
        ),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "dispensary_time_zones",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_dispensary_time_zones")),
    )
    if offline:
        return
    bind = op.get_bind()
    shops = bind.execute(sa.text("SELECT id, CAST(hours AS TEXT), timezone FROM dispensaries"))
    spans, zones = [], set()
    for id_, hours, zone in shops:
        zones.add(zone)
        spans += [
            {"id": id_, "starts": starts, "ends": ends}
            for starts, ends in weekly_spans(hours_from_text(hours))
        ]
    insert = sa.text(
        "INSERT INTO dispensary_open_spans (dispensary_id, starts, ends) "
        "VALUES (:id, :starts, :ends)"
    )
    for start in range(0, len(spans), BATCH_SIZE):
        bind.execute(insert, spans[start : start + BATCH_SIZE])
    if zones:
        names = [{"name": zone} for zone in sorted(zones)]
        bind.execute(sa.text("INSERT INTO dispensary_time_zones (name) VALUES (:name)"), names)


def downgrade() -> None:
    op.drop_table("dispensary_time_zones")
    op.drop_table("dispensary_open_spans")

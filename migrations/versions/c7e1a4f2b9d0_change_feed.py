"""change feed: the change log, the feed state, menu stamps and updated_at indexes

Revision ID: c7e1a4f2b9d0
Revises: a9e3c5b7d1f4
Create Date: 2026-11-28 04:10:00.000000

Adds ``changes`` (each served object's latest change) and ``feed_state``, a dispensary's
``menu_updated_at``, and an (updated_at, id) index per served table for ``updated_since`` and
``sort=updated_at``. A database loaded before gets a log of its current objects, each an upsert
at its present ``updated_at``, in a new epoch. Its digests stay empty: the next load has nothing
to compare with and restamps every object once, then compares by content from then on.
"""

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "c7e1a4f2b9d0"
down_revision: str | Sequence[str] | None = "a9e3c5b7d1f4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_STAMPED = (
    ("strains", "id"),
    ("dispensaries", "id"),
    ("deals", "id"),
    ("doctors", "id"),
    ("laws", "state_code"),
)
# (kind, table, public key) in the order the backfill numbers them.
_KINDS = (
    ("law", "laws", "state_code"),
    ("strain", "strains", "slug"),
    ("dispensary", "dispensaries", "public_id"),
    ("deal", "deals", "public_id"),
    ("doctor", "doctors", "public_id"),
)


def upgrade() -> None:
    # A load at an older revision builds the models' current tables (create_all): leave
    # whatever already has its final shape.
    inspector = sa.inspect(op.get_bind())
    if not inspector.has_table("changes"):
        _create_feed_tables()
    if "menu_updated_at" not in {c["name"] for c in inspector.get_columns("dispensaries")}:
        with op.batch_alter_table("dispensaries") as batch:
            batch.add_column(
                sa.Column("menu_updated_at", sa.DateTime(timezone=True), nullable=True)
            )
        op.execute("UPDATE dispensaries SET menu_updated_at = updated_at")
        with op.batch_alter_table("dispensaries") as batch:
            batch.alter_column("menu_updated_at", nullable=False)
    for table, key in _STAMPED:
        name = f"ix_{table}_updated_at_{key}"
        if name not in {i["name"] for i in inspector.get_indexes(table)}:
            op.create_index(name, table, ["updated_at", key])
    if op.get_bind().execute(sa.text("SELECT count(*) FROM feed_state")).scalar() == 0:
        _backfill()


def _create_feed_tables() -> None:
    op.create_table(
        "changes",
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("kind", sa.String(length=12), nullable=False),
        sa.Column("key", sa.String(length=120), nullable=False),
        sa.Column("op", sa.String(length=6), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("menu_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("digest", sa.String(length=32), nullable=True),
        sa.Column("menu_digest", sa.String(length=32), nullable=True),
        sa.CheckConstraint(
            "kind IN ('strain', 'dispensary', 'deal', 'doctor', 'law')",
            name=op.f("ck_changes_kind"),
        ),
        sa.CheckConstraint("op IN ('upsert', 'delete')", name=op.f("ck_changes_op")),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_changes")),
    )
    op.create_index("ix_changes_kind_key", "changes", ["kind", "key"], unique=True)
    op.create_index("ix_changes_kind_seq", "changes", ["kind", "seq"])
    op.create_table(
        "feed_state",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("epoch", sa.String(length=16), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.Column("horizon", sa.Integer(), nullable=False),
        sa.Column("as_of", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_feed_state")),
    )


def _backfill() -> None:
    """Log every current object as an upsert at its updated_at, if any data is loaded."""
    conn = op.get_bind()
    seq = 0
    for kind, table, key in _KINDS:
        menu = ", menu_updated_at" if table == "dispensaries" else ""
        found = conn.execute(sa.text(f"SELECT {key}, updated_at{menu} FROM {table} ORDER BY {key}"))
        rows = [
            {
                "seq": (seq := seq + 1),
                "kind": kind,
                "key": row[0],
                "at": row[1],
                "menu_at": row[2] if menu else None,
            }
            for row in found
        ]
        if rows:
            conn.execute(
                sa.text(
                    "INSERT INTO changes (seq, kind, key, op, at, menu_at) "
                    "VALUES (:seq, :kind, :key, 'upsert', :at, :menu_at)"
                ),
                rows,
            )
    if seq:
        conn.execute(
            sa.text(
                "INSERT INTO feed_state (id, epoch, last_seq, horizon, as_of) "
                "VALUES (1, :epoch, :seq, 0, (SELECT max(at) FROM changes))"
            ),
            {"epoch": secrets.token_hex(4), "seq": seq},
        )


def downgrade() -> None:
    for table, key in _STAMPED:
        op.drop_index(f"ix_{table}_updated_at_{key}", table_name=table)
    with op.batch_alter_table("dispensaries") as batch:
        batch.drop_column("menu_updated_at")
    op.drop_table("feed_state")
    op.drop_index("ix_changes_kind_seq", table_name="changes")
    op.drop_index("ix_changes_kind_key", table_name="changes")
    op.drop_table("changes")

"""chemistry and lineage: a strain's typical chemistry and parents, a menu item's lab batch

Revision ID: d1a7c3e5b9f2
Revises: c7e1a4f2b9d0
Create Date: 2026-11-28 07:20:00.000000

Adds to ``strains`` its ``origin`` (every stored strain becomes ``unknown``), ``chemistry`` (None:
no samples) and the copies lists filter on (``dominant_terpene``, ``ratio``, ``cbg``, ``cbn``,
``thcv``, ``cbc``); the table ``strain_parents`` (one row per edge of the lineage); and to
``menu_items`` its ``lab`` batch with the copies ``total_thc``, ``total_cbd`` and
``price_per_gram``. Rows loaded before have no chemistry, parents or lab, so their copies stay
None but ``price_per_gram``, which is filled here from the price and the unit as a load does.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "d1a7c3e5b9f2"
down_revision: str | Sequence[str] | None = "c7e1a4f2b9d0"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_STRAIN_COLUMNS = (
    ("chemistry", sa.JSON()),
    ("dominant_terpene", sa.String(length=20)),
    ("ratio", sa.String(length=12)),
    ("cbg", sa.Float()),
    ("cbn", sa.Float()),
    ("thcv", sa.Float()),
    ("cbc", sa.Float()),
)
_MENU_COLUMNS = (
    ("lab", sa.JSON()),
    ("total_thc", sa.Float()),
    ("total_cbd", sa.Float()),
    ("price_per_gram", sa.Float()),
)
_STRAIN_CHECKS = {
    "origin": "origin IN ('cross', 'landrace', 'phenotype', 'unknown')",
    "ratio": "ratio IN ('thc_dominant', 'cbd_dominant', 'balanced')",
}
_STRAIN_INDEXES = ("dominant_terpene", "ratio", "cbg", "cbn", "thcv", "cbc")
# A strain's items per dispensary with what its shelf filters and sorts on (models.MenuItem).
_MENU_INDEX = "ix_menu_items_strain_id_dispensary_id"
_MENU_INDEX_COLUMNS = ["strain_id", "dispensary_id", "total_thc", "price_per_gram"]
# service.compounds.GRAMS_PER_UNIT, as it stood when this revision was written.
_GRAMS = {"1g": 1.0, "3.5g": 3.5, "7g": 7.0, "14g": 14.0, "28g": 28.0, "1oz": 28.0}


def upgrade() -> None:
    # A load at an older revision builds the models' current tables (create_all): leave
    # whatever already has its final shape.
    inspector = sa.inspect(op.get_bind())
    strain_columns = {c["name"] for c in inspector.get_columns("strains")}
    strain_checks = {c["name"] for c in inspector.get_check_constraints("strains")}
    with op.batch_alter_table("strains") as batch:
        if "origin" not in strain_columns:
            batch.add_column(
                sa.Column("origin", sa.String(length=10), nullable=False, server_default="unknown")
            )
        for name, type_ in _STRAIN_COLUMNS:
            if name not in strain_columns:
                batch.add_column(sa.Column(name, type_, nullable=True))
        for name, condition in _STRAIN_CHECKS.items():
            if f"ck_strains_{name}" not in strain_checks:
                batch.create_check_constraint(op.f(f"ck_strains_{name}"), condition)
    strain_indexes = {i["name"] for i in inspector.get_indexes("strains")}
    for name in _STRAIN_INDEXES:
        if f"ix_strains_{name}" not in strain_indexes:
            op.create_index(f"ix_strains_{name}", "strains", [name])
    if not inspector.has_table("strain_parents"):
        _create_parents_table()
    menu_columns = {c["name"] for c in inspector.get_columns("menu_items")}
    with op.batch_alter_table("menu_items") as batch:
        for name, type_ in _MENU_COLUMNS:
            if name not in menu_columns:
                batch.add_column(sa.Column(name, type_, nullable=True))
    if _MENU_INDEX not in {i["name"] for i in inspector.get_indexes("menu_items")}:
        op.create_index(_MENU_INDEX, "menu_items", _MENU_INDEX_COLUMNS)
    _fill_prices_per_gram()


def _create_parents_table() -> None:
    op.create_table(
        "strain_parents",
        sa.Column("strain_id", sa.Integer(), nullable=False),
        sa.Column("parent_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.CheckConstraint("strain_id <> parent_id", name=op.f("ck_strain_parents_not_own_parent")),
        sa.ForeignKeyConstraint(
            ["parent_id"],
            ["strains.id"],
            name=op.f("fk_strain_parents_parent_id_strains"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["strain_id"],
            ["strains.id"],
            name=op.f("fk_strain_parents_strain_id_strains"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("strain_id", "parent_id", name=op.f("pk_strain_parents")),
    )
    op.create_index(
        "ix_strain_parents_parent_id_strain_id", "strain_parents", ["parent_id", "strain_id"]
    )


def _fill_prices_per_gram() -> None:
    """Items of a weight unit stored before get the price per gram a load gives them."""
    conn = op.get_bind()
    found = conn.execute(
        sa.text("SELECT id, price, unit FROM menu_items WHERE price_per_gram IS NULL")
    )
    rows = []
    for item_id, price, unit in found:
        grams = _GRAMS.get(unit.replace(" ", "").lower())
        if grams is not None:
            rows.append({"id": item_id, "per_gram": round(price / grams, 2)})
    if rows:
        conn.execute(
            sa.text("UPDATE menu_items SET price_per_gram = :per_gram WHERE id = :id"), rows
        )


def downgrade() -> None:
    if _MENU_INDEX in {i["name"] for i in sa.inspect(op.get_bind()).get_indexes("menu_items")}:
        op.drop_index(_MENU_INDEX, table_name="menu_items")
    with op.batch_alter_table("menu_items") as batch:
        for name, _type in reversed(_MENU_COLUMNS):
            batch.drop_column(name)
    op.drop_index("ix_strain_parents_parent_id_strain_id", table_name="strain_parents")
    op.drop_table("strain_parents")
    for name in _STRAIN_INDEXES:
        op.drop_index(f"ix_strains_{name}", table_name="strains")
    with op.batch_alter_table("strains") as batch:
        for name in _STRAIN_CHECKS:
            batch.drop_constraint(op.f(f"ck_strains_{name}"), type_="check")
        for name, _type in reversed(_STRAIN_COLUMNS):
            batch.drop_column(name)
        batch.drop_column("origin")

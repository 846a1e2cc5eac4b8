"""dispatch floor: units and their assignments (the times of each status), the incident's dispatch time, call-back
number, folded address, patient age, duplicate and merge links and text revision; classifications per text revision

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-28 08:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INCIDENT_COLUMNS = (
    "dispatched_at",
    "callback_number",
    "callback_key",
    "address_key",
    "patient_age_years",
    "possible_duplicate_of",
    "merged_into",
    "text_revision",
)


def upgrade() -> None:
    _units()
    # In place (nullable columns, constant defaults), as in 0004: rebuilding `incidents` would fail on the foreign keys
    # of the rows that refer to it. The two links to other incidents are plain ids for the same reason (SQLite drops
    # a column that is part of a foreign key only by rebuilding the table); incidents are never deleted.
    with op.batch_alter_table("incidents", schema=None) as batch_op:
        batch_op.add_column(sa.Column("dispatched_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("callback_number", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("callback_key", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("address_key", sa.String(length=255), nullable=True))
        batch_op.add_column(sa.Column("patient_age_years", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("possible_duplicate_of", sa.String(length=36), nullable=True))
        batch_op.add_column(sa.Column("merged_into", sa.String(length=36), nullable=True))
        batch_op.add_column(sa.Column("text_revision", sa.Integer(), server_default="0", nullable=False))
        batch_op.create_index("ix_incidents_callback_key", ["callback_key"], unique=False)
        batch_op.create_index("ix_incidents_address_key", ["address_key"], unique=False)
    # Rebuilt (SQLite changes a unique constraint only so): nothing refers to classifications.
    with op.batch_alter_table("classifications", schema=None, recreate="always") as batch_op:
        batch_op.add_column(sa.Column("text_revision", sa.Integer(), server_default="0", nullable=False))
        batch_op.drop_constraint("uq_classifications_incident_model", type_="unique")
        batch_op.create_unique_constraint(
            "uq_classifications_incident_model", ["incident_id", "model_version", "text_revision"]
        )


def _units() -> None:
    op.create_table(
        "units",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("station", sa.String(length=64), server_default="", nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("status_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("incident_id", sa.String(length=36), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["incident_id"], ["incidents.id"], name="fk_units_incident_id_incidents"),
        sa.PrimaryKeyConstraint("name", name="pk_units"),
    )
    op.create_index("ix_units_incident_id", "units", ["incident_id"], unique=False)
    op.create_table(
        "unit_assignments",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("incident_id", sa.String(length=36), nullable=False),
        sa.Column("unit_name", sa.String(length=32), nullable=False),
        sa.Column("dispatched_by", sa.String(length=128), nullable=False),
        sa.Column("dispatched_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("en_route_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("on_scene_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("transporting_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("at_hospital_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("cleared_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["incident_id"], ["incidents.id"], name="fk_unit_assignments_incident_id_incidents"),
        sa.ForeignKeyConstraint(["unit_name"], ["units.name"], name="fk_unit_assignments_unit_name_units"),
        sa.PrimaryKeyConstraint("id", name="pk_unit_assignments"),
    )
    op.create_index("ix_unit_assignments_incident_id", "unit_assignments", ["incident_id"], unique=False)
    op.create_index("ix_unit_assignments_unit_name", "unit_assignments", ["unit_name"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("classifications", schema=None, recreate="always") as batch_op:
        batch_op.drop_constraint("uq_classifications_incident_model", type_="unique")
        batch_op.create_unique_constraint("uq_classifications_incident_model", ["incident_id", "model_version"])
        batch_op.drop_column("text_revision")
    op.drop_index("ix_incidents_address_key", table_name="incidents")
    op.drop_index("ix_incidents_callback_key", table_name="incidents")
    # SQLite (3.35+) drops a column in place, as migration 0004 explains.
    for column in reversed(INCIDENT_COLUMNS):
        op.drop_column("incidents", column)
    op.drop_index("ix_unit_assignments_unit_name", table_name="unit_assignments")
    op.drop_index("ix_unit_assignments_incident_id", table_name="unit_assignments")
    op.drop_table("unit_assignments")
    op.drop_index("ix_units_incident_id", table_name="units")
    op.drop_table("units")

"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-21 06:25:14.478204
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("name", name=op.f("uq_users_name")),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("user_id", sa.String(length=36), nullable=False),
        sa.Column("token_sha256", sa.String(length=64), nullable=False),
        sa.Column("label", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_api_tokens_user_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_tokens")),
        sa.UniqueConstraint("token_sha256", name=op.f("uq_api_tokens_token_sha256")),
    )
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_tokens_user_id"), ["user_id"], unique=False)

    op.create_table(
        "incidents",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("source", sa.String(length=64), nullable=False),
        sa.Column("webhook_id", sa.String(length=255), nullable=False),
        sa.Column("call_id", sa.String(length=255), nullable=True),
        sa.Column("caller", sa.String(length=255), nullable=True),
        sa.Column("location", sa.String(length=1024), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("accepted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("esi_level", sa.Integer(), nullable=True),
        sa.Column("model_level", sa.Integer(), nullable=True),
        sa.Column("override_level", sa.Integer(), nullable=True),
        sa.Column("predicted_output_tokens", sa.Integer(), nullable=True),
        sa.Column("chief_complaint", sa.String(length=255), nullable=True),
        sa.Column("classified_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("queued_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("guidance_state", sa.String(length=16), nullable=False),
        sa.Column("claimed_by", sa.String(length=36), nullable=True),
        sa.ForeignKeyConstraint(["claimed_by"], ["users.id"], name=op.f("fk_incidents_claimed_by_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_incidents")),
        sa.UniqueConstraint("source", "webhook_id", name="uq_incidents_source_webhook_id"),
    )
    with op.batch_alter_table("incidents", schema=None) as batch_op:
        batch_op.create_index("ix_incidents_open_order", ["status", "esi_level", "accepted_at"], unique=False)

    op.create_table(
        "classifications",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("incident_id", sa.String(length=36), nullable=False),
        sa.Column("esi_level", sa.Integer(), nullable=False),
        sa.Column("classifier_level", sa.Integer(), nullable=False),
        sa.Column("decision_point", sa.String(length=8), nullable=False),
        sa.Column("probabilities", sa.JSON(), nullable=False),
        sa.Column("evidence", sa.JSON(), nullable=False),
        sa.Column("predicted_output_tokens", sa.Integer(), nullable=False),
        sa.Column("model_version", sa.String(length=128), nullable=False),
        sa.Column("backend", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["incident_id"], ["incidents.id"], name=op.f("fk_classifications_incident_id_incidents")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_classifications")),
        sa.UniqueConstraint("incident_id", "model_version", name="uq_classifications_incident_model"),
    )
    with op.batch_alter_table("classifications", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_classifications_incident_id"), ["incident_id"], unique=False)

    op.create_table(
        "guidance",
        sa.Column("incident_id", sa.String(length=36), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("model", sa.String(length=255), nullable=False),
        sa.Column("prompt_version", sa.String(length=64), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["incident_id"], ["incidents.id"], name=op.f("fk_guidance_incident_id_incidents")),
        sa.PrimaryKeyConstraint("incident_id", name=op.f("pk_guidance")),
    )
    op.create_table(
        "incident_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("incident_id", sa.String(length=36), nullable=True),
        sa.Column("actor", sa.String(length=128), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("before", sa.JSON(), nullable=True),
        sa.Column("after", sa.JSON(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["incident_id"], ["incidents.id"], name=op.f("fk_incident_events_incident_id_incidents")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_incident_events")),
    )
    with op.batch_alter_table("incident_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_incident_events_action"), ["action"], unique=False)
        batch_op.create_index(batch_op.f("ix_incident_events_created_at"), ["created_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_incident_events_incident_id"), ["incident_id"], unique=False)

    op.create_table(
        "outbox",
        sa.Column("incident_id", sa.String(length=36), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["incident_id"], ["incidents.id"], name=op.f("fk_outbox_incident_id_incidents")),
        sa.PrimaryKeyConstraint("incident_id", name=op.f("pk_outbox")),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_outbox_done_at"), ["done_at"], unique=False)

    op.create_table(
        "outcomes",
        sa.Column("incident_id", sa.String(length=36), nullable=False),
        sa.Column("esi_level", sa.Integer(), nullable=False),
        sa.Column("queue_wait_s", sa.Double(), nullable=False),
        sa.Column("ttft_s", sa.Double(), nullable=True),
        sa.Column("total_s", sa.Double(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("evictions", sa.Integer(), nullable=False),
        sa.Column("deliveries", sa.Integer(), nullable=False),
        sa.Column("engine", sa.String(length=32), nullable=False),
        sa.Column("model", sa.String(length=255), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["incident_id"], ["incidents.id"], name=op.f("fk_outcomes_incident_id_incidents")),
        sa.PrimaryKeyConstraint("incident_id", name=op.f("pk_outcomes")),
    )


def downgrade() -> None:
    op.drop_table("outcomes")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_outbox_done_at"))

    op.drop_table("outbox")
    with op.batch_alter_table("incident_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_incident_events_incident_id"))
        batch_op.drop_index(batch_op.f("ix_incident_events_created_at"))
        batch_op.drop_index(batch_op.f("ix_incident_events_action"))

    op.drop_table("incident_events")
    op.drop_table("guidance")
    with op.batch_alter_table("classifications", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_classifications_incident_id"))

    op.drop_table("classifications")
    with op.batch_alter_table("incidents", schema=None) as batch_op:
        batch_op.drop_index("ix_incidents_open_order")

    op.drop_table("incidents")
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_tokens_user_id"))

    op.drop_table("api_tokens")
    op.drop_table("users")

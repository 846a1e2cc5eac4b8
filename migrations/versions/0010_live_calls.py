"""live calls: a call streamed utterance by utterance (its clock, the address and call-back number read from it, a
lower reading offered, the telecommunicator-CPR times), its final utterances and each track's latest partial

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-28 06:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "live_calls",
        sa.Column("incident_id", sa.String(length=36), nullable=False),
        sa.Column("source", sa.String(length=64), nullable=False),
        sa.Column("call_id", sa.String(length=255), nullable=False),
        sa.Column("vendor", sa.String(length=16), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_event_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("end_reason", sa.String(length=255), nullable=True),
        sa.Column("finals", sa.Integer(), nullable=False),
        sa.Column("triaged_finals", sa.Integer(), nullable=False),
        sa.Column("lower_level", sa.Integer(), nullable=True),
        sa.Column("lower_words", sa.JSON(), nullable=True),
        sa.Column("address", sa.String(length=1024), nullable=True),
        sa.Column("address_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("address_confirmed_by", sa.String(length=128), nullable=True),
        sa.Column("callback_number", sa.String(length=32), nullable=True),
        sa.Column("callback_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("callback_confirmed_by", sa.String(length=128), nullable=True),
        sa.Column("arrest_recognised_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("arrest_rule", sa.String(length=64), nullable=True),
        sa.Column("card_on_screen_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("dispatcher_arrest", sa.Boolean(), nullable=True),
        sa.Column("dispatcher_arrest_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("dispatcher_recognised_on_call", sa.Boolean(), nullable=True),
        sa.Column("first_compression_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["incident_id"], ["incidents.id"], name=op.f("fk_live_calls_incident_id_incidents")),
        sa.PrimaryKeyConstraint("incident_id", name=op.f("pk_live_calls")),
        sa.UniqueConstraint("source", "call_id", name="uq_live_calls_source_call_id"),
    )
    op.create_index(op.f("ix_live_calls_last_event_at"), "live_calls", ["last_event_at"], unique=False)
    op.create_table(
        "call_segments",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("incident_id", sa.String(length=36), nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("track", sa.String(length=16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("spoken_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("language", sa.String(length=16), nullable=True),
        sa.Column("confidence", sa.Double(), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("promoted", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["incident_id"], ["incidents.id"], name=op.f("fk_call_segments_incident_id_incidents")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_call_segments")),
        sa.UniqueConstraint("incident_id", "sequence", name="uq_call_segments_incident_id"),
    )
    op.create_index(op.f("ix_call_segments_incident_id"), "call_segments", ["incident_id"], unique=False)
    op.create_table(
        "call_partials",
        sa.Column("incident_id", sa.String(length=36), nullable=False),
        sa.Column("track", sa.String(length=16), nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("spoken_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["incident_id"], ["incidents.id"], name=op.f("fk_call_partials_incident_id_incidents")),
        sa.PrimaryKeyConstraint("incident_id", "track", name=op.f("pk_call_partials")),
    )


def downgrade() -> None:
    op.drop_table("call_partials")
    op.drop_index(op.f("ix_call_segments_incident_id"), table_name="call_segments")
    op.drop_table("call_segments")
    op.drop_index(op.f("ix_live_calls_last_event_at"), table_name="live_calls")
    op.drop_table("live_calls")

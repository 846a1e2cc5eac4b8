"""intake sources: suspension and rotated secrets

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24 06:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "intake_sources",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("suspended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("suspended_reason", sa.String(length=255), nullable=True),
        sa.Column("configured_secrets_until", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_intake_sources")),
    )
    op.create_table(
        "source_secrets",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("source", sa.String(length=64), nullable=False),
        sa.Column("secret", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["source"], ["intake_sources.name"], name=op.f("fk_source_secrets_source_intake_sources")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_source_secrets")),
    )
    op.create_index(op.f("ix_source_secrets_source"), "source_secrets", ["source"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_source_secrets_source"), table_name="source_secrets")
    op.drop_table("source_secrets")
    op.drop_table("intake_sources")

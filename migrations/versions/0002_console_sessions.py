"""console sessions

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21 06:51:38.626547
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "console_sessions",
        sa.Column("token_sha256", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.String(length=36), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_console_sessions_user_id_users")),
        sa.PrimaryKeyConstraint("token_sha256", name=op.f("pk_console_sessions")),
    )
    with op.batch_alter_table("console_sessions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_console_sessions_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("console_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_console_sessions_user_id"))

    op.drop_table("console_sessions")

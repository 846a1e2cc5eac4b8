"""triage review and resources

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 01:10:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Constant server defaults (not SQL expressions): SQLite then adds the columns in place instead of rebuilding the
    # tables, which would fail on the foreign keys of rows already stored.
    with op.batch_alter_table("classifications", schema=None) as batch_op:
        batch_op.add_column(sa.Column("needs_review", sa.Boolean(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("review_reason", sa.String(length=255), server_default="", nullable=False))
        batch_op.add_column(sa.Column("resources", sa.JSON(), server_default="[]", nullable=False))
        batch_op.add_column(sa.Column("resource_count", sa.Integer(), server_default="0", nullable=False))

    with op.batch_alter_table("incidents", schema=None) as batch_op:
        batch_op.add_column(sa.Column("needs_review", sa.Boolean(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("review_reason", sa.String(length=255), server_default="", nullable=False))


def downgrade() -> None:
    # Not in batch mode: SQLite (3.35+) drops a column in place, where rebuilding `incidents` would fail on the
    # foreign keys of the rows that refer to it.
    for table, column in (
        ("incidents", "review_reason"),
        ("incidents", "needs_review"),
        ("classifications", "resource_count"),
        ("classifications", "resources"),
        ("classifications", "review_reason"),
        ("classifications", "needs_review"),
    ):
        op.drop_column(table, column)

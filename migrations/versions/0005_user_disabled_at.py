"""user disabled at

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24 09:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A nullable column with no default: SQLite adds it in place (no rebuild of `users`, which tokens and sessions
    # refer to).
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    # Not in batch mode: SQLite (3.35+) drops a column in place, where rebuilding `users` would fail on the foreign
    # keys of the tokens and sessions that refer to it.
    op.drop_column("users", "disabled_at")

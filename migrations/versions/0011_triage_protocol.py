"""triage protocol: the chief-complaint protocol each classification read the call by, its key questions with whether
each was answered, and whether the call named no medical problem at all

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28 09:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Not in batch mode, as in 0007: SQLite adds a column with a constant default in place; classifications made
    # before this read back with no protocol, no key questions and as medical calls.
    op.add_column("classifications", sa.Column("protocol", sa.String(length=64), nullable=True))
    op.add_column("classifications", sa.Column("key_questions", sa.JSON(), nullable=False, server_default="[]"))
    op.add_column("classifications", sa.Column("non_medical", sa.Boolean(), nullable=False, server_default="0"))


def downgrade() -> None:
    # SQLite (3.35+) drops a column in place, as migration 0004 explains.
    op.drop_column("classifications", "non_medical")
    op.drop_column("classifications", "key_questions")
    op.drop_column("classifications", "protocol")

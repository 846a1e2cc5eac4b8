"""triage language: the language triage read each call in (en, es, or another one flagged for an interpreter)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24 07:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Not in batch mode: SQLite adds a column with a constant default in place (rebuilding `incidents` would fail on
    # the foreign keys of rows already stored); classifications made before this read back as English.
    op.add_column("classifications", sa.Column("language", sa.String(length=8), nullable=False, server_default="en"))
    op.add_column("incidents", sa.Column("language", sa.String(length=8), nullable=True))


def downgrade() -> None:
    # SQLite (3.35+) drops a column in place, as migration 0004 explains.
    op.drop_column("incidents", "language")
    op.drop_column("classifications", "language")
